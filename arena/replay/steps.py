"""A game record as a list of replay steps, and the table as one seat (or everybody) sees it.

The dashboard steps through a stored game decision by decision: the deal, each exchange
leg, the trump call, the kitty pickup, each dealer show, each of the 4 discards, each card
of each trick, and the end of each hand. :func:`build_replay` walks the record through the
engine once and keeps a snapshot of the game state after every step; :meth:`Replay.view`
then draws the table at a step either with every card face up (the referee's view) or as
one seat sees it.

A seat's view is built from :func:`arena.game.observation.observe` and nothing else, so it
shows exactly what docs/rules.md section 6 lets that seat know at that moment: the observer is
the one place that decides what is hidden (docs/style.md 3). The only facts added to it are
public ones: the players' names, the card just played and, for the other seats, how many
cards they hold (which follows from the public exchange plan, kitty pickup and plays).

Forced engine events (kitty pickup, dealer show, split-mode returns) happen inside the
decision that triggers them, so their steps share that decision's snapshot. The last card
of a hand is drawn on the snapshot before it, plus that public card: the engine deals the
next hand within the same move.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from arena.game.actions import CallTrump, Give
from arena.game.cards import Trump, cards_in, mask_of, parse_cards
from arena.game.dealing import LEGACY_SHUFFLE
from arena.game.record import RecordError, replay_record
from arena.game.rules import RuleSet
from arena.game.state import GameState, HandLog, LegLog, Phase, Seat
from arena.replay.views import (
    Basis,
    Perspective,
    SeatPanel,
    TableView,
    TrickPanel,
    all_cards_view,
    seat_view,
)


class StepKind(Enum):
    """What happens at a replay step."""

    DEAL = "deal"
    GIVE = "give"
    RETURN = "return"
    TRUMP = "trump"
    KITTY = "kitty"
    SHOW = "show"
    DISCARD = "discard"
    PLAY = "play"
    HAND_END = "hand_end"


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """One step of a replay (not :class:`arena.game.rules.Step`, the engine's own)."""

    index: int
    """Position in the whole game's list of steps."""
    hand: int
    """Hand number, from 1."""
    kind: StepKind
    seat: Seat | None
    """The seat acting (or, for kitty and show, the dealer); ``None`` for deal and hand end."""
    public_text: str
    """What every seat is told about this step."""
    private_text: str
    """The whole story, for the seats in *audience* and the all-cards view."""
    audience: frozenset[Seat] | None
    """Seats that may read *private_text*; ``None`` when the step is public."""
    faults: tuple[Mapping[str, Any], ...] = ()
    """Record faults that happened at this decision (``startup`` faults: the first step)."""
    autopilot: bool = False
    """The acting seat is played by the referee's autopilot after a fault."""

    def text(self, perspective: Perspective) -> str:
        """The description of this step that *perspective* may read."""
        if perspective is None or self.audience is None or perspective in self.audience:
            return self.private_text
        return self.public_text


@dataclass
class Replay:
    """A stored game as steps, with the table at each step from any perspective."""

    record: Mapping[str, Any]
    players: tuple[str, str, str]
    steps: list[ReplayStep] = field(default_factory=list)
    hand_starts: dict[int, int] = field(default_factory=dict)
    """Hand number -> index of its first step."""
    _bases: list[Basis] = field(default_factory=list)

    def view(self, index: int, perspective: Perspective = None) -> TableView:
        """The table after step *index*, all cards (``None``) or as seat *perspective* sees it.

        :raises IndexError: for a step that does not exist.
        """
        basis = self._bases[index]
        if perspective is None:
            return all_cards_view(basis, self.players)
        if perspective not in (0, 1, 2):
            raise ValueError(f"a perspective is a seat 0, 1 or 2 or None, not {perspective!r}")
        return seat_view(basis, perspective, self.players)

    def hand_of(self, index: int) -> int:
        """The hand number of step *index*."""
        return self.steps[index].hand


def build_replay(record: Mapping[str, Any], *, game: str | None = None) -> Replay:
    """The steps of a finished game record, checked against the rules first.

    :raises RecordError: if the record does not load or breaks the rules somewhere.
    """
    replay_record(record, game=game)
    return _Builder(record).run()


def _players(record: Mapping[str, Any]) -> tuple[str, str, str]:
    names = [str(p) for p in record["players"]]
    return (names[0], names[1], names[2])


class _Builder:
    """Walks a (checked) record through the engine, one step at a time."""

    def __init__(self, record: Mapping[str, Any]) -> None:
        self.record = record
        self.replay = Replay(record, _players(record))
        faults = [f for f in record.get("faults") or [] if isinstance(f, Mapping)]
        self.pending_faults = list(enumerate(faults))
        # The referee times every decision a bot answers, and the autopilot takes over at
        # the first fault, so a seat's fault is at its decision number len(timings[seat]).
        timings = record.get("timings")
        times = timings.get("decision_ms") if isinstance(timings, Mapping) else None
        self.fault_at: dict[int, int | None] = {}
        for i, fault in enumerate(faults):
            seat = fault.get("seat")
            known = isinstance(times, list) and len(times) == 3 and seat in (0, 1, 2)
            self.fault_at[i] = len(times[seat]) if known else None  # type: ignore[index]
        self.decisions = [0, 0, 0]
        self.autopilot: set[Seat] = set()

    def run(self) -> Replay:
        record = self.record
        rules = RuleSet.from_json(record["rules"], name=str(record["ruleset"]))
        deals = [
            (
                (
                    mask_of(parse_cards(h["deal"][0])),
                    mask_of(parse_cards(h["deal"][1])),
                    mask_of(parse_cards(h["deal"][2])),
                ),
                mask_of(parse_cards(h["kitty"])),
            )
            for h in record["hands"]
        ]

        def source(number: int, _dealer: int) -> tuple[tuple[int, int, int], int]:
            return deals[number - 1]

        state = GameState(
            rules,
            int(record["seed"]),
            first_dealer=record["first_dealer"],
            deal_source=source,
            shuffle=str(record.get("shuffle", LEGACY_SHUFFLE)),
        )
        for hand in record["hands"]:
            self._hand(state, hand)
        return self.replay

    # ----------------------------------------------------------------- emitting

    def _emit(
        self,
        basis: Basis,
        kind: StepKind,
        seat: Seat | None,
        public: str,
        private: str | None = None,
        audience: frozenset[Seat] | None = None,
        decision: str | None = None,
    ) -> None:
        """Add a step; *decision* names the decision kind on the first step of a decision."""
        replay = self.replay
        hand = basis.state.hand.number
        index = len(replay.steps)
        faults: list[Mapping[str, Any]] = []
        if index == 0:
            faults += self._take_faults(
                lambda f, _at: f.get("decision") == "startup" or not f.get("hand")
            )
        if decision is not None and seat is not None:
            number = self.decisions[seat]
            self.decisions[seat] += 1
            faults += self._take_faults(
                lambda f, at: (
                    f.get("seat") == seat
                    and f.get("hand") == hand
                    and f.get("decision") == decision
                    and at in (None, number)
                )
            )
        for fault in faults:
            if fault.get("autopilot", True) and fault.get("seat") in (0, 1, 2):
                self.autopilot.add(fault["seat"])
        acts = kind in (StepKind.GIVE, StepKind.TRUMP, StepKind.DISCARD, StepKind.PLAY)
        replay.steps.append(
            ReplayStep(
                index=index,
                hand=hand,
                kind=kind,
                seat=seat,
                public_text=public,
                private_text=public if private is None else private,
                audience=audience,
                faults=tuple(faults),
                autopilot=acts and seat in self.autopilot,
            )
        )
        replay._bases.append(basis)
        replay.hand_starts.setdefault(hand, index)

    def _take_faults(
        self, match: Callable[[Mapping[str, Any], int | None], bool]
    ) -> list[Mapping[str, Any]]:
        taken = [(i, f) for i, f in self.pending_faults if match(f, self.fault_at[i])]
        self.pending_faults = [p for p in self.pending_faults if p not in taken]
        return [f for _, f in taken]

    def _name(self, seat: Seat) -> str:
        return f"seat {seat} ({self.replay.players[seat]})"

    # ----------------------------------------------------------------- a hand

    def _hand(self, state: GameState, hand: Mapping[str, Any]) -> None:
        log = state.hand
        contracts = "/".join(str(c) for c in log.contracts)
        start = Basis(state.clone())
        self._emit(
            start,
            StepKind.DEAL,
            None,
            f"Hand {log.number}: {self._name(log.dealer)} deals; contracts {contracts}",
        )
        if log.kitty_taken:  # the kitty comes first in this ruleset's hand
            self._kitty(start, log)
        while not state.is_over and state.phase is not Phase.PLAY:
            self._decision(state, hand)
        self._tricks(state, hand)
        # Faults the record places in this hand but at no matching decision: show them here.
        leftover = self._take_faults(lambda f, _at: f.get("hand") == log.number)
        if leftover:
            last = self.replay.steps[-1]
            self.replay.steps[-1] = _with_faults(last, leftover)

    def _decision(self, state: GameState, hand: Mapping[str, Any]) -> None:
        log = state.hand
        seat = state.current_seat
        kitty_before = log.kitty_taken
        shown_before = len(log.shown)
        done_before = [x.is_done for x in log.legs]
        phase = state.phase
        if phase is Phase.GIVE:
            mine = [leg for leg in hand["exchange"] if leg["giver"] == seat]
            state.apply_decision(Give(tuple(parse_cards(leg["given"]) for leg in mine)))
            basis = Basis(state.clone())
            first = True
            for i, leg in enumerate(log.legs):
                if leg.leg.giver != seat:
                    continue
                self._give(basis, leg, done_before[i], first)
                first = False
            done_before = [x.is_done for x in log.legs]
        elif phase is Phase.TRUMP:
            trump = Trump.parse(hand["trump"])
            state.apply_decision(CallTrump(trump))
            call = "no trump" if trump is Trump.NT else f"trump {trump.value}"
            basis = Basis(state.clone())
            self._emit(
                basis, StepKind.TRUMP, seat, f"{self._name(seat)} calls {call}", decision="trump"
            )
        else:  # the discard, one card at a time
            for number, card in enumerate(parse_cards(hand["discards"]), start=1):
                state.apply(card)
                basis = Basis(state.clone())
                self._emit(
                    basis,
                    StepKind.DISCARD,
                    seat,
                    f"{self._name(seat)} discards a card ({number} of 4)",
                    f"{self._name(seat)} discards {card} ({number} of 4)",
                    frozenset({seat}),
                    decision="discard" if number == 1 else None,
                )
        # Forced events inside that decision, drawn on the same snapshot.
        if not kitty_before and log.kitty_taken:
            self._kitty(basis, log)
        for to, mask in log.shown[shown_before:]:
            shown = " ".join(str(c) for c in cards_in(mask)) or "nothing"
            self._emit(
                basis,
                StepKind.SHOW,
                log.dealer,
                f"{self._name(log.dealer)} shows seat {to} the kitty cards that outrank his returns",
                f"{self._name(log.dealer)} shows seat {to} kitty cards: {shown}",
                frozenset({to, log.dealer}),
            )
        for i, leg in enumerate(log.legs):
            if leg.is_done and not done_before[i]:
                self._return(basis, leg)

    def _kitty(self, basis: Basis, log: HandLog) -> None:
        kitty = " ".join(str(c) for c in cards_in(log.kitty))
        self._emit(
            basis,
            StepKind.KITTY,
            log.dealer,
            f"{self._name(log.dealer)} takes the kitty",
            f"{self._name(log.dealer)} takes the kitty: {kitty}",
            frozenset({log.dealer}),
        )

    def _give(self, basis: Basis, leg: LegLog, was_done: bool, first: bool) -> None:
        giver, receiver, count = leg.leg.giver, leg.leg.receiver, leg.leg.count
        given = " ".join(str(c) for c in leg.given)
        public = f"{self._name(giver)} gives {count} card(s) to seat {receiver}"
        private = f"{self._name(giver)} gives {given} to seat {receiver}"
        if leg.is_done and not was_done:  # atomic exchange: the returns come at once
            returned = " ".join(str(c) for c in leg.returned)
            public += f" and gets {count} back"
            private += f" and gets back {returned}"
        self._emit(
            basis,
            StepKind.GIVE,
            giver,
            public,
            private,
            frozenset({giver, receiver}),
            decision="give" if first else None,
        )

    def _return(self, basis: Basis, leg: LegLog) -> None:
        giver, receiver, count = leg.leg.giver, leg.leg.receiver, leg.leg.count
        returned = " ".join(str(c) for c in leg.returned)
        self._emit(
            basis,
            StepKind.RETURN,
            receiver,
            f"seat {receiver} returns {count} card(s) to seat {giver}",
            f"seat {receiver} returns {returned} to seat {giver}",
            frozenset({giver, receiver}),
        )

    def _tricks(self, state: GameState, hand: Mapping[str, Any]) -> None:
        log = state.hand
        tricks = hand["tricks"]
        for number, trick in enumerate(tricks, start=1):
            cards = parse_cards(trick["cards"])
            for position, card in enumerate(cards, start=1):
                seat = state.current_seat
                last = number == len(tricks) and position == len(cards)
                text = f"Trick {number}: {self._name(seat)} plays {card}"
                if last:
                    before = state.clone()
                    state.apply(card)
                    winner = log.tricks[-1].winner
                    basis = Basis(before, (seat, card), state.clone())
                    text += f"; seat {winner} wins the trick"
                    self._emit(basis, StepKind.PLAY, seat, text, decision="play")
                    self._hand_end(basis, log, state)
                    continue
                state.apply(card)
                if position == 3:
                    text += f"; seat {log.tricks[-1].winner} wins the trick"
                self._emit(Basis(state.clone()), StepKind.PLAY, seat, text, decision="play")

    def _hand_end(self, basis: Basis, log: HandLog, state: GameState) -> None:
        assert log.deltas is not None and log.scores is not None
        end = Basis(basis.state, basis.final, basis.after, hand_end=True)
        tricks = "/".join(str(t) for t in log.tricks_won)
        deltas = "/".join(f"{d:+d}" for d in log.deltas)
        scores = "/".join(f"{s:+d}" for s in log.scores)
        text = f"Hand {log.number} over: tricks {tricks}, deltas {deltas}, scores {scores}"
        result = state.result
        if result is not None:
            winners = " and ".join(self._name(w) for w in result.winners)
            text += f". Game over ({result.reason.value}): {winners} won"
        self._emit(end, StepKind.HAND_END, None, text)


def _with_faults(step: ReplayStep, faults: Sequence[Mapping[str, Any]]) -> ReplayStep:
    return ReplayStep(
        step.index,
        step.hand,
        step.kind,
        step.seat,
        step.public_text,
        step.private_text,
        step.audience,
        (*step.faults, *faults),
        step.autopilot,
    )


__all__ = [
    "Perspective",
    "RecordError",
    "Replay",
    "ReplayStep",
    "SeatPanel",
    "StepKind",
    "TableView",
    "TrickPanel",
    "build_replay",
]
