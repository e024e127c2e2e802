"""Where deals come from: a keyed cryptographic shuffle, and the legacy one old records used.

A bot sees its own 16 cards. If the shuffle is a small integer fed to Mersenne Twister, a
bot can try every plausible seed against those cards in milliseconds and then knows both
opponents' hands and the kitty (issue 10). So a game's deals come from a 256-bit *key*:
the first-dealer draw and each hand's shuffle read a byte stream
``HMAC-SHA256(key, label || hand || counter)`` and turn it into an unbiased Fisher-Yates
shuffle by rejection sampling. Without the key the stream cannot be predicted, and the key
is the game's ``seed`` (an integer below ``2**256``), so a record still reproduces every
shuffle from its seed (docs/record-format.md).

Keys come from a secret: :func:`board_key` derives board *n*'s key from a tournament's (or
match's) secret with HMAC-SHA256, so every seating of a board gets the same deals and a
resumed tournament replays them; :func:`table_board_key` gives each table of a round robin
its own boards. :func:`secret_from_seed` turns an explicit research seed
into a (predictable) secret. Records made before this scheme have no ``shuffle`` field and
are dealt by :class:`LegacyDeals` (``random.Random(seed)``), which is kept only so that old
records and old tournaments still replay.

Pure: no I/O. Drawing a fresh secret (``secrets.token_bytes``) is the caller's job.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Sequence
from typing import Final, Protocol, TypeAlias

from arena.game.cards import BIT

Seat: TypeAlias = int
Dealt: TypeAlias = tuple[tuple[int, int, int], int]
"""Three hand masks by seat and the kitty mask."""

HMAC_SHUFFLE: Final = "hmac-sha256/1"
"""The record's ``shuffle`` field for deals from :class:`KeyedDeals`."""
LEGACY_SHUFFLE: Final = "mt19937"
"""Records without a ``shuffle`` field: deals from ``random.Random(seed)`` (old records)."""
SHUFFLES: Final = (HMAC_SHUFFLE, LEGACY_SHUFFLE)

KEY_BYTES: Final = 32
SEED_LIMIT: Final = 1 << (8 * KEY_BYTES)
"""Keyed seeds are integers in ``0 .. SEED_LIMIT - 1`` (the key's 32 bytes, big-endian)."""
SECRET_BYTES: Final = 32
"""Size of a fresh tournament or match secret (``secrets.token_bytes(SECRET_BYTES)``)."""

_HAND: Final = b"arena952/hand"
_FIRST_DEALER: Final = b"arena952/first-dealer"
_BOARD: Final = b"arena952/board"
_TABLE_BOARD: Final = b"arena952/table-board"
_SEED: Final = b"arena952/seed"
_COUNTER: Final = (b"\0\0\0\0", b"\0\0\0\1")
_DRAWS: Final = tuple((i, 256 - 256 % (i + 1), i + 1) for i in range(51, 0, -1))
"""Fisher-Yates positions, the byte limit of their rejection sampling and their range."""
_XOR_INNER_PAD: Final = bytes(b ^ 0x36 for b in range(256))
_XOR_OUTER_PAD: Final = bytes(b ^ 0x5C for b in range(256))
"""``bytes.translate`` tables that XOR every byte with HMAC's ipad and opad (RFC 2104)."""


class Deals(Protocol):
    """A game's source of shuffles: the first-dealer draw, then one deal per hand."""

    def first_dealer(self) -> Seat:
        """The drawn first dealer (0, 1 or 2)."""
        ...

    def deal(self, number: int, dealer: Seat) -> Dealt:
        """Hand *number*'s deal (from 1), dealt out by *dealer*."""
        ...

    def copy(self) -> Deals:
        """An independent copy that continues with the same deals."""
        ...


