"""The fixed-size encoding of an :class:`~arena.game.Observation` and the 57-action mask.

One encoding serves the PettingZoo environment, the OpenSpiel game's tensors and the SDK
adapter (:mod:`arena.sdk.encoded`), so a policy trained in an environment plays in the
arena on exactly the numbers it learned from. It is built from the observation alone, so
it can never hold what the seat may not know, and it is pure Python (lists of floats):
bots run in the sandbox where numpy may be absent.

Seats are *relative*: block 0 of every per-seat field is the observing seat, block 1 the
seat to its left (who plays next), block 2 the seat to its right, so one policy serves
every seat. Every value lies in [-1, 1]; :data:`FIELDS` lists the fields in order and
docs/rl.md describes each one.

The action ids are those of the engine's step-level actions: 0 to 51 are the cards
(``suit * 13 + rank``, as :class:`~arena.game.Card`), 52 to 56 the trump calls S, H, D, C,
NT.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, NamedTuple

from arena.game import CARDS, Action, Card, DecisionKind, Observation, Phase, Trump

ACTION_COUNT: Final = 57
"""52 cards and 5 trump calls."""
TRUMP_CALLS: Final[tuple[Trump, ...]] = (Trump.S, Trump.H, Trump.D, Trump.C, Trump.NT)
"""The trump calls in action order: action ``52 + i`` is ``TRUMP_CALLS[i]``."""
_TRUMP_ACTION: Final = {trump: 52 + i for i, trump in enumerate(TRUMP_CALLS)}
_PHASES: Final = (Phase.GIVE, Phase.TRUMP, Phase.DISCARD, Phase.PLAY, Phase.OVER)


class Field(NamedTuple):
    """One named block of the encoding."""

    name: str
    size: int
    offset: int
    meaning: str


def _fields(spec: Iterable[tuple[str, int, str]]) -> tuple[Field, ...]:
    out: list[Field] = []
    offset = 0
    for name, size, meaning in spec:
        out.append(Field(name, size, offset, meaning))
        offset += size
    return tuple(out)


FIELDS: Final = _fields(
    (
        ("hand", 52, "1 for each card the seat holds now"),
        ("played", 3 * 52, "cards played in this hand's completed tricks, per relative seat"),
        ("trick", 3 * 52, "cards in the trick in progress, per relative seat"),
        ("trick_leader", 3, "one-hot relative seat that led the trick in progress"),
        ("gave", 52, "cards this seat gave in this hand's exchange"),
        ("received", 52, "cards given to this seat in this hand's exchange"),
        ("got_back", 52, "cards returned to this seat (it gave, these came back)"),
        ("returned", 52, "cards this seat returned (it received, these went back)"),
        ("pending_give", 52, "cards already picked in a give not yet complete"),
        ("kitty", 52, "the kitty: only for the dealer once he has taken it"),
        ("discards", 52, "the dealer's own discards: only for the dealer"),
        ("shown", 52, "kitty cards shown by the show rule (to this giver, or by this dealer)"),
        ("trump", 6, "one-hot S, H, D, C, NT, or not called yet"),
        ("dealer", 3, "one-hot relative seat of the dealer"),
        ("contracts", 3, "contract per relative seat / 9"),
        ("scores", 3, "cumulative score per relative seat / (2 * target), clipped to [-1, 1]"),
        ("tricks_won", 3, "tricks won this hand per relative seat / 16"),
        ("previous_deltas", 3, "previous hand's delta per relative seat / 16 (0 on hand 1)"),
        ("exchange", 6, "cards each relative seat gives, then receives, this hand / 14"),
        ("phase", 5, "one-hot give, trump, discard, play, over"),
        ("to_act", 3, "one-hot relative seat to act (zeros once over)"),
        ("status", 4, "kitty taken, discard done, cards left to give / 14, to discard / 4"),
        ("hand_number", 1, "hand number / max_hands"),
        (
            "rules",
            5,
            "9-2-5 contracts, no trump allowed, dealer show, dealer leads, split exchange",
        ),
    )
)
"""The fields of the encoding, in order."""
SIZE: Final = FIELDS[-1].offset + FIELDS[-1].size
"""Length of an encoded observation."""
OFFSETS: Final = {f.name: f.offset for f in FIELDS}


def action_index(action: Action) -> int:
    """The action id of an engine action (a card or a trump call)."""
    if isinstance(action, Trump):
        return _TRUMP_ACTION[action]
    return int(action)


def action_of(index: int) -> Action:
    """The engine action of an action id.

    :raises ValueError: if *index* is not in 0 .. 56.
    """
    if not 0 <= index < ACTION_COUNT:
        raise ValueError(f"action id {index} is not in 0 .. {ACTION_COUNT - 1}")
    return CARDS[index] if index < 52 else TRUMP_CALLS[index - 52]


def legal_indices(obs: Observation) -> list[int]:
    """The action ids the seat may take now (the engine's legal actions), sorted; empty when
    it is not the seat's turn."""
    request = obs.request
    if request is None:
        return []
    if request.kind is DecisionKind.TRUMP:
        return sorted(_TRUMP_ACTION[t] for t in request.trump_options)
    return sorted(int(c) for c in request.cards)


def action_mask(obs: Observation) -> list[int]:
    """57 values: 1 for each legal action id of the seat now, else 0."""
    mask = [0] * ACTION_COUNT
    for index in legal_indices(obs):
        mask[index] = 1
    return mask


def encode(obs: Observation) -> list[float]:
    """The :data:`SIZE` numbers of the observation, field by field as in :data:`FIELDS`."""
    writer = _Writer(obs)
    writer.cards_in_play()
    writer.exchange()
    writer.numbers()
    writer.progress()
    return writer.v


class _Writer:
    """Fills one encoded vector from one observation, a group of fields at a time."""

    def __init__(self, obs: Observation) -> None:
        self.obs = obs
        self.v = [0.0] * SIZE

    def rel(self, seat: int) -> int:
        """Seat number relative to the observer: 0 itself, 1 its left, 2 its right."""
        return (seat - self.obs.seat) % 3

    def cards(self, field: str, cards: Iterable[Card], block: int = 0) -> None:
        base = OFFSETS[field] + 52 * block
        for card in cards:
            self.v[base + card] = 1.0

    def triple(self, field: str, values: tuple[int, int, int], scale: float) -> None:
        base = OFFSETS[field]
        for seat in range(3):
            self.v[base + self.rel(seat)] = max(-1.0, min(1.0, values[seat] / scale))

    def cards_in_play(self) -> None:
        """hand, played, trick, trick_leader."""
        obs = self.obs
        self.cards("hand", obs.hand)
        for trick in obs.tricks:
            for i, card in enumerate(trick.cards):
                self.cards("played", (card,), self.rel(trick.leader + i))
        current = obs.current_trick
        if current is not None:
            for i, card in enumerate(current.cards):
                self.cards("trick", (card,), self.rel(current.leader + i))
            self.v[OFFSETS["trick_leader"] + self.rel(current.leader)] = 1.0

    def exchange(self) -> None:
        """gave, received, got_back, returned, pending_give, kitty, discards, shown, exchange."""
        obs = self.obs
        gives = [0, 0, 0]
        receives = [0, 0, 0]
        for leg in obs.exchange:
            gives[leg.giver] += leg.count
            receives[leg.receiver] += leg.count
            if leg.given is not None:
                self.cards("gave" if leg.giver == obs.seat else "received", leg.given)
            if leg.returned is not None:
                self.cards("got_back" if leg.giver == obs.seat else "returned", leg.returned)
        self.cards("pending_give", obs.pending_give)
        self.cards("kitty", obs.kitty or ())
        self.cards("discards", obs.discards or ())
        for show in obs.shown:
            self.cards("shown", show.cards)
        self.triple("exchange", (gives[0], gives[1], gives[2]), 14)
        base = OFFSETS["exchange"] + 3
        for seat in range(3):
            self.v[base + self.rel(seat)] = receives[seat] / 14

    def numbers(self) -> None:
        """trump, dealer, contracts, scores, tricks_won, previous_deltas."""
        obs = self.obs
        trump = 5 if obs.trump is None else TRUMP_CALLS.index(obs.trump)
        self.v[OFFSETS["trump"] + trump] = 1.0
        self.v[OFFSETS["dealer"] + self.rel(obs.dealer)] = 1.0
        self.triple("contracts", obs.contracts, 9)
        self.triple("scores", obs.scores, 2 * obs.rules.target)
        self.triple("tricks_won", obs.tricks_won, 16)
        if obs.previous_deltas is not None:
            self.triple("previous_deltas", obs.previous_deltas, 16)

    def progress(self) -> None:
        """phase, to_act, status, hand_number, rules."""
        obs = self.obs
        v = self.v
        v[OFFSETS["phase"] + _PHASES.index(obs.phase)] = 1.0
        if obs.to_act is not None:
            v[OFFSETS["to_act"] + self.rel(obs.to_act)] = 1.0
        base = OFFSETS["status"]
        v[base] = float(obs.kitty_taken)
        v[base + 1] = float(obs.discard_done)
        request = obs.request
        if request is not None and request.kind is DecisionKind.GIVE:
            v[base + 2] = (sum(n for _, n in request.give_legs) - len(obs.pending_give)) / 14
        if request is not None and request.kind is DecisionKind.DISCARD:
            v[base + 3] = request.discard_count / 4
        rules = obs.rules
        v[OFFSETS["hand_number"]] = min(1.0, obs.hand_number / rules.max_hands)
        base = OFFSETS["rules"]
        v[base] = float(rules.contracts[1] == 2)
        v[base + 1] = float(rules.allow_no_trump)
        v[base + 2] = float(rules.dealer_show)
        v[base + 3] = float(rules.first_leader.value == "dealer")
        v[base + 4] = float(rules.uses_split_exchange)
