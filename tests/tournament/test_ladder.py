"""Ladders end to end with games played in-process (built-in policies stand in for the bot
processes, so a match costs ~0.1 s): the stopping rule, the budget, reproducibility from
the secret, new bots and versions while following, resuming a cut-off run exactly once,
and the CLI's one-line errors. The real-process kill -9 test is test_ladder_kill.py.

Parametrized over SQLite and a real PostgreSQL server (``tests/conftest.py``).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from arena import storage
from arena.cli import main
from arena.game.policies import EpsilonGreedyPolicy, Policy
from arena.ratings.confidence import p_above_next
from arena.storage.database import open_database
from arena.storage.models import BotVersion
from arena.storage.ratings import recompute_ratings
from arena.tournament import inprocess, setup
from arena.tournament.jobs import GameJob
from arena.tournament.ladder import LadderProgress, contenders, run_ladder
from arena.tournament.matchmaker import standings_order

STRENGTH = {"ace": 0.0, "mid": 0.5, "low": 0.8, "dud": 1.0, "late": 0.2}
"""Each test bot's epsilon (0 = greedy, 1 = random): the true order is by epsilon."""


def _policy(job: GameJob, seat: int) -> Policy:
    """Each seat by its bot's epsilon-greedy policy, seeded by the game and seat."""
    return EpsilonGreedyPolicy(
        STRENGTH[job.labels[seat].split("@")[0]], job.schedule_index * 3 + seat
    )


class InProcessExecutor(inprocess.InProcessExecutor):
    """The in-process executor, each seat played by its bot's built-in policy in games of
    one hand (they keep these tests fast; a ladder never looks at how long games are). It
    asks *more* whenever it has nothing left, as the process executor does. *stop_after*
    games, it raises (a run cut off)."""

    def __init__(self, stop_after: int | None = None) -> None:
        super().__init__(inprocess.policy_game(_policy, max_hands=1), stop_after=stop_after)


def _version(engine: Engine, name: str, version: str = "1") -> BotVersion:
    checksum = hashlib.sha256(f"{name}@{version}".encode()).hexdigest()
    manifest = {"name": name, "version": version, "language": "python", "run": "python bot.py"}
    stored, _ = storage.add_bot_version(engine, manifest, checksum, f"/nowhere/{name}/{version}")
    return stored


def _ladder(
    engine: Engine,
    name: str,
    bots: Sequence[str],
    *,
    seed: int | None = 3,
    options: setup.LadderOptions | None = None,
) -> None:
    for bot in bots:
        if storage.latest_version(engine, bot) is None:
            _version(engine, bot)
    setup.create_tournament(
        engine,
        by=storage.actor(engine),
        name=name,
        ruleset="classic",
        bots=list(bots),
        boards=1,
        seed=seed,
        format_name="ladder",
        ladder=options or setup.LadderOptions(games=60),
    )


def _run(engine: Engine, name: str, executor: InProcessExecutor | None = None) -> LadderProgress:
    return asyncio.run(run_ladder(engine, name, executor or InProcessExecutor()))


def _tables(engine: Engine, name: str) -> list[tuple[str, ...]]:
    tournament = storage.get_tournament(engine, name)
    return [m.labels for m in storage.ladder_matches(engine, storage.row_id(tournament))]


def _records(engine: Engine, name: str) -> list[tuple[int, dict[str, Any]]]:
    tournament = storage.get_tournament(engine, name)
    return storage.tournament_records(engine, storage.row_id(tournament))


@pytest.fixture
def engine(database_url: str) -> Engine:
    return open_database(database_url)


