"""A seeded arena database for the dashboard tests and benchmark, from real game records.

Games are played in-process by the built-in policies (no bot processes) and stored with
the storage service, exactly as the runner stores them: a real round robin schedule, real
records, real ratings. Two records carry a fault (with the referee's ``stderr_tail`` and
``timings`` fields) so the fault views have something to show.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import json
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from arena import storage
from arena.game.dealing import secret_from_seed
from arena.game.observation import observe
from arena.game.record import game_record
from arena.game.rules import PRESETS
from arena.game.state import GameState
from arena.simulate import make_policies
from arena.storage.database import open_database
from arena.tournament.deals import table_seeds
from arena.tournament.formats import RoundRobin, ScheduledGame, get_format
from arena.tournament.runner import store_game
from tests.migrated_sqlite import built_once, migrated_sqlite_url

BOTS = (("alpha", "greedy"), ("bravo", "random"), ("charlie", "greedy"), ("delta", "random"))
"""(bot name, built-in policy that plays it)."""
STDERR = 'Traceback (most recent call last):\n  File "bot.py", line 9\nValueError: boom'


@dataclass
class Seeded:
    """What was stored, for tests to check the screen against."""

    url: str
    engine: Engine
    versions: dict[str, int]
    """Bot name -> bot version id."""
    labels: dict[int, str]
    tournament_id: int
    running_id: int
    created_id: int
    records: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Schedule index -> record, of the finished tournament."""
    game_ids: list[int] = field(default_factory=list)
    faulted: list[tuple[int, int]] = field(default_factory=list)
    """(schedule index, seat) of each injected fault."""


def manifest(name: str) -> dict[str, Any]:
    """Manifest fields of a seeded bot."""
    return {"name": name, "version": "1.0", "language": "python", "run": ["python", "bot.py"]}


def play(rules_name: str, seed: int, first_dealer: int, policies: list[str]) -> GameState:
    """One whole game between built-in policies (the caller's own copy)."""
    return _played(rules_name, seed, first_dealer, tuple(policies)).clone()


@functools.cache
def _played(rules_name: str, seed: int, first_dealer: int, policies: tuple[str, ...]) -> GameState:
    """Each game played once per test process: the built-in policies are seeded, so the
    same arguments play the same game, and the seeded cups store the same deals again and
    again (a game costs 20-60 ms; a clone, well under one)."""
    state = GameState(PRESETS[rules_name], seed, first_dealer=first_dealer)
    players = make_policies(list(policies), seed)
    while not state.is_over:
        seat = state.current_seat
        state.apply_decision(players[seat].act(observe(state, seat)))
    return state


def secret_deal_cup(
    engine: Engine,
    name: str,
    entries: list[int],
    *,
    deal_scope: str,
    seed: int | None = None,
    private_to: int | None = None,
) -> tuple[int, list[ScheduledGame]]:
    """Create a 1-board classic round robin of *entries* dealing from a secret (a fresh one,
    or the one derived from *seed*), as ``arena tournament create`` would; nothing played.
    Its id and schedule."""
    secret = secrets.token_bytes(32) if seed is None else secret_from_seed(seed)
    schedule = RoundRobin().schedule(
        len(entries), 1, table_seeds("hmac-sha256/1", None, secret.hex(), deal_scope)
    )
    created = storage.create_tournament(
        engine,
        name=name,
        ruleset="classic",
        rules_json=json.dumps(PRESETS["classic"].to_json()),
        time_control="decision=1000,bank=10000,grace=50,startup=10000",
        boards=1,
        seed=seed,
        rating_mode="board",
        entries=entries,
        games_total=len(schedule),
        deal_secret=secret,
        deal_scope=deal_scope,
        private_to=private_to,
    )
    return storage.row_id(created), schedule


