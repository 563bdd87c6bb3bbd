"""The class database for the tests: a file of SQLite, and a private PostgreSQL server (tests/postgres.py).

``url`` runs a test once on each; the PostgreSQL server is started once per test session.
"""

from __future__ import annotations

import os

import pytest

from app.classroom.store import ClassStore, metadata
from tests.postgres import postgres_binaries, start_postgres, stop_postgres

REQUIRED = os.environ.get("OVERLAP_REQUIRE_BROWSER") == "1"  # CI: the real parts are required, never skipped


@pytest.fixture(scope="session")
def postgres():
    if postgres_binaries() is None:
        if REQUIRED:
            pytest.fail("PostgreSQL is not installed: make test installs Debian's postgresql (tools/system-packages)")
        pytest.skip("PostgreSQL is not installed (Debian: apt-get install postgresql)")
    server = start_postgres()
    yield server
    stop_postgres(server)


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'class.db'}"
        return
    server = request.getfixturevalue("postgres")
    yield server.url
    store = ClassStore(server.url)
    metadata.drop_all(store.engine)  # the next test starts from an empty database
    store.dispose()