def test_a_ladder_stops_when_its_order_is_sure(engine: Engine) -> None:
    _ladder(engine, "sure", ["ace", "mid", "dud"],
            options=setup.LadderOptions(games=600, confidence=0.9, min_games=12))  # fmt: skip
    progress = _run(engine, "sure")
    tournament = storage.get_tournament(engine, "sure")
    bots = standings_order(contenders(engine, storage.row_id(tournament)))
    chances = p_above_next([b.rating for b in bots])
    assert progress.stopped is not None and "P >= 0.9" in progress.stopped
    assert all(p is None or p >= 0.9 for p in chances)
    assert all(b.games >= 12 for b in bots)
    assert progress.done < 600 and tournament.status == "finished"
    labels = [storage.get_bot_version(engine, b.key).label for b in bots]
    assert labels == ["ace@1", "mid@1", "dud@1"]
    assert progress.done == progress.matches * 6
    # The control, in the next test: at confidence 0.999 the same kind of ladder plays on.


def test_a_ladder_stops_at_its_budget_and_rates_every_game(engine: Engine) -> None:
    _ladder(engine, "budget", ["ace", "mid", "low", "dud"],
            options=setup.LadderOptions(games=40, confidence=0.999))  # fmt: skip
    progress = _run(engine, "budget")
    assert progress.stopped == "the budget of 40 games is spent"
    records = _records(engine, "budget")
    assert [i for i, _ in records] == list(range(36))  # whole matches only: 6 of 6 games
    tournament = storage.get_tournament(engine, "budget")
    before = [
        (r.bot_version_id, r.mu, r.sigma, r.games) for r in storage.ratings(engine, tournament.id)
    ]
    recompute_ratings(engine, storage.row_id(tournament))
    after = [
        (r.bot_version_id, r.mu, r.sigma, r.games) for r in storage.ratings(engine, tournament.id)
    ]
    assert after == before and sum(g for *_, g in after) == 36 * 3
    for match in storage.ladder_matches(engine, storage.row_id(tournament)):
        games = [
            g
            for g in storage.game_page(engine, tournament.id, start=match.match_index * 6, limit=6)
        ]
        assert {frozenset(g.seats) for g in games} == {frozenset(match.bot_version_ids)}
        assert len({g.seating_index for g in games}) == 6  # all 6 seatings of one deal


@pytest.mark.slow
def test_one_match_at_a_time_is_reproducible_from_the_secret(tmp_path: Path) -> None:
    """(On SQLite only: the backend plays no part in the choices.)"""
    bots = ["ace", "mid", "low", "dud", "late"]
    runs = []
    for url, name, seed in (("one", "a", 11), ("two", "b", 11), ("one", "c", 12)):
        engine = open_database(f"sqlite:///{tmp_path / url}.db")
        _ladder(engine, name, bots, seed=seed, options=setup.LadderOptions(games=18, min_games=6))
        _run(engine, name)
        runs.append((_tables(engine, name), [r for _, r in _records(engine, name)]))
    assert runs[0] == runs[1]
    assert runs[2][0] != runs[0][0]  # the control: another secret, other tables


def test_a_cut_off_run_resumes_with_every_game_exactly_once(engine: Engine) -> None:
    _ladder(engine, "cut", ["ace", "mid", "low", "dud"], options=setup.LadderOptions(games=24))
    _ladder(engine, "whole", ["ace", "mid", "low", "dud"], options=setup.LadderOptions(games=24))
    with pytest.raises(KeyboardInterrupt):
        _run(engine, "cut", InProcessExecutor(stop_after=9))
    tournament = storage.get_tournament(engine, "cut")
    assert tournament.status == "interrupted"
    chosen = _tables(engine, "cut")
    assert len(chosen) == 2 and len(_records(engine, "cut")) == 9  # match 1 is cut off
    executor = InProcessExecutor()
    _run(engine, "cut", executor)
    assert executor.played[:3] == [9, 10, 11]  # the cut-off match first, only what it missed
    assert _tables(engine, "cut")[:2] == chosen
    assert [i for i, _ in _records(engine, "cut")] == list(range(24))
    _run(engine, "whole")  # the same secret (seed 3) uncut: the same ladder
    assert _tables(engine, "cut") == _tables(engine, "whole")


