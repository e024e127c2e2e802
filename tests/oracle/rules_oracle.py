"""Independent rules oracle for ``arena952.game/1`` game records.

Why this module exists: the arena engine and this oracle are written separately from
the same normative text (``shared/docs/rules.md``; record format ``shared/docs/record-format.md``).  A
record written by the engine is replayed here step by step: every *decision* in it (the
cards given, the trump call, the discards, every card played) is checked for legality,
and every *forced* fact (dealer, contracts, exchange plan, returned cards, shown cards,
trick winners, tricks won, deltas, scores, end of the game) is recomputed from the
record's own ``rules`` object and compared.  Where the specification allows two
algorithms, this module deliberately uses the one the engine is least likely to use
(e.g. the one-card-at-a-time return rule of docs/rules.md 4.6 instead of the batch rule), so
that the two implementations really are independent.

Checking policy, "report, then adopt": each recorded fact is compared with what the
rules derive from the *recorded* facts before it.  When they differ, a discrepancy is
reported and, if the recorded value is well formed, it is adopted so that checking can
go on.  An engine bug is thus reported once, where it first shows, instead of cascading
through the rest of the game; and an empty result still proves, by induction over the
steps, that every step of the record follows from the previous ones.  A structural
problem (missing field, wrong type, a card a seat does not hold, ...) is reported and
stops the checking of that hand only; later hands are still checked.

Public entry point: :func:`check_record`.  The helpers it is built from
(:func:`parse_rules`, :func:`plan_exchange`, :func:`returns_one_at_a_time`,
:func:`shown_cards`, :func:`trick_winner`, :func:`end_of_game`, :func:`check_hand`) are
public too, so that tests can pin each of them to the worked examples of docs/rules.md
section 9.  Only the standard library is used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

__all__ = [
    "DECK",
    "FORMAT_ID",
    "EndDecision",
    "HandReport",
    "Leg",
    "PrevHand",
    "RecordError",
    "Rules",
    "check_game_end",
    "check_hand",
    "check_record",
    "contracts_for",
    "end_of_game",
    "parse_rules",
    "plan_exchange",
    "returns_one_at_a_time",
    "shown_cards",
    "trick_winner",
]

RANKS = "23456789TJQKA"
SUITS = "SHDC"
DECK: frozenset[str] = frozenset(r + s for s in SUITS for r in RANKS)
FORMAT_ID = "arena952.game/1"
PRESET_IDS = frozenset(
    {
        "classic",
        "classic-show",
        "classic-pm15",
        "nine-two-five",
        "catalan",
        "catalan-plus-minus",
        "custom",
    }
)
TRUMP_CALLS = ("S", "H", "D", "C", "NT")
NO_TRUMP = "NT"
HAND_SIZE = 16
KITTY_SIZE = 4
TRICKS_PER_HAND = 16
EXCHANGE_STEPS = frozenset({"EXCHANGE", "GIVE", "RETURN"})
RULE_PARAMETERS = (
    "contracts",
    "allow_no_trump",
    "first_hand_steps",
    "later_hand_steps",
    "first_leader",
    "giver_priority",
    "exchange_mandatory",
    "dealer_show",
    "target",
    "negative_target",
    "negative_role",
    "winner_rule",
    "tie_rule",
    "max_hands",
    "first_dealer",
)

Seats3 = tuple[int, int, int]


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------


class RecordError(Exception):
    """A structural problem that makes further checking of the current hand meaningless.

    ``where`` is the location inside the hand (``"trick 5"``, ``"exchange leg 1"``, or
    ``""`` for the hand as a whole); the hand number is added by the caller.
    """

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where
        self.message = message


def is_int(value: object) -> TypeGuard[int]:
    """True for a JSON integer (``bool`` is an ``int`` subclass in Python, but not here)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_seat(value: object) -> TypeGuard[int]:
    """True for a seat number 0, 1 or 2."""
    return is_int(value) and 0 <= value < 3


def is_card(value: object) -> TypeGuard[str]:
    """True for a valid two-character card id such as ``"TS"``."""
    return isinstance(value, str) and value in DECK


def left(seat: int) -> int:
    """Seat to the left (clockwise), docs/rules.md 0.3."""
    return (seat + 1) % 3


def rank(card: str) -> int:
    """Rank index of a card, 0 for a two up to 12 for an ace."""
    return RANKS.index(card[0])


def suit(card: str) -> str:
    """Suit letter of a card."""
    return card[1]


def card_key(card: str) -> tuple[int, int]:
    """Display order: by suit (S H D C), highest rank first."""
    return (SUITS.index(suit(card)), -rank(card))


def fmt_cards(cards: Iterable[str]) -> str:
    """Cards as a stable, readable ``[KS 9S 6H]`` list for messages."""
    return "[" + " ".join(sorted(cards, key=card_key)) + "]"


def seat_ints(value: object) -> Seats3 | None:
    """A per-seat list of three integers, or None when malformed."""
    if isinstance(value, list | tuple) and len(value) == 3 and all(is_int(x) for x in value):
        return (int(value[0]), int(value[1]), int(value[2]))
    return None


