"""Play a bot in process against opponents: the author's loop before ``arena bot check``.

:func:`play_locally` plays whole games through the real engine, with no process and no
gRPC, in the way of OpenSpiel's ``evaluate_bots``. A :class:`~arena.sdk.Bot` seat gets what
it would get over the wire: each observation, the game's start, each hand's end and the
game's end are encoded to their ``arena.v1`` messages and decoded again by the SDK's own
conversion, and its answer is encoded and decoded the same way before the engine checks
it. As at the referee, a bot's first fault in a game (an illegal move, an answer the wire
refuses, an exception) is recorded and the autopilot (the greedy policy) plays its seat to
the end of that game. The clock is passed to the bot (``self.clock``) but not enforced:
``arena bot check`` measures time in a real process.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from arena.game import GameState, IllegalActionError, RuleSet, get_ruleset, observe
from arena.game.actions import Decision
from arena.game.policies import POLICIES, GreedyPolicy, Policy
from arena.game.record import game_record
from arena.protocol import convert
from arena.sdk.bot import Bot, Clock
from arena.sdk.results import LocalFault, LocalGame, LocalReport

Player = Bot | Policy | str
"""A seat's player: a :class:`Bot` (talked to through the wire's conversion), any
:class:`~arena.game.policies.Policy`, or a built-in's name (``random``, ``greedy``,
``pimc``; ``builtin:NAME`` too)."""

BUILTINS = ("greedy", "pimc", "random")


def play_locally(
    bot: Bot,
    opponents: Sequence[Player] = ("greedy", "random"),
    games: int = 3,
    *,
    ruleset: str | RuleSet = "classic",
    seed: int = 0,
    rotate: bool = True,
    decision_ms: int = 1000,
    bank_ms: int = 10_000,
) -> LocalReport:
    """Play *games* games of *bot* against the two *opponents*, in process.

    Game *i* (from 0) is dealt from seed ``seed + i`` with seat ``i % 3`` dealing first;
    with *rotate* the bot sits in seat ``i % 3`` (as ``arena bot check`` seats it), else
    always in seat 0; the opponents fill the other seats in the order given. Built-in
    opponents are seeded per game and seat, so the same call plays the same games.

    :raises ValueError: for a wrong number of opponents or games, an unknown built-in, or
        one :class:`Bot` instance in two seats (each seat needs its own).
    """
    if len(opponents) != 2:
        raise ValueError(f"a game has three seats: give 2 opponents, not {len(opponents)}")
    if games < 1:
        raise ValueError(f"games must be at least 1, not {games}")
    players: list[Player] = [bot, *opponents]
    bots = [player for player in players if isinstance(player, Bot)]
    if len({id(b) for b in bots}) != len(bots):
        raise ValueError("one Bot instance in two seats: give each seat its own instance")
    factories = [_factory(player) for player in players]
    rules = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    clock = Clock(decision_ms, bank_ms)
    played: list[LocalGame] = []
    player_seats: list[list[int]] = [[], [], []]
    for index in range(games):
        bot_seat = index % 3 if rotate else 0
        order = [bot_seat] + [seat for seat in range(3) if seat != bot_seat]
        seated: list[Bot | Policy] = [bot, bot, bot]
        for player, (factory, seat) in enumerate(zip(factories, order, strict=True)):
            seated[seat] = factory(seed + index, seat)
            player_seats[player].append(seat)
        game = _LocalGame(index + 1, games, seed + index, bot_seat, seated, rules, clock)
        played.append(game.play())
    labels = tuple(_label(player) for player in players)
    return LocalReport(labels, tuple(played), tuple(tuple(s) for s in player_seats))


def _factory(player: Player) -> Callable[[int, int], Bot | Policy]:
    """A function of (game seed, seat) giving *player*'s seat: the instance itself, or a
    built-in seeded for that game and seat."""
    if not isinstance(player, str):
        return lambda game_seed, seat: player
    name = player.removeprefix("builtin:")
    if name == "pimc":
        from arena.search import PimcPolicy  # noqa: PLC0415 - only for a pimc seat

        return lambda game_seed, seat: PimcPolicy(game_seed * 3 + seat)
    if name not in POLICIES:
        raise ValueError(f"unknown built-in {player!r}; choose from: {', '.join(BUILTINS)}")
    return lambda game_seed, seat: POLICIES[name](game_seed * 3 + seat)


def _label(player: Player) -> str:
    """``name@version`` of a bot, ``name@builtin`` of a policy, as records name them."""
    if isinstance(player, Bot):
        return f"{player.name}@{player.version}"
    if isinstance(player, str):
        return f"{player.removeprefix('builtin:')}@builtin"
    return f"{player.name}@builtin"


@dataclass
class _LocalGame:
    """One game: the engine's state, the seats, and what happened to each."""

    number: int
    games: int
    seed: int
    bot_seat: int
    seats: list[Bot | Policy]
    rules: RuleSet
    clock: Clock
    faults: list[LocalFault] = field(default_factory=list)
    autopilot: list[bool] = field(default_factory=lambda: [False, False, False])
    times: list[list[float]] = field(default_factory=lambda: [[], [], []])

    def play(self) -> LocalGame:
        state = GameState(self.rules, self.seed, first_dealer=(self.number - 1) % 3)
        labels = (_label(self.seats[0]), _label(self.seats[1]), _label(self.seats[2]))
        game_id = f"local-{self.seed}"
        self._start(state, game_id, labels)
        autopilot = GreedyPolicy()
        while not state.is_over:
            seat = state.current_seat
            hand = state.hand
            player = self.seats[seat]
            if not isinstance(player, Bot) or self.autopilot[seat]:
                policy = autopilot if isinstance(player, Bot) else player
                state.apply_decision(policy.act(observe(state, seat)))
            elif not self._ask(state, seat, player):
                state.apply_decision(autopilot.act(observe(state, seat)))
            if hand.scores is not None:
                hand_end = convert.hand_end_to_proto(convert.hand_end_from_log(hand))
                for other in self._bot_seats():
                    end = convert.hand_end_from_proto(hand_end)
                    self._event(
                        other, "hand_end", hand.number, partial(self.bot(other).on_hand_end, end)
                    )
        result = state.result
        assert result is not None  # the loop ends with the game
        game_end = convert.game_end_to_proto(convert.GameEnd(game_id, result))
        for seat in self._bot_seats():
            over = convert.game_end_from_proto(game_end)
            self._event(
                seat, "game_end", state.hand.number, partial(self.bot(seat).on_game_end, over)
            )
        record = game_record(
            state,
            labels,
            [_fault_entry(fault) for fault in self.faults],
            {"game_id": game_id, "timings": {"decision_ms": self.times}},
        )
        return LocalGame(
            number=self.number,
            seed=self.seed,
            seats=labels,
            bot_seat=self.bot_seat,
            scores=result.scores,
            winners=tuple(result.winners),
            faults=tuple(self.faults),
            decision_ms=(tuple(self.times[0]), tuple(self.times[1]), tuple(self.times[2])),
            record=record,
        )

    def bot(self, seat: int) -> Bot:
        """The bot in *seat* (a bot seat's)."""
        player = self.seats[seat]
        assert isinstance(player, Bot)  # only bot seats are asked for
        return player

    def _start(self, state: GameState, game_id: str, labels: tuple[str, str, str]) -> None:
        """Seat each bot and tell it the game starts, as ``Welcome`` and ``GameStart`` do."""
        for seat in self._bot_seats():
            bot = self.bot(seat)
            bot.seat = seat
            start = convert.GameStart(
                game_id=game_id,
                game_number=self.number,
                games_in_match=self.games,
                rules=self.rules,
                seat=seat,
                first_dealer=state.first_dealer,
                players=labels,
                time_control=convert.TimeControl(self.clock.decision_ms, self.clock.bank_ms),
            )
            received = convert.game_start_from_proto(convert.game_start_to_proto(start))
            self._event(seat, "game_start", 0, partial(bot.on_game_start, received))

    def _bot_seats(self) -> list[int]:
        """The seats of bots still playing this game (not handed to the autopilot)."""
        return [
            seat
            for seat, player in enumerate(self.seats)
            if isinstance(player, Bot) and not self.autopilot[seat]
        ]

    def _ask(self, state: GameState, seat: int, bot: Bot) -> bool:
        """Ask *bot* for the decision, through the wire's conversion both ways, and apply
        it; whether it was applied (else the fault is recorded and the seat handed over)."""
        hand, kind = state.hand.number, state.decision_kind
        decision_name = kind.value if kind is not None else "play"
        bank = int(self.clock.bank_ms)
        message = convert.request_to_proto(observe(state, seat), 0, self.clock.decision_ms, bank)
        request = convert.request_from_proto(message)
        bot.clock = Clock(request.decision_ms_left, request.bank_ms_left)
        start = time.perf_counter()
        try:
            answer: Decision = bot.decide(request.observation)
            reply = convert.decision_to_proto(answer, request.request_id)
        except Exception as exc:  # a bot's own exception is its crash fault
            self._fault(
                seat, hand, decision_name, "crash", _crash_detail(exc), traceback.format_exc()
            )
            return False
        self.times[seat].append(round((time.perf_counter() - start) * 1000, 3))
        try:
            decision = convert.decision_from_proto(reply)
        except convert.ProtocolError as exc:
            self._fault(seat, hand, decision_name, "protocol", f"malformed answer: {exc}")
            return False
        try:
            state.apply_decision(decision)
        except IllegalActionError as exc:
            self._fault(seat, hand, decision_name, "illegal", str(exc))
            return False
        return True

    def _event(self, seat: int, name: str, hand: int, call: Callable[[], None]) -> None:
        """Call an event method of the bot in *seat*; an exception is its crash fault."""
        try:
            call()
        except Exception as exc:  # a bot's own exception is its crash fault
            self._fault(seat, hand, name, "crash", _crash_detail(exc), traceback.format_exc())

    def _fault(
        self, seat: int, hand: int, decision: str, kind: str, detail: str, trace: str = ""
    ) -> None:
        self.autopilot[seat] = True
        self.faults.append(
            LocalFault(
                self.number, seat, _label(self.seats[seat]), hand, decision, kind, detail, trace
            )
        )


def _crash_detail(exc: Exception) -> str:
    return f"the bot raised {type(exc).__name__}: {exc}"


def _fault_entry(fault: LocalFault) -> dict[str, Any]:
    """A fault as the referee records it (docs/record-format.md ``faults``)."""
    return {
        "seat": fault.seat,
        "hand": fault.hand,
        "decision": fault.decision,
        "kind": fault.kind,
        "detail": fault.detail,
        "autopilot": True,
        "stderr_tail": fault.traceback.strip().splitlines()[-1] if fault.traceback else "",
    }