@pytest.mark.slow
def test_following_takes_a_new_bot_and_a_new_version(engine: Engine) -> None:
    _ladder(engine, "open", ["ace", "mid", "dud"],
            options=setup.LadderOptions(games=72, confidence=0.999, min_games=6))  # fmt: skip
    tournament_id = storage.row_id(storage.get_tournament(engine, "open"))
    old_mid = storage.latest_version(engine, "mid")
    assert old_mid is not None
    added: dict[str, int] = {}

    async def scenario() -> LadderProgress:
        runner = asyncio.create_task(run_ladder(engine, "open", InProcessExecutor(), follow=True))
        while len(storage.stored_indexes(engine, tournament_id)) < 12:
            await asyncio.sleep(0)
        _version(engine, "late")
        assert main(["tournament", "add", "open", "late", "--db", str(engine.url)]) == 0
        added["late"] = len(storage.ladder_matches(engine, tournament_id))
        _version(engine, "mid", "2")  # a new submission: nothing tells the ladder
        added["mid"] = len(storage.ladder_matches(engine, tournament_id))
        return await runner

    progress = asyncio.run(scenario())
    assert progress.entered == ["mid@2"]
    matches = storage.ladder_matches(engine, tournament_id)
    assert len(matches) == 12 and progress.stopped == "the budget of 72 games is spent"
    later = [m.labels for m in matches[added["mid"] :]]
    assert all("mid@1" not in labels for labels in later)  # retired from matchmaking
    assert sum("mid@1" in m.labels for m in matches) >= 2  # its games are kept ...
    entrants = {e.label: e for e in storage.ladder_entrants(engine, tournament_id)}
    assert entrants["mid@1"].retired and not entrants["mid@2"].retired
    rows = {row.bot: row for row in storage.standings(engine, tournament_id)}
    assert rows["mid@1"].games >= 12  # ... and so are its rating and history
    # Newcomers first: both sit at every table until they have their minimum games.
    first = later[:2]
    assert all("mid@2" in labels and "late@1" in labels for labels in first)


def test_ladder_cli_errors_are_one_line(
    database_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = open_database(database_url)
    for bot in ("ace", "mid", "dud"):
        _version(engine, bot)
    common = ["--db", database_url, "--data", str(tmp_path)]
    create = ["tournament", "create", "l", "--bots", "ace,mid,dud", "--format", "ladder"]
    assert main([*create, "--games", "5", *common]) == 2
    assert main([*create, "--confidence", "1.5", *common]) == 2
    assert main([*create, "--confidence", "0.5", *common]) == 2
    assert main([*create, "--min-games", "-1", *common]) == 2
    assert main([*create, "--boards", "2", *common]) == 2
    assert main(["tournament", "create", "l", "--bots", "ace,mid", "--format", "ladder",
                 *common]) == 2  # fmt: skip
    assert main(["tournament", "create", "r", "--bots", "ace,mid,dud", "--games", "60",
                 *common]) == 2  # fmt: skip
    assert main(["tournament", "add", "nothing", "ace", *common]) == 1
    assert main(["tournament", "add", "l", "nobody", *common]) == 1
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 9 and all(line.startswith("arena: error:") for line in errors)
    # The controls: the same commands with good values work.
    assert main([*create, "--games", "6", "--confidence", "0.9", *common]) == 0
    assert main(["tournament", "create", "r", "--bots", "ace,mid,dud", *common]) == 0
    assert main(["tournament", "run", "r", "--follow", *common]) == 2
    assert main(["tournament", "add", "r", "ace", *common]) == 1
    assert main(["tournament", "add", "l", "ace", *common]) == 1  # already entered
    _version(engine, "late")
    assert main(["tournament", "add", "l", "late", *common]) == 0
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 3 and all(line.startswith("arena: error:") for line in errors)
    assert "only a ladder can follow" in errors[0]
    assert "only a ladder takes entrants" in errors[1]
    assert "already entered" in errors[2]