def card_list(value: object, where: str, size: int | None = None) -> list[str]:
    """Validate a JSON list of distinct card ids (of ``size`` cards when given)."""
    if not isinstance(value, list):
        raise RecordError(where, f"expected a list of cards, got {value!r}")
    bad = [x for x in value if not is_card(x)]
    if bad:
        raise RecordError(where, f"not card ids: {bad!r}")
    cards = [str(x) for x in value]
    if size is not None and len(cards) != size:
        raise RecordError(where, f"{len(cards)} cards, expected {size}")
    if len(set(cards)) != len(cards):
        doubles = sorted({c for c in cards if cards.count(c) > 1}, key=card_key)
        raise RecordError(where, f"cards listed twice: {fmt_cards(doubles)}")
    return cards


# ---------------------------------------------------------------------------
# Rules (docs/rules.md section 2)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Rules:
    """The full RuleSet parameter set, as read from a record's ``rules`` object.

    ``first_dealer`` is None for ``"random"``.
    """

    contracts: Seats3
    allow_no_trump: bool
    first_hand_steps: tuple[str, ...]
    later_hand_steps: tuple[str, ...]
    first_leader: str
    giver_priority: str
    exchange_mandatory: bool
    dealer_show: bool
    target: int
    negative_target: int | None
    negative_role: str | None
    winner_rule: str
    tie_rule: str
    max_hands: int
    first_dealer: int | None


def _valid_first_steps(value: object) -> bool:
    """Hand 1 has only TRUMP and KITTY, each once, in either order (docs/rules.md 1.5)."""
    if not isinstance(value, list | tuple) or not all(isinstance(s, str) for s in value):
        return False
    return sorted(value) == ["KITTY", "TRUMP"]


def _valid_later_steps(value: object) -> bool:
    """Later hands: TRUMP, KITTY plus EXCHANGE, or plus GIVE before RETURN (docs/rules.md 2)."""
    if not isinstance(value, list | tuple) or not all(isinstance(s, str) for s in value):
        return False
    steps = list(value)
    if len(set(steps)) != len(steps):
        return False
    if set(steps) == {"TRUMP", "KITTY", "EXCHANGE"}:
        return True
    return set(steps) == {"TRUMP", "KITTY", "GIVE", "RETURN"} and steps.index("GIVE") < steps.index(
        "RETURN"
    )


_PARAMETER_CHECKS: dict[str, tuple[Callable[[object], bool], str]] = {
    "contracts": (
        lambda v: isinstance(v, list | tuple) and list(v) in ([9, 5, 2], [9, 2, 5]),
        "[9, 5, 2] or [9, 2, 5]",
    ),
    "allow_no_trump": (lambda v: isinstance(v, bool), "a boolean"),
    "first_hand_steps": (_valid_first_steps, "TRUMP and KITTY in some order"),
    "later_hand_steps": (
        _valid_later_steps,
        "TRUMP, KITTY and EXCHANGE, or TRUMP, KITTY, GIVE and RETURN (GIVE before RETURN)",
    ),
    "first_leader": (lambda v: v in ("left_of_dealer", "dealer"), "left_of_dealer or dealer"),
    "giver_priority": (
        lambda v: v in ("upcoming_contract", "most_overtricks"),
        "upcoming_contract or most_overtricks",
    ),
    "exchange_mandatory": (lambda v: isinstance(v, bool), "a boolean"),
    "dealer_show": (lambda v: isinstance(v, bool), "a boolean"),
    "target": (lambda v: is_int(v) and v > 0, "a positive integer"),
    "negative_target": (
        lambda v: v is None or (is_int(v) and v < 0),
        "null or a negative integer",
    ),
    "negative_role": (
        lambda v: v in (None, "ends_game", "objective"),
        "null, ends_game or objective",
    ),
    "winner_rule": (lambda v: v in ("highest", "largest_excess"), "highest or largest_excess"),
    "tie_rule": (
        lambda v: v in ("extra_hands", "draw", "positive_side"),
        "extra_hands, draw or positive_side",
    ),
    "max_hands": (lambda v: is_int(v) and v > 0, "a positive integer"),
    "first_dealer": (lambda v: v == "random" or is_seat(v), '"random" or a seat 0..2'),
}


def parse_rules(raw: object) -> tuple[Rules | None, list[str]]:
    """Validate a record's ``rules`` object; return (Rules, []) or (None, problems).

    Every parameter of docs/rules.md section 2 must be present with a legal value, since
    the record must stay checkable even if the presets change (docs/record-format.md).
    """
    if not isinstance(raw, Mapping):
        return None, [f"rules: missing or not an object ({raw!r})"]
    problems: list[str] = []
    missing = [p for p in RULE_PARAMETERS if p not in raw]
    if missing:
        problems.append(f"rules: missing parameter(s) {', '.join(missing)}")
    for name, (is_valid, expected) in _PARAMETER_CHECKS.items():
        if name in raw and not is_valid(raw[name]):
            problems.append(f"rules: {name} is {raw[name]!r}, expected {expected}")
    if problems:
        return None, problems
    contracts = raw["contracts"]
    first_dealer = raw["first_dealer"]
    return (
        Rules(
            contracts=(int(contracts[0]), int(contracts[1]), int(contracts[2])),
            allow_no_trump=bool(raw["allow_no_trump"]),
            first_hand_steps=tuple(raw["first_hand_steps"]),
            later_hand_steps=tuple(raw["later_hand_steps"]),
            first_leader=str(raw["first_leader"]),
            giver_priority=str(raw["giver_priority"]),
            exchange_mandatory=bool(raw["exchange_mandatory"]),
            dealer_show=bool(raw["dealer_show"]),
            target=int(raw["target"]),
            negative_target=None if raw["negative_target"] is None else int(raw["negative_target"]),
            negative_role=None if raw["negative_role"] is None else str(raw["negative_role"]),
            winner_rule=str(raw["winner_rule"]),
            tie_rule=str(raw["tie_rule"]),
            max_hands=int(raw["max_hands"]),
            first_dealer=None if first_dealer == "random" else int(first_dealer),
        ),
        [],
    )


