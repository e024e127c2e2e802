"""The table at one replay step, as every seat sees it or as one seat does.

A seat's view (:func:`seat_view`) is built from :func:`arena.game.observation.observe` and
nothing else, so it shows exactly what docs/rules.md section 6 lets that seat know at that
moment: the observer is the one place that decides what is hidden (docs/style.md 3). The
only facts added to it are public ones: the players' names, the card just played and,
for the other seats, how many cards they hold. :func:`all_cards_view` is the referee's
view, every card face up. :mod:`arena.replay.steps` keeps a :class:`Basis` per step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.game.cards import Card, Trump, cards_in
from arena.game.ending import GameResult
from arena.game.observation import HandSummary, LegView, observe
from arena.game.state import GameState, Phase, Seat

Perspective = Seat | None
"""A seat number for that seat's view, ``None`` for the all-cards view."""


@dataclass(frozen=True, slots=True)
class SeatPanel:
    """One seat at the table as the viewer sees it."""

    seat: Seat
    player: str
    contract: int
    cards: tuple[Card, ...] | None
    """The seat's cards, or ``None`` when the viewer may not see them."""
    card_count: int
    tricks_won: int
    is_dealer: bool
    to_act: bool


@dataclass(frozen=True, slots=True)
class TrickPanel:
    """The trick on the table: in progress (``winner`` is ``None``) or just completed."""

    number: int
    leader: Seat
    cards: tuple[Card, ...]
    winner: Seat | None


@dataclass(frozen=True, slots=True)
class TableView:
    """Everything a viewer sees of the table at one step."""

    perspective: Perspective
    hand_number: int
    dealer: Seat
    contracts: tuple[int, int, int]
    scores: tuple[int, int, int]
    """Cumulative scores before this hand (after it, at the end of the hand)."""
    trump: Trump | None
    seats: tuple[SeatPanel, SeatPanel, SeatPanel]
    kitty: tuple[Card, ...] | None
    """The kitty's cards, or ``None`` when the viewer may not see them."""
    kitty_taken: bool
    discards: tuple[Card, ...] | None
    """The dealer's discards so far, or ``None`` when the viewer may not see them."""
    discard_done: bool
    exchange: tuple[LegView, ...]
    shown: tuple[tuple[Seat, tuple[Card, ...]], ...]
    """Dealer show events the viewer knows: (giver shown to, cards)."""
    trick: TrickPanel | None
    tricks_played: int
    """Completed tricks of this hand."""
    summary: HandSummary | None
    """The hand's public result, at its end."""
    result: GameResult | None
    """The game's result, at the end of the last hand."""

    def visible_cards(self) -> set[Card]:
        """Every card this view shows face up (for hidden-information checks)."""
        seen: set[Card] = set()
        for panel in self.seats:
            seen.update(panel.cards or ())
        seen.update(self.kitty or ())
        seen.update(self.discards or ())
        for leg in self.exchange:
            seen.update(leg.given or ())
            seen.update(leg.returned or ())
        for _, cards in self.shown:
            seen.update(cards)
        if self.trick is not None:
            seen.update(self.trick.cards)
        return seen


@dataclass(slots=True)
class Basis:
    """The state a step is drawn from."""

    state: GameState
    final: tuple[Seat, Card] | None = None
    """The last card of the hand, played on *state* (which is the state before it)."""
    after: GameState | None = None
    """With *final*: the state after the card (next hand dealt, or the game over)."""
    hand_end: bool = False


def _triple(values: Sequence[int]) -> tuple[int, int, int]:
    return (values[0], values[1], values[2])