def deal_out(deck: Sequence[int], dealer: Seat) -> Dealt:
    """Deal a shuffled deck by the mapping of docs/rules.md 1.3 rule 6.

    ``deck[i]`` for ``i < 48`` goes to seat ``(dealer + 1 + i) % 3``, so every third card
    to one seat; the last 4 are the kitty.
    """
    hands = [0, 0, 0]
    bit = BIT
    for offset in range(3):
        mask = 0
        for card in deck[offset:48:3]:
            mask |= bit[card]
        hands[(dealer + 1 + offset) % 3] = mask
    kitty = bit[deck[48]] | bit[deck[49]] | bit[deck[50]] | bit[deck[51]]
    return (hands[0], hands[1], hands[2]), kitty


def _check_seed(seed: int) -> bytes:
    if not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"a keyed seed is an integer from 0 to 2**256 - 1, not {seed}")
    return seed.to_bytes(KEY_BYTES, "big")


class KeyedDeals:
    """Deals from ``HMAC-SHA256(key, ...)``: each hand's shuffle is a pure function of the
    key and the hand number, so a copy needs no state and no hand depends on another."""

    __slots__ = ("_inner", "_key", "_outer")

    def __init__(self, seed: int) -> None:
        """:raises ValueError: if *seed* is not in ``0 .. 2**256 - 1``."""
        self._key = _check_seed(seed)
        # HMAC-SHA256 (RFC 2104) from the two padded-key hash states, computed once: a
        # deal needs two or three blocks, and ``hmac.digest`` would redo this per block
        # (twice the cost). tests/game/test_dealing.py checks it against ``hmac.digest``.
        block = self._key.ljust(64, b"\0")
        self._inner = hashlib.sha256(block.translate(_XOR_INNER_PAD))
        self._outer = hashlib.sha256(block.translate(_XOR_OUTER_PAD))

    def _stream(self, label: bytes) -> _ByteStream:
        return _ByteStream(self._key, label)

    def _block(self, message: bytes) -> bytes:
        """``HMAC-SHA256(key, message)``."""
        inner = self._inner.copy()
        inner.update(message)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()

    def first_dealer(self) -> Seat:
        return self._stream(_FIRST_DEALER).below(3)

    def deal(self, number: int, dealer: Seat) -> Dealt:
        # The hot path of a playout (once per hand): _ByteStream.below inlined.
        label = _HAND + number.to_bytes(4, "big")
        block = self._block
        data = block(label + _COUNTER[0]) + block(label + _COUNTER[1])
        pos, counter = 0, 2
        deck = list(range(52))
        # Fisher-Yates from the top: deck[i] swaps with a uniform j in 0..i, drawn from one
        # byte by rejection (bytes at or above the largest multiple of i + 1 are dropped).
        # Invariant: at least i bytes are left when drawing for position i (64 >= 51 at the
        # start), so only a rejection, which is rare, may need another block.
        for i, limit, count in _DRAWS:
            byte = data[pos]
            pos += 1
            while byte >= limit:
                if len(data) - pos < i:
                    data += block(label + counter.to_bytes(4, "big"))
                    counter += 1
                byte = data[pos]
                pos += 1
            j = byte % count
            deck[i], deck[j] = deck[j], deck[i]
        return deal_out(deck, dealer)

    def copy(self) -> KeyedDeals:
        return self  # stateless

    def __reduce__(self) -> tuple[type[KeyedDeals], tuple[int]]:
        # Copied and pickled as the seed: the hash states inside cannot be.
        return (KeyedDeals, (int.from_bytes(self._key, "big"),))


class _ByteStream:
    """``HMAC-SHA256(key, label || counter)`` blocks, read byte by byte."""

    __slots__ = ("_block", "_counter", "_key", "_label", "_pos")

    def __init__(self, key: bytes, label: bytes) -> None:
        self._key = key
        self._label = label
        self._counter = 0
        self._block = b""
        self._pos = 0
        self._refill()

    def _refill(self) -> None:
        # Two blocks at a time: a 52-card shuffle needs about 55 bytes.
        counter = self._counter
        key, label = self._key, self._label
        self._block = hmac.digest(key, label + counter.to_bytes(4, "big"), "sha256") + hmac.digest(
            key, label + (counter + 1).to_bytes(4, "big"), "sha256"
        )
        self._counter = counter + 2
        self._pos = 0

    def below(self, n: int) -> int:
        """A uniform integer in ``0 .. n - 1`` for ``1 <= n <= 256`` (rejection sampling:
        bytes at or above the largest multiple of *n* are dropped, so there is no bias)."""
        limit = 256 - 256 % n
        while True:
            if self._pos == len(self._block):
                self._refill()
            byte = self._block[self._pos]
            self._pos += 1
            if byte < limit:
                return byte % n