def contracts_for(dealer: int, contracts: Sequence[int]) -> Seats3:
    """Contract per seat: dealer gets contracts[0], his left [1], his right [2] (1.4)."""
    per_seat = [0, 0, 0]
    per_seat[dealer] = contracts[0]
    per_seat[left(dealer)] = contracts[1]
    per_seat[left(left(dealer))] = contracts[2]
    return (per_seat[0], per_seat[1], per_seat[2])


# ---------------------------------------------------------------------------
# Exchange (docs/rules.md section 4) and show (section 5)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Leg:
    """One forced leg of the exchange plan: ``giver`` hands ``count`` cards to ``receiver``."""

    giver: int
    receiver: int
    count: int


def plan_exchange(
    prev_deltas: Sequence[int], upcoming_contracts: Sequence[int], giver_priority: str
) -> list[Leg]:
    """The legs forced by the previous hand's deltas, in resolution order (4.2, 4.4).

    ``upcoming_contracts`` are the contracts of the hand now being played.  With one
    giver and two receivers the two legs are returned in seat order of the receivers;
    docs/rules.md does not order them and the order cannot change any card, so callers
    should accept either order (see :func:`plan_orders`).
    Raises ValueError when the deltas cannot come from a real hand (sum != 0).
    """
    if len(prev_deltas) != 3 or sum(prev_deltas) != 0:
        raise ValueError(f"previous deltas {list(prev_deltas)} do not sum to 0")
    up = [s for s in range(3) if prev_deltas[s] > 0]
    down = [s for s in range(3) if prev_deltas[s] < 0]
    if not up:
        return []
    if len(up) == 1:
        return [Leg(up[0], v, -prev_deltas[v]) for v in down]
    receiver = down[0]

    def priority(seat: int) -> tuple[int, int]:
        # most_overtricks: larger delta first, ties fall back to the upcoming contract.
        if giver_priority == "most_overtricks":
            return (prev_deltas[seat], upcoming_contracts[seat])
        return (upcoming_contracts[seat], 0)

    return [Leg(g, receiver, prev_deltas[g]) for g in sorted(up, key=priority, reverse=True)]


def plan_orders(plan: Sequence[Leg]) -> list[list[Leg]]:
    """Every acceptable recorded order of a plan (both orders for one giver, two receivers)."""
    orders = [list(plan)]
    if len(plan) == 2 and plan[0].giver == plan[1].giver:
        orders.append([plan[1], plan[0]])
    return orders


def returns_one_at_a_time(receiver_hand: Iterable[str], given: Sequence[str]) -> list[str]:
    """Cards the receiver must hand back, by the one-card-at-a-time method of 4.6.

    Add one given card to the receiver's hand, hand back the top card of that suit,
    then the next given card.  docs/rules.md says this equals the batch rule in any order;
    the oracle uses it precisely because an engine would more likely use the batch
    rule.  The result is listed in the order the cards came back.
    """
    hand = set(receiver_hand)
    returned: list[str] = []
    for card in given:
        if card in hand:
            raise ValueError(f"{card} is given to a hand that already holds it")
        hand.add(card)
        top = max((c for c in hand if suit(c) == suit(card)), key=rank)
        hand.remove(top)
        returned.append(top)
    return returned


def shown_cards(returned: Iterable[str], kitty: Iterable[str]) -> list[str]:
    """Kitty cards the dealer shows to one giver (section 5).

    For each suit in which the dealer returned cards to that giver, every kitty card of
    that suit ranking above the lowest returned card of the suit.
    """
    lowest: dict[str, int] = {}
    for card in returned:
        lowest[suit(card)] = min(lowest.get(suit(card), len(RANKS)), rank(card))
    shown = [c for c in kitty if suit(c) in lowest and rank(c) > lowest[suit(c)]]
    return sorted(shown, key=card_key)


# ---------------------------------------------------------------------------
# Trick play (docs/rules.md 1.6)
# ---------------------------------------------------------------------------


def trick_winner(cards: Sequence[str], leader: int, trump: str) -> int:
    """Seat winning a trick whose ``cards`` were played clockwise from ``leader`` (rule 17).

    Highest trump if any trump was played, otherwise the highest card of the led suit;
    with ``"NT"`` there is no trump.
    """
    led = suit(cards[0])

    def strength(card: str) -> tuple[int, int]:
        if trump != NO_TRUMP and suit(card) == trump:
            return (2, rank(card))
        if suit(card) == led:
            return (1, rank(card))
        return (0, 0)

    best = max(range(len(cards)), key=lambda i: strength(cards[i]))
    return (leader + best) % 3


