"""The class's locked predictions in a database: SQLite on one machine, PostgreSQL across machines.

SQLAlchemy Core on a database URL (``sqlite:///class.db``, ``postgresql+psycopg://user@host/db``).
Every vote is one INSERT, and a UNIQUE constraint on (exercise, round, student) makes a second lock
by the same student an ``IntegrityError`` on either database, so no read-then-write transaction can
fail half-way. SQLite runs in WAL mode (readers beside the one writer) with a short busy timeout, so
a locked database answers "not shared" quickly instead of holding the event loop.

A round is open until the instructor reveals it; "New round" opens the next one for the vote after
discussion. Exercise keys are ``"<lesson slug>/<exercise id>"``, student ids anonymous random
strings the browser keeps. A vote may name the variant of the exercise its student saw (``variant``,
NULL for the exercise as written), so that it is judged against that variant's numbers.

Schema version 2 added ``votes.variant``; a version-1 database gains the column when it is opened.

The store is bounded: a round takes at most :data:`MAX_VOTES_PER_ROUND` votes (a lock beyond is
refused with :class:`RoundFull`), and :meth:`ClassStore.prune` deletes rounds and votes older than
:data:`KEEP_DAYS` (``python -m app`` prunes when it opens the database; nothing is archived:
export the CSV to keep them).
"""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from app.classroom.schema import SCHEMA_VERSION, add_variant_column, metadata, rounds, schema_version, votes

SQLITE_BUSY_TIMEOUT_S = 2.0
"""How long an SQLite write waits for another process's write before it gives up (not shared)."""

CREATE_ATTEMPTS = 8
"""Tries at creating the schema when another process is doing the same at start-up."""

RACE_SIGNS = ("already exists", "database is locked", "duplicate column")
"""What a driver says when another process got there first or is still there."""

MAX_VOTES_PER_ROUND = 2_000
"""The most votes one round of one exercise keeps (a lecture hall fits; a flood of sessions stops there)."""

KEEP_DAYS = 120
"""Rounds and votes older than this many days are deleted when the database is opened (about a term)."""


class StoreUnavailable(RuntimeError):
    """The database could not be reached or was locked; the message says so in a sentence."""


class RoundFull(RuntimeError):
    """The round already holds :data:`MAX_VOTES_PER_ROUND` votes; the message says so in a phrase."""


@dataclass(frozen=True)
class Round:
    """One round of one exercise: its number (from 1) and whether the instructor revealed it."""

    number: int
    revealed: bool


@dataclass(frozen=True)
class RoundVotes:
    """A round and its locked predictions (in the order they were locked), with the variant each was made in.

    ``variants`` holds one entry per prediction (None: the exercise as written), or is empty when
    built without them.
    """

    round: Round
    predictions: tuple[float, ...]
    variants: tuple[str | None, ...] = ()

    def variant_of(self, index: int) -> str | None:
        """The variant prediction ``index`` was made in (None: the exercise as written)."""
        return self.variants[index] if index < len(self.variants) else None


