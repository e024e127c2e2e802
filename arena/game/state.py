"""The game state: the whole truth of one game, and the only place rules are applied.

A :class:`GameState` holds every card's location, so it must never reach a bot: the
referee sends :func:`arena.game.observation.observe` instead. The state moves through
explicit phases; in each one :meth:`GameState.legal_actions` lists the step-level actions
in sorted order and :meth:`GameState.apply` applies one of them after checking it.

Multi-card decisions are taken one card at a time (a give of *k* cards is *k* steps, a
discard is 4 steps), as OpenSpiel does for Skat's discard: the action space stays at 57
values (52 cards and 5 trump calls) that can be listed, sampled and learned over, and
nothing is revealed to anyone until the whole decision is complete, so the information
structure is that of docs/rules.md. :meth:`GameState.apply_decision` applies a whole decision
at once, all or nothing.

Everything the engine does by itself (deal, exchange plan and returns, kitty pickup and
show, trick winners, scoring, rotation, end of game) happens inside ``apply``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Final, NamedTuple, TypeAlias

from arena.game.actions import (
    Action,
    CallTrump,
    Decision,
    DecisionKind,
    Discard,
    Give,
    Play,
)
from arena.game.cards import (
    BIT,
    CARDS,
    FULL_DECK,
    SUIT_MASK,
    SUIT_TABLES,
    TRUMP_ORDER,
    Card,
    Trump,
    cards_in,
    mask_of,
    suit_cards,
)
from arena.game.dealing import HMAC_SHUFFLE, Deals, deal_out, deals_for
from arena.game.ending import EndReason, GameResult, check_end
from arena.game.exchange import Leg, plan_exchange, resolve_leg, shown_cards
from arena.game.rules import FirstLeader, RuleSet, Step
from arena.game.values import HandSummary

Seat: TypeAlias = int
"""A seat number, 0, 1 or 2, clockwise."""

DealSource: TypeAlias = Callable[[int, int], tuple[tuple[int, int, int], int]]
"""``(hand_number, dealer) -> (three hand masks, kitty mask)``; replaces the shuffle."""


class IllegalActionError(ValueError):
    """Raised when an action is not legal in the current state; the state is unchanged."""


class Phase(Enum):
    """Where the game stands; each phase has one legal/apply pair."""

    GIVE = "give"
    TRUMP = "trump"
    DISCARD = "discard"
    PLAY = "play"
    OVER = "over"


_DECISION_OF_PHASE = {
    Phase.GIVE: DecisionKind.GIVE,
    Phase.TRUMP: DecisionKind.TRUMP,
    Phase.DISCARD: DecisionKind.DISCARD,
    Phase.PLAY: DecisionKind.PLAY,
}
# Module constants of the hot path, as Final names: compiled by mypyc, a Final name is a C
# variable, where any other global (an imported one too) is a dictionary lookup per use.
_SUIT_OF: Final = tuple(c // 13 for c in range(52))
_BIT: Final = BIT
_CARDS: Final = CARDS
_SUIT_MASK: Final = SUIT_MASK
_SUIT_TABLES: Final = SUIT_TABLES
_SHIFT: Final = (0, 13, 26, 39)
_LEFT: Final = (1, 2, 0)
_PLAY: Final = Phase.PLAY
_SPADES: Final = SUIT_TABLES[0]
_HEARTS: Final = SUIT_TABLES[1]
_DIAMONDS: Final = SUIT_TABLES[2]
_CLUBS: Final = SUIT_TABLES[3]
_TRUMP_SUIT: Final = {trump: -1 if trump.suit is None else int(trump.suit) for trump in Trump}
_SUIT_TRUMPS: Final = TRUMP_ORDER[:4]
_new_tuple: Final = tuple.__new__
"""Builds a :class:`TrickLog` without the Python-level ``__new__`` of named tuples."""


def _suit(table: list[tuple[Card, ...] | None], suit: int, pattern: int) -> tuple[Card, ...]:
    """:func:`suit_cards` with the lookup in this (compiled) module: the hot path pays one
    list index and a ``None`` test, and the builder runs once per pattern."""
    cards = table[pattern]
    return cards if cards is not None else suit_cards(suit, pattern)


def _is_card_index(value: object) -> bool:
    """True for a plain int naming a card (RL users may pass action ids as ints)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 52