# ---------------------------------------------------------------------------
# End of the game (docs/rules.md section 7)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class EndDecision:
    """What section 7 says after a hand.

    ``reasons`` is the set of acceptable ``result.reason`` values (7.6 allows ``target``
    to be refined to ``negative`` when only the negative limit fired).  ``overtime``
    tells whether the *next* hand is an overtime (sudden death) hand.
    """

    over: bool
    winners: tuple[int, ...] = ()
    reasons: frozenset[str] = frozenset()
    overtime: bool = False


def _largest_excess(rules: Rules, scores: Seats3) -> tuple[int, ...] | None:
    """Winners under ``largest_excess`` (7.2), or None when no seat reached an objective."""
    candidates: list[tuple[int, bool, int]] = []  # (excess, positive side, seat)
    for seat, score in enumerate(scores):
        if score >= rules.target:
            candidates.append((score - rules.target, True, seat))
        elif (
            rules.negative_target is not None
            and rules.negative_role == "objective"
            and score <= rules.negative_target
        ):
            candidates.append((rules.negative_target - score, False, seat))
    if not candidates:
        return None
    best = max(c[0] for c in candidates)
    tied = [c for c in candidates if c[0] == best]
    if len(tied) > 1 and rules.tie_rule == "positive_side":
        tied = [c for c in tied if c[1]] or tied
    return tuple(sorted(c[2] for c in tied))


def end_of_game(rules: Rules, scores: Seats3, hands_played: int, overtime: bool) -> EndDecision:
    """Apply section 7 after a hand's scoring.

    ``overtime`` is True when the hand just played was an overtime hand.  Overtime is
    sudden death (7.3, A15): after it the unique top score wins whether or not anyone
    is still at the target.  The cap (7.4) applies last, also during overtime.

    One combination is not covered by docs/rules.md: ``largest_excess`` when only a
    negative limit that is *not* an objective fired (no candidate at all).  This
    oracle then falls back to the ``highest`` rule.
    """
    top = max(scores)
    leaders = tuple(s for s in range(3) if scores[s] == top)
    positive_hit = any(x >= rules.target for x in scores)
    negative_hit = rules.negative_target is not None and any(
        x <= rules.negative_target for x in scores
    )
    won = frozenset({"target"} if positive_hit else {"target", "negative"})
    next_overtime = False
    if overtime:
        if len(leaders) == 1:
            return EndDecision(True, leaders, frozenset({"overtime"}))
        next_overtime = True
    elif positive_hit or negative_hit:
        excess_winners = (
            _largest_excess(rules, scores) if rules.winner_rule == "largest_excess" else None
        )
        if excess_winners is not None:
            reasons = won if len(excess_winners) == 1 else frozenset({"draw"})
            return EndDecision(True, excess_winners, reasons)
        if len(leaders) == 1:
            return EndDecision(True, leaders, won)
        if rules.tie_rule == "draw":
            return EndDecision(True, leaders, frozenset({"draw"}))
        next_overtime = True
    if hands_played >= rules.max_hands:
        return EndDecision(True, leaders, frozenset({"capped"}))
    return EndDecision(False, overtime=next_overtime)


def _describe_end(decision: EndDecision) -> str:
    """Short text for messages about the end of the game."""
    return f"winners {list(decision.winners)}, reason {'/'.join(sorted(decision.reasons))}"


# ---------------------------------------------------------------------------
# One hand
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PrevHand:
    """The recorded facts of the previous hand that the next hand depends on."""

    dealer: int
    deltas: Seats3 | None
    scores: Seats3 | None


@dataclass
class HandReport:
    """Discrepancies of one hand plus the recorded values the next hand chains on."""

    issues: list[str]
    dealer: int
    deltas: Seats3 | None
    scores: Seats3 | None


@dataclass
class _LegState:
    """A recorded exchange leg while it is being replayed."""

    index: int
    giver: int
    receiver: int
    given: tuple[str, ...]
    recorded_returned: tuple[str, ...]
    pending: bool = False  # given but not yet resolved
    resolved: bool = False
    returned: tuple[str, ...] = ()  # adopted returns once resolved

    @property
    def where(self) -> str:
        """Location text of this leg."""
        return f"exchange leg {self.index}"


