"""The LTI endpoints over HTTP against the test platform: login, launch, keys, Canvas configuration.

The tool's handlers are served alone (tests/tornado_thread.py); the platform is tests/lti/platform.py.
A browser is played by hand here: the login cookie (``Secure``, which a client sends only over
HTTPS or to localhost) is carried from the login's answer to the launch explicitly.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from http.cookies import SimpleCookie
from urllib.parse import parse_qs, urlsplit

import jwt
import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import rsa

from app.course.library import lessons
from app.lti import CLAIM, DEEP_LINKING, SCORE_SCOPE
from app.lti.handlers import ROUTES
from app.lti.launches import class_scope, student_id
from app.lti.verify import DL_SETTINGS
from tests.lti.conftest import exercise_target, first_exercise
from tests.lti.platform import INSTRUCTOR
from tests.tornado_thread import serving


@pytest.fixture
def tool_url(platform, tool) -> Iterator[str]:
    with serving(ROUTES) as url:
        platform.tool_url = url
        yield url


def login(platform, tool_url: str, hint: str) -> tuple[requests.Response, SimpleCookie]:
    answer = requests.get(platform.login_url(hint, exercise_target(tool_url)), allow_redirects=False, timeout=60)
    cookie = SimpleCookie()
    cookie.load(answer.headers.get("Set-Cookie", ""))
    return answer, cookie


def launch_through_platform(platform, tool_url: str, hint: str, claims: dict) -> requests.Response:
    """The whole flow as a browser runs it: login, the platform's auth answer, the form post with the cookie."""
    platform.prepare(hint, claims)
    answer, cookie = login(platform, tool_url, hint)
    assert answer.status_code == 302, answer.text
    form = requests.get(answer.headers["Location"], timeout=60)
    assert form.status_code == 200, form.text
    fields = dict(re.findall(r"name='(id_token|state)' value='([^']*)'", form.text))
    header = "; ".join(f"{name}={morsel.value}" for name, morsel in cookie.items())
    return requests.post(
        f"{tool_url}/lti/launch", data=fields, headers={"Cookie": header}, allow_redirects=False, timeout=60
    )


def test_the_login_sets_a_cross_site_cookie_and_sends_the_oidc_request(platform, tool_url):
    platform.prepare("h1", platform.claims())
    answer, cookie = login(platform, tool_url, "h1")
    assert answer.status_code == 302
    location = urlsplit(answer.headers["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == f"{platform.url}/auth"
    query = {name: values[0] for name, values in parse_qs(location.query).items()}
    assert query["response_type"] == "id_token" and query["response_mode"] == "form_post"
    assert query["scope"] == "openid" and query["prompt"] == "none"
    assert query["client_id"] == platform.client_id and query["login_hint"] == "h1"
    assert query["lti_message_hint"] == "message-h1"
    assert query["redirect_uri"] == f"{tool_url}/lti/launch"
    assert query["state"] and query["nonce"] and query["state"] != query["nonce"]
    raw = answer.headers["Set-Cookie"].lower()
    assert "samesite=none" in raw and "secure" in raw and "httponly" in raw
    (morsel,) = cookie.values()
    assert query["state"] not in morsel.value or morsel.value.count(".") == 2  # a signed JWT, not the state alone


def test_the_login_works_as_a_form_post_too(platform, tool_url):
    body = {"iss": platform.issuer, "login_hint": "h", "target_link_uri": f"{tool_url}/lti/launch"}
    answer = requests.post(f"{tool_url}/lti/login", data=body, allow_redirects=False, timeout=60)
    assert answer.status_code == 302 and answer.headers["Location"].startswith(f"{platform.url}/auth?")


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ({}, "no iss"),
        ({"iss": "https://unknown.example", "login_hint": "h"}, "not registered"),
        ({"iss": "ISSUER", "client_id": "someone-else", "login_hint": "h"}, "not registered"),
        ({"iss": "ISSUER"}, "login_hint"),
    ],
)
def test_a_bad_login_is_refused_with_a_page(platform, tool_url, query, said, caplog):
    query = {name: platform.issuer if value == "ISSUER" else value for name, value in query.items()}
    with caplog.at_level(logging.WARNING, logger="app.lti"):
        answer = requests.get(f"{tool_url}/lti/login", params=query, allow_redirects=False, timeout=60)
    assert answer.status_code == 400
    assert said in answer.text and "Traceback" not in answer.text
    assert "Set-Cookie" not in answer.headers
    assert any("LTI login refused" in record.getMessage() for record in caplog.records)


