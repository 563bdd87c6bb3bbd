"""app.web.delivery.brotli_store: brotli's bytes made once per machine, kept on disk, used only if they are right."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

import brotli
import pytest

from app.web.delivery import brotli_store


@pytest.fixture
def store(tmp_path, monkeypatch) -> Iterator[Path]:
    """An empty disk cache of the test's own, and nothing compressed yet in this process."""
    directory = tmp_path / "cache"
    monkeypatch.setenv(brotli_store.CACHE_ENV, str(directory))
    brotli_store.forget()
    yield directory
    brotli_store.forget()


@pytest.fixture
def script(tmp_path) -> Path:
    path = tmp_path / "bundle.js"
    path.write_text("".join(f"function f{n}(x) {{ return x * {n} + {n % 7}; }}\n" for n in range(3000)))
    return path


def kept_file(directory: Path, path: Path) -> Path:
    return directory / f"{hashlib.sha256(path.read_bytes()).hexdigest()}.br"


def never_compress(*args, **kwargs):
    raise AssertionError("compressed again although the disk cache had it")


def test_a_file_is_compressed_once_kept_on_disk_and_read_back_by_the_next_process(store, script, monkeypatch):
    body = brotli_store.wait(str(script), timeout=60)
    assert body is not None and brotli.decompress(body) == script.read_bytes()
    assert len(body) < script.stat().st_size / 5
    kept = kept_file(store, script)
    assert kept.read_bytes() == body
    assert oct(store.stat().st_mode & 0o777) == "0o700"
    brotli_store.forget()  # as a new process on the same machine
    monkeypatch.setattr(brotli_store.brotli, "compress", never_compress)
    assert brotli_store.compressed(str(script)) in ((False, None), (True, body))
    assert brotli_store.wait(str(script), timeout=60) == body


def test_a_kept_file_that_is_not_the_files_brotli_is_made_again(store, script):
    store.mkdir(mode=0o700)
    kept = kept_file(store, script)
    for wrong in (b"not brotli at all", brotli.compress(b"another file")):
        kept.write_bytes(wrong)
        brotli_store.forget()
        body = brotli_store.wait(str(script), timeout=60)
        assert brotli.decompress(body) == script.read_bytes()
        assert kept.read_bytes() == body


def test_a_changed_file_is_compressed_anew(store, script):
    first = brotli_store.wait(str(script), timeout=60)
    script.write_text(script.read_text() + "function changed() {}\n")
    os.utime(script, ns=(script.stat().st_atime_ns, script.stat().st_mtime_ns + 1_000_000))
    second = brotli_store.wait(str(script), timeout=60)
    assert second != first and brotli.decompress(second) == script.read_bytes()


@pytest.mark.parametrize("setting", ["", "under-a-file"])
def test_without_a_usable_directory_each_process_compresses_for_itself(setting, tmp_path, script, monkeypatch):
    (tmp_path / "a-file").write_text("")
    named = "" if setting == "" else str(tmp_path / "a-file" / "cache")
    monkeypatch.setenv(brotli_store.CACHE_ENV, named)
    brotli_store.forget()
    assert brotli_store.cache_directory() is None
    assert brotli.decompress(brotli_store.wait(str(script), timeout=60)) == script.read_bytes()
    brotli_store.forget()


def test_a_file_brotli_cannot_shrink_or_read_is_left_to_gzip(store, tmp_path):
    noise = tmp_path / "noise.bin"
    noise.write_bytes(os.urandom(4096))
    assert brotli_store.wait(str(noise), timeout=60) is None
    assert brotli_store.compressed(str(noise)) == (True, None)


def test_a_failure_to_compress_leaves_the_file_to_gzip(store, script, monkeypatch):
    def broken(*args, **kwargs):
        raise brotli.error("out of memory")

    monkeypatch.setattr(brotli_store.brotli, "compress", broken)
    assert brotli_store.wait(str(script), timeout=60) is None
    assert brotli_store.compressed(str(script)) == (True, None)