@dataclass
class _HandChecker:
    """Replays one recorded hand against the rules; see the module docstring for policy."""

    rules: Rules
    hand: Mapping[str, Any]
    index: int
    expected_dealer: int
    prev: PrevHand | None
    issues: list[str] = field(default_factory=list)
    dealer: int = 0
    contracts: Seats3 = (0, 0, 0)
    kitty: tuple[str, ...] = ()
    trump: str = NO_TRUMP
    hands: list[set[str]] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)

    @property
    def label(self) -> str:
        """Location prefix of this hand (its position in the record, counting from 1)."""
        return f"hand {self.index + 1}"

    def report(self, where: str, message: str) -> None:
        """Record one discrepancy at ``where`` inside this hand."""
        self.issues.append(
            f"{self.label}, {where}: {message}" if where else f"{self.label}: {message}"
        )

    # -- the steps, in record order ------------------------------------------------

    def run(self) -> None:
        """Check the whole hand; raises RecordError on the first structural problem."""
        self.dealer = self.expected_dealer
        self._check_header()
        self._load_cards()
        self._check_trump()
        legs = self._load_exchange()
        self._run_pre_play_steps(legs)
        self._play_tricks()
        self._check_scoring()

    def _check_header(self) -> None:
        """Hand number, dealer rotation (1.8) and contracts (1.4)."""
        number = self.hand.get("number")
        if number != self.index + 1 or not is_int(number):
            self.report("", f"number is {number!r}, expected {self.index + 1}")
        dealer = self.hand.get("dealer")
        if not is_seat(dealer):
            raise RecordError("", f"dealer is {dealer!r}, not a seat")
        if dealer != self.expected_dealer:
            self.report("", f"dealer is {dealer}, expected {self.expected_dealer}")
        self.dealer = dealer
        expected = contracts_for(self.dealer, self.rules.contracts)
        contracts = seat_ints(self.hand.get("contracts"))
        if contracts is None:
            raise RecordError("", f"contracts is {self.hand.get('contracts')!r}, not 3 integers")
        if contracts != expected:
            self.report("", f"contracts are {list(contracts)}, expected {list(expected)}")
        self.contracts = contracts

    def _load_cards(self) -> None:
        """3 x 16 dealt cards + 4 kitty cards must be the 52 distinct cards (1.3)."""
        deal = self.hand.get("deal")
        if not isinstance(deal, list) or len(deal) != 3:
            raise RecordError("deal", f"expected 3 per-seat lists, got {deal!r}")
        dealt = [card_list(deal[s], f"deal of seat {s}", HAND_SIZE) for s in range(3)]
        self.kitty = tuple(card_list(self.hand.get("kitty"), "kitty", KITTY_SIZE))
        everything = [c for cards in dealt for c in cards] + list(self.kitty)
        if len(set(everything)) != len(DECK):
            doubles = {c for c in everything if everything.count(c) > 1}
            raise RecordError("deal", f"cards dealt twice: {fmt_cards(doubles)}")
        self.hands = [set(cards) for cards in dealt]

    def _check_trump(self) -> None:
        """Trump is S/H/D/C, or NT only when allow_no_trump (1.5)."""
        trump = self.hand.get("trump")
        if trump not in TRUMP_CALLS:
            raise RecordError("trump", f"{trump!r} is not S, H, D, C or NT")
        if trump == NO_TRUMP and not self.rules.allow_no_trump:
            self.report("trump", "NT called but allow_no_trump is false")
        self.trump = str(trump)

    def _load_exchange(self) -> list[_LegState]:
        """Parse the recorded legs and compare them with the forced plan (4.2, 4.4)."""
        raw = self.hand.get("exchange")
        if not isinstance(raw, list):
            raise RecordError("exchange", f"expected a list of legs, got {raw!r}")
        legs = [self._parse_leg(i, leg) for i, leg in enumerate(raw, start=1)]
        plan = self._expected_plan()
        if plan is None:
            return legs
        recorded = [(leg.giver, leg.receiver, len(leg.given)) for leg in legs]
        if not any(self._conforms(order, recorded) for order in plan_orders(plan)):
            wanted = [(p.giver, p.receiver, p.count) for p in plan]
            self.report(
                "exchange",
                f"legs (giver, receiver, count) are {recorded}, expected {wanted}",
            )
        return legs

    def _conforms(self, plan: Sequence[Leg], recorded: Sequence[tuple[int, int, int]]) -> bool:
        """Do recorded legs match a plan?  Fewer cards only if giving is optional (A9)."""
        if len(plan) != len(recorded):
            return False
        for leg, (giver, receiver, count) in zip(plan, recorded, strict=True):
            if (leg.giver, leg.receiver) != (giver, receiver):
                return False
            if count != leg.count and (self.rules.exchange_mandatory or count > leg.count):
                return False
        return True

    def _expected_plan(self) -> list[Leg] | None:
        """The forced plan, [] on hand 1 and after an all-exact hand; None if unknowable."""
        if self.prev is None:
            return []
        if self.prev.deltas is None:
            self.report("exchange", "not checked: the previous hand's deltas are unusable")
            return None
        try:
            return plan_exchange(self.prev.deltas, self.contracts, self.rules.giver_priority)
        except ValueError as exc:
            self.report("exchange", f"not checked: {exc}")
            return None

    def _parse_leg(self, index: int, raw: object) -> _LegState:
        """Validate the shape of one recorded leg."""
        where = f"exchange leg {index}"
        if not isinstance(raw, Mapping):
            raise RecordError(where, f"not an object: {raw!r}")
        giver, receiver = raw.get("giver"), raw.get("receiver")
        if not is_seat(giver) or not is_seat(receiver) or giver == receiver:
            raise RecordError(where, f"giver {giver!r} / receiver {receiver!r} are not two seats")
        return _LegState(
            index=index,
            giver=giver,
            receiver=receiver,
            given=tuple(card_list(raw.get("given"), f"{where} given")),
            recorded_returned=tuple(card_list(raw.get("returned"), f"{where} returned")),
        )

    def _run_pre_play_steps(self, legs: list[_LegState]) -> None:
        """Replay the pre-play steps in the rules' order (1.5, 4.7)."""
        steps = self.rules.first_hand_steps if self.index == 0 else self.rules.later_hand_steps
        if not legs or self.index == 0:
            # Skipped exchange (hand 1, all exact); legs recorded anyway were reported.
            steps = tuple(s for s in steps if s not in EXCHANGE_STEPS)
        for step in steps:
            if step == "EXCHANGE":
                for group in _giver_groups(legs):
                    self._give(group)
                    for leg in group:
                        self._resolve(leg, legs)
            elif step == "GIVE":
                for group in _giver_groups(legs):
                    self._give(group)
            elif step == "RETURN":
                for leg in legs:
                    self._resolve(leg, legs)
            elif step == "KITTY":
                self._kitty(legs)
        for seat in range(3):
            if len(self.hands[seat]) != HAND_SIZE:
                raise RecordError(
                    "", f"seat {seat} holds {len(self.hands[seat])} cards before trick 1"
                )

    def _give(self, group: Sequence[_LegState]) -> None:
        """One giver hands over all his legs at once, from his current hand (4.5)."""
        giver = group[0].giver
        handed: set[str] = set()
        for leg in group:
            for card in leg.given:
                if card in handed:
                    raise RecordError(leg.where, f"{card} is given in two legs")
                if card not in self.hands[giver]:
                    raise RecordError(
                        leg.where, f"seat {giver} gives {card}, which it does not hold"
                    )
                handed.add(card)
        self.hands[giver] -= handed
        for leg in group:
            self.hands[leg.receiver] |= set(leg.given)
            leg.pending = True

    def _resolve(self, leg: _LegState, legs: Sequence[_LegState]) -> None:
        """Compute one leg's returns as in atomic mode (4.6, 4.7) and move them."""
        hand = self.hands[leg.receiver]
        gone = [c for c in leg.given if c not in hand]
        if gone:
            raise RecordError(
                leg.where, f"given cards {fmt_cards(gone)} left the receiver before the return"
            )
        # Cards of later, still pending legs to the same receiver are not in his pool (4.7).
        later = {
            c
            for other in legs
            if other is not leg and other.pending and other.receiver == leg.receiver
            for c in other.given
        }
        base = hand - later - set(leg.given)
        expected = returns_one_at_a_time(base, leg.given)
        returned = leg.recorded_returned
        if set(returned) != set(expected):
            self.report(
                leg.where,
                f"seat {leg.receiver} returned {fmt_cards(returned)} to seat {leg.giver}, "
                f"expected {fmt_cards(expected)}",
            )
            pool = base | set(leg.given)
            if len(returned) != len(leg.given) or not set(returned) <= pool:
                raise RecordError(
                    leg.where, "the recorded return is impossible; hand not replayed further"
                )
        hand -= set(returned)
        self.hands[leg.giver] |= set(returned)
        leg.returned = returned
        leg.pending = False
        leg.resolved = True

    def _kitty(self, legs: Sequence[_LegState]) -> None:
        """Dealer takes the kitty, the show happens (section 5), then 4 discards."""
        self.hands[self.dealer] |= set(self.kitty)
        self._check_shown(legs)
        discards = card_list(self.hand.get("discards"), "discards", KITTY_SIZE)
        not_held = [c for c in discards if c not in self.hands[self.dealer]]
        if not_held:
            raise RecordError(
                "discards",
                f"dealer {self.dealer} discards {fmt_cards(not_held)}, not in his hand + kitty",
            )
        self.hands[self.dealer] -= set(discards)

    def _expected_shown(self, legs: Sequence[_LegState]) -> list[tuple[int, list[str]]]:
        """Show events due at KITTY time: only after a completed exchange into the dealer."""
        if not self.rules.dealer_show or not legs or not all(leg.resolved for leg in legs):
            return []
        return [
            (leg.giver, shown_cards(leg.returned, self.kitty))
            for leg in legs
            if leg.receiver == self.dealer
        ]

    def _check_shown(self, legs: Sequence[_LegState]) -> None:
        """Compare the recorded show events (order of legs; cards as sets)."""
        expected = self._expected_shown(legs)
        raw = self.hand.get("shown")
        wanted = [{"to": giver, "cards": cards} for giver, cards in expected]
        if not isinstance(raw, list) or len(raw) != len(expected):
            self.report("shown", f"recorded {raw!r}, expected {wanted}")
            return
        for i, (event, (giver, cards)) in enumerate(zip(raw, expected, strict=True), start=1):
            ok = (
                isinstance(event, Mapping)
                and event.get("to") == giver
                and is_seat(event.get("to"))
                and isinstance(event.get("cards"), list)
                and all(is_card(c) for c in event["cards"])
                and sorted(event["cards"]) == sorted(cards)
            )
            if not ok:
                self.report(f"shown event {i}", f"recorded {event!r}, expected {wanted[i - 1]}")

    def _play_tricks(self) -> None:
        """16 tricks: leaders, possession, follow suit, winners (1.6)."""
        tricks = self.hand.get("tricks")
        if not isinstance(tricks, list) or len(tricks) != TRICKS_PER_HAND:
            count = len(tricks) if isinstance(tricks, list) else tricks
            raise RecordError("tricks", f"expected a list of 16 tricks, got {count!r}")
        expected_leader = self.dealer if self.rules.first_leader == "dealer" else left(self.dealer)
        for number, raw in enumerate(tricks, start=1):
            where = f"trick {number}"
            leader, cards, winner = _parse_trick(raw, where)
            if leader != expected_leader:
                self.report(where, f"leader is {leader}, expected {expected_leader}")
            for position, card in enumerate(cards):
                self._play_card(where, (leader + position) % 3, card, suit(cards[0]), position)
            expected_winner = trick_winner(cards, leader, self.trump)
            if winner != expected_winner:
                self.report(where, f"winner is {winner}, expected {expected_winner}")
            self.winners.append(winner)
            expected_leader = winner

    def _play_card(self, where: str, seat: int, card: str, led: str, position: int) -> None:
        """One card: the seat must hold it and follow the led suit if able (rule 16)."""
        hand = self.hands[seat]
        if card not in hand:
            raise RecordError(where, f"seat {seat} plays {card}, which it does not hold")
        if position > 0 and suit(card) != led and any(suit(c) == led for c in hand):
            self.report(where, f"seat {seat} plays {card} but must follow suit {led}")
        hand.remove(card)

    def _check_scoring(self) -> None:
        """tricks_won, deltas and cumulative scores (1.7) plus their sum invariants."""
        expected_won = tuple(self.winners.count(s) for s in range(3))
        won = self._seat_field("tricks_won")
        if won != expected_won:
            self.report("tricks_won", f"{list(won)}, expected {list(expected_won)}")
        if sum(won) != TRICKS_PER_HAND:
            self.report("tricks_won", f"{list(won)} do not sum to 16")
        deltas = self._seat_field("deltas")
        expected_deltas = [won[s] - self.contracts[s] for s in range(3)]
        if list(deltas) != expected_deltas:
            self.report("deltas", f"{list(deltas)}, expected {expected_deltas}")
        if sum(deltas) != 0:
            self.report("deltas", f"{list(deltas)} do not sum to 0")
        scores = self._seat_field("scores")
        before = (0, 0, 0) if self.prev is None else self.prev.scores
        if before is None:
            self.report("scores", "not checked: the previous hand's scores are unusable")
        elif list(scores) != [before[s] + deltas[s] for s in range(3)]:
            expected_scores = [before[s] + deltas[s] for s in range(3)]
            self.report("scores", f"{list(scores)}, expected {expected_scores}")
        if sum(scores) != 0:
            self.report("scores", f"{list(scores)} do not sum to 0")

    def _seat_field(self, name: str) -> Seats3:
        """A required per-seat integer field of the hand."""
        value = seat_ints(self.hand.get(name))
        if value is None:
            raise RecordError(name, f"{self.hand.get(name)!r} is not 3 integers")
        return value