def _as_card(action: Action, seat: Seat | None, verb: str) -> Card:
    """The card an action names; *seat* names who acts in the error (``None``: the dealer).

    :raises IllegalActionError: if it names none.
    """
    if type(action) is not Card and not _is_card_index(action):
        who = "the dealer" if seat is None else f"seat {seat}"
        raise IllegalActionError(f"{who} must {verb} a card, not {action!r}")
    return _CARDS[action]  # type: ignore[index]  # checked just above


_STAGE_PLANNED, _STAGE_GIVEN, _STAGE_RETURNED = 0, 1, 2


@dataclass(slots=True)
class LegLog:
    """One exchange leg as it happens: the plan, then the cards that moved."""

    leg: Leg
    given: tuple[Card, ...] = ()
    """The given cards, in the order the giver chose them."""
    returned: tuple[Card, ...] = ()
    """The returned cards, sorted."""
    stage: int = _STAGE_PLANNED
    """0 planned, 1 given (cards with the receiver), 2 returned (leg done)."""

    @property
    def is_given(self) -> bool:
        """True once the given cards have reached the receiver."""
        return self.stage >= _STAGE_GIVEN

    @property
    def is_done(self) -> bool:
        """True once the returns have been made."""
        return self.stage == _STAGE_RETURNED


class TrickLog(NamedTuple):
    """A completed trick (a named tuple: millions are made in playouts)."""

    leader: Seat
    cards: tuple[Card, Card, Card]
    """Cards in play order, starting with the leader's."""
    winner: Seat


@dataclass(slots=True)
class HandLog:
    """Everything that happened in one hand, hidden facts included (the record's source)."""

    number: int
    dealer: Seat
    contracts: tuple[int, int, int]
    deal: tuple[int, int, int]
    """Hand masks as dealt, before any exchange."""
    kitty: int
    legs: list[LegLog]
    steps: tuple[Step, ...]
    """The pre-play steps this hand runs, exchange steps dropped when there is no exchange."""
    scores_before: tuple[int, int, int]
    """Cumulative scores when the hand starts."""
    previous_deltas: tuple[int, int, int] | None
    """Deltas of the hand before, which drive this hand's exchange (``None`` on hand 1)."""
    trump: Trump | None = None
    shown: list[tuple[Seat, int]] = field(default_factory=list)
    """Show events in leg order: (giver, mask of kitty cards shown to him)."""
    discards: list[Card] = field(default_factory=list)
    kitty_taken: bool = False
    tricks: list[TrickLog] = field(default_factory=list)
    tricks_won: list[int] = field(default_factory=lambda: [0, 0, 0])
    deltas: tuple[int, int, int] | None = None
    scores: tuple[int, int, int] | None = None
    """Cumulative scores after this hand, once it is scored."""

    def copy(self) -> HandLog:
        """A copy sharing only immutable parts."""
        return HandLog(
            self.number,
            self.dealer,
            self.contracts,
            self.deal,
            self.kitty,
            [LegLog(x.leg, x.given, x.returned, x.stage) for x in self.legs],
            self.steps,
            self.scores_before,
            self.previous_deltas,
            self.trump,
            list(self.shown),
            list(self.discards),
            self.kitty_taken,
            list(self.tricks),
            list(self.tricks_won),
            self.deltas,
            self.scores,
        )


def _beaten_by(trump_suit: int) -> tuple[int, ...]:
    """Per card, the mask of the cards that beat it when it is the best card of a trick so
    far (it is then of the led suit or a trump): the higher cards of its suit, and every
    trump if it is not one (docs/rules.md 1.6 rule 17). *trump_suit* is -1 for no trump.
    """
    table = []
    for card in range(52):
        suit = card // 13
        higher = SUIT_MASK[suit] & ~((BIT[card] << 1) - 1)
        trumps = SUIT_MASK[trump_suit] if trump_suit not in (-1, suit) else 0
        table.append(higher | trumps)
    return tuple(table)


_BEATEN_BY: Final[dict[int, tuple[int, ...]]] = {
    suit: _beaten_by(suit) for suit in (-1, 0, 1, 2, 3)
}
""":func:`_beaten_by` per trump suit (-1: no trump); a trick's winner is then two lookups."""