class ClassStore:
    """The class's predictions, rounds and reveals, in one database shared by every app process.

    Parameters
    ----------
    url : str
        A SQLAlchemy database URL. ``sqlite:///path`` (WAL mode, one machine) or
        ``postgresql+psycopg://...`` (several machines).
    """

    def __init__(self, url: str) -> None:
        self.url = url
        sqlite = url.startswith("sqlite")
        self.engine = sa.create_engine(
            url,
            connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S} if sqlite else {"connect_timeout": 5},
            pool_pre_ping=not sqlite,
        )
        if sqlite:
            sa.event.listen(self.engine, "connect", _sqlite_pragmas)
        self._create()

    def _create(self) -> None:
        """Create the schema and record its version; processes starting together may race, so retry.

        Racing means another process made the same table or row first, or held SQLite's lock past the
        busy timeout while making them (a loaded machine starting the cluster's processes at once).
        """
        for attempt in range(CREATE_ATTEMPTS):
            try:
                metadata.create_all(self.engine)  # checks first: a table another process made is kept
                with self.engine.begin() as db:
                    add_variant_column(db)
                    recorded = db.execute(sa.select(sa.func.max(schema_version.c.version))).scalar_one()
                    if recorded is None:
                        db.execute(schema_version.insert().values(version=SCHEMA_VERSION))
                    elif recorded < SCHEMA_VERSION:
                        db.execute(schema_version.update().values(version=SCHEMA_VERSION))
                return
            except SQLAlchemyError as error:
                racing = isinstance(error, IntegrityError) or any(sign in str(error) for sign in RACE_SIGNS)
                if not racing or attempt == CREATE_ATTEMPTS - 1:
                    raise StoreUnavailable(f"the class database cannot be opened ({_reason(error)})") from None
                time.sleep(0.05 * (attempt + 1))  # the other process finishes its CREATE meanwhile

    def version(self) -> int:
        """The schema version recorded in the database."""
        with self.engine.connect() as db:
            return int(db.execute(sa.select(sa.func.max(schema_version.c.version))).scalar_one())

    @contextmanager
    def _reading(self) -> Iterator[sa.Connection]:
        """A connection for reading; any database error becomes :class:`StoreUnavailable`."""
        try:
            with self.engine.connect() as db:
                yield db
        except SQLAlchemyError as error:
            raise StoreUnavailable(f"the class database cannot be read ({_reason(error)})") from None

    def current_round(self, exercise: str) -> Round:
        """The round students vote in now (round 1, not revealed, before the instructor does anything).

        Raises
        ------
        StoreUnavailable
            If the database cannot be read.
        """
        with self._reading() as db:
            return self._current(db, exercise)

    @staticmethod
    def _current(db: sa.Connection, exercise: str) -> Round:
        row = db.execute(
            sa.select(rounds.c.round, rounds.c.revealed_at)
            .where(rounds.c.exercise == exercise)
            .order_by(rounds.c.round.desc())
            .limit(1)
        ).first()
        return Round(1, False) if row is None else Round(int(row.round), row.revealed_at is not None)

    def lock(self, exercise: str, student: str, prediction: float, variant: str | None = None) -> tuple[Round, bool]:
        """Store one student's prediction in the current round, once.

        Parameters
        ----------
        exercise : str
            ``"<lesson>/<exercise>"``.
        student : str
            The anonymous id.
        prediction : float
            A finite number, already validated as the exercise's prediction field validates it.
        variant : str, optional
            The variant of the exercise the student saw (at most 64 characters); None for the
            exercise as written.

        Returns
        -------
        (Round, bool)
            The round voted in, and False if this student had already voted in it (nothing changes).

        Raises
        ------
        RoundFull
            If the round already holds :data:`MAX_VOTES_PER_ROUND` votes (processes locking at the
            same moment may each take one more).
        StoreUnavailable
            If the database cannot be written (down, or locked past the busy timeout).
        """
        try:
            with self.engine.begin() as db:
                current = self._current(db, exercise)
                held = 0 if current.revealed else self._count(db, exercise, current.number)
            if current.revealed:
                return current, False
            if held >= MAX_VOTES_PER_ROUND:
                raise RoundFull(f"round {current.number} already holds {held:,} predictions, as many as it keeps")
            with self.engine.begin() as db:
                db.execute(
                    votes.insert().values(
                        exercise=exercise,
                        round=current.number,
                        student=student,
                        prediction=float(prediction),
                        locked_at=time.time(),
                        variant=variant,
                    )
                )
            return current, True
        except IntegrityError:
            return current, False
        except SQLAlchemyError as error:
            raise StoreUnavailable(f"the class database cannot be written ({_reason(error)})") from None

    @staticmethod
    def _count(db: sa.Connection, exercise: str, number: int) -> int:
        return int(
            db.execute(
                sa.select(sa.func.count())
                .select_from(votes)
                .where(votes.c.exercise == exercise, votes.c.round == number)
            ).scalar_one()
        )

    def prune(self, keep_days: float = KEEP_DAYS, now: float | None = None) -> int:
        """Delete the rounds opened and the votes locked more than ``keep_days`` ago.

        Parameters
        ----------
        keep_days : float
            How many days back to keep.
        now : float, optional
            The time (``time.time()`` by default).

        Returns
        -------
        int
            How many votes were deleted.

        Raises
        ------
        StoreUnavailable
            If the database cannot be written.
        """
        cutoff = (time.time() if now is None else now) - keep_days * 86_400
        try:
            with self.engine.begin() as db:
                gone = db.execute(votes.delete().where(votes.c.locked_at < cutoff)).rowcount
                db.execute(rounds.delete().where(rounds.c.opened_at < cutoff))
            return int(gone or 0)
        except SQLAlchemyError as error:
            raise StoreUnavailable(f"the class database cannot be pruned ({_reason(error)})") from None

    def student_vote(self, exercise: str, round_number: int, student: str) -> float | None:
        """What this student locked in that round, if anything."""
        found = self.own_vote(exercise, round_number, student)
        return None if found is None else found[0]

    def own_vote(self, exercise: str, round_number: int, student: str) -> tuple[float, str | None] | None:
        """What this student locked in that round and in which variant (None: as written), if anything."""
        with self.engine.connect() as db:
            row = db.execute(
                sa.select(votes.c.prediction, votes.c.variant).where(
                    votes.c.exercise == exercise, votes.c.round == round_number, votes.c.student == student
                )
            ).first()
        return None if row is None else (float(row.prediction), row.variant)

    def rounds_of(self, exercise: str, last: int | None = None) -> list[RoundVotes]:
        """Every round of an exercise with its predictions and their variants, oldest first (round 1 always).

        Two queries on one connection, however many votes.

        Parameters
        ----------
        exercise : str
            ``"<lesson>/<exercise>"``.
        last : int, optional
            Only the last ``last`` rounds (their votes alone are read); every round by default.

        Raises
        ------
        StoreUnavailable
            If the database cannot be read.
        """
        with self._reading() as db:
            known = {
                int(r.round): r.revealed_at is not None
                for r in db.execute(
                    sa.select(rounds.c.round, rounds.c.revealed_at).where(rounds.c.exercise == exercise)
                )
            }
            first = 1 if last is None else max(1, max(known, default=1) - last + 1)
            found: dict[int, list[tuple[float, str | None]]] = {}
            for row in db.execute(
                sa.select(votes.c.round, votes.c.prediction, votes.c.variant)
                .where(votes.c.exercise == exercise, votes.c.round >= first)
                .order_by(votes.c.id)
            ):
                found.setdefault(int(row.round), []).append((float(row.prediction), row.variant))
        numbers = [n for n in sorted(set(known) | set(found) | {1}) if n >= first]
        return [
            RoundVotes(
                Round(n, known.get(n, False)),
                tuple(p for p, _v in found.get(n, ())),
                tuple(v for _p, v in found.get(n, ())),
            )
            for n in numbers
        ]

    def reveal(self, exercise: str) -> Round:
        """Reveal the current round: from now on students see the class result and the answer."""
        with self.engine.begin() as db:
            current = self._current(db, exercise)
            self._ensure(db, exercise, current.number)
            db.execute(
                rounds.update()
                .where(rounds.c.exercise == exercise, rounds.c.round == current.number, rounds.c.revealed_at.is_(None))
                .values(revealed_at=time.time())
            )
        return Round(current.number, True)

    def new_round(self, exercise: str) -> Round:
        """Open the next round (the vote after discussion); the one before it is revealed if it was not."""
        self.reveal(exercise)
        with self.engine.begin() as db:
            number = self._current(db, exercise).number + 1
            try:
                with db.begin_nested():
                    db.execute(rounds.insert().values(exercise=exercise, round=number, opened_at=time.time()))
            except IntegrityError:
                pass  # another instructor window opened it first
        return Round(number, False)

    @staticmethod
    def _ensure(db: sa.Connection, exercise: str, number: int) -> None:
        exists = db.execute(
            sa.select(rounds.c.round).where(rounds.c.exercise == exercise, rounds.c.round == number)
        ).first()
        if exists is None:
            db.execute(rounds.insert().values(exercise=exercise, round=number, opened_at=time.time()))

    def export_csv(self, judge: Callable[[str, float, str | None], str] | None = None, scope: str = "") -> str:
        """Every vote as CSV, in one query.

        Columns: exercise, round, student (anonymous id), prediction, locked_at (ISO, UTC), variant
        (empty for the exercise as written) and class.

        Parameters
        ----------
        judge : callable, optional
            ``judge(exercise, prediction, variant)`` gives the vote's class (``right``, ``mistake:
            <label>``, ``other``); without it the class column is empty.
        scope : str, optional
            Only the votes of one class whose keys start with it (an LMS course's, app.lti), written
            and judged without it; every vote by default.
        """
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["exercise", "round", "student", "prediction", "locked_at", "variant", "class"])
        query = sa.select(votes).order_by(votes.c.exercise, votes.c.round, votes.c.id)
        if scope:  # LTI hook: one LMS course's votes alone
            query = query.where(votes.c.exercise.startswith(scope, autoescape=True))
        with self.engine.connect() as db:
            for row in db.execute(query):
                stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(row.locked_at))
                exercise = row.exercise[len(scope) :]
                judged = "" if judge is None else judge(exercise, float(row.prediction), row.variant)
                prediction = repr(float(row.prediction))
                writer.writerow([exercise, row.round, row.student, prediction, stamp, row.variant or "", judged])
        return out.getvalue()

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()


def _sqlite_pragmas(connection, _record) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
    cursor.close()


def _reason(error: SQLAlchemyError) -> str:
    """The driver's first line, without SQL or parameters."""
    original = getattr(error, "orig", None) or error
    return str(original).strip().splitlines()[0][:160] if str(original).strip() else type(original).__name__
