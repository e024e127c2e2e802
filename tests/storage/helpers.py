"""Helpers of the storage tests: real records, bots, tournaments, reference ratings."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Engine

from arena.game.record import game_record
from arena.game.rules import PRESETS
from arena.ratings.trueskill_model import (
    DEFAULT_MODEL,
    Rating,
    RatingModel,
    ranks_for_game,
    ranks_for_totals,
)
from arena.simulate import make_policies, play_game
from arena.storage import add_bot_version, create_tournament, record_game
from arena.storage.models import Tournament

POLICY_MIX = (["random", "greedy", "random"], ["greedy", "random", "greedy"])


def make_record(
    seed: int, preset: str = "classic", faults: Sequence[Mapping[str, Any]] = ()
) -> dict[str, Any]:
    """The record of a real game played by the built-in policies (a copy: the caller may
    change it)."""
    played = _played(seed, preset, json.dumps(list(faults), sort_keys=True))
    return json.loads(played)


@functools.cache
def _played(seed: int, preset: str, faults: str) -> str:
    """One play of each game a test process asks for: the same seed plays the same game,
    and many tests store the same few. Kept as JSON text, so every caller gets its own
    copy (a game costs 20-60 ms to play; parsing its record, about 1 ms)."""
    names = POLICY_MIX[seed % 2]
    state = play_game(PRESETS[preset], seed, make_policies(names, seed))
    return json.dumps(game_record(state, [f"{n}@1" for n in names], json.loads(faults)))


def fault(seat: int, hand: int = 1) -> dict[str, Any]:
    """A fault entry as the referee writes it."""
    return {
        "seat": seat,
        "hand": hand,
        "decision": "play",
        "kind": "timeout",
        "detail": "no answer in 1050 ms",
        "autopilot": True,
    }


def checksum(text: str) -> str:
    """A sha256 hex digest standing for a bot's files."""
    return hashlib.sha256(text.encode()).hexdigest()


def make_bots(engine: Engine, count: int) -> list[int]:
    """*count* fresh bots with one version each; their bot version ids."""
    ids = []
    for i in range(count):
        fields = {"name": f"bot{i}", "version": "1", "language": "python", "run": ["x"]}
        version, _ = add_bot_version(engine, fields, checksum(f"bot{i}"), f"/bots/bot{i}")
        assert version.id is not None
        ids.append(version.id)
    return ids


def make_tournament(
    engine: Engine,
    entrants: Sequence[int],
    games_total: int,
    name: str = "t1",
    rating_mode: str = "game",
) -> Tournament:
    """A classic-rules tournament over *entrants*."""
    return create_tournament(
        engine,
        name=name,
        ruleset="classic",
        rules_json=PRESETS["classic"].to_json(),
        time_control="decision=1000,bank=10000,grace=50,startup=10000",
        boards=max(1, games_total // 6),
        seed=2**40 + 7,
        rating_mode=rating_mode,
        entries=list(entrants),
        games_total=games_total,
    )


def seating(entrants: Sequence[int], index: int) -> list[int]:
    """Seats of game *index*: 3 of the entrants, varying from game to game."""
    n = len(entrants)
    left_out = index % n if n > 3 else None
    players = [e for i, e in enumerate(entrants) if i != left_out][:3]
    shift = index % 3
    return players[shift:] + players[:shift]


def store(
    engine: Engine,
    tournament: Tournament,
    index: int,
    seats: Sequence[int],
    record: Mapping[str, Any],
    board_size: int = 6,
) -> None:
    """record_game with the schedule fields derived from *index*."""
    assert tournament.id is not None
    record_game(
        engine,
        tournament.id,
        schedule_index=index,
        table_index=0,
        board_index=index // board_size,
        seating_index=index % board_size,
        seed=int(record["seed"]),
        seats=list(seats),
        record=record,
        board_size=board_size,
    )


def store_two_tournaments(engine: Engine) -> list[int]:
    """Two tournaments over overlapping bots (t1: 12 games of 4 bots, t2: 6 games of 4 of
    them), with a faulted seat in every fourth game of t1; their ids."""
    bots = make_bots(engine, 5)
    first = make_tournament(engine, bots[:4], games_total=12, name="t1")
    second = make_tournament(engine, bots[1:], games_total=6, name="t2")
    for index in range(12):
        faults = [fault(seat=index % 3)] if index % 4 == 1 else []
        store(engine, first, index, seating(bots[:4], index), make_record(index, faults=faults))
    for index in range(6):
        store(engine, second, index, seating(bots[1:], index), make_record(20 + index))
    assert first.id is not None and second.id is not None
    return [first.id, second.id]


def faulted_seats(record: Mapping[str, Any]) -> list[bool]:
    """Per seat: any fault in the record."""
    seats = {f["seat"] for f in record["faults"]}
    return [s in seats for s in range(3)]


def reference_game_ratings(
    games: Sequence[tuple[Sequence[int], Mapping[str, Any]]], model: RatingModel = DEFAULT_MODEL
) -> dict[int, Rating]:
    """Ratings after rating *games* (seats, record) one by one, straight from the adapter."""
    current: dict[int, Rating] = {}
    for seats, record in games:
        ranks = ranks_for_game(record["result"]["scores"], faulted_seats(record))
        before = [current.get(b, model.initial()) for b in seats]
        for bot, after in zip(seats, model.rate(before, ranks), strict=True):
            current[bot] = after
    return current


def reference_board_ratings(
    boards: Sequence[Sequence[tuple[Sequence[int], Mapping[str, Any]]]],
    model: RatingModel = DEFAULT_MODEL,
) -> dict[int, Rating]:
    """Ratings after rating each board once by total score (faulted bots last)."""
    current: dict[int, Rating] = {}
    for board in boards:
        totals: dict[int, int] = {}
        faulted: dict[int, bool] = {}
        for seats, record in board:
            for seat, bot in enumerate(seats):
                totals[bot] = totals.get(bot, 0) + record["result"]["scores"][seat]
                faulted[bot] = faulted.get(bot, False) or faulted_seats(record)[seat]
        bots = list(totals)
        clean = [b for b in bots if not faulted[b]]
        dirty = [b for b in bots if faulted[b]]
        # Clean bots by total, then faulted bots by total, below all of them.
        ranks: dict[int, int] = {}
        for group, offset in ((clean, 0), (dirty, len(clean))):
            group_ranks = ranks_for_totals([totals[b] for b in group])
            ranks.update({b: offset + r for b, r in zip(group, group_ranks, strict=True)})
        before = [current.get(b, model.initial()) for b in bots]
        for bot, after in zip(bots, model.rate(before, [ranks[b] for b in bots]), strict=True):
            current[bot] = after
    return current