def test_a_learners_launch_goes_to_the_exercise_with_a_one_time_code(platform, tool, tool_url):
    claims = platform.claims(target=exercise_target(tool_url), sub="learner-7", context="course-A")
    answer = launch_through_platform(platform, tool_url, "learner", claims)
    assert answer.status_code == 303, answer.text
    location = answer.headers["Location"]
    lesson, exercise = first_exercise()
    assert location.startswith(f"lesson?id={lesson}&code=")  # the lesson names the page's cached HTML
    code = parse_qs(urlsplit(location).query)["code"][0]
    assert "learner-7" not in location
    record = tool.state.take_launch(code)
    assert record["kind"] == "learner" and (record["lesson"], record["exercise"]) == (lesson, exercise)
    assert record["scope"] == class_scope(platform.issuer, platform.deployment_id, "course-A")
    assert record["student"] == student_id(platform.issuer, "learner-7")
    assert record["lineitem"] == platform.lineitem("1") and record["sub"] == "learner-7"
    assert tool.state.take_launch(code) is None  # once


def test_an_instructors_launch_goes_to_the_class_view(platform, tool, tool_url):
    claims = platform.claims(roles=(INSTRUCTOR,), target=exercise_target(tool_url))
    answer = launch_through_platform(platform, tool_url, "teacher", claims)
    assert answer.status_code == 303 and answer.headers["Location"].startswith("instructor?code=")


def test_a_custom_exercise_parameter_names_the_exercise(platform, tool, tool_url):
    lesson, exercise = first_exercise()
    claims = platform.claims(custom={"exercise": f"{lesson}/{exercise}"})  # the target is the bare launch URL
    answer = launch_through_platform(platform, tool_url, "custom", claims)
    assert answer.status_code == 303
    code = parse_qs(urlsplit(answer.headers["Location"]).query)["code"][0]
    assert tool.state.take_launch(code)["exercise"] == exercise


def test_a_learners_launch_naming_no_exercise_is_refused(platform, tool_url):
    answer = launch_through_platform(platform, tool_url, "nothing", platform.claims(target=f"{tool_url}/lti/launch"))
    assert answer.status_code == 400 and "names no exercise" in answer.text


def test_a_refused_launch_shows_why_and_nothing_of_the_course(platform, tool_url, caplog):
    claims = {**platform.claims(target=exercise_target(tool_url)), CLAIM + "deployment_id": "elsewhere"}
    with caplog.at_level(logging.WARNING, logger="app.lti"):
        answer = launch_through_platform(platform, tool_url, "bad", claims)
    assert answer.status_code == 401
    assert "deployment" in answer.text and "Location" not in answer.headers
    assert "Exercise" not in answer.text and "<script" not in answer.text
    assert any("LTI launch refused" in record.getMessage() for record in caplog.records)


def test_a_launch_without_the_login_cookie_is_refused(platform, tool_url):
    platform.prepare("c", platform.claims(target=exercise_target(tool_url)))
    answer, _cookie = login(platform, tool_url, "c")
    form = requests.get(answer.headers["Location"], timeout=60)
    fields = dict(re.findall(r"name='(id_token|state)' value='([^']*)'", form.text))
    refused = requests.post(f"{tool_url}/lti/launch", data=fields, allow_redirects=False, timeout=60)
    assert refused.status_code == 401 and "login cookie is missing" in refused.text


def test_a_launch_with_nothing_posted_is_refused(tool_url):
    answer = requests.post(f"{tool_url}/lti/launch", data={}, allow_redirects=False, timeout=60)
    assert answer.status_code == 400 and "no id_token" in answer.text


def test_the_tools_keys_verify_its_signatures(tool, tool_url):
    keys = requests.get(f"{tool_url}/lti/jwks", timeout=60).json()["keys"]
    registration = tool.config.all()[0]
    assert [key["kid"] for key in keys] == [registration.kid]
    assert {"n", "e", "kty", "alg", "use"} <= set(keys[0]) and "d" not in keys[0]  # the public half only
    signed = jwt.encode({"x": 1}, registration.private_key, algorithm="RS256")
    assert jwt.decode(signed, jwt.PyJWK(keys[0]), algorithms=["RS256"]) == {"x": 1}


def test_the_canvas_configuration_names_the_endpoints(tool_url):
    config = json.loads(requests.get(f"{tool_url}/lti/config.json", timeout=60).text)
    assert config["oidc_initiation_url"] == f"{tool_url}/lti/login"
    assert config["target_link_uri"] == f"{tool_url}/lti/launch"
    assert config["public_jwk_url"] == f"{tool_url}/lti/jwks"
    assert SCORE_SCOPE in config["scopes"]
    assert config["extensions"][0]["privacy_level"] == "anonymous"


