"""``arena.sdk.play_locally``: a bot against opponents in process, through the engine and
the SDK's own conversion, with the referee's faults. Each hostile bot (illegal, malformed,
crashing) has a control: a good bot, played the same way, with no fault."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from arena.game import Discard, Observation, Play
from arena.game.policies import GreedyPolicy, RandomPolicy
from arena.sdk import Bot, GameEnd, GameStart, HandEnd, LocalReport, Turn, play_locally

ROOT = Path(__file__).resolve().parents[2]


def _sample_bot(name: str) -> ModuleType:
    """``sample_bots/<name>/bot.py`` as a module."""
    spec = importlib.util.spec_from_file_location(
        f"sample_{name}", ROOT / "sample_bots" / name / "bot.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Reckless(Bot):
    """Plays its first card whatever the trick: illegal as soon as it must follow suit."""

    name, version = "reckless", "0.1"

    def play(self, obs: Turn) -> Play:
        return Play(obs.hand[0])


class ShortDiscard(Bot):
    """Discards three cards: a reply the wire refuses."""

    name = "short_discard"

    def discard(self, obs: Turn) -> Discard:
        return Discard(obs.request.cards[:3])


class Raiser(Bot):
    """Raises in its second hand."""

    name = "raiser"

    def on_hand_end(self, end: HandEnd) -> None:
        raise RuntimeError("a bug in the bot")


def test_an_illegal_move_is_reported_and_the_autopilot_finishes_the_game() -> None:
    report = play_locally(Reckless(), ["greedy", "random"], games=3)
    assert not report.ok
    assert [(f.game, f.seat, f.kind, f.decision) for f in report.faults] == [
        (1, 0, "illegal", "play"), (2, 1, "illegal", "play"), (3, 2, "illegal", "play")
    ]  # fmt: skip
    fault = report.faults[0]
    assert re.fullmatch(r"seat 0 must follow suit . and cannot play ..", fault.detail)
    assert str(fault).startswith("game 1, seat 0 (reckless@0.1), hand 1, play: illegal: seat 0")
    assert "1 fault" not in report.summary() and "3 fault(s)" in report.summary()
    for game in report.games:  # every game still ends, its fault in its record
        assert game.record["result"] is not None and len(game.faults) == 1
        assert game.record["faults"][0]["kind"] == "illegal"


def test_a_good_bot_played_the_same_way_has_no_fault() -> None:
    heuristic = _sample_bot("heuristic_bot").HeuristicBot()
    report = play_locally(heuristic, ["greedy", "random"], games=3)
    assert report.ok and report.faults == ()
    assert report.summary().endswith("no faults.")
    assert all(len(ms) > 0 for game in report.games for ms in [game.decision_ms[game.bot_seat]])


def test_a_reply_the_wire_refuses_is_a_protocol_fault() -> None:
    report = play_locally(ShortDiscard(), ["greedy", "greedy"], games=3, rotate=False)
    kinds = {(f.kind, f.decision) for f in report.faults}
    assert kinds == {("protocol", "discard")}, report.summary()
    assert "a discard is 4 cards, got 3" in report.faults[0].detail


def test_an_exception_in_the_bot_is_a_crash_with_its_traceback() -> None:
    report = play_locally(Raiser(), ["random", "random"], games=2)
    assert [(f.kind, f.decision, f.hand) for f in report.faults] == [
        ("crash", "hand_end", 1), ("crash", "hand_end", 1)
    ]  # fmt: skip
    assert report.faults[0].detail == "the bot raised RuntimeError: a bug in the bot"
    assert "a bug in the bot" in report.faults[0].traceback


def test_the_bot_gets_the_events_and_clock_a_referee_sends() -> None:
    class Listener(Bot):
        name, version = "listener", "2"

        def __init__(self) -> None:
            super().__init__()
            self.events: list[Any] = []
            self.turns: list[Observation] = []

        def on_game_start(self, start: GameStart) -> None:
            self.events = [start]  # the last game's only
            self.turns = []

        def on_hand_end(self, end: HandEnd) -> None:
            self.events.append(end)

        def on_game_end(self, end: GameEnd) -> None:
            self.events.append(end)

        def decide(self, obs: Observation) -> Any:
            assert self.clock is not None and self.clock.decision_ms == 500
            self.turns.append(obs)
            return super().decide(obs)

    bot = Listener()
    report = play_locally(bot, ["greedy", "random"], games=2, decision_ms=500)
    game = report.games[1]
    start, *hands, end = bot.events
    assert len(hands) == game.record["result"]["hands_played"]
    assert isinstance(start, GameStart) and start.seat == game.bot_seat == bot.seat == 1
    assert start.players == game.seats == ("greedy@builtin", "listener@2", "random@builtin")
    assert all(isinstance(h, HandEnd) for h in hands)
    assert isinstance(end, GameEnd) and end.result.scores == game.scores
    assert all(obs.request is not None and obs.seat in (0, 1) for obs in bot.turns)


def test_the_same_call_plays_the_same_games_and_scores_add_up() -> None:
    def run() -> LocalReport:
        random_bot = _sample_bot("random_bot").RandomBot(seed=3)
        return play_locally(random_bot, ["random", RandomPolicy(5)], games=4, seed=11)

    first, second = run(), run()
    assert [g.scores for g in first.games] == [g.scores for g in second.games]
    assert [g.bot_seat for g in first.games] == [0, 1, 2, 0]
    assert first.players == ("random_bot@1.0.0", "random@builtin", "random@builtin")
    assert sum(first.mean_scores) == pytest.approx(0)  # every hand's deltas sum to zero
    assert sum(first.wins) <= 4


def test_two_bots_play_each_other_each_through_the_wire() -> None:
    random_bot = _sample_bot("random_bot").RandomBot(seed=1)
    report = play_locally(Reckless(), [random_bot, GreedyPolicy()], games=3)
    assert {f.player for f in report.faults} == {"reckless@0.1"}
    random_seats = report.player_seats[1]
    assert all(
        game.decision_ms[seat] for game, seat in zip(report.games, random_seats, strict=True)
    )
    assert not any(
        game.decision_ms[seat]
        for game, seat in zip(report.games, report.player_seats[2], strict=True)
    )


def test_the_documented_hello_world_plays_without_faults(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = (ROOT / "docs" / "bots.md").read_text()
    hello = re.search(r'```python\n("""my_bot.*?)```', text, re.S)
    assert hello is not None
    namespace: dict[str, Any] = {"__name__": "my_bot"}
    exec(hello[1], namespace)
    report = play_locally(namespace["MyBot"](), ["greedy", "random"], games=3)
    assert report.ok
    assert capsys.readouterr().err.count("game over:") == 3


@pytest.mark.parametrize(
    ("opponents", "message"),
    [
        (["greedy"], "give 2 opponents"),
        (["greedy", "minimax"], "unknown built-in 'minimax'"),
    ],
)
def test_wrong_opponents_are_refused_in_one_line(opponents: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        play_locally(Bot(), opponents)


def test_one_bot_instance_in_two_seats_is_refused() -> None:
    bot = Bot()
    with pytest.raises(ValueError, match="its own instance"):
        play_locally(bot, [bot, "greedy"])
    assert play_locally(bot, [Bot(), "greedy"], games=1).ok  # the control: two instances


def test_builtin_names_are_spelled_as_arena_match_spells_them() -> None:
    report = play_locally(Bot(), ["builtin:greedy", "builtin:random"], games=1)
    assert report.players[1:] == ("greedy@builtin", "random@builtin")
