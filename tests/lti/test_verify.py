"""A launch's id_token verified as LTI 1.3 says: each forged, stale or misdirected token refused, with why."""

from __future__ import annotations

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from app.lti import CLAIM, DEEP_LINKING, RESOURCE_LINK
from app.lti.verify import Launch, LaunchRefused, PlatformKeys, login_cookie, verify_launch
from tests.lti.conftest import a_login, exercise_target


def launch(tool, token: str, state: str, cookie: str | None) -> Launch:
    return verify_launch(tool.config, tool.keys, tool.state, token, state, cookie, tool.secret)


def refused(tool, token: str, state: str, cookie: str | None) -> LaunchRefused:
    with pytest.raises(LaunchRefused) as caught:
        launch(tool, token, state, cookie)
    return caught.value


def claims(platform, nonce: str, **changes):
    made = {**platform.claims(target=exercise_target("http://tool.invalid")), "nonce": nonce}
    made.update(changes)
    return made


def test_a_good_launch_is_accepted(platform, tool):
    state, nonce, cookie = a_login(tool)
    verified = launch(tool, platform.sign(claims(platform, nonce)), state, cookie)
    assert verified.message_type == RESOURCE_LINK
    assert verified.deployment_id == platform.deployment_id
    assert verified.claims["sub"] == "student-1"


def test_a_deep_linking_request_is_accepted(platform, tool):
    state, nonce, cookie = a_login(tool)
    body = {**platform.claims(message_type=DEEP_LINKING), "nonce": nonce}
    assert launch(tool, platform.sign(body), state, cookie).message_type == DEEP_LINKING


def test_a_forged_signature_is_refused(platform, tool):
    state, nonce, cookie = a_login(tool)
    forger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    token = platform.sign(claims(platform, nonce), key=forger)  # the platform's kid, another key
    assert "signature does not verify" in refused(tool, token, state, cookie).reason


def test_a_token_signed_with_a_key_the_platform_does_not_publish_is_refused(platform, tool):
    state, nonce, cookie = a_login(tool)
    forger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    token = platform.sign(claims(platform, nonce), key=forger, kid="not-a-published-kid")
    assert "does not publish" in refused(tool, token, state, cookie).reason


def test_an_expired_token_is_refused(platform, tool):
    state, nonce, cookie = a_login(tool)
    token = platform.sign(claims(platform, nonce), lifetime_s=-600)
    assert "expired" in refused(tool, token, state, cookie).reason


def test_a_replayed_token_is_refused(platform, tool):
    state, nonce, cookie = a_login(tool)
    token = platform.sign(claims(platform, nonce))
    launch(tool, token, state, cookie)
    assert "already used" in refused(tool, token, state, cookie).reason


def test_a_token_for_another_tool_is_refused(platform, tool):
    state, nonce, cookie = a_login(tool)
    token = platform.sign(claims(platform, nonce, aud="another-tool"))
    assert "not for this tool" in refused(tool, token, state, cookie).reason


def test_several_audiences_need_azp_naming_this_tool(platform, tool):
    state, nonce, cookie = a_login(tool)
    token = platform.sign(claims(platform, nonce, aud=[platform.client_id, "another-tool"]))
    assert "azp" in refused(tool, token, state, cookie).reason
    state, nonce, cookie = a_login(tool)
    token = platform.sign(claims(platform, nonce, aud=[platform.client_id, "another-tool"], azp=platform.client_id))
    assert launch(tool, token, state, cookie).claims["azp"] == platform.client_id


def test_a_wrong_deployment_is_refused(platform, tool):
    state, nonce, cookie = a_login(tool)
    token = platform.sign(claims(platform, nonce, **{CLAIM + "deployment_id": "someone-elses"}))
    assert "deployment" in refused(tool, token, state, cookie).reason


def test_an_unsigned_token_is_refused(platform, tool):
    state, nonce, cookie = a_login(tool)
    token = jwt.encode(claims(platform, nonce, exp=2**31), None, algorithm="none")
    assert "needs RS256" in refused(tool, token, state, cookie).reason


def test_an_hmac_token_keyed_with_the_public_key_is_refused(platform, tool):
    state, nonce, cookie = a_login(tool)
    token = jwt.encode(claims(platform, nonce, exp=2**31), b"anything-at-all-32-bytes-long-xx", algorithm="HS256")
    assert "needs RS256" in refused(tool, token, state, cookie).reason


def test_a_wrong_state_is_refused(platform, tool):
    state, nonce, cookie = a_login(tool)
    other_state, _nonce, other_cookie = a_login(tool)
    token = platform.sign(claims(platform, nonce))
    assert "state" in refused(tool, token, other_state, cookie).reason
    assert "nonce" in refused(tool, token, other_state, other_cookie).reason  # its own login: another nonce


def test_a_launch_without_this_browsers_login_is_refused(platform, tool):
    state, nonce, _cookie = a_login(tool)
    token = platform.sign(claims(platform, nonce))
    assert "login cookie is missing" in refused(tool, token, state, None).reason
    forged = login_cookie(state, nonce, tool.config.all()[0], b"not the tool's secret, but long enough")
    assert "not one this tool made" in refused(tool, token, state, forged).reason


def test_a_wrong_message_type_or_version_is_refused(platform, tool):
    state, nonce, cookie = a_login(tool)
    token = platform.sign(claims(platform, nonce, **{CLAIM + "message_type": "LtiSubmissionReviewRequest"}))
    assert "message type" in refused(tool, token, state, cookie).reason
    state, nonce, cookie = a_login(tool)
    token = platform.sign(claims(platform, nonce, **{CLAIM + "version": "1.1"}))
    assert "version" in refused(tool, token, state, cookie).reason


def test_a_token_of_another_issuer_is_refused(platform, tool):
    state, nonce, cookie = a_login(tool)
    token = platform.sign(claims(platform, nonce, iss="https://another.lms.example"))
    assert "issuer" in refused(tool, token, state, cookie).reason


def test_rotated_platform_keys_are_fetched_again_once(platform, tool):
    fetched: list[str] = []

    def fetch(url):
        fetched.append(url)
        return platform.jwks()

    tool.keys = PlatformKeys(fetch=fetch, refetch_after_s=0)
    state, nonce, cookie = a_login(tool)
    launch(tool, platform.sign(claims(platform, nonce)), state, cookie)
    assert len(fetched) == 1
    platform.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)  # the platform rotates
    state, nonce, cookie = a_login(tool)
    launch(tool, platform.sign(claims(platform, nonce)), state, cookie)
    assert len(fetched) == 2
    state, nonce, cookie = a_login(tool)
    launch(tool, platform.sign(claims(platform, nonce)), state, cookie)  # cached: no third fetch
    assert len(fetched) == 2