def seed_database(
    url: str, *, boards: int = 1, running_games: int = 6, fault_games: tuple[int, ...] = (2, 9)
) -> Seeded:
    """Bots alpha..delta, tournament ``main`` (finished, *boards* boards of the 4-bot round
    robin: 24 games a board), ``live`` (running, *running_games* stored) and ``fresh``
    (created, nothing played)."""
    engine = open_database(url)
    versions = {}
    for name, _ in BOTS:
        digest = hashlib.sha256(name.encode()).hexdigest()
        version, _ = storage.add_bot_version(engine, manifest(name), digest, f"/bots/{name}")
        versions[name] = storage.row_id(version)
    labels = {v: f"{n}@1.0" for n, v in versions.items()}
    ids = [versions[n] for n, _ in BOTS]
    fmt = get_format("round_robin")

    def tournament(name: str, status: str, seed: int, count: int | None, faults: bool) -> int:
        schedule = fmt.schedule(len(ids), boards, seed)
        created = storage.create_tournament(
            engine,
            name=name,
            ruleset="classic",
            rules_json=json.dumps(PRESETS["classic"].to_json()),
            time_control="decision=1000,bank=10000,grace=50,startup=10000",
            boards=boards,
            seed=seed,
            rating_mode="board",
            entries=ids,
            games_total=len(schedule),
        )
        tournament_id = storage.row_id(created)
        for game in schedule[: len(schedule) if count is None else count]:
            seats = [ids[e] for e in game.entrants]
            policies = [BOTS[e][1] for e in game.entrants]
            state = play("classic", game.seed, game.first_dealer, policies)
            fault_list: list[dict[str, Any]] = []
            extra: dict[str, Any] = {"game_id": f"{name}-{game.schedule_index:06d}"}
            if faults and game.schedule_index in fault_games:
                # The first dealer times out on his first decision (the trump call of hand 1).
                seat = game.first_dealer
                fault_list.append(
                    {
                        "seat": seat,
                        "hand": 1,
                        "decision": "trump",
                        "kind": "timeout",
                        "detail": "no answer in 1050 ms",
                        "autopilot": True,
                        "stderr_tail": STDERR,
                    }
                )
                extra["timings"] = {"decision_ms": [[] if s == seat else [1.0] for s in range(3)]}
                seeded.faulted.append((game.schedule_index, seat))
            record = game_record(state, [labels[s] for s in seats], fault_list, extra)
            store_game(engine, tournament_id, game, seats, record, fmt.board_size)
            if name == "main":
                seeded.records[game.schedule_index] = record
        storage.set_status(engine, tournament_id, status)
        return tournament_id

    seeded = Seeded(url, engine, versions, labels, 0, 0, 0)
    seeded.tournament_id = tournament("main", "finished", 11, None, True)
    seeded.running_id = tournament("live", "running", 12, running_games, False)
    seeded.created_id = tournament("fresh", "created", 13, 0, False)
    seeded.game_ids = storage.tournament_game_ids(engine, seeded.tournament_id)
    return seeded


"""This test process's seeded SQLite files, by the options they were seeded with."""


def seeded_sqlite(
    path: Path, *, boards: int = 1, running_games: int = 6, fault_games: tuple[int, ...] = (2, 9)
) -> Seeded:
    """:func:`seed_database` on a SQLite file at *path*, in milliseconds after the first.

    Seeding plays 30 or more games (half a second of CPU), and the dashboard's test
    modules each want the same deterministic database. So each test process seeds one file
    per set of options and hands out byte copies of it, with what was stored (ids, records)
    copied too: a test may change its copy as it likes.
    """

    def build(template: Path) -> tuple[Engine, Seeded]:
        made = seed_database(
            migrated_sqlite_url(template),
            boards=boards,
            running_games=running_games,
            fault_games=fault_games,
        )
        return made.engine, made

    made = built_once(("seeded", boards, running_games, fault_games), build, path)
    url = f"sqlite:///{path}"
    return dataclasses.replace(
        made,
        url=url,
        engine=open_database(url),
        versions=dict(made.versions),
        labels=dict(made.labels),
        records=copy.deepcopy(made.records),
        game_ids=list(made.game_ids),
        faulted=list(made.faulted),
    )


def store_next_game(seeded: Seeded, tournament_id: int) -> None:
    """Play and store the next unplayed game of a seeded tournament (as a runner would)."""
    engine = seeded.engine
    tournament = storage.get_tournament(
        engine, next(t.name for t in storage.list_tournaments(engine) if t.id == tournament_id)
    )
    ids = [storage.row_id(v) for v in storage.entries(engine, tournament_id)]
    fmt = get_format(tournament.format)
    stored = storage.stored_indexes(engine, tournament_id)
    game = next(
        g
        for g in fmt.schedule(len(ids), tournament.boards, tournament.seed)
        if g.schedule_index not in stored
    )
    seats = [ids[e] for e in game.entrants]
    state = play("classic", game.seed, game.first_dealer, [BOTS[e][1] for e in game.entrants])
    record = game_record(state, [seeded.labels[s] for s in seats])
    store_game(engine, tournament_id, game, seats, record, fmt.board_size)
