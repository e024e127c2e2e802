"""The bad-bot zoo: every kind of misbehaviour gives exactly the right fault, the autopilot
finishes the game, the record replays, the bot is started again for the next game, and no
bot process survives the match.

Each zoo bot (tests/referee/zoo/<name>) misbehaves once per process and writes
``ZOO-MISBEHAVES decision=<kind> hand=<n>`` (or ``ZOO-REQUEST ...`` for every request) on
stderr, so the fault the referee records can be checked against what the bot saw, and
``<name> started pid=<pid>`` when it starts, so restarts can be counted.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.game.policies import RandomPolicy
from arena.referee.manifest import BotManifest, load_manifest
from arena.referee.match import PolicySeat, SeatSpec
from arena.referee.timecontrol import TimeControl
from arena.referee.wire import Session
from arena.v1 import arena_pb2 as pb
from tests.referee.zoo_support import (
    FAST,
    RANDOM_BOT,
    check_game,
    config,
    first_decision_of_kind,
    live_processes,
    nth_decision,
    run,
    started_pids,
    zoo_bot,
    zoo_lines,
)

GAMES = 2


@dataclass(frozen=True)
class Case:
    bot: str
    kind: str
    """Expected fault kind."""
    seat: int
    """Where the bad bot sits (varied, so seat attribution is tested too)."""
    at: int | str
    """Which of the bot's decisions faults: its n-th (1-based), the first of a kind
    ("play"), or "startup"."""
    detail: str = ""
    """A regex the fault's detail must match."""
    tail: str = "ZOO-MISBEHAVES"
    """Text the fault's stderr_tail must contain."""
    time_control: TimeControl = FAST


CASES = [
    Case("sleeper", "timeout", 0, "play", r"^no answer in 550 ms$"),
    Case("quitter", "crash", 1, 5),
    Case("raiser", "crash", 2, "play", tail="RuntimeError: raiser-boom-7f3a in hand"),
    Case("garbage", "protocol", 0, 1, r"not a BotMessage"),
    Case("wrong_message", "protocol", 1, 1, r"Hello"),
    Case("wrong_kind", "illegal", 2, "play", r"play"),
    Case("cheater", "illegal", 0, "play", r"does not hold"),
    Case("malformed", "protocol", 1, "play", r"not a card: '10S'"),
    Case("old_id", "protocol", 1, 2, r"request", tail="ZOO-REQUEST"),
    Case("duplicate", "protocol", 2, 2, r"request", tail="ZOO-REQUEST"),
    Case("spawner", "crash", 0, 3),
    Case(
        "never_connects",
        "startup",
        1,
        "startup",
        r"did not connect within 1000 ms",
        tail="never_connects started",
        time_control=TimeControl(decision_ms=200, bank_ms=300, grace_ms=50, startup_ms=1000),
    ),
    Case("bad_version", "startup", 2, "startup", r"protocol 2", tail="bad_version started"),
]


def _seats(case: Case, tmp_path: Path) -> tuple[list[SeatSpec], BotManifest]:
    bad = zoo_bot(case.bot, tmp_path)
    random_copy = tmp_path / "bots" / "random_bot"
    shutil.copytree(RANDOM_BOT, random_copy)
    others: list[SeatSpec] = [PolicySeat(RandomPolicy(7)), load_manifest(random_copy)]
    seats = others[:]
    seats.insert(case.seat, bad)
    return seats, bad


def _expected_fault_at(case: Case, record: dict[str, Any]) -> tuple[int, int, str]:
    """``(n, hand, decision)``: the bot's n-th decision is the one that faults."""
    if case.at == "startup":
        return 1, 0, "startup"
    if isinstance(case.at, str):
        n, hand = first_decision_of_kind(record, case.seat, case.at)
        return n, hand, case.at
    hand, kind = nth_decision(record, case.seat, case.at)
    return case.at, hand, kind


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.bot)
def test_zoo_bot_gets_exactly_its_fault_in_every_game(case: Case, tmp_path: Path) -> None:
    seats, bad = _seats(case, tmp_path)
    policy_seat = next(i for i, s in enumerate(seats) if isinstance(s, PolicySeat))
    result = run(seats, config(games=GAMES, time_control=case.time_control))

    assert live_processes(tmp_path / "bots") == [], "bot processes survived the match"
    assert len(result.records) == GAMES
    pids: list[int] = []
    for record in result.records:
        check_game(record)
        assert record["players"][case.seat] == bad.label

        # Exactly one fault, of the right kind, for the right seat; nobody else faulted.
        assert len(record["faults"]) == 1, record["faults"]
        fault = record["faults"][0]
        n, hand, decision = _expected_fault_at(case, record)
        assert fault["seat"] == case.seat
        assert fault["kind"] == case.kind, fault
        assert (fault["hand"], fault["decision"]) == (hand, decision), fault
        assert fault["autopilot"] is True
        assert re.search(case.detail, fault["detail"]), fault["detail"]
        assert "\n" not in fault["detail"]
        assert case.tail in fault["stderr_tail"], fault["stderr_tail"]

        # The answers before the faulty one were taken and timed (an illegal answer arrived
        # in time, so it is timed too); then the autopilot played.
        timings = record["timings"]["decision_ms"]
        timed = n if case.kind == "illegal" else n - 1
        assert len(timings[case.seat]) == timed, timings[case.seat]

        # What the bot itself saw agrees with the referee's attribution.
        logs = record["bot_logs"][case.seat]
        lines = zoo_lines(logs["stderr"])
        if case.tail == "ZOO-REQUEST":
            requests = [(h, d) for what, d, h in lines if what == "REQUEST"]
            assert requests[: n - 1] == [nth_decision(record, case.seat, i) for i in range(1, n)]
            if len(requests) >= n:  # the bot did see the request it fumbled
                assert requests[n - 1] == (hand, decision)
        elif case.at != "startup":
            assert [(h, d) for what, d, h in lines if what == "MISBEHAVES"] == [(hand, decision)]

        # One process per game: the faulty bot is started again for the next game.
        game_pids = started_pids(logs["stderr"])
        assert len(game_pids) == 1, logs["stderr"][-500:]
        pids.extend(game_pids)
        assert record["bot_logs"][policy_seat] is None
    # One "started" line per game proves the restart (pids repeat inside a pid namespace).
    assert len(pids) == GAMES, "the bot was not restarted for the second game"
    assert result.stats[case.seat].faults == GAMES
    assert [s.faults for i, s in enumerate(result.stats) if i != case.seat] == [0, 0]


