"""The canonical form of bot and user names: two names a person could take for each other
get the same key, so that the arena can refuse the second one and resolve a typed name to
the one stored.

Why: a participant once stored ``Greedy_Bot``, ``GREEDY_BOT``, ``greedy-bot`` and
``greedy.bot`` beside another participant's ``greedy_bot``, and a tournament accepted
``--bots Greedy_Bot,greedy_bot,greedy-bot``; only the exact name was refused. Standings,
replays and the dashboard show names to people, and people do not see the difference.

A name has three keys (:func:`name_keys`), and two names collide when any key is equal:

* ``folded``: the name in Unicode NFKC, case-folded, without separators (``-``, ``_``,
  ``.``, whitespace, and invisible format characters), then mapped to its confusable
  skeleton (Unicode Technical Standard #39, by ICU's reference implementation) and
  case-folded again, until that no longer changes it. ``Greedy_Bot``, ``greedy-b0t``,
  ``greedy bot`` spelt with a Cyrillic ``e`` (U+0435), and ``greedy_bot`` in fullwidth
  letters all fold to ``greedybot``.
* ``shape``: the same, except that the first skeleton is taken *before* case folding.
  Case folding turns ``I`` into ``i``, which is not confusable with ``l``, although
  ``paypaI`` and ``paypal`` look the same; the skeleton of the unfolded text maps ``I`` to
  ``l`` first.
* ``upper``: the skeleton of the name in capitals, not case-folded afterwards: how it reads
  in capitals, where ``1`` looks like ``I``. The other two keys map ``1`` to ``l``, so
  ``ADM1N`` beside ``admin`` (which reads ``ADMIN`` in capitals) would pass them both.
  Not folding keeps ``L`` apart from the ``l`` that ``I`` becomes (``MAIL`` is no ``MALL``).

Pure: no I/O. The database stores the keys under unique indexes
(:mod:`arena.storage.bots`, :mod:`arena.storage.users`); :func:`claim_keys` decides the
keys of rows stored before the keys existed, when two old names may already collide.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final

SEPARATORS: Final = frozenset("-_.")
"""Characters that separate words in a name and are ignored when names are compared
(whitespace and invisible format characters are ignored too)."""
LEGACY_MARK: Final = "#"
"""Joins a key and a row id in the stored key of a name that collided with an older one
before keys were stored (migration 0008). No name holds it: names are ASCII letters,
digits and separators."""
MAX_KEY_LENGTH: Final = 255
"""The key columns' length: a 64-character ASCII name's keys are at most 128 characters
(``m`` has the skeleton ``rn``), plus a legacy row's mark and id."""
_MAX_ROUNDS: Final = 8
"""Skeleton-and-fold rounds until a key stops changing; two suffice for every name tried."""
KEY_FIELDS: Final = ("folded", "shape", "upper")
"""The keys, in the order of :class:`NameKeys`; each is stored as ``name_<key>``."""


@dataclass(frozen=True, slots=True)
class NameKeys:
    """The keys of a name (see the module docstring), each stored in its own column."""

    folded: str
    """The skeleton of the case-folded name, case-folded again until stable."""
    shape: str
    """The skeleton of the name before case folding, then case-folded until stable."""
    upper: str
    """The skeleton of the name in capitals, until stable (not case-folded)."""

    def columns(self) -> dict[str, str]:
        """Column name -> key, as ``bot`` and ``arena_user`` store them."""
        return {f"name_{field}": getattr(self, field) for field in KEY_FIELDS}

    def collides_with(self, other: NameKeys) -> bool:
        """Whether a person could take the two names for each other."""
        return any(getattr(self, field) == getattr(other, field) for field in KEY_FIELDS)


@functools.cache
def _spoof_checker() -> Any:
    """ICU's checker, made once: it only reads its confusables data after construction.
    ICU is imported here, by the first name compared, not by every command that opens
    the database (issue 35)."""
    import icu  # noqa: PLC0415 - only when a name is compared

    return icu.SpoofChecker()


def _skeleton(text: str) -> str:
    """The UTS #39 confusable skeleton of *text* (ICU's reference implementation)."""
    return str(_spoof_checker().getSkeleton(0, text))


def _is_separator(character: str) -> bool:
    return (
        character in SEPARATORS
        or character.isspace()
        or unicodedata.category(character) == "Cf"  # zero-width spaces and joiners
    )


def _bare(text: str) -> str:
    """*text* without separators."""
    return "".join(c for c in text if not _is_separator(c))


def _normal(text: str) -> str:
    """*text* in NFKC without separators."""
    return _bare(unicodedata.normalize("NFKC", text))


def _skeleton_folded(text: str) -> str:
    """One round: the skeleton of *text*, case-folded, in NFKC, without separators (a
    skeleton may map a look-alike to a separator, and is in NFD)."""
    return _normal(_skeleton(text).casefold())


def _skeleton_unfolded(text: str) -> str:
    """One round: the skeleton of *text* in NFKC, without separators, case kept."""
    return _normal(_skeleton(text))


def _stable(text: str, one_round: Callable[[str], str]) -> str:
    """*text* after rounds of *one_round* until a round changes nothing."""
    current = text
    for _ in range(_MAX_ROUNDS):
        following = one_round(current)
        if following == current:
            break
        current = following
    return current


def name_keys(name: str) -> NameKeys:
    """The keys of *name*; any text is accepted (a lookup typed on the command line may
    hold other scripts, though stored names are ASCII)."""
    bare = _normal(name)
    return NameKeys(
        folded=_stable(_normal(bare.casefold()), _skeleton_folded),
        shape=_stable(_skeleton_folded(bare), _skeleton_folded),
        upper=_stable(_normal(bare.upper()), _skeleton_unfolded),
    )


def names_collide(first: str, second: str) -> bool:
    """Whether a person could take *first* and *second* for each other."""
    return name_keys(first).collides_with(name_keys(second))


def legacy_key(key: str, row_id: int) -> str:
    """The stored form of *key* for row *row_id*, whose name collided with an older row's
    before keys were stored: unique, and still found by a lookup of *key*."""
    return f"{key}{LEGACY_MARK}{row_id}"


@dataclass(frozen=True, slots=True)
class KeyClaims:
    """The keys to store for a table's rows, and the collisions found among them."""

    keys: dict[int, NameKeys]
    """Row id -> the keys to store (a taken key gets :func:`legacy_key`)."""
    collisions: list[tuple[int, int]]
    """``(older row id, newer row id)`` for each pair of colliding names, each pair once,
    in the order of the newer rows."""


def claim_keys(rows: Iterable[tuple[int, str]]) -> KeyClaims:
    """Decide the stored keys of ``(id, name)`` *rows* that may already collide.

    The oldest row (lowest id) holding a key keeps it plain; a newer row whose key is taken
    gets it marked with its own id, so no row is renamed and every stored key stays unique.
    Each newer row is reported against the older rows that took its keys.
    """
    holders: dict[tuple[str, str], int] = {}
    keys: dict[int, NameKeys] = {}
    collisions: list[tuple[int, int]] = []
    for row_id, name in sorted(rows):
        plain = name_keys(name)
        stored = []
        older: list[int] = []
        for field in KEY_FIELDS:
            key = getattr(plain, field)
            holder = holders.setdefault((field, key), row_id)
            if holder == row_id:
                stored.append(key)
                continue
            stored.append(legacy_key(key, row_id))
            if holder not in older:
                older.append(holder)
        keys[row_id] = NameKeys(*stored)
        collisions.extend((holder, row_id) for holder in older)
    return KeyClaims(keys, collisions)
