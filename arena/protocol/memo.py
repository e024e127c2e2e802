"""Convert once what every observation repeats: small bounded caches keyed by content.

The referee sends a seat its complete observation at every decision, so each one repeats
most of the one before: the rules, the summaries of the completed hands, the tricks
already played this hand, the exchange legs once they are done. Both ends convert those
parts again and again; these caches keep the result and hand it out when the same content
comes back (docs/performance.md, "Protocol conversions").

**Decoding** (the bot's side, :class:`DecodeCache`) is keyed by the sub-message's
serialized bytes and nothing cheaper: parsing inverts serializing, so two messages with
the same bytes have the same fields, and a decoder that reads only fields returns equal
values for both. No counter, id or position the referee sends (which a buggy or hostile
referee could reuse for other content) decides a hit. Sharing the decoded value is safe
because the engine's observation parts are frozen dataclasses of tuples, ints, strings
and enums: a bot can keep or compare them but not change them for the next request.
Errors are never cached: a malformed sub-message raises every time it comes.

**Encoding** (the referee's side, :class:`EncodeCache`) is keyed by the engine value
itself, a frozen dataclass compared field by field, and hands out a message that callers
only copy (``extend`` of a repeated field copies), never change.

A cache holds one type and one converter, so equal keys of two types never meet; it keeps
at most ``limit`` entries and forgets the oldest first (first in, first out: a game's
repeats are its recent parts, and eviction stays O(1)).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Hashable, Iterable
from typing import Final, Generic, Protocol, TypeVar


class _Message(Protocol):
    def SerializeToString(self, *, deterministic: bool = ...) -> bytes: ...  # noqa: N802 - protobuf's name


_M = TypeVar("_M", bound=_Message)
_V = TypeVar("_V")
_K = TypeVar("_K", bound=Hashable)
_Out = TypeVar("_Out")


class _Fifo(Generic[_Out]):
    """At most ``limit`` values by key; the oldest goes first when full."""

    __slots__ = ("_values", "limit")

    def __init__(self, limit: int) -> None:
        """:raises ValueError: if *limit* is below 1."""
        if limit < 1:
            raise ValueError(f"a cache keeps at least one value, not {limit}")
        self._values: Final[dict[object, _Out]] = {}
        self.limit: Final = limit

    def _keep(self, key: object, value: _Out) -> _Out:
        values = self._values
        if len(values) >= self.limit:
            # Two threads evicting at once (none of arena's code converts off the event
            # loop, a bot's own threads might) can only miss each other's oldest entry.
            with contextlib.suppress(KeyError, RuntimeError, StopIteration):
                del values[next(iter(values))]
        values[key] = value
        return value

    def __len__(self) -> int:
        """How many values are kept now."""
        return len(self._values)

    def clear(self) -> None:
        """Forget every value (tests and benchmarks; a long-lived process never needs it)."""
        self._values.clear()


class DecodeCache(_Fifo[_V], Generic[_M, _V]):
    """One decoder of one message type, behind a cache keyed by the message's bytes."""

    __slots__ = ("_decode",)

    def __init__(self, decode: Callable[[_M, str], _V], limit: int) -> None:
        """
        :param decode: the decoder, ``(message, where) -> value``; what it raises is passed
            on and not cached.
        :raises ValueError: if *limit* is below 1.
        """
        super().__init__(limit)
        self._decode: Final = decode

    def __call__(self, msg: _M, where: str) -> _V:
        """The decoded value of *msg*, decoded now only if its content is new.

        :raises ProtocolError: (or whatever the decoder raises) if *msg* is malformed.
        """
        key = msg.SerializeToString()
        try:
            return self._values[key]
        except KeyError:
            return self._keep(key, self._decode(msg, where))

    def each(self, msgs: Iterable[_M], where: str) -> tuple[_V, ...]:
        """The decoded values of a repeated field, in order (``where[i]`` names a bad one;
        the name is only formatted for a message that is new).

        :raises ProtocolError: (or whatever the decoder raises) if one message is malformed.
        """
        values = self._values
        out: list[_V] = []
        for i, msg in enumerate(msgs):
            key = msg.SerializeToString()
            try:
                out.append(values[key])
            except KeyError:
                out.append(self._keep(key, self._decode(msg, f"{where}[{i}]")))
        return tuple(out)


class EncodeCache(_Fifo[_Out], Generic[_K, _Out]):
    """One encoder of one engine value type, behind a cache keyed by the value."""

    __slots__ = ("_encode",)

    def __init__(self, encode: Callable[[_K], _Out], limit: int) -> None:
        """
        :param encode: the encoder; its messages are handed out again, so callers copy them
            (``extend``, ``CopyFrom``) and never change them.
        :raises ValueError: if *limit* is below 1.
        """
        super().__init__(limit)
        self._encode: Final = encode

    def each(self, values: Iterable[_K]) -> list[_Out]:
        """The encoded form of each value, in order, encoding only the new ones."""
        kept = self._values
        out: list[_Out] = []
        for value in values:
            try:
                out.append(kept[value])
            except KeyError:
                out.append(self._keep(value, self._encode(value)))
        return out
