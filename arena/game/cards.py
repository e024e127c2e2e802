"""Cards, suits and trump calls: small hashable values with one text form each.

A card is an ``int`` in ``0..51`` (``suit * 13 + rank``) so that hands can be
stored as 52-bit masks and the hot loops of random playouts stay in integer
arithmetic. :class:`Card` subclasses ``int`` only to give the value its text form
(``"TS"`` = ten of spades, docs/rules.md 0.3); the 52 instances are built once.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum, IntEnum
from typing import Final

RANK_CHARS: Final = "23456789TJQKA"
SUIT_CHARS: Final = "SHDC"


class InvalidCardError(ValueError):
    """Raised when a text is not a card id such as ``"TS"``."""


class Suit(IntEnum):
    """The four suits, in the order of docs/rules.md 0.3 (they have no rank order)."""

    S = 0
    H = 1
    D = 2
    C = 3

    def __str__(self) -> str:
        return self.name


_SUITS: Final = tuple(Suit)
"""The suits by value (``_SUITS[n] is Suit(n)``)."""


class Card(int):
    """One of the 52 cards; compare and sort as its index (suit, then rank)."""

    __slots__ = ()

    @property
    def suit(self) -> Suit:
        """The card's suit (a tuple lookup: ``Suit(n)`` costs an enum call, and the
        built-in policies ask a few million times in a test run)."""
        return _SUITS[self // 13]

    @property
    def rank(self) -> int:
        """Rank inside the suit: 0 for a two up to 12 for an ace."""
        return self % 13

    def __str__(self) -> str:
        return _TEXT[self]

    def __repr__(self) -> str:
        return f"Card({_TEXT[self]!r})"

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse a two-character card id.

        :raises InvalidCardError: if *text* is not a card id.
        """
        card = _BY_TEXT.get(text) if type(text) is str else None  # rejects unhashable input too
        if card is None:
            raise InvalidCardError(f"not a card: {text!r} (expected rank 2-9TJQKA + suit SHDC)")
        return card


class Trump(Enum):
    """A trump call: one of the suits, or no trump."""

    S = "S"
    H = "H"
    D = "D"
    C = "C"
    NT = "NT"

    @property
    def suit(self) -> Suit | None:
        """The trump suit, or ``None`` for no trump."""
        return None if self is Trump.NT else Suit[self.value]

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, text: str) -> Trump:
        """Parse ``S``, ``H``, ``D``, ``C`` or ``NT``.

        :raises InvalidCardError: if *text* is not a trump call.
        """
        try:
            return cls(text)
        except ValueError:
            raise InvalidCardError(
                f"not a trump call: {text!r} (expected S, H, D, C or NT)"
            ) from None


CARDS: Final[tuple[Card, ...]] = tuple(Card.__new__(Card, i) for i in range(52))
_TEXT: Final = tuple(RANK_CHARS[i % 13] + SUIT_CHARS[i // 13] for i in range(52))
_BY_TEXT: Final = {text: CARDS[i] for i, text in enumerate(_TEXT)}
TRUMP_ORDER: Final[tuple[Trump, ...]] = (Trump.S, Trump.H, Trump.D, Trump.C, Trump.NT)

BIT: Final[tuple[int, ...]] = tuple(1 << i for i in range(52))
SUIT_MASK: Final[tuple[int, ...]] = tuple(0x1FFF << (13 * s) for s in range(4))
FULL_DECK: Final = (1 << 52) - 1


SUIT_PATTERNS: Final = 1 << 13
"""13-bit patterns of one suit's ranks."""

SUIT_TABLES: Final[tuple[list[tuple[Card, ...] | None], ...]] = tuple(
    [None] * SUIT_PATTERNS for _ in range(4)
)
"""Per suit, the sorted cards of each 13-bit pattern of that suit, filled in on first use
(:func:`suit_cards`); ``None`` where no lookup has needed the pattern yet.

Why lazily: built in full, the tables are 32,768 tuples of :class:`Card`, and a ``Card``
(an ``int`` subclass, so an instance of a Python class) is tracked by the cyclic garbage
collector, so no tuple of them is ever untracked. Every full collection walks them, and
the interpreter runs four at exit: about 60% of the objects a bot process tracks, and
most of the 30 to 50 ms a Python bot spent after its last game (docs/performance.md). A
process fills only the patterns its games meet: a few hundred per suit in a bot's match,
at most all of them in a long search, which pays the one lookup per pattern it uses."""


def suit_cards(suit: int, pattern: int) -> tuple[Card, ...]:
    """The sorted cards of *suit* in the 13-bit rank *pattern* (an entry of
    :data:`SUIT_TABLES`, built and kept the first time it is asked for)."""
    table = SUIT_TABLES[suit]
    cards = table[pattern]
    if cards is None:
        of_suit = CARDS[13 * suit : 13 * suit + 13]
        cards = tuple([of_suit[rank] for rank in range(13) if pattern >> rank & 1])
        table[pattern] = cards  # two threads may both build it: equal values, either kept
    return cards


def cards_in(mask: int) -> tuple[Card, ...]:
    """The cards of a mask, sorted by index."""
    t = SUIT_TABLES
    s, h, d, c = mask & 0x1FFF, (mask >> 13) & 0x1FFF, (mask >> 26) & 0x1FFF, (mask >> 39) & 0x1FFF
    spades, hearts, diamonds, clubs = t[0][s], t[1][h], t[2][d], t[3][c]
    if spades is None or hearts is None or diamonds is None or clubs is None:
        # A pattern met for the first time: built once, looked up from then on.
        return suit_cards(0, s) + suit_cards(1, h) + suit_cards(2, d) + suit_cards(3, c)
    return spades + hearts + diamonds + clubs


def cards_of_suit(mask: int, suit: int) -> tuple[Card, ...]:
    """The cards of *mask* in one suit, sorted by rank."""
    return suit_cards(suit, (mask >> (13 * suit)) & 0x1FFF)


def mask_of(cards: Iterable[int]) -> int:
    """The mask holding *cards* (duplicates collapse)."""
    mask = 0
    for card in cards:
        mask |= BIT[card]
    return mask


def parse_cards(texts: Iterable[str]) -> tuple[Card, ...]:
    """Parse card ids, keeping their order.

    :raises InvalidCardError: on the first text that is not a card id.
    """
    return tuple(Card.parse(text) for text in texts)


def format_cards(cards: Iterable[int]) -> str:
    """Cards as space-separated ids, highest first within each suit, suits in S H D C order."""
    ordered = sorted(cards, key=lambda c: (c // 13, -(c % 13)))
    return " ".join(_TEXT[c] for c in ordered)


def card_texts(cards: Iterable[int]) -> list[str]:
    """Cards as a list of ids, in the order given (for JSON)."""
    return [_TEXT[c] for c in cards]
