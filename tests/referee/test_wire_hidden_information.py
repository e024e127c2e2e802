"""Hidden information at the wire (docs/rules.md 6, docs/protocol.md 7.1).

Three ``recorder`` bots (tests/referee/zoo/recorder) play every preset and log every
RefereeMessage they receive, byte for byte. Each logged message is then checked against the
game record: every card text anywhere in a message sent to seat ``s`` must be one that
``s`` may know at that moment:

* its dealt cards;
* the cards given and returned on the legs it is part of, once they have moved (the step
  order of the hand decides: in split mode the giver sees the returns only after RETURN);
* the kitty and its own discards, only if it is the dealer and only once it took the kitty;
* the kitty cards shown to it (docs/rules.md 5), once the dealer took the kitty;
* the cards played so far: a request's tricks must be exactly the record's play sequence
  up to that point (so a card a seat plays later never leaks early); a HandEnd may carry
  every card of the hand's 16 tricks.

Welcome, GameStart, GameEnd and MatchEnd carry no card at all. The checker is proven able
to fail on doctored logs.
"""

from __future__ import annotations

import base64
import re
import shutil
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.message import Message

from arena.game import PRESETS
from arena.referee.manifest import load_manifest
from arena.sandbox import SandboxConfig, SandboxMode
from arena.v1 import arena_pb2 as pb
from tests.referee.zoo_support import ZOO, check_game, config, live_processes, run

CARD = re.compile(r"(?<![0-9A-Za-z])[2-9TJQKA][SHDC](?![0-9A-Za-z])")
GAMES = 2
SEED = 5

Records = list[dict[str, Any]]
Logs = list[list[pb.RefereeMessage]]


# ---------------------------------------------------------------------------------------
# Playing with three recorders
# ---------------------------------------------------------------------------------------


def play_recorded(preset: str, workdir: Path) -> tuple[Records, Logs]:
    """Play a match of *preset* with a recorder in every seat; the records and, per seat,
    the messages it received in order."""
    seats, paths = [], []
    for seat in range(3):
        bot_dir = workdir / f"recorder{seat}"
        shutil.copytree(ZOO / "recorder", bot_dir)
        log = workdir / f"seat{seat}.log"
        (bot_dir / "bot.toml").write_text(
            'name = "recorder"\nversion = "1"\nlanguage = "python"\n'
            f"run = {['python', 'bot.py', '--log', str(log)]!r}\n".replace("'", '"'),
            encoding="utf-8",
        )
        seats.append(load_manifest(bot_dir))
        paths.append(log)
    # The recorder writes its log outside its directory, which the sandbox forbids; what
    # reaches a seat over the wire does not depend on the sandbox.
    unsandboxed = replace(
        config(preset, games=GAMES, seed=SEED), sandbox=SandboxConfig(SandboxMode.OFF)
    )
    result = run(seats, unsandboxed)
    assert live_processes(workdir) == []
    logs = [
        [pb.RefereeMessage.FromString(base64.b64decode(line)) for line in p.read_bytes().split()]
        for p in paths
    ]
    return result.records, logs


@pytest.fixture(scope="module")
def recorded(
    tmp_path_factory: pytest.TempPathFactory,
) -> Callable[[str], tuple[Records, Logs]]:
    """``recorded(preset)``: one recorded match per preset, played once per module."""
    cache: dict[str, tuple[Records, Logs]] = {}

    def get(preset: str) -> tuple[Records, Logs]:
        if preset not in cache:
            cache[preset] = play_recorded(preset, tmp_path_factory.mktemp(preset))
        return cache[preset]

    return get


# ---------------------------------------------------------------------------------------
# The checker
# ---------------------------------------------------------------------------------------


def cards_in_message(message: Message) -> set[str]:
    """Every card text in every string field, at any depth (free text included)."""
    found: set[str] = set()
    for field, value in message.ListFields():
        values = value if field.is_repeated else [value]
        for item in values:
            if field.type == field.TYPE_MESSAGE:
                found |= cards_in_message(item)
            elif field.type == field.TYPE_STRING:
                found.update(CARD.findall(item))
    return found


def _steps(record: dict[str, Any], hand: dict[str, Any]) -> list[str]:
    rules = record["rules"]
    return list(rules["first_hand_steps"] if hand["number"] == 1 else rules["later_hand_steps"])


