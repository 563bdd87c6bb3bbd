"""What the LTI tool keeps between requests: used nonces, one-time launch codes, scores to send.

In the class database when the class is on (:class:`DatabaseState`, shared by every process and
machine), in this process's memory otherwise (:class:`MemoryState`). Nonces and launch codes
expire; each insert deletes what has expired, so both stay small. A score stays until the platform
took it (:mod:`app.lti.grades`); each try first claims it (:meth:`LtiState.claim`), so processes
sharing the database never post one score twice at once, and a failed try sets when to try again.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

metadata = sa.MetaData()
nonces = sa.Table(
    "lti_nonces",
    metadata,
    sa.Column("nonce", sa.String(200), primary_key=True),
    sa.Column("expires_at", sa.Float, nullable=False),
)
launches = sa.Table(
    "lti_launches",
    metadata,
    sa.Column("code", sa.String(64), primary_key=True),
    sa.Column("record", sa.Text, nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),
)
scores = sa.Table(
    "lti_scores",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("record", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False, default=0),
    sa.Column("sent_at", sa.Float, nullable=True),
    sa.Column("last_error", sa.String(300), nullable=True),
    sa.Column("next_try_at", sa.Float, nullable=False, default=0.0),
)


class StateUnavailable(RuntimeError):
    """The class database could not be read or written; the message says so."""


@dataclass(frozen=True)
class PendingScore:
    """A score not yet taken by the platform: its id here and what to send where."""

    id: int
    record: dict[str, Any]
    attempts: int


class LtiState(Protocol):
    """What :mod:`app.lti` keeps between requests (see the module's docstring)."""

    def use_nonce(self, nonce: str, expires_at: float) -> bool:
        """Record ``nonce`` as used; False if it already was (a replay)."""

    def put_launch(self, code: str, record: dict[str, Any], expires_at: float) -> None:
        """Keep a verified launch under a one-time ``code`` until ``expires_at``."""

    def take_launch(self, code: str) -> dict[str, Any] | None:
        """The launch kept under ``code``, once; None when unknown, taken already or expired."""

    def add_score(self, record: dict[str, Any]) -> int:
        """Keep a score to send; its id."""

    def pending_scores(self, limit: int = 50, now: float | None = None) -> list[PendingScore]:
        """Scores the platform has not taken yet whose next try is due (by ``now``), the most overdue first."""

    def claim(self, score_id: int, until: float, now: float | None = None) -> bool:
        """Take a due score for one try, until ``until``; False if another process took it first or it is not due."""

    def score_sent(self, score_id: int) -> None:
        """The platform took it: mark it sent and forget what it held (the student's ``sub``)."""

    def score_failed(self, score_id: int, error: str, retry_at: float) -> None:
        """A try failed: count it, keep why, and try again from ``retry_at``."""

    def is_sent(self, score_id: int) -> bool:
        """Whether the platform took it."""


class MemoryState:
    """:class:`LtiState` in this process's memory (the class off): lost on restart, one process only."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._nonces: dict[str, float] = {}
        self._launches: dict[str, tuple[dict[str, Any], float]] = {}
        self._scores: dict[int, dict[str, Any]] = {}
        self._next = 1

    def use_nonce(self, nonce: str, expires_at: float) -> bool:  # noqa: D102 (the protocol's)
        now = time.time()
        with self._lock:
            self._nonces = {n: e for n, e in self._nonces.items() if e > now}
            if nonce in self._nonces:
                return False
            self._nonces[nonce] = expires_at
            return True

    def put_launch(self, code: str, record: dict[str, Any], expires_at: float) -> None:  # noqa: D102
        now = time.time()
        with self._lock:
            self._launches = {c: v for c, v in self._launches.items() if v[1] > now}
            self._launches[code] = (record, expires_at)

    def take_launch(self, code: str) -> dict[str, Any] | None:  # noqa: D102
        with self._lock:
            found = self._launches.pop(code, None)
        if found is None or found[1] <= time.time():
            return None
        return found[0]

    def add_score(self, record: dict[str, Any]) -> int:  # noqa: D102
        with self._lock:
            score_id = self._next
            self._next += 1
            self._scores[score_id] = {"record": record, "attempts": 0, "sent": False, "error": "", "next": 0.0}
            return score_id

    def pending_scores(self, limit: int = 50, now: float | None = None) -> list[PendingScore]:  # noqa: D102
        now = time.time() if now is None else now
        with self._lock:
            due = [(s["next"], i) for i, s in self._scores.items() if not s["sent"] and s["next"] <= now]
            return [PendingScore(i, self._scores[i]["record"], self._scores[i]["attempts"]) for _n, i in sorted(due)][
                :limit
            ]

    def claim(self, score_id: int, until: float, now: float | None = None) -> bool:  # noqa: D102
        now = time.time() if now is None else now
        with self._lock:
            score = self._scores.get(score_id)
            if score is None or score["sent"] or score["next"] > now:
                return False
            score["next"] = until
            return True

    def score_sent(self, score_id: int) -> None:  # noqa: D102
        with self._lock:
            if score_id in self._scores:
                self._scores[score_id].update(sent=True, record={})  # the sub is not kept once sent

    def score_failed(self, score_id: int, error: str, retry_at: float) -> None:  # noqa: D102
        with self._lock:
            if score_id in self._scores:
                self._scores[score_id]["attempts"] += 1
                self._scores[score_id]["error"] = error[:300]
                self._scores[score_id]["next"] = retry_at

    def is_sent(self, score_id: int) -> bool:  # noqa: D102
        with self._lock:
            return bool(self._scores.get(score_id, {}).get("sent"))


class DatabaseState:
    """:class:`LtiState` in the class database (SQLite or PostgreSQL), shared by every process.

    Parameters
    ----------
    engine : sqlalchemy.Engine
        The class store's engine (:attr:`app.classroom.store.ClassStore.engine`).
    """

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine
        try:
            metadata.create_all(engine)  # checks first: tables another process made are kept
        except SQLAlchemyError as error:
            if "already exists" not in str(error):
                raise StateUnavailable(f"the LTI tables cannot be made ({_reason(error)})") from None

    def _write(self, work) -> Any:
        try:
            with self.engine.begin() as db:
                return work(db)
        except IntegrityError:
            raise
        except SQLAlchemyError as error:
            raise StateUnavailable(f"the class database cannot be written ({_reason(error)})") from None

    def use_nonce(self, nonce: str, expires_at: float) -> bool:  # noqa: D102 (the protocol's)
        now = time.time()
        try:
            self._write(lambda db: db.execute(nonces.delete().where(nonces.c.expires_at < now)))
            self._write(lambda db: db.execute(nonces.insert().values(nonce=nonce, expires_at=expires_at)))
        except IntegrityError:
            return False
        return True

    def put_launch(self, code: str, record: dict[str, Any], expires_at: float) -> None:  # noqa: D102
        now = time.time()

        def work(db: sa.Connection) -> None:
            db.execute(launches.delete().where(launches.c.expires_at < now))
            db.execute(launches.insert().values(code=code, record=json.dumps(record), expires_at=expires_at))

        self._write(work)

    def take_launch(self, code: str) -> dict[str, Any] | None:  # noqa: D102
        def work(db: sa.Connection) -> dict[str, Any] | None:
            row = db.execute(sa.select(launches).where(launches.c.code == code)).first()
            if row is None:
                return None
            taken = db.execute(launches.delete().where(launches.c.code == code)).rowcount
            if taken != 1 or row.expires_at <= time.time():  # another process took it first, or too late
                return None
            return json.loads(row.record)

        return self._write(work)

    def add_score(self, record: dict[str, Any]) -> int:  # noqa: D102
        def work(db: sa.Connection) -> int:
            made = db.execute(
                scores.insert().values(record=json.dumps(record), created_at=time.time(), attempts=0, next_try_at=0.0)
            )
            return int(made.inserted_primary_key[0])

        return self._write(work)

    def pending_scores(self, limit: int = 50, now: float | None = None) -> list[PendingScore]:  # noqa: D102
        now = time.time() if now is None else now
        try:
            with self.engine.connect() as db:
                rows = db.execute(
                    sa.select(scores)
                    .where(scores.c.sent_at.is_(None), scores.c.next_try_at <= now)
                    .order_by(scores.c.next_try_at, scores.c.id)
                    .limit(limit)
                ).all()
        except SQLAlchemyError as error:
            raise StateUnavailable(f"the class database cannot be read ({_reason(error)})") from None
        return [PendingScore(int(r.id), json.loads(r.record), int(r.attempts)) for r in rows]

    def claim(self, score_id: int, until: float, now: float | None = None) -> bool:  # noqa: D102
        now = time.time() if now is None else now
        taken = self._write(
            lambda db: (
                db.execute(
                    scores.update()
                    .where(scores.c.id == score_id, scores.c.sent_at.is_(None), scores.c.next_try_at <= now)
                    .values(next_try_at=until)
                ).rowcount
            )
        )
        return taken == 1

    def score_sent(self, score_id: int) -> None:  # noqa: D102
        self._write(  # what was sent (the student's sub with it) is not kept once the platform has it
            lambda db: db.execute(
                scores.update().where(scores.c.id == score_id).values(sent_at=time.time(), record="{}")
            )
        )

    def score_failed(self, score_id: int, error: str, retry_at: float) -> None:  # noqa: D102
        self._write(
            lambda db: db.execute(
                scores.update()
                .where(scores.c.id == score_id)
                .values(attempts=scores.c.attempts + 1, last_error=error[:300], next_try_at=retry_at)
            )
        )

    def is_sent(self, score_id: int) -> bool:  # noqa: D102
        with self.engine.connect() as db:
            row = db.execute(sa.select(scores.c.sent_at).where(scores.c.id == score_id)).first()
        return row is not None and row.sent_at is not None


def _reason(error: SQLAlchemyError) -> str:
    original = getattr(error, "orig", None) or error
    text = str(original).strip()
    return text.splitlines()[0][:160] if text else type(original).__name__
