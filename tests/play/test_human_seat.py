"""A person's seat at the referee (arena.referee.human_seat) and its desk in the database
(arena.play.desk, arena.storage.play_games), without processes: the other seats are the
referee's built-in policies. The browser test plays the same seat with real bot processes."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from arena import storage
from arena.accounts import admin
from arena.game import GameState, observe
from arena.game.actions import Decision, Play
from arena.game.cards import Card
from arena.game.observation import Observation
from arena.game.policies import GreedyPolicy, RandomPolicy
from arena.game.rules import get_ruleset
from arena.play.desk import DatabaseDesk
from arena.play.view import seat_view
from arena.referee.config import MatchConfig, PolicySeat
from arena.referee.errors import BotProtocolError
from arena.referee.human_seat import HumanSeat
from arena.referee.match import play_match
from arena.referee.timecontrol import TimeControl
from arena.storage import play_games
from arena.storage.database import open_database
from arena.storage.models import PlayGame, utcnow
from tests.migrated_sqlite import migrated_sqlite_url

PERSON = 1
QUICK = TimeControl(decision_ms=2000, bank_ms=0, grace_ms=50)


class Desk:
    """A person who answers through *answer* and records what they were shown."""

    def __init__(self, answer: Any = None, wait_s: float = 0.0) -> None:
        self.policy = GreedyPolicy()
        self.answer = answer
        self.wait_s = wait_s
        self.shown: list[Observation] = []
        self.asked: list[Observation] = []

    def show(self, observation: Observation) -> None:
        self.shown.append(observation)

    async def decide(self, observation: Observation, deadline_s: float) -> Decision:
        self.asked.append(observation)
        await asyncio.sleep(self.wait_s)
        if self.answer is not None:
            return self.answer(observation)  # type: ignore[no-any-return]
        return self.policy.act(observation)


def _play(desk: Desk, control: TimeControl = QUICK) -> dict[str, Any]:
    seats = [
        PolicySeat(RandomPolicy(1)),
        HumanSeat("alice", desk, control),
        PolicySeat(RandomPolicy(2)),
    ]
    config = MatchConfig(rules=get_ruleset("classic"), games=1, seed=7)
    return asyncio.run(play_match(seats, config)).records[0]


def test_the_person_plays_a_whole_game_seeing_only_their_seat() -> None:
    desk = Desk()
    record = _play(desk)
    assert record["players"][PERSON] == "human:alice"
    assert record["faults"] == []
    assert record["result"]["winners"]
    assert desk.asked and all(o.seat == PERSON and o.request is not None for o in desk.asked)
    assert desk.shown and all(o.seat == PERSON for o in desk.shown)
    assert desk.shown[-1].result is not None  # the end is shown too


def _illegal(observation: Observation) -> Decision:
    """A card the person holds but may not play (or, failing one, a card they do not hold)."""
    request = observation.request
    assert request is not None
    if request.kind.value != "play":
        return GreedyPolicy().act(observation)
    barred = [c for c in observation.hand if c not in request.cards]
    absent = [Card(i) for i in range(52) if Card(i) not in observation.hand]
    return Play((barred or absent)[0])


def test_an_illegal_answer_is_an_illegal_fault_and_the_autopilot_plays_on() -> None:
    record = _play(Desk(answer=_illegal))
    faults = [f for f in record["faults"] if f["seat"] == PERSON]
    assert [f["kind"] for f in faults] == ["illegal"]
    assert faults[0]["autopilot"] is True
    assert record["result"]["winners"]
    # Control: the same person answering legally has no fault (above).


def test_a_malformed_answer_is_a_protocol_fault() -> None:
    def malformed(_observation: Observation) -> Decision:
        raise BotProtocolError("malformed answer: not a decision")

    record = _play(Desk(answer=malformed))
    assert [f["kind"] for f in record["faults"]] == ["protocol"]


@pytest.mark.slow
def test_a_person_out_of_time_gets_a_timeout_on_their_own_clock() -> None:
    slow = Desk(wait_s=1.0)
    record = _play(slow, TimeControl(decision_ms=300, bank_ms=0, grace_ms=10))
    faults = [f for f in record["faults"] if f["seat"] == PERSON]
    assert [f["kind"] for f in faults] == ["timeout"]
    assert "the person left the table or ran out of time" in faults[0]["detail"]
    assert len(slow.asked) == 1  # then the autopilot played the seat to the end
    assert record["result"]["winners"]
    # Control: the same slowness within a longer allowance is no fault.
    assert _play(Desk(wait_s=0.01), TimeControl(decision_ms=2000, bank_ms=0))["faults"] == []


def test_a_seat_view_holds_no_card_of_another_seats_hand() -> None:
    state = GameState(get_ruleset("classic"), 11)
    policy = RandomPolicy(3)
    checked = 0
    while not state.is_over and checked < 400:
        for seat in range(3):
            view = seat_view(observe(state, seat), ["a", "b", "c"])
            others = {str(c) for s in range(3) if s != seat for c in observe(state, s).hand}
            shown = set(view["hand"]) | set(view["kitty"] or []) | set(view["discards"] or [])
            assert not shown & others
            # Control: planting another seat's card is what this check sees.
            if others:
                planted = set(view["hand"]) | {next(iter(others))}
                assert planted & others
            checked += 1
        state.apply_decision(policy.act(observe(state, state.current_seat)))


# ------------------------------------------------------------------ the database desk


@pytest.fixture
def engine(tmp_path: Path) -> Any:
    engine = open_database(migrated_sqlite_url(tmp_path / "arena.db"))
    for name in ("alice", "mallory"):
        admin.add_user(
            engine, storage.actor(engine), name, "participant", must_change_password=False
        )
    yield engine
    engine.dispose()


def test_the_database_desk_asks_the_page_and_takes_only_the_owners_answer(engine: Any) -> None:
    alice, mallory = storage.actor(engine, "alice"), storage.actor(engine, "mallory")
    game_id = play_games.create_play_game(
        engine,
        alice,
        opponents=["builtin:random"] * 2,
        ruleset="classic",
        seat=0,
        decision_seconds=60,
    )
    play_games.set_players(engine, game_id, ["human:alice", "x", "y"])
    state = GameState(get_ruleset("classic"), 5, first_dealer=2)
    while state.current_seat != 0:
        state.apply_decision(GreedyPolicy().act(observe(state, state.current_seat)))
    observation = observe(state, 0)
    desk = DatabaseDesk(engine, game_id, ["human:alice", "x", "y"])
    desk.show(observation)
    wanted = GreedyPolicy().act(observation)

    def page() -> None:
        while (game := play_games.get_play_game(engine, game_id)) and game.pending is None:
            time.sleep(0.01)
        pending = json.loads(game.pending or "{}")
        assert pending["no"] == 1 and pending["explain"]
        # Another person, a stale number: refused; the owner: taken, once.
        assert not play_games.give_answer(engine, game_id, mallory, 1, str(wanted))
        assert not play_games.give_answer(engine, game_id, alice, 2, str(wanted))
        assert play_games.give_answer(engine, game_id, alice, 1, str(wanted))
        assert not play_games.give_answer(engine, game_id, alice, 1, str(wanted))

    helper = threading.Thread(target=page)
    helper.start()
    decision = asyncio.run(desk.decide(observation, 60))
    helper.join()
    assert decision == wanted
    game = play_games.get_play_game(engine, game_id)
    assert game is not None and game.pending is None
    assert json.loads(game.view or "{}")["seat"] == 0


def test_one_open_game_per_person(engine: Any) -> None:
    alice = storage.actor(engine, "alice")
    first = dict(opponents=["builtin:random"] * 2, ruleset="classic", seat=0, decision_seconds=60)
    play_games.create_play_game(engine, alice, **first)  # type: ignore[arg-type]
    with pytest.raises(play_games.PlayRefused, match="you have a game open already"):
        play_games.create_play_game(engine, alice, **first)  # type: ignore[arg-type]


def test_a_game_whose_runner_went_silent_no_longer_blocks_a_new_one(engine: Any) -> None:
    alice = storage.actor(engine, "alice")
    settings = dict(
        opponents=["builtin:random"] * 2, ruleset="classic", seat=0, decision_seconds=60
    )
    lost = play_games.create_play_game(engine, alice, **settings)  # type: ignore[arg-type]
    with Session(engine) as session:
        row = session.get(PlayGame, lost)
        assert row is not None
        row.updated_at = utcnow() - play_games.STALE_MARGIN - timedelta(seconds=61)
        session.add(row)
        session.commit()
    again = play_games.create_play_game(engine, alice, **settings)  # type: ignore[arg-type]
    assert again != lost
    gone = play_games.get_play_game(engine, lost)
    assert gone is not None and gone.status == "failed"
    assert gone.message == "its runner stopped without ending it"