def _at(steps: list[str], *names: str) -> float:
    """Position of the first of *names* in *steps* (infinity if absent: never happens)."""
    return min((steps.index(n) for n in names if n in steps), default=float("inf"))


def _stage(steps: list[str], kind: int) -> float:
    """Where in the hand's steps a decision of *kind* is taken."""
    if kind == pb.DECISION_KIND_GIVE:
        return _at(steps, "EXCHANGE", "GIVE")
    if kind == pb.DECISION_KIND_TRUMP:
        return _at(steps, "TRUMP")
    if kind == pb.DECISION_KIND_DISCARD:
        return _at(steps, "KITTY") + 0.5  # right after the pickup, before the next step
    return float(len(steps))  # play: after every step


def private_view(
    record: dict[str, Any], hand: dict[str, Any], seat: int, stage: float | None
) -> set[str]:
    """The cards other than played ones that *seat* may know at *stage* of *hand*
    (``None``: the end of the hand)."""
    steps = _steps(record, hand)
    end = float("inf") if stage is None else stage
    kitty_at = _at(steps, "KITTY")
    view = set(hand["deal"][seat])
    for leg in hand["exchange"]:
        if seat in (leg["giver"], leg["receiver"]):
            if _at(steps, "EXCHANGE", "GIVE") < end:
                view |= set(leg["given"])
            if _at(steps, "EXCHANGE", "RETURN") < end:
                view |= set(leg["returned"])
    if hand["dealer"] == seat and kitty_at < end:
        view |= set(hand["kitty"])
        if kitty_at + 0.5 < end:
            view |= set(hand["discards"])
    if kitty_at < end:
        for show in hand["shown"]:
            if show["to"] == seat:
                view |= set(show["cards"])
    return view


def played(hand: dict[str, Any]) -> list[str]:
    """Every card of the hand's tricks, in play order."""
    return [card for trick in hand["tricks"] for card in trick["cards"]]


def _request_view(
    seat: int, record: dict[str, Any], hand: dict[str, Any], req: pb.DecisionRequest, where: str
) -> tuple[set[str], list[str]]:
    """What *seat* may know when *req* is sent, and what is wrong with the request."""
    problems = []
    obs = req.observation
    if obs.seat != seat or obs.dealer != hand["dealer"]:
        problems.append(f"{where}: observation of seat {obs.seat}/dealer {obs.dealer}")
    if sorted(obs.dealt) != sorted(hand["deal"][seat]):
        problems.append(f"{where}: dealt cards are not the record's")
    sequence = played(hand)
    seen = [c for t in obs.tricks for c in t.cards] + list(obs.current_trick.cards)
    if seen != sequence[: len(seen)]:
        problems.append(f"{where}: tricks {seen} are not the record's play so far")
    stage = _stage(_steps(record, hand), obs.request.kind)
    return private_view(record, hand, seat, stage) | set(sequence[: len(seen)]), problems


def _hand_end_view(
    seat: int, record: dict[str, Any], hand: dict[str, Any], end: pb.HandEnd, where: str
) -> tuple[set[str], list[str]]:
    """What *seat* may know at the end of *hand*, and what is wrong with the HandEnd."""
    problems = []
    if [list(t.cards) for t in end.tricks] != [t["cards"] for t in hand["tricks"]]:
        problems.append(f"{where}: HandEnd tricks are not the record's")
    return private_view(record, hand, seat, None) | set(played(hand)), problems


def wire_violations(seat: int, messages: list[pb.RefereeMessage], records: Records) -> list[str]:
    """Every message (or card) that *seat* should not have received; ``[]`` if none."""
    problems: list[str] = []
    game: int | None = None
    hand: dict[str, Any] | None = None
    for i, message in enumerate(messages):
        kind = message.WhichOneof("message")
        where = f"seat {seat}, message {i} ({kind}), game {game}"
        allowed: set[str] = set()  # welcome, game_start, game_end, match_end: no card at all
        if kind == "game_start":
            start = message.game_start
            game, hand = start.game_number, None
            if not 1 <= game <= len(records):
                problems.append(f"{where}: unknown game {game}")
                game = None
            elif start.seat != seat or start.game_id != records[game - 1]["game_id"]:
                problems.append(f"{where}: wrong seat or game id in {start}")
        elif kind in ("decision_request", "hand_end"):
            req, end = message.decision_request, message.hand_end
            number = (
                req.observation.hand_number if kind == "decision_request" else end.summary.number
            )
            if game is None or not 1 <= number <= len(records[game - 1]["hands"]):
                problems.append(f"{where}: message outside any known hand ({number})")
                continue
            record = records[game - 1]
            hand = record["hands"][number - 1]
            where += f", hand {number}"
            if kind == "decision_request":
                allowed, wrong = _request_view(seat, record, hand, req, where)
            else:
                allowed, wrong = _hand_end_view(seat, record, hand, end, where)
            problems += wrong
        elif kind == "fault" and game is not None and hand is not None:
            allowed = private_view(records[game - 1], hand, seat, None) | set(played(hand))
        leaked = cards_in_message(message) - allowed
        if leaked:
            problems.append(f"{where}: {sorted(leaked)} outside the seat's view")
    return problems


