"""What one seat may know (docs/rules.md section 6), and nothing else.

:func:`observe` is the only road from a :class:`~arena.game.state.GameState` to a bot: the
referee serialises its result, never the state. It builds a complete information state
for the seat (own cards, public facts, the seat's own exchange legs, the kitty only for a
dealer who has taken it, shows only to the giver concerned), so a bot that keeps nothing
between requests can still play correctly.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.game.actions import DecisionKind
from arena.game.cards import TRUMP_ORDER, Card, Trump, cards_in, format_cards, mask_of
from arena.game.ending import GameResult
from arena.game.rules import RuleSet
from arena.game.state import GameState, Phase, Seat
from arena.game.values import HandSummary

__all__ = [
    "HandSummary",
    "LegView",
    "Observation",
    "Request",
    "ShowView",
    "TrickView",
    "observe",
]
"""What an observation is made of, for bots and adapters: :class:`HandSummary` is made by
the engine as it scores a hand (:mod:`arena.game.values`) and is re-exported here, where
authors find the rest (docs/bots.md)."""


@dataclass(frozen=True, slots=True)
class LegView:
    """One exchange leg as a seat sees it; cards are ``None`` where the seat may not know them."""

    index: int
    """Position in the resolution order, from 0."""
    giver: Seat
    receiver: Seat
    count: int
    status: str
    """``planned``, ``given`` (cards with the receiver, split mode) or ``done``."""
    given: tuple[Card, ...] | None
    """The given cards, if this seat is in the leg and they have moved."""
    returned: tuple[Card, ...] | None
    """The returned cards, if this seat is in the leg and they have come back."""


@dataclass(frozen=True, slots=True)
class ShowView:
    """A dealer show event this seat knows about."""

    to: Seat
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class TrickView:
    """A trick: completed (``winner`` set) or in progress."""

    leader: Seat
    cards: tuple[Card, ...]
    winner: Seat | None


@dataclass(frozen=True, slots=True)
class Request:
    """The decision the observing seat must take now, with its legal options."""

    kind: DecisionKind
    cards: tuple[Card, ...]
    """Play: the legal cards. Discard: the 20 cards to choose 4 from. Give: the hand."""
    trump_options: tuple[Trump, ...]
    """Trump: the calls allowed; empty otherwise."""
    give_legs: tuple[tuple[Seat, int], ...]
    """Give: ``(receiver, count)`` per leg in plan order; empty otherwise."""
    discard_count: int
    """Discard: 4; 0 otherwise."""


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything one seat may know at one moment of the game."""

    seat: Seat
    ruleset: str
    rules: RuleSet
    hand_number: int
    dealer: Seat
    contracts: tuple[int, int, int]
    scores: tuple[int, int, int]
    """Cumulative scores before the current hand (after it, once the game is over)."""
    previous_tricks: tuple[int, int, int] | None
    previous_deltas: tuple[int, int, int] | None
    dealt: tuple[Card, ...]
    """This seat's 16 cards as dealt this hand."""
    hand: tuple[Card, ...]
    """This seat's cards now."""
    exchange: tuple[LegView, ...]
    trump: Trump | None
    kitty_taken: bool
    kitty: tuple[Card, ...] | None
    """The kitty, only for the dealer once he has taken it."""
    shown: tuple[ShowView, ...]
    """Show events this seat is party to (as the giver concerned, or as the dealer)."""
    discard_done: bool
    discards: tuple[Card, ...] | None
    """The dealer's own discards (so far); ``None`` for other seats."""
    pending_give: tuple[Card, ...]
    """Cards this seat has already chosen in a give it has not finished (step-level API)."""
    tricks: tuple[TrickView, ...]
    """Completed tricks of this hand."""
    current_trick: TrickView | None
    tricks_won: tuple[int, int, int]
    phase: Phase
    to_act: Seat | None
    request: Request | None
    """Set only when this seat is to act."""
    history: tuple[HandSummary, ...]
    result: GameResult | None

    def to_text(self) -> str:
        """A readable multi-line view of the observation."""
        contracts = "/".join(str(c) for c in self.contracts)
        lines = [
            f"{self.ruleset} hand {self.hand_number}: seat {self.seat}, dealer {self.dealer}, "
            f"contracts {contracts}, scores {list(self.scores)}",
            f"hand: {format_cards(self.hand)}",
        ]
        if self.previous_deltas is not None:
            lines.append(f"previous deltas: {list(self.previous_deltas)}")
        for leg in self.exchange:
            known = ""
            if leg.given is not None:
                known += f" given {format_cards(leg.given)}"
            if leg.returned is not None:
                known += f" returned {format_cards(leg.returned)}"
            lines.append(
                f"leg {leg.index}: seat {leg.giver} -> seat {leg.receiver}, "
                f"{leg.count} card(s), {leg.status}{known}"
            )
        if self.trump is not None:
            lines.append(f"trump: {self.trump}")
        if self.kitty is not None:
            lines.append(f"kitty: {format_cards(self.kitty)}")
        for show in self.shown:
            lines.append(f"shown to seat {show.to}: {format_cards(show.cards) or '(nothing)'}")
        if self.discards is not None and self.discards:
            lines.append(f"discards: {format_cards(self.discards)}")
        for i, trick in enumerate(self.tricks, start=1):
            cards = " ".join(str(c) for c in trick.cards)
            lines.append(f"trick {i}: led by {trick.leader}: {cards} -> seat {trick.winner}")
        if self.current_trick is not None:
            cards = " ".join(str(c) for c in self.current_trick.cards) or "(none yet)"
            lines.append(f"current trick led by {self.current_trick.leader}: {cards}")
        lines.append(f"tricks won: {list(self.tricks_won)}")
        if self.request is not None:
            lines.append(f"to decide: {_describe(self.request)}")
        if self.result is not None:
            winners = ", ".join(str(s) for s in self.result.winners)
            lines.append(f"game over ({self.result.reason.value}): winner(s) {winners}")
        return "\n".join(lines)