def _giver_groups(legs: Sequence[_LegState]) -> list[list[_LegState]]:
    """Consecutive legs of the same giver: one give action covers all of them (4.5)."""
    groups: list[list[_LegState]] = []
    for leg in legs:
        if groups and groups[-1][0].giver == leg.giver:
            groups[-1].append(leg)
        else:
            groups.append([leg])
    return groups


def _parse_trick(raw: object, where: str) -> tuple[int, list[str], int]:
    """Validate the shape of one trick: leader seat, 3 distinct cards, winner seat."""
    if not isinstance(raw, Mapping):
        raise RecordError(where, f"not an object: {raw!r}")
    leader, winner = raw.get("leader"), raw.get("winner")
    if not is_seat(leader) or not is_seat(winner):
        raise RecordError(where, f"leader {leader!r} / winner {winner!r} are not seats")
    cards = card_list(raw.get("cards"), where, 3)
    return leader, cards, winner


def check_hand(
    rules: Rules,
    hand: object,
    index: int,
    first_dealer: int,
    prev: PrevHand | None = None,
) -> HandReport:
    """Check the hand at position ``index`` (0-based) of a record.

    ``prev`` carries the previous hand's recorded dealer, deltas and scores (None for
    the first hand, whose dealer must be ``first_dealer``).  Never raises: structural
    problems become a discrepancy and stop the checking of this hand.
    """
    expected_dealer = first_dealer if prev is None else left(prev.dealer)
    mapping: Mapping[str, Any] = hand if isinstance(hand, Mapping) else {}
    checker = _HandChecker(rules, mapping, index, expected_dealer, prev)
    try:
        if not isinstance(hand, Mapping):
            raise RecordError("", f"not an object: {hand!r}")
        checker.run()
    except RecordError as exc:
        checker.report(exc.where, exc.message)
    except Exception as exc:  # garbage must become a discrepancy, never an exception
        checker.report("", f"could not be checked ({type(exc).__name__}: {exc})")
    dealer = mapping.get("dealer")
    return HandReport(
        issues=checker.issues,
        dealer=dealer if is_seat(dealer) else expected_dealer,
        deltas=seat_ints(mapping.get("deltas")),
        scores=seat_ints(mapping.get("scores")),
    )