def check_complete(seat: int, messages: list[pb.RefereeMessage], records: Records) -> None:
    """The log holds the whole match as the seat lived it (so the check is not vacuous)."""
    kinds = [m.WhichOneof("message") for m in messages]
    assert kinds[0] == "welcome" and kinds[-1] == "match_end"
    assert kinds.count("game_start") == kinds.count("game_end") == len(records)
    assert "fault" not in kinds
    per_game: dict[int, list[str]] = {}
    game = 0
    for message, kind in zip(messages, kinds, strict=True):
        if kind == "game_start":
            game = message.game_start.game_number
        per_game.setdefault(game, []).append(kind or "")
    for number, record in enumerate(records, start=1):
        assert per_game[number].count("hand_end") == len(record["hands"])
        requests = per_game[number].count("decision_request")
        assert requests == len(record["timings"]["decision_ms"][seat]) > 0


# ---------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------


def _requests(messages: list[pb.RefereeMessage]) -> Iterator[pb.DecisionRequest]:
    for message in messages:
        if message.WhichOneof("message") == "decision_request":
            yield message.decision_request


@pytest.mark.parametrize("preset", list(PRESETS))
def test_no_card_outside_the_seats_view_reaches_it(
    preset: str, recorded: Callable[[str], tuple[Records, Logs]]
) -> None:
    records, logs = recorded(preset)
    assert len(records) == GAMES
    for record in records:
        check_game(record)
        assert record["faults"] == []
    for seat in range(3):
        check_complete(seat, logs[seat], records)
        assert wire_violations(seat, logs[seat], records) == []


def test_the_private_channels_were_exercised(
    recorded: Callable[[str], tuple[Records, Logs]],
) -> None:
    """Non-vacuity: over all presets, dealers saw their kitty, receivers the cards given to
    them, and givers a show, so the strict check above had something to check."""
    kitty_seen = given_seen = show_seen = shows = 0
    for preset in PRESETS:
        records, logs = recorded(preset)
        for seat in range(3):
            game = 0
            for message in logs[seat]:
                if message.WhichOneof("message") == "game_start":
                    game = message.game_start.game_number
                if message.WhichOneof("message") != "decision_request":
                    continue
                obs = message.decision_request.observation
                hand = records[game - 1]["hands"][obs.hand_number - 1]
                cards = cards_in_message(message)
                if hand["dealer"] == seat and set(hand["kitty"]) <= cards:
                    kitty_seen += 1
                for leg in hand["exchange"]:
                    if leg["receiver"] == seat and set(leg["given"]) <= cards:
                        given_seen += 1
                for show in hand["shown"]:
                    if show["to"] == seat and show["cards"] and set(show["cards"]) <= cards:
                        show_seen += 1
        shows += sum(1 for r in records for h in r["hands"] for s in h["shown"] if s["cards"])
    assert kitty_seen > 0 and given_seen > 0
    assert shows > 0, "no non-empty show in any game: pick another SEED"
    assert show_seen > 0


# ---- the checker can fail ---------------------------------------------------------------


def _doctor(
    messages: list[pb.RefereeMessage], index: int, change: Callable[[pb.RefereeMessage], None]
) -> list[pb.RefereeMessage]:
    copy = [pb.RefereeMessage.FromString(m.SerializeToString()) for m in messages]
    change(copy[index])
    return copy