def deep_linking_page(platform, tool_url: str, **settings) -> requests.Response:
    claims = platform.claims(roles=(INSTRUCTOR,), message_type=DEEP_LINKING)
    claims[DL_SETTINGS].update(settings)
    answer = launch_through_platform(platform, tool_url, "designer", claims)
    assert answer.status_code == 200, answer.text
    return answer


def test_a_deep_linking_launch_lists_the_exercises_and_answers_with_signed_links(platform, tool, tool_url):
    page = deep_linking_page(platform, tool_url)
    lessons_with_exercises = [lesson for lesson in lessons() if lesson.exercises]
    assert page.text.count("<fieldset>") == len(lessons_with_exercises)
    assert page.text.count('type="checkbox"') == sum(len(lesson.exercises) for lesson in lessons_with_exercises)
    token = re.search(r'name="pick_token" value="([^"]+)"', page.text).group(1)
    first, second = (f"{lesson.slug}/{lesson.exercises[0].id}" for lesson in lessons_with_exercises[:2])
    answer = requests.post(f"{tool_url}/lti/deep_link", data={"pick_token": token, "pick": [first, second]}, timeout=60)
    assert answer.status_code == 200, answer.text
    assert f'action="{platform.url}/deep_link_return"' in answer.text
    response = re.search(r'name="JWT" value="([^"]+)"', answer.text).group(1)
    back = requests.post(f"{platform.url}/deep_link_return", data={"JWT": response}, timeout=60)
    assert back.status_code == 200, back.text  # the platform verified it against the tool's /lti/jwks
    (claims,) = platform.deep_link_responses
    assert claims["iss"] == platform.client_id and claims["aud"] == platform.issuer
    assert claims[CLAIM + "message_type"] == "LtiDeepLinkingResponse" and claims[CLAIM + "version"] == "1.3.0"
    assert claims[CLAIM + "deployment_id"] == platform.deployment_id
    assert claims["https://purl.imsglobal.org/spec/lti-dl/claim/data"] == "platform-data-123"
    items = claims["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert [item["custom"]["exercise"] for item in items] == [first, second]
    lesson, exercise = first.split("/")
    assert items[0]["type"] == "ltiResourceLink"
    assert items[0]["url"] == f"{tool_url}/lesson?id={lesson}&exercise={exercise}"
    assert items[0]["lineItem"]["scoreMaximum"] == 1 and items[0]["title"]


def test_a_platform_taking_one_link_without_line_items_gets_one_without(platform, tool, tool_url):
    page = deep_linking_page(platform, tool_url, accept_multiple=False, accept_lineitem=False)
    assert 'type="radio"' in page.text and 'type="checkbox"' not in page.text
    token = re.search(r'name="pick_token" value="([^"]+)"', page.text).group(1)
    lesson, exercise = first_exercise()
    two = [f"{lesson}/{exercise}", f"{lesson}/{exercise}x"]
    refused = requests.post(f"{tool_url}/lti/deep_link", data={"pick_token": token, "pick": two}, timeout=60)
    assert refused.status_code == 400
    answer = requests.post(f"{tool_url}/lti/deep_link", data={"pick_token": token, "pick": two[0]}, timeout=60)
    response = re.search(r'name="JWT" value="([^"]+)"', answer.text).group(1)
    claims = jwt.decode(response, options={"verify_signature": False})
    (item,) = claims["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert "lineItem" not in item


def test_a_forged_deep_linking_form_is_refused(tool_url):
    forged = jwt.encode({"purpose": "deep-link", "exp": 2**31}, b"not the tool's key, long enough 123", "HS256")
    answer = requests.post(f"{tool_url}/lti/deep_link", data={"pick_token": forged, "pick": "x/y"}, timeout=60)
    assert answer.status_code == 401 and "did not come from this tool" in answer.text


def a_browsers_login(platform, tool_url: str, hint: str) -> tuple[str, str, str]:
    """Start a login as a browser does; its state, nonce and the Cookie header the browser would send back."""
    answer, cookie = login(platform, tool_url, hint)
    query = {name: values[0] for name, values in parse_qs(urlsplit(answer.headers["Location"]).query).items()}
    header = "; ".join(f"{name}={morsel.value}" for name, morsel in cookie.items())
    return query["state"], query["nonce"], header


def forged_posts(platform, tool_url: str, case: str) -> list[dict]:
    """The form posts (with their Cookie headers) of one forged or misdirected launch."""
    state, nonce, cookie = a_browsers_login(platform, tool_url, case)
    good = {**platform.claims(target=exercise_target(tool_url)), "nonce": nonce}
    other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    tokens = {
        "forged signature": lambda: platform.sign(good, key=other_key),
        "expired": lambda: platform.sign(good, lifetime_s=-600),
        "wrong audience": lambda: platform.sign({**good, "aud": "another-tool"}),
        "wrong deployment": lambda: platform.sign({**good, CLAIM + "deployment_id": "elsewhere"}),
        "unsigned": lambda: jwt.encode({**good, "exp": 2**31}, None, algorithm="none"),
        "wrong message type": lambda: platform.sign({**good, CLAIM + "message_type": "LtiStartProctoring"}),
    }
    if case == "replayed":
        token = platform.sign(good)
        return [{"id_token": token, "state": state, "Cookie": cookie}] * 2
    if case == "wrong state":
        other_state, _nonce, _cookie = a_browsers_login(platform, tool_url, case + "-2")
        return [{"id_token": platform.sign(good), "state": other_state, "Cookie": cookie}]
    return [{"id_token": tokens[case](), "state": state, "Cookie": cookie}]


@pytest.mark.parametrize(
    "case",
    [
        "forged signature",
        "expired",
        "replayed",
        "wrong audience",
        "wrong deployment",
        "unsigned",
        "wrong state",
        "wrong message type",
    ],
)
def test_a_forged_or_misdirected_launch_is_refused_with_nothing_of_the_course(platform, tool, tool_url, case):
    posts = forged_posts(platform, tool_url, case)
    answers = [
        requests.post(
            f"{tool_url}/lti/launch",
            data={"id_token": post["id_token"], "state": post["state"]},
            headers={"Cookie": post["Cookie"]},
            allow_redirects=False,
            timeout=60,
        )
        for post in posts
    ]
    if case == "replayed":
        assert answers[0].status_code == 303  # the first use is a launch
        answers = answers[1:]
    (refused,) = answers
    assert refused.status_code in (400, 401), (case, refused.status_code)
    assert "Location" not in refused.headers and "code=" not in refused.text
    assert "This launch was refused" in refused.text and "Exercise" not in refused.text
    assert "<script" not in refused.text and "Traceback" not in refused.text


def test_a_login_offering_platform_storage_keeps_the_login_there_too(platform, tool_url):
    platform.prepare("s", platform.claims(target=exercise_target(tool_url)))
    url = platform.login_url("s", exercise_target(tool_url), storage=True)
    answer = requests.get(url, allow_redirects=False, timeout=60)
    assert answer.status_code == 200 and "Set-Cookie" in answer.headers  # the cookie still, for who keeps it
    settings = json.loads(re.search(r'<script id="lti-storage" type="application/json">(.*?)</script>', answer.text)[1])
    assert settings["subject"] == "lti.put_data" and settings["target"] == "_parent"
    assert settings["origin"] == platform.url  # only the platform's login origin may receive it
    assert settings["key"].startswith("lti1p3-state-") and settings["value"].count(".") == 2
    refused = requests.get(url.replace("_parent", "x%27%3Balert(1)"), allow_redirects=False, timeout=60)
    assert refused.status_code == 400 and "names no window" in refused.text


def test_a_launch_without_the_cookie_asks_the_platforms_storage_then_verifies_the_login_it_kept(platform, tool_url):
    platform.prepare("s2", platform.claims(target=exercise_target(tool_url)))
    platform.storage.add("s2")  # its course page offers storage: the launch's form says so too
    first = requests.get(platform.login_url("s2", exercise_target(tool_url), storage=True), timeout=60)
    settings = json.loads(re.search(r'<script id="lti-storage" type="application/json">(.*?)</script>', first.text)[1])
    auth = settings["next"]  # where the page goes once the platform's window has kept the login
    form = requests.get(auth, timeout=60)
    fields = dict(re.findall(r"name='(id_token|state|lti_storage_target)' value='([^']*)'", form.text))
    asks = requests.post(f"{tool_url}/lti/launch", data=fields, allow_redirects=False, timeout=60)  # no cookie
    assert asks.status_code == 200 and '"subject": "lti.get_data"' in asks.text
    assert f'"key": "{settings["key"]}"' in asks.text
    kept = {"id_token": fields["id_token"], "state": fields["state"], "lti_login": settings["value"]}
    answer = requests.post(f"{tool_url}/lti/launch", data=kept, allow_redirects=False, timeout=60)
    assert answer.status_code == 303 and answer.headers["Location"].startswith("lesson?id=")
    forged = {**kept, "lti_login": "a.forged.login"}
    refused = requests.post(f"{tool_url}/lti/launch", data=forged, allow_redirects=False, timeout=60)
    assert refused.status_code == 401
