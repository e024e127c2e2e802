"""Shared helpers of the referee tests: fast configs, the bad-bot zoo, process checks and
an independent list of who decided what in a game record."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.game import PRESETS, GameState
from arena.game.actions import CallTrump, Discard, Give, Play
from arena.game.cards import Card, Trump, parse_cards
from arena.game.record import replay_record
from arena.protocol.wire import OUTPUT_MARK
from arena.referee.manifest import BotManifest, load_manifest
from arena.referee.match import MatchConfig, MatchResult, SeatSpec, play_match
from arena.referee.timecontrol import TimeControl
from tests.oracle.rules_oracle import check_record

ROOT = Path(__file__).resolve().parents[2]
ZOO = Path(__file__).resolve().parent / "zoo"
RANDOM_BOT = ROOT / "sample_bots" / "random_bot"

FAST = TimeControl(decision_ms=200, bank_ms=300, grace_ms=50, startup_ms=3000)
"""Short limits: every zoo match stays around a second."""


def config(
    preset: str = "classic",
    *,
    games: int = 2,
    seed: int = 3,
    time_control: TimeControl = FAST,
    log_cap: int = 32 * 1024,
) -> MatchConfig:
    """A match config with the tests' short time control."""
    return MatchConfig(
        PRESETS[preset], games=games, seed=seed, time_control=time_control, log_cap=log_cap
    )


def zoo_bot(name: str, tmp_path: Path) -> BotManifest:
    """A private copy of zoo bot *name* (so the process check sees only this test's bots)."""
    target = tmp_path / "bots" / name
    shutil.copytree(ZOO / name, target)
    return load_manifest(target)


def run(seats: Sequence[SeatSpec], match_config: MatchConfig) -> MatchResult:
    """Play a whole match synchronously."""
    return asyncio.run(play_match(seats, match_config))


def live_processes(directory: Path) -> list[str]:
    """Processes still running whose working directory or command line is in *directory*."""
    root = str(directory.resolve())
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            cwd = os.readlink(entry / "cwd")
            state = next(
                line for line in (entry / "status").read_text().splitlines() if line[:6] == "State:"
            )
        except (OSError, StopIteration):
            continue  # gone meanwhile, or not ours to look at
        if "Z (zombie)" in state:
            continue
        if cwd == root or cwd.startswith(root + "/") or root in cmdline:
            found.append(f"pid {entry.name} cwd={cwd} cmd={cmdline.strip()}")
    return found


def check_game(record: dict[str, Any]) -> None:
    """A finished game whose record replays (engine) and checks (independent oracle)."""
    result = record["result"]
    assert result is not None, "the game did not finish"
    assert result["winners"], result
    assert result["hands_played"] == len(record["hands"]) >= 1
    replay_record(record)
    assert check_record(record) == []


def decisions(record: dict[str, Any]) -> list[tuple[int, int, str]]:
    """``(seat, hand, kind)`` of every decision of the game, in order, by replaying the
    record's actions through a fresh engine (independent of the referee's bookkeeping)."""
    state = GameState(
        PRESETS[record["ruleset"]], record["seed"], first_dealer=record["first_dealer"]
    )
    out: list[tuple[int, int, str]] = []
    plays: dict[int, list[Card]] = {}
    while not state.is_over:
        number = state.hand.number
        hand = record["hands"][number - 1]
        seat, kind = state.current_seat, state.decision_kind
        assert kind is not None
        out.append((seat, number, kind.value))
        if kind.value == "give":
            legs = [parse_cards(x["given"]) for x in hand["exchange"] if x["giver"] == seat]
            state.apply_decision(Give(tuple(legs)))
        elif kind.value == "trump":
            state.apply_decision(CallTrump(Trump.parse(hand["trump"])))
        elif kind.value == "discard":
            state.apply_decision(Discard(parse_cards(hand["discards"])))
        else:
            queue = plays.setdefault(
                number, [c for t in hand["tricks"] for c in parse_cards(t["cards"])]
            )
            state.apply_decision(Play(queue.pop(0)))
    return out


def nth_decision(record: dict[str, Any], seat: int, n: int) -> tuple[int, str]:
    """``(hand, kind)`` of *seat*'s *n*-th decision (1-based) in the game."""
    mine = [(hand, kind) for s, hand, kind in decisions(record) if s == seat]
    return mine[n - 1]


def first_decision_of_kind(record: dict[str, Any], seat: int, kind: str) -> tuple[int, int]:
    """``(n, hand)``: the 1-based index among *seat*'s decisions of its first *kind*."""
    mine = [(hand, k) for s, hand, k in decisions(record) if s == seat]
    for n, (hand, k) in enumerate(mine, start=1):
        if k == kind:
            return n, hand
    raise AssertionError(f"seat {seat} never had a {kind} decision")


ZOO_LINE = re.compile(r"ZOO-(MISBEHAVES|REQUEST) decision=(\w+) hand=(\d+)")


def zoo_lines(stderr: str) -> list[tuple[str, str, int]]:
    """``(what, decision, hand)`` of every ``ZOO-...`` line a zoo bot wrote."""
    return [(m[1], m[2], int(m[3])) for m in ZOO_LINE.finditer(stderr)]


STARTED = re.compile(r"(\w+) started pid=(\d+)")


def started_pids(stderr: str) -> list[int]:
    """Pids a zoo bot announced on stderr (one per process start)."""
    return [int(m[2]) for m in STARTED.finditer(stderr)]


def end_lines(bot: Path, config: MatchConfig) -> list[tuple[str, list[list[str]]]]:
    """Per game of a match of three copies of *bot* (a memory bot, or any bot that prints
    ``END <game_id>`` after a game): its id and each seat's END lines. No output mark is
    left in any record."""
    manifest = load_manifest(bot)
    records: list[dict[str, Any]] = asyncio.run(play_match([manifest] * 3, config)).records
    for record in records:
        assert all(OUTPUT_MARK.decode() not in str(logs) for logs in record["bot_logs"])
    return [
        (
            record["game_id"],
            [
                re.findall(r"^END (\S+)$", logs["stderr"], re.MULTILINE)
                for logs in record["bot_logs"]
            ],
        )
        for record in records
    ]