def trick_winner(cards: Sequence[int], leader: Seat, trump_suit: int | None) -> Seat:
    """Winner of a complete trick (docs/rules.md 1.6 rule 17): the highest trump if any was
    played, else the highest card of the led suit. *cards* are in play order from *leader*.
    """
    beaten_by = _BEATEN_BY[-1 if trump_suit is None else trump_suit]
    best = 0
    for i in (1, 2):
        if beaten_by[cards[best]] & BIT[cards[i]]:
            best = i
    return (leader + best) % 3


def legal_play_mask(hand: int, led_suit: int | None) -> int:
    """Cards of *hand* that may be played to a trick whose led suit is *led_suit*
    (``None`` when leading): follow suit if able, otherwise anything (docs/rules.md 1.6).
    """
    if led_suit is not None:
        follow = hand & SUIT_MASK[led_suit]
        if follow:
            return follow
    return hand


def shuffled_deal(rng: random.Random, dealer: Seat) -> tuple[tuple[int, int, int], int]:
    """One legacy ``random.Random`` shuffle dealt by the mapping of docs/rules.md 1.3 rule 6
    (old records; new games use :mod:`arena.game.dealing`'s keyed shuffle)."""
    deck = list(range(52))
    rng.shuffle(deck)
    return deal_out(deck, dealer)


