"""The test-match queue runner: plays queued test matches one after another, each as a
private round robin through the ordinary tournament runner.

A test match becomes a tournament only when the queue runner takes it: one table of the
tested version, its two opponents' latest versions (house bots stored on first use:
:mod:`arena.tournament.house`), ``boards`` boards under all 6 seatings from a fresh
secret, ``private_to`` its requester. It is then played by
:func:`arena.tournament.runner.run_tournament`, exactly as ``arena tournament run`` plays
any round robin, on at most ``test_games_at_once`` worker slots; since one queue runner
plays at a time (:func:`arena.storage.test_matches.queue_lock`), that is the most test
games the arena plays at once, whatever the ladders do.

Crash safety is the tournament runner's: a runner killed mid-match leaves the match
``running`` with its tournament and stored games, and the next queue runner takes running
matches first and resumes them. A failure of the arena's own making (a worker that dies
again and again, a house bot that cannot be stored, a bug) marks the match ``failed``
with one line and the queue goes on; bots are never charged for it (the runner counts
arena faults apart and replays those games).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from sqlalchemy.engine import Engine

from arena import storage
from arena.game.rules import get_ruleset
from arena.storage import test_matches as queue
from arena.storage.database import StorageError
from arena.storage.models import TABLE_DEALS, BotVersion, TestMatch, Tournament
from arena.storage.runner_lock import RunnerBusy
from arena.storage.settings import get_int
from arena.tournament.deals import deal_secret
from arena.tournament.executor import ExecutorError, LocalProcessExecutor
from arena.tournament.formats import get_format
from arena.tournament.house import HouseBotError, house_version
from arena.tournament.runner import RunProgress, run_tournament
from arena.tournament.setup import DEFAULT_TIME_CONTROL

LOGGER = logging.getLogger(__name__)

FORMAT: Final = "round_robin"
POLL_SECONDS: Final = 2.0
"""How often a waiting queue runner looks for new requests."""
FINISHED: Final = ("played", "failed", "cancelled")


class QueueStopped(RuntimeError):
    """The queue runner must stop (the match stays as it is, to resume); one line."""


@dataclass(frozen=True, slots=True)
class MatchProgress:
    """What a progress display needs: which match, and its tournament's progress."""

    test_match_id: int
    games_done: int
    games_total: int


OnProgress = Callable[[MatchProgress], None]
OnFinished = Callable[[TestMatch], None]


def play_test_match(
    engine: Engine, match: TestMatch, data_dir: Path, on_progress: OnProgress | None = None
) -> str:
    """Play (or resume) *match* to its end; its final status (``played``, ``failed``, or
    ``cancelled`` if it was cancelled before it started).

    :raises QueueStopped: if another runner plays its tournament (a hand-started
        ``arena tournament run``): the match stays running, to resume later.
    """
    match_id = queue.match_id(match)
    if not queue.claim_test_match(engine, match_id):
        return "cancelled"
    tournament: Tournament | None = None
    try:
        tournament = queue.private_tournament(engine, match) or _create(engine, match, data_dir)
        tournament_id = storage.row_id(tournament)
        queue.attach_tournament(engine, match_id, tournament_id)
        slots = get_int(engine, "test_games_at_once")

        def show(state: RunProgress) -> None:
            if on_progress is not None:
                on_progress(MatchProgress(match_id, state.done, state.total))

        executor = LocalProcessExecutor(slots)
        asyncio.run(run_tournament(engine, tournament.name, executor, show))
    except RunnerBusy as exc:
        raise QueueStopped(str(exc)) from None
    except (StorageError, ExecutorError, HouseBotError, TestMatchError) as exc:
        return _failed(engine, match_id, tournament, str(exc))
    except Exception as exc:  # the arena's own bug: the queue must go on
        LOGGER.exception("test match %d failed", match_id)
        return _failed(
            engine, match_id, tournament, f"the arena failed: {type(exc).__name__}: {exc}"
        )
    queue.finish_test_match(engine, match_id, "played")
    LOGGER.info("test match %d played", match_id)
    return "played"


class TestMatchError(ValueError):
    """The match cannot be set up now (an opponent gone, a version meeting itself)."""

    __test__ = False  # not a pytest test class