# ---------------------------------------------------------------------------
# Whole record
# ---------------------------------------------------------------------------


def check_game_end(
    rules: Rules, scores_per_hand: Sequence[Seats3 | None], result: object
) -> list[str]:
    """The game must end exactly after the last recorded hand, with the right result (7)."""
    issues: list[str] = []
    count = len(scores_per_hand)
    decision: EndDecision | None = None
    overtime = False
    for i, scores in enumerate(scores_per_hand, start=1):
        if scores is None:
            issues.append(f"hand {i}: end of game not checked: scores unusable")
            return issues + _check_result(result, scores_per_hand, None)
        outcome = end_of_game(rules, scores, i, overtime)
        if outcome.over:
            if i < count:
                issues.append(
                    f"hand {i}: the game should end after this hand ({_describe_end(outcome)}), "
                    f"but the record goes on to hand {count}"
                )
                return issues + _check_result(result, scores_per_hand, None)
            decision = outcome
        overtime = outcome.overtime
    if decision is None:
        issues.append(
            f"hand {count}: the game is not over after this hand, but the record ends here"
        )
    return issues + _check_result(result, scores_per_hand, decision)


def _check_result(
    result: object, scores_per_hand: Sequence[Seats3 | None], decision: EndDecision | None
) -> list[str]:
    """Compare ``result`` with the final scores, the hand count and the end decision."""
    if not isinstance(result, Mapping):
        return [f"result: missing or not an object ({result!r})"]
    issues: list[str] = []
    winners = result.get("winners")
    if not isinstance(winners, list) or not winners or not all(is_seat(w) for w in winners):
        issues.append(f"result: winners {winners!r} is not a list of seats")
    elif decision is not None and sorted(winners) != sorted(decision.winners):
        issues.append(f"result: winners {sorted(winners)}, expected {list(decision.winners)}")
    reason = result.get("reason")
    if not isinstance(reason, str):
        issues.append(f"result: reason {reason!r} is not a string")
    elif decision is not None and reason not in decision.reasons:
        issues.append(f"result: reason {reason!r}, expected {'/'.join(sorted(decision.reasons))}")
    scores = seat_ints(result.get("scores"))
    final = scores_per_hand[-1] if scores_per_hand else None
    if scores is None or (final is not None and scores != final):
        issues.append(f"result: scores {result.get('scores')!r}, expected {final and list(final)}")
    if result.get("hands_played") != len(scores_per_hand) or not is_int(result.get("hands_played")):
        issues.append(
            f"result: hands_played {result.get('hands_played')!r}, expected {len(scores_per_hand)}"
        )
    return issues


