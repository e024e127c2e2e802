"""What every message group of the protocol shares: its version, its error, and the checked
decoders of single fields (cards, seats, one value per seat).

Direction matters for trust (docs/style.md 14). The ``*_to_proto`` functions of the group
modules take values the engine built and may assume they are well formed. The
``*_from_proto`` functions read what came over the wire: they check everything they decode
through the helpers here (and :meth:`~arena.protocol.enums.WireEnum.decode` for enum values)
and raise :class:`ProtocolError` with a one-line message, which the referee records as a
``protocol`` fault. Whether a well-formed decision is *legal* is not decided here but by the
engine (an ``illegal`` fault).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from arena.game.cards import CARDS, Card, InvalidCardError
from arena.game.state import Seat

PROTOCOL_VERSION: Final = 1
"""The protocol version of ``protos/arena/v1/arena.proto`` (``Hello.protocol_version``)."""

OUTPUT_MARK: Final = b"\x00arena:mark\x00"
"""Written by the SDK to its stdout and stderr when it starts and after each GameEnd has
been handled: the referee then knows that a game's output is all in and cuts the game's log
there (and strips the mark). Not part of the wire protocol: a bot without it is cut after
a short quiet time instead (:meth:`arena.referee.process.LogCapture.settle`)."""

_QUOTE_LIMIT: Final = 8


class ProtocolError(ValueError):
    """A message from the wire that breaks the protocol: unreadable card text, no variant
    set, an unknown enum value, a list of the wrong length. The message is one line."""


def decode_card(text: str, where: str) -> Card:
    """One card text from the wire.

    :raises ProtocolError: if *text* is not a card.
    """
    try:
        return Card.parse(text)
    except InvalidCardError:
        # Quote at most a few characters: the message becomes a one-line fault detail in
        # the game record, whatever a bot sent.
        shown = repr(text) if len(text) <= _QUOTE_LIMIT else f"{text[:_QUOTE_LIMIT]!r}..."
        raise ProtocolError(
            f"{where}: not a card: {shown} (expected rank 2-9TJQKA + suit SHDC, e.g. 'TS')"
        ) from None


_CARD_OF_TEXT: Final = {str(card): card for card in CARDS}.__getitem__
"""The card of each of the 52 texts (``KeyError`` for anything else): the fast path of
:func:`decode_cards`."""


def decode_cards(texts: Sequence[str], where: str) -> tuple[Card, ...]:
    """A list of card texts from the wire, in order; the error names the bad index.

    Every observation carries a few dozen card texts, so the good case is one table
    lookup per text; only a list with a bad text is decoded again, text by text, for the
    message. The table holds exactly the 52 texts :meth:`Card.parse` accepts (it also
    matches a ``str`` subclass equal to one, which protobuf never hands out).

    :raises ProtocolError: if one text is not a card.
    """
    try:
        return tuple(map(_CARD_OF_TEXT, texts))
    except (KeyError, TypeError):  # TypeError: an unhashable item
        pass
    return tuple(decode_card(text, f"{where}[{i}]") for i, text in enumerate(texts))


def decode_seat(value: int, where: str) -> Seat:
    """A seat number from the wire.

    :raises ProtocolError: unless *value* is 0, 1 or 2.
    """
    if not 0 <= value <= 2:
        raise ProtocolError(f"{where}: seat must be 0, 1 or 2, not {value}")
    return value


def decode_triple(values: Sequence[int], where: str) -> tuple[int, int, int]:
    """One value per seat from the wire.

    :raises ProtocolError: unless there are exactly three values.
    """
    if len(values) != 3:
        raise ProtocolError(f"{where}: expected one value per seat (3), got {len(values)}")
    return (values[0], values[1], values[2])