def _describe(request: Request) -> str:
    if request.kind is DecisionKind.PLAY:
        return "play one of " + " ".join(str(c) for c in request.cards)
    if request.kind is DecisionKind.TRUMP:
        return "call trump, one of " + " ".join(str(t) for t in request.trump_options)
    if request.kind is DecisionKind.DISCARD:
        return f"discard {request.discard_count} of {format_cards(request.cards)}"
    legs = ", ".join(f"{n} to seat {r}" for r, n in request.give_legs)
    return f"give {legs}"


def observe(state: GameState, seat: Seat) -> Observation:
    """Build what *seat* may know now (docs/rules.md section 6)."""
    hand = state.hand
    dealer = hand.dealer
    over = state.phase is Phase.OVER
    previous_deltas = hand.previous_deltas

    legs: list[LegView] = []
    for i, log in enumerate(hand.legs):
        involved = seat in (log.leg.giver, log.leg.receiver)
        status = "done" if log.is_done else "given" if log.is_given else "planned"
        legs.append(
            LegView(
                index=i,
                giver=log.leg.giver,
                receiver=log.leg.receiver,
                count=log.leg.count,
                status=status,
                given=tuple(sorted(log.given)) if involved and log.is_given else None,
                returned=log.returned if involved and log.is_done else None,
            )
        )

    shown = tuple(ShowView(to, cards_in(mask)) for to, mask in hand.shown if seat in (to, dealer))
    is_dealer = seat == dealer
    tricks = tuple(TrickView(t.leader, t.cards, t.winner) for t in hand.tricks)
    current = None
    if state.phase is Phase.PLAY:
        current = TrickView(state.trick_leader, state.trick, None)
    to_act = None if over else state.current_seat
    pending = state.pending_picks if to_act == seat and state.phase is Phase.GIVE else ()
    scores = hand.scores if over and hand.scores is not None else hand.scores_before

    return Observation(
        seat=seat,
        ruleset=state.rules.name,
        rules=state.rules,
        hand_number=hand.number,
        dealer=dealer,
        contracts=hand.contracts,
        scores=scores,
        previous_tricks=None if previous_deltas is None else _previous_tricks(state),
        previous_deltas=previous_deltas,
        dealt=cards_in(hand.deal[seat]),
        hand=cards_in(state.hands[seat]),
        exchange=tuple(legs),
        trump=hand.trump,
        kitty_taken=hand.kitty_taken,
        kitty=cards_in(hand.kitty) if is_dealer and hand.kitty_taken else None,
        shown=shown,
        discard_done=len(hand.discards) == 4,
        discards=tuple(hand.discards) if is_dealer else None,
        pending_give=pending,
        tricks=tricks,
        current_trick=current,
        tricks_won=_triple(hand.tricks_won),
        phase=state.phase,
        to_act=to_act,
        request=_request(state) if to_act == seat else None,
        history=state.summaries,
        result=state.result,
    )


def _request(state: GameState) -> Request:
    kind = state.decision_kind
    assert kind is not None
    own = state.hands[state.current_seat]
    if kind is DecisionKind.PLAY:
        return Request(kind, cards_in(state.legal_plays_mask()), (), (), 0)
    if kind is DecisionKind.TRUMP:
        options = TRUMP_ORDER if state.rules.allow_no_trump else TRUMP_ORDER[:4]
        return Request(kind, (), options, (), 0)
    if kind is DecisionKind.DISCARD:
        remaining = 4 - len(state.hand.discards)
        return Request(kind, cards_in(own), (), (), remaining)
    legs = tuple((x.leg.receiver, x.leg.count) for x in state.giver_legs)
    return Request(kind, cards_in(own & ~mask_of(state.pending_picks)), (), legs, 0)


def _previous_tricks(state: GameState) -> tuple[int, int, int]:
    """Tricks of the hand before, from its deltas and contracts (dealt by the seat to the right)."""
    hand = state.hand
    assert hand.previous_deltas is not None
    contracts = state.rules.contracts_for((hand.dealer + 2) % 3)
    d = hand.previous_deltas
    return (d[0] + contracts[0], d[1] + contracts[1], d[2] + contracts[2])


def _triple(values: list[int] | tuple[int, ...]) -> tuple[int, int, int]:
    return (values[0], values[1], values[2])