def _failed(engine: Engine, match_id: int, tournament: Tournament | None, message: str) -> str:
    """Mark the match failed (and its tournament, if made); ``failed``."""
    LOGGER.warning("test match %d failed: %s", match_id, message)
    queue.finish_test_match(engine, match_id, "failed", message)
    if tournament is not None:
        storage.set_status(engine, storage.row_id(tournament), "failed")
    return "failed"


def _create(engine: Engine, match: TestMatch, data_dir: Path) -> Tournament:
    """Make *match*'s private tournament: one table of the tested version and its two
    opponents' latest versions, ``boards`` boards of 6 seatings, secret deals.

    :raises TestMatchError: if an opponent is gone or a version would meet itself.
    :raises HouseBotError: if a house bot cannot be stored.
    """
    tested = storage.get_bot_version(engine, match.bot_version_id)
    if tested is None:
        raise TestMatchError("the tested version no longer exists")
    seats: list[BotVersion] = [tested]
    for opponent in queue.seated_opponents(json.loads(match.opponents)):
        if opponent in queue.HOUSE_BOTS:
            seats.append(house_version(engine, opponent, data_dir))
            continue
        version = storage.latest_version(engine, opponent, exact=True)
        if version is None:
            raise TestMatchError(f"opponent {opponent!r} no longer exists")
        seats.append(version)
    ids = [storage.row_id(v) for v in seats]
    if len(set(ids)) != len(ids):
        raise TestMatchError(f"{tested.label} would meet itself: choose another opponent")
    rules = get_ruleset(match.ruleset)
    secret, _ = deal_secret(None)
    return storage.create_tournament(
        engine,
        name=queue.tournament_name(queue.match_id(match)),
        ruleset=rules.name,
        rules_json=json.dumps(rules.to_json()),
        time_control=DEFAULT_TIME_CONTROL,
        boards=match.boards,
        seed=None,
        rating_mode="board",
        entries=ids,
        games_total=get_format(FORMAT).games_total(len(ids), match.boards),
        format=FORMAT,
        deal_secret=secret,
        deal_scope=TABLE_DEALS,
        private_to=match.requested_by,
    )


def play_queue(
    engine: Engine,
    data_dir: Path,
    *,
    until: int | None = None,
    on_progress: OnProgress | None = None,
    on_finished: OnFinished | None = None,
) -> int:
    """Hold the queue and play its matches in order (running ones first, to resume them)
    until it is empty, or until test match *until* is finished; the matches finished.

    :raises arena.storage.test_matches.QueueBusy: if another queue runner holds it.
    :raises QueueStopped: as :func:`play_test_match`.
    """
    finished = 0
    with queue.queue_lock(engine):
        while not _done(engine, until):
            match = queue.next_test_match(engine)
            if match is None:
                break
            play_test_match(engine, match, data_dir, on_progress)
            finished += 1
            if on_finished is not None:
                found = queue.get_test_match(engine, queue.match_id(match))
                on_finished(found or match)
    return finished


def _done(engine: Engine, until: int | None) -> bool:
    if until is None:
        return False
    match = queue.get_test_match(engine, until)
    return match is None or match.status in FINISHED


def run_queue(
    engine: Engine,
    data_dir: Path,
    *,
    once: bool,
    on_progress: OnProgress | None = None,
    on_finished: OnFinished | None = None,
) -> int:
    """Play the queue: until it is empty (*once*), or for ever, waiting for requests; the
    matches finished.

    After letting the lock go, an emptied queue is looked at once more: a request stored
    while this runner was finishing saw the lock held and started no runner of its own, so
    this one must take it (or leave it to a runner that took the lock meanwhile).

    :raises arena.storage.test_matches.QueueBusy: if another queue runner holds it.
    :raises QueueStopped: as :func:`play_test_match`.
    """
    finished = play_queue(engine, data_dir, on_progress=on_progress, on_finished=on_finished)
    while True:
        if queue.next_test_match(engine) is not None:
            try:
                finished += play_queue(
                    engine, data_dir, on_progress=on_progress, on_finished=on_finished
                )
            except queue.QueueBusy:
                if once:
                    return finished  # another runner took the queue, and the request
                time.sleep(POLL_SECONDS)
            continue
        if once:
            return finished
        time.sleep(POLL_SECONDS)