def test_bank_user_draws_on_its_bank_without_a_fault(tmp_path: Path) -> None:
    """350 ms against decision_ms 200 and a 300 ms bank: no fault, the bank shrinks by the
    excess, and the next game starts with a full bank again."""
    seat = 1
    bot = zoo_bot("bank_user", tmp_path)
    seats: list[SeatSpec] = [PolicySeat(RandomPolicy(1)), bot, PolicySeat(RandomPolicy(2))]
    result = run(seats, config(games=GAMES))
    assert live_processes(tmp_path / "bots") == []
    clock = re.compile(
        r"clock game=(\d+) request=\d+ decision_ms_left=(\d+) bank_ms_left=(\d+) slow=(\d)"
    )
    for number, record in enumerate(result.records, start=1):
        check_game(record)
        assert record["faults"] == []
        seen = [
            (int(d), int(b), s == "1")
            for g, d, b, s in clock.findall(record["bot_logs"][seat]["stderr"])
            if int(g) == number
        ]
        timings = record["timings"]["decision_ms"][seat]
        assert len(seen) == len(timings)
        assert all(d == FAST.decision_ms for d, _, _ in seen)
        assert seen[0][1] == FAST.bank_ms, "the bank is refilled at every GameStart"
        slow = [i for i, (_, _, s) in enumerate(seen) if s]
        assert len(slow) == 1
        i = slow[0]
        assert timings[i] >= 350
        before, after = seen[i][1], seen[i + 1][1]
        assert before == FAST.bank_ms
        assert 0 < after <= FAST.bank_ms - 150, "the bank must visibly shrink"
        assert abs(after - (before - (timings[i] - FAST.decision_ms))) <= 1
        banks = [b for _, b, _ in seen]
        assert banks == sorted(banks, reverse=True), "the bank never grows within a game"


def test_flooder_is_capped_and_plays_on(tmp_path: Path) -> None:
    """More than 1 MiB on each of stdout and stderr per game: no fault, logs capped."""
    seat, cap = 2, 32 * 1024
    bot = zoo_bot("flooder", tmp_path)
    seats: list[SeatSpec] = [PolicySeat(RandomPolicy(1)), PolicySeat(RandomPolicy(2)), bot]
    result = run(seats, config(games=GAMES, log_cap=cap))
    assert live_processes(tmp_path / "bots") == []
    kept = 0
    for record in result.records:
        check_game(record)
        assert record["faults"] == []
        assert record["timings"]["decision_ms"][seat], "the flooder played"
        logs = record["bot_logs"][seat]
        kept += len(logs["stdout"].encode()) + len(logs["stderr"].encode())
        assert record["bot_logs"][0] is None and record["bot_logs"][1] is None
    assert 0 < kept <= cap
    written = GAMES * 2 * 20 * 64 * 1024  # games x streams x pieces x bytes
    assert result.records[0]["bot_logs"][seat]["dropped_bytes"] > 1 << 20
    assert result.records[-1]["bot_logs"][seat]["dropped_bytes"] >= written // GAMES
    assert result.stats[seat].faults == 0


def test_faulting_bot_is_sent_a_fault_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/protocol.md 3: 'Fault is sent when the referee records a fault against you'."""
    sent: list[tuple[int, pb.RefereeMessage]] = []
    original = Session.send

    def spy(self: Session, message: pb.RefereeMessage) -> None:
        if not self.closed:
            sent.append((self.seat, message))
        original(self, message)

    monkeypatch.setattr(Session, "send", spy)
    seat = 0
    seats: list[SeatSpec] = [
        zoo_bot("cheater", tmp_path),
        PolicySeat(RandomPolicy(1)),
        PolicySeat(RandomPolicy(2)),
    ]
    result = run(seats, config(games=1))
    (fault,) = result.records[0]["faults"]
    assert fault["kind"] == "illegal"
    faults = [m.fault for s, m in sent if s == seat and m.WhichOneof("message") == "fault"]
    assert len(faults) == 1
    assert faults[0].kind == pb.FAULT_KIND_ILLEGAL
    assert faults[0].decision == pb.DECISION_KIND_PLAY
    assert (faults[0].seat, faults[0].hand) == (seat, fault["hand"])
    assert faults[0].autopilot
    assert faults[0].request_id > 0