class GameState:
    """The full state of one game of 9-5-2 under one RuleSet."""

    __slots__ = (
        "_beaten_by",
        "_deal_source",
        "_deals",
        "_give_count",
        "_giver_legs",
        "_givers",
        "_led",
        "_picks",
        "_step_index",
        "_trick",
        "current_seat",
        "decisions",
        "first_dealer",
        "hand",
        "hands",
        "history",
        "is_over",
        "overtime",
        "phase",
        "result",
        "rules",
        "scores",
        "seed",
        "shuffle",
        "summaries",
    )

    rules: RuleSet
    seed: int
    shuffle: str
    """How *seed* becomes deals: :data:`~arena.game.dealing.HMAC_SHUFFLE` (keyed, the
    default) or :data:`~arena.game.dealing.LEGACY_SHUFFLE` (old records)."""
    first_dealer: Seat
    phase: Phase
    is_over: bool
    """True once the game has ended (kept as an attribute: playout loops test it per step)."""
    current_seat: Seat
    """Seat to act (meaningless once the game is over)."""
    hands: list[int]
    """Current hand mask per seat (the dealer holds 20 cards during his discard)."""
    history: list[HandLog]
    """One log per hand dealt so far; the last one is the current hand."""
    hand: HandLog
    summaries: tuple[HandSummary, ...]
    """The public result of each hand of :attr:`history` scored so far, made once as the hand
    is scored: every observation carries them, and rebuilding them at each decision was
    most of an observation's cost late in a game."""
    scores: list[int]
    overtime: bool
    result: GameResult | None
    decisions: int
    """Step-level actions applied so far."""

    def __init__(
        self,
        rules: RuleSet,
        seed: int,
        *,
        first_dealer: Seat | None = None,
        deal_source: DealSource | None = None,
        shuffle: str = HMAC_SHUFFLE,
    ) -> None:
        """Start a game: draw the first dealer, deal hand 1 and run to the first decision.

        The seed is the key of the deals (:mod:`arena.game.dealing`): it draws the first
        dealer and one shuffle per hand, and nothing else, so the deals of a seed do not
        depend on the players' decisions. *first_dealer* (or the ruleset's fixed one)
        overrides the draw without changing the deals; *deal_source* replaces the shuffles
        (records, worked examples, tests); *shuffle* names the scheme (old records: legacy).

        :raises ValueError: for an unknown *shuffle* or a keyed seed outside 0 .. 2**256 - 1.
        """
        self.rules = rules
        self.seed = seed
        self.shuffle = shuffle
        self._deals: Deals = deals_for(seed, shuffle)
        if first_dealer is None:
            first_dealer = (
                rules.first_dealer if rules.first_dealer is not None else self._deals.first_dealer()
            )
        self.first_dealer = first_dealer
        self._deal_source = deal_source
        self.scores = [0, 0, 0]
        self.overtime = False
        self.result = None
        self.decisions = 0
        self.history = []
        self.summaries = ()
        self.hands = [0, 0, 0]
        self._trick: list[Card] = []
        self._led = 0
        self._beaten_by = _BEATEN_BY[-1]
        self._picks: list[Card] = []
        self._givers: list[Seat] = []
        self._give_count = 0
        self._giver_legs: list[LegLog] = []
        self._step_index = 0
        self.phase = Phase.OVER
        self.is_over = False
        self.current_seat = first_dealer
        self._start_hand(1, first_dealer, None)

    @classmethod
    def from_position(
        cls,
        rules: RuleSet,
        *,
        dealer: Seat,
        deal: tuple[Sequence[int], Sequence[int], Sequence[int]],
        kitty: Sequence[int],
        previous_deltas: tuple[int, int, int] | None = None,
        scores: tuple[int, int, int] = (0, 0, 0),
        hands_played: int = 0,
        seed: int = 0,
    ) -> GameState:
        """Start at the beginning of a hand, as if earlier hands had ended as given.

        For worked examples, puzzles and tests: *previous_deltas* drive the exchange and
        *scores* are the cumulative scores before this hand. Later hands are shuffled from
        *seed*. The game's history holds only hands from this one on.

        :raises ValueError: if the deal is not 3 x 16 + 4 distinct cards.
        """
        first = fixed_deals([(deal[0], deal[1], deal[2], kitty)])
        state = cls(rules, seed, first_dealer=dealer, deal_source=first)
        state._deal_source = None
        if hands_played or previous_deltas is not None or scores != (0, 0, 0):
            state.scores = list(scores)
            state.history = []
            state.summaries = ()
            state._start_hand(hands_played + 1, dealer, previous_deltas, first(1, dealer))
        return state

    # ------------------------------------------------------------------ queries

    @property
    def hands_played(self) -> int:
        """Hands completed and scored."""
        n = self.hand.number
        return n if self.phase is Phase.OVER else n - 1

    @property
    def decision_kind(self) -> DecisionKind | None:
        """The kind of decision the current seat is taking, or ``None`` once over."""
        return _DECISION_OF_PHASE.get(self.phase)

    @property
    def trick(self) -> tuple[Card, ...]:
        """Cards of the trick in progress, in play order."""
        return tuple(self._trick)

    @property
    def trick_leader(self) -> Seat:
        """Seat that led (or will lead) the trick in progress."""
        return (self.current_seat - len(self._trick)) % 3

    @property
    def pending_picks(self) -> tuple[Card, ...]:
        """Cards the current giver has chosen so far in an unfinished give."""
        return tuple(self._picks)

    @property
    def giver_legs(self) -> tuple[LegLog, ...]:
        """The legs of the giver now choosing, in plan order."""
        return tuple(self._giver_legs) if self.phase is Phase.GIVE else ()

    def legal_actions(self) -> tuple[Action, ...]:
        """Legal step-level actions of the current seat, in sorted order (cards by index)."""
        phase = self.phase
        if phase is _PLAY:
            hand = self.hands[self.current_seat]
            if self._trick:
                led = self._led
                follow = (hand >> _SHIFT[led]) & 0x1FFF
                if follow:
                    return _suit(_SUIT_TABLES[led], led, follow)
        elif phase is Phase.DISCARD:
            hand = self.hands[self.current_seat]
        elif phase is Phase.GIVE:
            picked = 0
            for card in self._picks:  # mask_of(), inlined
                picked |= _BIT[card]
            hand = self.hands[self.current_seat] & ~picked
        elif phase is Phase.TRUMP:
            return TRUMP_ORDER if self.rules.allow_no_trump else _SUIT_TRUMPS
        else:
            return ()
        # cards_in(hand), inlined: leads, plays from a void suit, discards and gives.
        return (
            _suit(_SPADES, 0, hand & 0x1FFF)
            + _suit(_HEARTS, 1, (hand >> 13) & 0x1FFF)
            + _suit(_DIAMONDS, 2, (hand >> 26) & 0x1FFF)
            + _suit(_CLUBS, 3, hand >> 39)
        )

    def legal_plays_mask(self) -> int:
        """Mask of the cards the current seat may play (meaningful in the play phase)."""
        led = self._led if self._trick else None
        return legal_play_mask(self.hands[self.current_seat], led)

    # ------------------------------------------------------------------ actions

    def apply(self, action: Action) -> None:
        """Apply one step-level action of the current seat.

        :raises IllegalActionError: if the action is not legal; the state is then unchanged.
        """
        if self.phase is not _PLAY:
            self._apply_other(action)
            return
        # Card play, trick winner included, is inlined here: it is the hot path of every
        # playout (48 of a hand's ~56 steps), and a Python call costs as much as a check.
        seat = self.current_seat
        hands = self.hands
        hand = hands[seat]
        if type(action) is not Card and not _is_card_index(action):
            raise IllegalActionError(f"seat {seat} must play a card, not {action!r}")
        # mypy cannot see the check above narrow Card | Trump to a card index.
        bit = _BIT[action]  # type: ignore[index]
        if not hand & bit:
            raise IllegalActionError(f"seat {seat} does not hold {CARDS[action]}")  # type: ignore[index]
        trick = self._trick
        if trick:
            led = self._led
            if _SUIT_OF[action] != led and hand & _SUIT_MASK[led]:  # type: ignore[index]
                raise IllegalActionError(
                    f"seat {seat} must follow suit {'SHDC'[led]} and cannot play {CARDS[action]}"  # type: ignore[index]
                )
        else:
            self._led = _SUIT_OF[action]  # type: ignore[index]
        hands[seat] = hand ^ bit
        trick.append(_CARDS[action])  # type: ignore[index]
        self.decisions += 1
        if len(trick) < 3:
            self.current_seat = _LEFT[seat]
            return
        # The trick is complete: trick_winner() with its table lookups inlined.
        first, second, third = trick
        beaten_by = self._beaten_by
        best, offset = first, 0
        if beaten_by[first] & _BIT[second]:
            best, offset = second, 1
        if beaten_by[best] & bit:
            offset = 2
        leader = _LEFT[seat]
        winner = (leader + offset) % 3
        log = self.hand
        tricks = log.tricks
        tricks.append(_new_tuple(TrickLog, (leader, (first, second, third), winner)))
        log.tricks_won[winner] += 1
        trick.clear()  # nobody else holds this list: `trick` and clone() copy it
        if len(tricks) == 16:
            self._finish_hand()
        else:
            self.current_seat = winner

    def _apply_other(self, action: Action) -> None:
        phase = self.phase
        if phase is Phase.GIVE:
            self._pick_give(action)
        elif phase is Phase.DISCARD:
            self._discard_one(action)
        elif phase is Phase.TRUMP:
            self._call_trump(action)
        else:
            raise IllegalActionError("the game is over")

    def apply_decision(self, decision: Decision) -> None:
        """Apply a whole decision of the current seat, all or nothing.

        :raises IllegalActionError: if the decision is not legal; the state is then unchanged.
        """
        kind = self.decision_kind
        if isinstance(decision, Play) and kind is DecisionKind.PLAY:
            self.apply(decision.card)
        elif isinstance(decision, CallTrump) and kind is DecisionKind.TRUMP:
            self._call_trump(decision.trump)
        elif isinstance(decision, Discard) and kind is DecisionKind.DISCARD:
            self._check_discard(decision)
            for card in decision.cards:
                self._discard_one(card)
        elif isinstance(decision, Give) and kind is DecisionKind.GIVE:
            self._check_give(decision)
            for leg_cards in decision.legs:
                for card in leg_cards:
                    self._pick_give(card)
        else:
            wanted = "nothing (the game is over)" if kind is None else f"a {kind.value} decision"
            raise IllegalActionError(f"expected {wanted}, got {decision}")

    def clone(self) -> GameState:
        """An independent copy (for search); the copy continues with the same deals.

        Logs of completed hands are shared, not copied: the engine never changes a hand's
        log once the hand is scored, so a clone costs the same on hand 9 as on hand 1.
        """
        other: GameState = _ClonedState()
        other.rules = self.rules
        other.seed = self.seed
        other.shuffle = self.shuffle
        other._deals = self._deals.copy()
        other.first_dealer = self.first_dealer
        other._deal_source = self._deal_source
        other.scores = list(self.scores)
        other.overtime = self.overtime
        other.result = self.result
        other.decisions = self.decisions
        hand = self.hand.copy()
        other.history = self.history[:-1]
        other.history.append(hand)
        other.summaries = self.summaries
        other.hand = hand
        other.hands = list(self.hands)
        other._trick = list(self._trick)
        other._led = self._led
        other._beaten_by = self._beaten_by
        other._picks = list(self._picks)
        other._givers = list(self._givers)
        other._give_count = self._give_count
        legs_by_id = {id(a): b for a, b in zip(self.hand.legs, other.hand.legs, strict=True)}
        other._giver_legs = [legs_by_id[id(x)] for x in self._giver_legs]
        other._step_index = self._step_index
        other.phase = self.phase
        other.is_over = self.is_over
        other.current_seat = self.current_seat
        return other

    def __copy__(self) -> GameState:
        """``copy.copy`` makes a :meth:`clone` (a shallow copy would share the hands)."""
        return self.clone()

    def __deepcopy__(self, memo: dict[int, object]) -> GameState:
        """``copy.deepcopy`` makes a :meth:`clone`: it shares only what never changes."""
        return self.clone()

    # ------------------------------------------------------------------ play

    def _finish_hand(self) -> None:
        hand = self.hand
        won, contracts = hand.tricks_won, hand.contracts
        deltas = (won[0] - contracts[0], won[1] - contracts[1], won[2] - contracts[2])
        scores = self.scores
        for seat in range(3):
            scores[seat] += deltas[seat]
        hand.deltas = deltas
        hand.scores = (scores[0], scores[1], scores[2])
        assert hand.trump is not None  # every hand calls trump before its tricks
        summary = HandSummary(
            hand.number,
            hand.dealer,
            hand.contracts,
            hand.trump,
            (won[0], won[1], won[2]),
            deltas,
            hand.scores,
        )
        self.summaries = (*self.summaries, summary)
        end = check_end(self.rules, scores, hand.number, self.overtime)
        self.overtime = end.overtime
        if end.over:
            assert end.reason is not None
            self.phase = Phase.OVER
            self.is_over = True
            self.result = GameResult(end.winners, end.reason, hand.scores, hand.number)
            return
        self._start_hand(hand.number + 1, (hand.dealer + 1) % 3, hand.deltas)

    # ------------------------------------------------------------------ hand set-up

    def _start_hand(
        self,
        number: int,
        dealer: Seat,
        previous_deltas: tuple[int, int, int] | None,
        dealt: tuple[tuple[int, int, int], int] | None = None,
    ) -> None:
        if dealt is not None:
            deal, kitty = dealt
        elif self._deal_source is None:
            deal, kitty = self._deals.deal(number, dealer)
        else:
            deal, kitty = self._deal_source(number, dealer)
        rules = self.rules
        contracts = rules.contracts_for(dealer)
        steps = rules.first_hand_steps
        legs: tuple[Leg, ...] = ()
        if previous_deltas is not None:
            legs = plan_exchange(previous_deltas, contracts, rules.giver_priority)
            steps = rules.later_hand_steps
            if not legs:
                exchange_steps = (Step.EXCHANGE, Step.GIVE, Step.RETURN)
                steps = tuple(s for s in steps if s not in exchange_steps)
        scores = self.scores
        self.hand = HandLog(
            number,
            dealer,
            contracts,
            deal,
            kitty,
            [LegLog(x) for x in legs],
            steps,
            (scores[0], scores[1], scores[2]),
            previous_deltas,
        )
        self.history.append(self.hand)
        self.hands = list(deal)
        self._beaten_by = _BEATEN_BY[-1]
        self._trick = []
        self._step_index = 0
        self._advance()

    def _advance(self) -> None:
        """Run forced steps until a seat must decide or trick play starts."""
        hand = self.hand
        steps = hand.steps
        while self._step_index < len(steps):
            step = steps[self._step_index]
            self._step_index += 1
            if step is Step.TRUMP:
                self.phase, self.current_seat = Phase.TRUMP, hand.dealer
                return
            if step is Step.KITTY:
                self._take_kitty()
                self.phase, self.current_seat = Phase.DISCARD, hand.dealer
                return
            if step is Step.EXCHANGE or step is Step.GIVE:
                self._givers = list(dict.fromkeys(x.leg.giver for x in hand.legs))
                self._next_giver()
                return
            if step is Step.RETURN:
                self._resolve_split_returns()
        leader = hand.dealer
        if self.rules.first_leader is FirstLeader.LEFT_OF_DEALER:
            leader = (leader + 1) % 3
        self.phase, self.current_seat = Phase.PLAY, leader

    def _take_kitty(self) -> None:
        hand = self.hand
        dealer = hand.dealer
        self.hands[dealer] |= hand.kitty
        hand.kitty_taken = True
        if self.rules.dealer_show:
            for log in hand.legs:
                if log.leg.receiver == dealer and log.is_done:
                    shown = shown_cards(hand.kitty, mask_of(log.returned))
                    hand.shown.append((log.leg.giver, shown))

    # ------------------------------------------------------------------ trump, discard

    def _call_trump(self, trump: Action) -> None:
        if not isinstance(trump, Trump):
            raise IllegalActionError(f"the dealer must call a trump, not {trump!r}")
        if trump is Trump.NT and not self.rules.allow_no_trump:
            raise IllegalActionError(f"no trump is not allowed in {self.rules.name}")
        self.hand.trump = trump
        self._beaten_by = _BEATEN_BY[_TRUMP_SUIT[trump]]
        self.decisions += 1
        self._advance()

    def _discard_one(self, action: Action) -> None:
        dealer = self.current_seat
        card = _as_card(action, None, "discard")
        bit = BIT[card]
        if not self.hands[dealer] & bit:
            raise IllegalActionError(f"the dealer does not hold {card}")
        self.hands[dealer] ^= bit
        discards = self.hand.discards
        discards.append(card)
        self.decisions += 1
        if len(discards) == 4:
            self._advance()

    def _check_discard(self, decision: Discard) -> None:
        cards = decision.cards
        if len(cards) != 4 or len(set(cards)) != 4:
            raise IllegalActionError(f"a discard is 4 distinct cards, got {len(cards)}")
        held = self.hands[self.current_seat]
        missing = [c for c in cards if not held & BIT[c]]
        if missing or self.hand.discards:
            raise IllegalActionError(
                f"the dealer does not hold {' '.join(str(c) for c in missing)}"
                if missing
                else "a discard is already under way"
            )

    # ------------------------------------------------------------------ exchange

    def _next_giver(self) -> None:
        if not self._givers:
            self._giver_legs = []
            self._advance()
            return
        giver = self._givers.pop(0)
        self._giver_legs = [x for x in self.hand.legs if x.leg.giver == giver]
        self._picks = []
        self._give_count = sum(x.leg.count for x in self._giver_legs)
        self.phase, self.current_seat = Phase.GIVE, giver

    def _pick_give(self, action: Action) -> None:
        giver = self.current_seat
        card = _as_card(action, giver, "give")
        if not self.hands[giver] & BIT[card]:
            raise IllegalActionError(f"seat {giver} does not hold {card}")
        if card in self._picks:
            raise IllegalActionError(f"seat {giver} already gives {card}")
        self._picks.append(card)
        self.decisions += 1
        if len(self._picks) == self._give_count:
            self._complete_give()

    def _check_give(self, decision: Give) -> None:
        giver = self.current_seat
        legs = self._giver_legs
        if self._picks:
            raise IllegalActionError("a give is already under way")
        if len(decision.legs) != len(legs):
            raise IllegalActionError(
                f"seat {giver} gives on {len(legs)} leg(s), got {len(decision.legs)}"
            )
        for log, cards in zip(legs, decision.legs, strict=True):
            if len(cards) != log.leg.count:
                raise IllegalActionError(
                    f"seat {giver} must give {log.leg.count} card(s) to seat {log.leg.receiver}, "
                    f"got {len(cards)}"
                )
        every = [c for cards in decision.legs for c in cards]
        if len(set(every)) != len(every):
            raise IllegalActionError(f"seat {giver} names a card twice in its give")
        missing = [c for c in every if not self.hands[giver] & BIT[c]]
        if missing:
            raise IllegalActionError(
                f"seat {giver} does not hold {' '.join(str(c) for c in missing)}"
            )

    def _complete_give(self) -> None:
        giver = self.current_seat
        hands = self.hands
        split = self.rules.uses_split_exchange
        offset = 0
        for log in self._giver_legs:
            given = tuple(self._picks[offset : offset + log.leg.count])
            offset += log.leg.count
            log.given = given
            given_mask = mask_of(given)
            hands[giver] &= ~given_mask
            if split:
                hands[log.leg.receiver] |= given_mask
                log.stage = _STAGE_GIVEN
        if not split:
            for log in self._giver_legs:
                self._return(log, hands[log.leg.receiver])
        self._picks = []
        self._next_giver()

    def _return(self, log: LegLog, receiver_hand: int) -> None:
        """Resolve one leg against *receiver_hand* (which excludes this leg's given cards)."""
        returned, new_receiver = resolve_leg(receiver_hand, mask_of(log.given))
        leg = log.leg
        self.hands[leg.receiver] = new_receiver
        self.hands[leg.giver] |= returned
        log.returned = cards_in(returned)
        log.stage = _STAGE_RETURNED

    def _resolve_split_returns(self) -> None:
        """RETURN step: each leg computed exactly as in atomic mode (docs/rules.md 4.7, A11)."""
        legs = self.hand.legs
        for i, log in enumerate(legs):
            receiver = log.leg.receiver
            later = mask_of(c for x in legs[i + 1 :] if x.leg.receiver == receiver for c in x.given)
            pool = self.hands[receiver] & ~mask_of(log.given) & ~later
            self._return(log, pool)
            self.hands[receiver] |= later


