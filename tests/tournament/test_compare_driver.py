"""The version-test driver without bot processes: an in-process executor plays each job's
game with the built-in policy named by its bot path, so the driver's own logic is checked
fast: it stops at the first decision, gives up undecided after ``max_boards``, resumes
after an interruption without playing or counting a game twice, counts only the boards up
to the decision when a batch played more, and refuses an executor that skipped a game."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from arena import storage
from arena.game.record import game_record
from arena.ratings.sprt import SprtSettings, Verdict, run_sequentially
from arena.storage.database import open_database
from arena.tournament import compare, inprocess
from arena.tournament.executor import (
    ArenaFaultCallback,
    ExecutorError,
    MoreJobs,
    ResultCallback,
)
from arena.tournament.jobs import GameJob
from tests.dashboard.seed import manifest, play
from tests.migrated_sqlite import migrated_sqlite_url

POLICY = {"cand": "greedy", "base": "random", "x": "greedy", "y": "random"}
"""Bot name -> the built-in policy that plays it (its stored path is ``/bots/<name>``)."""


def _game(job: GameJob) -> dict[str, Any]:
    names = [Path(p).name for p in job.bot_paths]
    state = play("classic", job.seed, job.first_dealer, [POLICY[n] for n in names])
    return game_record(state, list(job.labels))


class InProcessExecutor(inprocess.InProcessExecutor):
    """The in-process executor, each seat played by the built-in policy its bot's path
    names, in schedule order; with *stop_after*, raises ``KeyboardInterrupt`` after that
    many games (a Ctrl-C); with *drop*, silently skips that game (a broken executor)."""

    def __init__(self, stop_after: int | None = None, drop: int | None = None) -> None:
        super().__init__(_game, stop_after=stop_after)
        self.drop = drop

    async def run(
        self,
        jobs: Sequence[GameJob],
        on_result: ResultCallback,
        on_arena_fault: ArenaFaultCallback | None = None,
        more: MoreJobs | None = None,
    ) -> None:
        kept = [job for job in jobs if job.schedule_index != self.drop]
        await super().run(kept, on_result, on_arena_fault, more)


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    engine = open_database(migrated_sqlite_url(tmp_path / "arena.db"))
    for name in POLICY:
        digest = hashlib.sha256(name.encode()).hexdigest()
        storage.add_bot_version(engine, manifest(name), digest, f"/bots/{name}")
    return engine


def _spec(engine: Engine, tmp_path: Path, max_boards: int, name: str) -> compare.VersionTestSpec:
    return compare.create_version_test(
        engine,
        candidate="cand",
        baseline="base",
        opponents=["x", "y"],
        sprt=SprtSettings(margin=1.0, min_boards=3),
        max_boards=max_boards,
        name=name,
    )


def _stored(engine: Engine, spec: compare.VersionTestSpec) -> list[int]:
    return sorted(storage.stored_indexes(engine, spec.tournament_id))


def test_it_stops_at_the_first_decision(engine: Engine, tmp_path: Path) -> None:
    spec = _spec(engine, tmp_path, max_boards=40, name="vt")
    executor = InProcessExecutor()
    outcome = asyncio.run(compare.run_version_test(engine, spec, executor))
    assert outcome.verdict is Verdict.BETTER  # greedy against random play
    boards = outcome.final.boards
    assert 3 <= boards < 40
    assert _stored(engine, spec) == executor.played == list(range(12 * boards))
    assert storage.get_tournament(engine, "vt").status == "finished"
    # The verdict is the first prefix that decides: one board less did not.
    differences = compare.board_differences(
        storage.game_page(engine, spec.tournament_id, limit=1000),
        *(storage.row_id(v) for v in storage.entries(engine, spec.tournament_id)[:2]),
    )
    assert run_sequentially(differences[: boards - 1], spec.sprt)[-1].verdict is Verdict.UNDECIDED
    # Ratings were updated per table board, like any tournament's.
    games = {row.name: row.games for row in storage.standings(engine, spec.tournament_id)}
    assert games == {"cand": 6 * boards, "base": 6 * boards, "x": 12 * boards, "y": 12 * boards}


def test_it_gives_up_undecided_after_max_boards(engine: Engine, tmp_path: Path) -> None:
    spec = _spec(engine, tmp_path, max_boards=2, name="short")
    outcome = asyncio.run(compare.run_version_test(engine, spec, InProcessExecutor()))
    assert outcome.verdict is Verdict.UNDECIDED  # min_boards 3 is out of reach
    assert outcome.final.boards == 2 and _stored(engine, spec) == list(range(24))
    assert storage.get_tournament(engine, "short").status == "finished"


def test_an_interrupted_test_resumes_without_repeating_a_game(
    engine: Engine, tmp_path: Path
) -> None:
    spec = _spec(engine, tmp_path, max_boards=40, name="resumed")
    first = InProcessExecutor(stop_after=17)
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(compare.run_version_test(engine, spec, first))
    assert storage.get_tournament(engine, "resumed").status == "interrupted"
    assert _stored(engine, spec) == list(range(17))
    second = InProcessExecutor()
    outcome = asyncio.run(compare.run_version_test(engine, spec, second))
    assert second.played[:2] == [17, 18] and not set(second.played) & set(first.played)
    assert _stored(engine, spec) == list(range(12 * outcome.final.boards))
    assert outcome.verdict is Verdict.BETTER
    # Run again once decided: nothing more is played.
    third = InProcessExecutor()
    assert asyncio.run(compare.run_version_test(engine, spec, third)).final == outcome.final
    assert third.played == []


@pytest.mark.slow
def test_boards_of_a_batch_after_the_decision_are_kept_but_not_counted(
    engine: Engine, tmp_path: Path
) -> None:
    spec = _spec(engine, tmp_path, max_boards=40, name="ahead")
    executor = InProcessExecutor()
    outcome = asyncio.run(compare.run_version_test(engine, spec, executor, boards_at_once=5))
    # One batch of 5 boards; greedy against random play decides at the 3 boards' minimum.
    assert outcome.verdict is Verdict.BETTER
    assert 3 <= outcome.final.boards < 5
    assert _stored(engine, spec) == executor.played == list(range(60))
    assert outcome.boards_stored == 5
    whole_batch = compare.board_differences(
        storage.game_page(engine, spec.tournament_id, limit=1000),
        *(storage.row_id(v) for v in storage.entries(engine, spec.tournament_id)[:2]),
    )
    assert len(whole_batch) == 5
    assert outcome.states == run_sequentially(whole_batch, spec.sprt)  # stops at the decision


def test_an_executor_that_leaves_a_board_unplayed_is_an_error(
    engine: Engine, tmp_path: Path
) -> None:
    spec = _spec(engine, tmp_path, max_boards=40, name="broken")
    with pytest.raises(ExecutorError, match="left board 1 unplayed"):
        asyncio.run(compare.run_version_test(engine, spec, InProcessExecutor(drop=5)))
    assert storage.get_tournament(engine, "broken").status == "interrupted"