def _check_header(record: Mapping[str, Any]) -> list[str]:
    """Top-level fields other than rules, hands and result (docs/record-format.md)."""
    issues: list[str] = []
    if record.get("format") != FORMAT_ID:
        issues.append(f"record: format is {record.get('format')!r}, expected {FORMAT_ID!r}")
    ruleset = record.get("ruleset")
    if not isinstance(ruleset, str) or ruleset not in PRESET_IDS:
        issues.append(f"record: ruleset {record.get('ruleset')!r} is not a preset id or 'custom'")
    if not is_int(record.get("seed")):
        issues.append(f"record: seed {record.get('seed')!r} is not an integer")
    players = record.get("players")
    if not isinstance(players, list) or len(players) != 3:
        issues.append(f"record: players {players!r} is not a per-seat list of 3")
    if not is_seat(record.get("first_dealer")):
        issues.append(f"record: first_dealer {record.get('first_dealer')!r} is not a seat 0..2")
    return issues


def _check_faults(faults: object) -> list[str]:
    """``faults`` is a list of objects naming a seat (contents are otherwise free)."""
    if not isinstance(faults, list):
        return [f"faults: {faults!r} is not a list"]
    return [
        f"faults: entry {i} {fault!r} has no seat 0..2"
        for i, fault in enumerate(faults, start=1)
        if not isinstance(fault, Mapping) or not is_seat(fault.get("seat"))
    ]


def _check_record(record: object, issues: list[str]) -> None:
    """Body of :func:`check_record`; appends to ``issues``."""
    if not isinstance(record, Mapping):
        issues.append(f"record: not a JSON object ({type(record).__name__})")
        return
    issues.extend(_check_header(record))
    rules, problems = parse_rules(record.get("rules"))
    issues.extend(problems)
    issues.extend(_check_faults(record.get("faults")))
    first_dealer = record.get("first_dealer")
    if rules is None or not is_seat(first_dealer):
        issues.append("record: hands not checked: rules or first_dealer unusable")
        return
    if rules.first_dealer is not None and first_dealer != rules.first_dealer:
        issues.append(
            f"record: first_dealer {first_dealer} differs from rules.first_dealer {rules.first_dealer}"
        )
    hands = record.get("hands")
    if not isinstance(hands, list) or not hands:
        issues.append(f"record: hands {hands!r} is not a non-empty list")
        return
    prev: PrevHand | None = None
    scores_per_hand: list[Seats3 | None] = []
    for index, hand in enumerate(hands):
        report = check_hand(rules, hand, index, first_dealer, prev)
        issues.extend(report.issues)
        prev = PrevHand(report.dealer, report.deltas, report.scores)
        scores_per_hand.append(report.scores)
    issues.extend(check_game_end(rules, scores_per_hand, record.get("result")))


def check_record(record: dict[str, Any]) -> list[str]:
    """Check one parsed ``arena952.game/1`` record against docs/rules.md.

    Returns human-readable discrepancies, each starting with its location (``"hand 3,
    trick 5: winner is 1, expected 2"``); an empty list means the record is fully
    consistent.  Never raises, whatever the input.
    """
    issues: list[str] = []
    raw: object = record
    try:
        _check_record(raw, issues)
    except Exception as exc:  # last resort: a malformed record must not crash the caller
        issues.append(f"record: could not be checked ({type(exc).__name__}: {exc})")
    return issues