class LegacyDeals:
    """The old deals: ``random.Random(seed)`` draws the first dealer, then one
    ``shuffle`` per hand in order. Only for records and tournaments made before
    :data:`HMAC_SHUFFLE`; a bot can search these seeds."""

    __slots__ = ("_drawn", "_rng")

    def __init__(self, seed: int, rng: random.Random | None = None) -> None:
        if rng is None:
            rng = random.Random(seed)
            self._drawn = rng.randrange(3)
        else:
            self._drawn = 0
        self._rng = rng

    def first_dealer(self) -> Seat:
        return self._drawn

    def deal(self, number: int, dealer: Seat) -> Dealt:
        del number  # the legacy shuffles come in sequence, one per call
        deck = list(range(52))
        self._rng.shuffle(deck)
        return deal_out(deck, dealer)

    def copy(self) -> LegacyDeals:
        rng = random.Random()
        rng.setstate(self._rng.getstate())
        other = LegacyDeals(0, rng)
        other._drawn = self._drawn
        return other


def deals_for(seed: int, shuffle: str) -> Deals:
    """The deals of *seed* under the scheme named *shuffle*.

    :raises ValueError: for an unknown scheme or a keyed seed out of range.
    """
    if shuffle == HMAC_SHUFFLE:
        return KeyedDeals(seed)
    if shuffle == LEGACY_SHUFFLE:
        return LegacyDeals(seed)
    raise ValueError(f"unknown shuffle {shuffle!r}; known: {', '.join(SHUFFLES)}")


def board_key(secret: bytes, board: int) -> int:
    """The keyed seed of board (or match game) *board*: ``HMAC-SHA256(secret, board)``.

    Every game of one board gets the same key, hence the same deals under every seating.
    """
    if board < 0:
        raise ValueError(f"a board number is not negative, got {board}")
    digest = hmac.digest(secret, _BOARD + board.to_bytes(8, "big"), "sha256")
    return int.from_bytes(digest, "big")


def table_board_key(secret: bytes, table: int, board: int) -> int:
    """The keyed seed of board *board* at table *table* of a round robin whose every table
    has its own deals: ``HMAC-SHA256(secret, "arena952/table-board" || table || board)``.

    The six seatings of that table's board share the key (a duplicate board), and no other
    table's board has it, so a process that played it learns nothing another table can use
    (the domain label keeps these keys apart from :func:`board_key`'s).
    """
    if table < 0 or board < 0:
        raise ValueError(f"table and board numbers are not negative, got {table}, {board}")
    message = _TABLE_BOARD + table.to_bytes(8, "big") + board.to_bytes(8, "big")
    return int.from_bytes(hmac.digest(secret, message, "sha256"), "big")


def secret_from_seed(seed: int) -> bytes:
    """The secret of an explicit research ``--seed``: anyone who knows *seed* knows every
    deal, which is the point of a reproducible run and why it is reported as predictable."""
    if seed < 0:
        raise ValueError(f"a seed is not negative, got {seed}")
    length = max(1, (seed.bit_length() + 7) // 8)
    return hmac.digest(_SEED, seed.to_bytes(length, "big"), "sha256")


__all__ = [
    "HMAC_SHUFFLE",
    "KEY_BYTES",
    "LEGACY_SHUFFLE",
    "SECRET_BYTES",
    "SEED_LIMIT",
    "SHUFFLES",
    "Deals",
    "Dealt",
    "KeyedDeals",
    "LegacyDeals",
    "board_key",
    "deal_out",
    "deals_for",
    "secret_from_seed",
    "table_board_key",
]