class _ClonedState(GameState):
    """A :class:`GameState` that :meth:`GameState.clone` fills in field by field.

    Why a subclass: a clone must not run ``__init__`` (it would deal a game), and a class
    compiled by mypyc cannot be created without it; an empty ``__init__`` here works both
    compiled and interpreted.
    """

    __slots__ = ()

    def __init__(self) -> None:
        """Leave every field unset: :meth:`GameState.clone` sets them all."""


def new_game(
    rules: RuleSet,
    seed: int,
    *,
    first_dealer: Seat | None = None,
    deal_source: DealSource | None = None,
    shuffle: str = HMAC_SHUFFLE,
) -> GameState:
    """Start a game under *rules* with the shuffles of *seed*."""
    return GameState(
        rules, seed, first_dealer=first_dealer, deal_source=deal_source, shuffle=shuffle
    )


def fixed_deals(
    deals: Sequence[tuple[Sequence[int], Sequence[int], Sequence[int], Sequence[int]]],
) -> DealSource:
    """A deal source that serves the given deals in order: ``(seat0, seat1, seat2, kitty)``.

    :raises ValueError: if a deal is not 3 x 16 + 4 distinct cards, or the game needs more
        hands than were given.
    """
    masks: list[tuple[tuple[int, int, int], int]] = []
    for i, (h0, h1, h2, kitty) in enumerate(deals, start=1):
        parts = [mask_of(h0), mask_of(h1), mask_of(h2), mask_of(kitty)]
        sizes = [len(h0), len(h1), len(h2), len(kitty)]
        if sizes != [16, 16, 16, 4] or [p.bit_count() for p in parts] != sizes:
            raise ValueError(f"hand {i}: a deal is 3 x 16 distinct cards and a 4-card kitty")
        if parts[0] | parts[1] | parts[2] | parts[3] != FULL_DECK:
            raise ValueError(f"hand {i}: the deal does not hold the 52 cards exactly once")
        masks.append(((parts[0], parts[1], parts[2]), parts[3]))

    def source(number: int, dealer: Seat) -> tuple[tuple[int, int, int], int]:
        del dealer  # fixed deals already say which seat holds what
        if number > len(masks):
            raise ValueError(f"no deal given for hand {number}")
        return masks[number - 1]

    return source


__all__ = [
    "DealSource",
    "EndReason",
    "GameState",
    "HandLog",
    "IllegalActionError",
    "LegLog",
    "Phase",
    "Seat",
    "TrickLog",
    "fixed_deals",
    "new_game",
    "shuffled_deal",
]