def _first_request(
    records: Records,
    messages: list[pb.RefereeMessage],
    accept: Callable[[dict[str, Any], pb.DecisionRequest], bool],
) -> tuple[int, dict[str, Any], pb.DecisionRequest]:
    """Index, record hand and request of the first request of game 1 that *accept*s."""
    for i, message in enumerate(messages):
        kind = message.WhichOneof("message")
        if kind == "game_end":
            break
        if kind == "decision_request":
            req = message.decision_request
            hand = records[0]["hands"][req.observation.hand_number - 1]
            if accept(hand, req):
                return i, hand, req
    raise AssertionError("no such request in game 1")


def test_checker_flags_another_seats_card_played_later(
    recorded: Callable[[str], tuple[Records, Logs]],
) -> None:
    records, logs = recorded("classic")
    seat = 0
    i, hand, req = _first_request(
        records, logs[seat], lambda h, r: r.observation.request.kind == pb.DECISION_KIND_PLAY
    )
    so_far = len(req.observation.tricks) * 3 + len(req.observation.current_trick.cards)
    visible = private_view(records[0], hand, seat, None) | set(played(hand)[:so_far])
    other = (seat + 1) % 3
    foreign = next(c for c in hand["deal"][other] if c not in visible)
    assert foreign in played(hand)[so_far:], "a card of the other seat played later"

    def add(m: pb.RefereeMessage) -> None:
        m.decision_request.observation.hand.append(foreign)

    assert wire_violations(seat, logs[seat], records) == []
    problems = wire_violations(seat, _doctor(logs[seat], i, add), records)
    assert len(problems) == 1 and foreign in problems[0], problems


def test_checker_flags_a_future_card_in_the_tricks(
    recorded: Callable[[str], tuple[Records, Logs]],
) -> None:
    records, logs = recorded("classic")
    seat = 1
    i, hand, req = _first_request(
        records, logs[seat], lambda h, r: r.observation.request.kind == pb.DECISION_KIND_PLAY
    )
    so_far = len(req.observation.tricks) * 3 + len(req.observation.current_trick.cards)
    future = next(c for c in played(hand)[so_far:] if c not in hand["deal"][seat])

    def add(m: pb.RefereeMessage) -> None:
        m.decision_request.observation.current_trick.cards.append(future)

    problems = wire_violations(seat, _doctor(logs[seat], i, add), records)
    assert any(future in p for p in problems), problems


def test_checker_flags_the_kitty_before_the_dealer_takes_it(
    recorded: Callable[[str], tuple[Records, Logs]],
) -> None:
    """Classic hand 1 is TRUMP then KITTY: the dealer calls trump without the kitty."""
    records, logs = recorded("classic")
    dealer = records[0]["hands"][0]["dealer"]
    i, hand, _ = _first_request(
        records,
        logs[dealer],
        lambda h, r: h["number"] == 1 and r.observation.request.kind == pb.DECISION_KIND_TRUMP,
    )

    def add(m: pb.RefereeMessage) -> None:
        m.decision_request.observation.kitty.cards.extend(hand["kitty"])

    problems = wire_violations(dealer, _doctor(logs[dealer], i, add), records)
    assert len(problems) == 1 and all(c in problems[0] for c in hand["kitty"]), problems


def test_checker_flags_the_discards_to_a_non_dealer_even_in_free_text(
    recorded: Callable[[str], tuple[Records, Logs]],
) -> None:
    records, logs = recorded("classic")
    hand = records[0]["hands"][0]
    seat = (hand["dealer"] + 1) % 3
    secret = next(
        c for c in hand["discards"] if c not in private_view(records[0], hand, seat, None)
    )
    messages = logs[seat]
    i = next(k for k, m in enumerate(messages) if m.WhichOneof("message") == "hand_end")

    def fault_after(m: pb.RefereeMessage) -> None:  # a HandEnd turned into a Fault of hand 1
        m.fault.detail = f"seat {seat} does not hold {secret}"

    doctored = _doctor(messages, i + 1, fault_after)
    problems = wire_violations(seat, doctored, records)
    assert any(secret in p for p in problems), problems


def test_checker_flags_a_card_in_a_game_start(
    recorded: Callable[[str], tuple[Records, Logs]],
) -> None:
    records, logs = recorded("classic")
    i = next(k for k, m in enumerate(logs[2]) if m.WhichOneof("message") == "game_start")

    def add(m: pb.RefereeMessage) -> None:
        m.game_start.players[0] = "peek-AS"

    problems = wire_violations(2, _doctor(logs[2], i, add), records)
    assert len(problems) == 1 and "AS" in problems[0], problems