def all_cards_view(basis: Basis, players: tuple[str, str, str]) -> TableView:
    """The referee's view: every card face up, from the state itself."""
    state = basis.state
    log = state.hand
    hands = [cards_in(state.hands[s]) for s in range(3)]
    tricks_won = list(log.tricks_won)
    trick: TrickPanel | None = None
    if state.phase is Phase.PLAY and state.trick:
        trick = TrickPanel(len(log.tricks) + 1, state.trick_leader, state.trick, None)
    elif log.tricks:
        last = log.tricks[-1]
        trick = TrickPanel(len(log.tricks), last.leader, last.cards, last.winner)
    tricks_played = len(log.tricks)
    to_act: Seat | None = None if state.is_over else state.current_seat
    summary: HandSummary | None = None
    result: GameResult | None = None
    scores = log.scores_before
    if basis.final is not None:
        assert basis.after is not None
        seat, card = basis.final
        hands[seat] = tuple(c for c in hands[seat] if c != card)
        done = basis.after.history[log.number - 1]
        winner = done.tricks[-1].winner
        trick = TrickPanel(16, state.trick_leader, (*state.trick, card), winner)
        tricks_won[winner] += 1
        tricks_played, to_act = 16, None
        if basis.hand_end:
            assert done.trump is not None and done.deltas is not None and done.scores is not None
            summary = HandSummary(
                done.number,
                done.dealer,
                done.contracts,
                done.trump,
                _triple(done.tricks_won),
                done.deltas,
                done.scores,
            )
            scores = done.scores
            result = basis.after.result
    panels = tuple(
        SeatPanel(
            seat=s,
            player=players[s],
            contract=log.contracts[s],
            cards=hands[s],
            card_count=len(hands[s]),
            tricks_won=tricks_won[s],
            is_dealer=s == log.dealer,
            to_act=s == to_act,
        )
        for s in range(3)
    )
    legs = tuple(
        LegView(
            i,
            x.leg.giver,
            x.leg.receiver,
            x.leg.count,
            "done" if x.is_done else "given" if x.is_given else "planned",
            x.given if x.is_given else None,
            x.returned if x.is_done else None,
        )
        for i, x in enumerate(log.legs)
    )
    return TableView(
        perspective=None,
        hand_number=log.number,
        dealer=log.dealer,
        contracts=log.contracts,
        scores=scores,
        trump=log.trump,
        seats=(panels[0], panels[1], panels[2]),
        kitty=cards_in(log.kitty),
        kitty_taken=log.kitty_taken,
        discards=tuple(log.discards),
        discard_done=len(log.discards) == 4,
        exchange=legs,
        shown=tuple((to, cards_in(mask)) for to, mask in log.shown),
        trick=trick,
        tricks_played=tricks_played,
        summary=summary,
        result=result,
    )


def seat_view(basis: Basis, seat: Seat, players: tuple[str, str, str]) -> TableView:
    """What *seat* knows: built from ``observe(state, seat)`` only (plus public facts)."""
    obs = observe(basis.state, seat)
    played = [0, 0, 0]
    for done in obs.tricks:
        for i in range(len(done.cards)):
            played[(done.leader + i) % 3] += 1
    trick: TrickPanel | None = None
    if obs.current_trick is not None:
        current = obs.current_trick
        for i in range(len(current.cards)):
            played[(current.leader + i) % 3] += 1
        if current.cards:
            trick = TrickPanel(len(obs.tricks) + 1, current.leader, current.cards, None)
    if trick is None and obs.tricks:
        last = obs.tricks[-1]
        trick = TrickPanel(len(obs.tricks), last.leader, last.cards, last.winner)
    # Card counts of the other seats follow from public facts only.
    counts = [16, 16, 16]
    for leg in obs.exchange:
        if leg.status == "given":
            counts[leg.giver] -= leg.count
            counts[leg.receiver] += leg.count
    if obs.kitty_taken and not obs.discard_done:
        counts[obs.dealer] += 4
    counts = [counts[s] - played[s] for s in range(3)]
    own = obs.hand
    tricks_won = list(obs.tricks_won)
    tricks_played = len(obs.tricks)
    to_act = obs.to_act
    summary: HandSummary | None = None
    result: GameResult | None = None
    scores = obs.scores
    if basis.final is not None:
        assert basis.after is not None and trick is not None
        final_seat, card = basis.final
        after = observe(basis.after, seat)
        summary_now = after.history[-1]
        # The winner of the last trick: the seat whose trick count went up (public).
        winner = next(s for s in range(3) if summary_now.tricks_won[s] > obs.tricks_won[s])
        trick = TrickPanel(16, trick.leader, (*trick.cards, card), winner)
        counts[final_seat] -= 1
        if final_seat == seat:
            own = tuple(c for c in own if c != card)
        tricks_won[winner] += 1
        tricks_played, to_act = 16, None
        if basis.hand_end:
            summary = summary_now
            scores = summary_now.scores
            result = after.result
    panels = tuple(
        SeatPanel(
            seat=s,
            player=players[s],
            contract=obs.contracts[s],
            cards=own if s == seat else None,
            card_count=len(own) if s == seat else counts[s],
            tricks_won=tricks_won[s],
            is_dealer=s == obs.dealer,
            to_act=s == to_act,
        )
        for s in range(3)
    )
    legs = obs.exchange  # the observer already hides what the seat may not know
    return TableView(
        perspective=seat,
        hand_number=obs.hand_number,
        dealer=obs.dealer,
        contracts=obs.contracts,
        scores=scores,
        trump=obs.trump,
        seats=(panels[0], panels[1], panels[2]),
        kitty=obs.kitty,
        kitty_taken=obs.kitty_taken,
        discards=obs.discards,
        discard_done=obs.discard_done,
        exchange=legs,
        shown=tuple((show.to, show.cards) for show in obs.shown),
        trick=trick,
        tricks_played=tricks_played,
        summary=summary,
        result=result,
    )


__all__ = [
    "Basis",
    "Perspective",
    "SeatPanel",
    "TableView",
    "TrickPanel",
    "all_cards_view",
    "seat_view",
]
