"""The tool's JSON configuration (pylti1p3's ToolConfJsonFile convention), its keys, and a bad file at start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.lti.config import ConfigError, load_config
from app.lti.keys import make_key_pair

ROOT = Path(__file__).resolve().parents[2]


def write(folder: Path, data: object) -> Path:
    path = folder / "lti.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def registration(**changes) -> dict:
    entry = {
        "client_id": "c1",
        "auth_login_url": "https://lms.example/auth",
        "auth_token_url": "https://lms.example/token",
        "key_set_url": "https://lms.example/jwks",
        "private_key_file": "keys/private.pem",
        "public_key_file": "keys/public.pem",
        "deployment_ids": ["d1"],
    }
    entry.update(changes)
    return {key: value for key, value in entry.items() if value is not None}


@pytest.fixture
def folder(tmp_path) -> Path:
    make_key_pair(tmp_path / "keys")
    return tmp_path


def test_a_config_is_read_with_keys_relative_to_its_file(folder):
    config = load_config(write(folder, {"https://lms.example": [registration(frame_origins=["https://school.edu"])]}))
    (found,) = config.all()
    assert found.client_id == "c1" and found.deployment_ids == ("d1",)
    assert config.find("https://lms.example", "c1") is found
    assert config.find("https://lms.example", None) is found  # the only one
    assert config.find("https://lms.example", "c2") is None
    assert config.frame_origins() == ["https://lms.example", "https://school.edu"]
    assert config.public_keys()["keys"][0]["kid"] == found.kid


def test_one_registration_may_stand_alone_and_a_key_set_may_be_written_in(folder):
    entry = registration(key_set_url=None, key_set={"keys": []})
    config = load_config(write(folder, {"https://lms.example": entry}))
    assert config.all()[0].key_set == {"keys": []} and config.all()[0].key_set_url is None


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ("{not json", "not JSON (line 1"),
        ([], "must be a JSON object"),
        ({"lms.example": [registration()]}, "is not an http(s) URL"),
        ({"https://lms.example": [registration(client_id=None)]}, "'client_id' is missing"),
        ({"https://lms.example": [registration(key_set_url=None)]}, "'key_set_url' is missing"),
        ({"https://lms.example": [registration(auth_login_url="ftp://x")]}, "'auth_login_url' is not an http(s) URL"),
        ({"https://lms.example": [registration(deployment_ids=[])]}, "'deployment_ids' must be a non-empty list"),
        ({"https://lms.example": [registration(private_key_file="nowhere.pem")]}, "cannot be read"),
        ({"https://lms.example": [registration(private_key_file="keys/public.pem")]}, "not an unencrypted PEM"),
        ({"https://lms.example": [registration(), registration()]}, "lists a client_id twice"),
        ({"https://lms.example": [registration(frame_origins=["school"])]}, "'frame_origins' must be a list"),
    ],
)
def test_a_bad_config_says_what_is_wrong_in_one_line(folder, data, said):
    with pytest.raises(ConfigError) as caught:
        load_config(write(folder, data))
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_public_and_private_keys_must_be_one_pair(folder):
    make_key_pair(folder / "other")
    with pytest.raises(ConfigError, match="not the public half"):
        load_config(write(folder, {"https://lms.example": [registration(public_key_file="other/public.pem")]}))


def test_lti_keys_makes_a_pair_and_never_overwrites(tmp_path):
    run = [sys.executable, "-m", "app", "lti-keys", str(tmp_path / "k")]
    made = subprocess.run(run, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    assert "private.pem" in made.stdout and "kid" in made.stdout
    assert (tmp_path / "k" / "private.pem").stat().st_mode & 0o077 == 0
    again = subprocess.run(run, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert again.returncode != 0 and "exists" in again.stderr and "Traceback" not in again.stderr


def test_a_bad_config_stops_the_start_with_one_line(tmp_path):
    path = write(tmp_path, "{not json")
    env = {**os.environ, "LTI_CONFIG": str(path)}
    run = [sys.executable, "-m", "app", "--port", "0"]
    stopped = subprocess.run(run, cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    assert stopped.returncode == 1
    lines = stopped.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Cannot start: the LTI configuration is unusable:")
    assert "not JSON" in lines[0]
