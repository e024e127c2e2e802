"""Deal secrets of tournaments and matches: fresh and unguessable unless a seed is asked for.

A bot that can guess how its game was shuffled knows every hand (issue 10), so by default
every tournament, ``arena match`` and ``arena bot check`` draws a fresh 256-bit secret and
derives each board's deal key from it (:func:`arena.game.dealing.board_key`). An explicit
``--seed`` gives reproducible research runs instead, and everything that shows such a run
says that its deals are predictable.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Final

from arena.game.dealing import (
    HMAC_SHUFFLE,
    LEGACY_SHUFFLE,
    SECRET_BYTES,
    board_key,
    secret_from_seed,
    table_board_key,
)
from arena.storage.models import BOARD_DEALS, TABLE_DEALS
from arena.tournament.formats import BoardSeeds, TableSeeds

SEED_MAX: Final = 2**63 - 1
"""The largest explicit seed: it is stored in a 64-bit column, so a larger one is refused
when it is given, not when the database overflows."""


def deal_secret(seed: int | None) -> tuple[bytes, bool]:
    """The deal secret for an optional explicit *seed*, and whether it is predictable.

    :raises ValueError: if *seed* is outside ``0 .. SEED_MAX``.
    """
    if seed is None:
        return secrets.token_bytes(SECRET_BYTES), False
    if not 0 <= seed <= SEED_MAX:
        raise ValueError(f"--seed must be an integer from 0 to {SEED_MAX}, not {seed}")
    return secret_from_seed(seed), True


def board_seeds(shuffle: str, seed: int | None, secret_hex: str | None) -> BoardSeeds:
    """Board number -> board seed of a stored tournament: keyed from its secret, or the
    legacy ``seed + board`` of a tournament made before secret deals (so that it resumes
    with the deals it started with).

    :raises ValueError: if the tournament lacks what its scheme needs.
    """
    if shuffle == HMAC_SHUFFLE:
        if not secret_hex:
            raise ValueError("a tournament with keyed deals has no deal secret")
        secret = bytes.fromhex(secret_hex)
        return lambda board: board_key(secret, board)
    if shuffle == LEGACY_SHUFFLE:
        if seed is None:
            raise ValueError("a legacy tournament has no seed")
        legacy = seed
        return lambda board: legacy + board
    raise ValueError(f"unknown shuffle {shuffle!r}")


def table_seeds(
    shuffle: str, seed: int | None, secret_hex: str | None, deal_scope: str
) -> TableSeeds:
    """(table index, board) -> board seed of a stored round robin: with *deal_scope*
    ``table`` each table's boards have their own keys (:func:`table_board_key`), with
    ``board`` board *n* is dealt alike at every table (:func:`board_seeds`: round robins
    made before per-table deals resume with the deals they started with).

    :raises ValueError: if the tournament lacks what its scheme needs, or for an unknown
        scope or a legacy tournament with per-table deals.
    """
    if deal_scope == BOARD_DEALS:
        per_board = board_seeds(shuffle, seed, secret_hex)
        return lambda _table, board: per_board(board)
    if deal_scope != TABLE_DEALS:
        raise ValueError(f"unknown deal scope {deal_scope!r}")
    if shuffle != HMAC_SHUFFLE or not secret_hex:
        raise ValueError("per-table deals need keyed deals and a deal secret")
    secret = bytes.fromhex(secret_hex)
    return lambda table, board: table_board_key(secret, table, board)


def matchmaking_seed(secret_hex: str, match_index: int) -> int:
    """The seed of a ladder's random choices for match *match_index*:
    ``HMAC-SHA256(secret, "arena952/ladder-matchmaker/1" || index)``, so a ladder is
    reproducible from its secret (and a seeded one from its seed), each match's draw does not
    depend on how many draws came before it (a resumed ladder draws as an unbroken one), and
    the draws say nothing about the deal keys derived from the same secret."""
    if match_index < 0:
        raise ValueError(f"a match number is not negative, got {match_index}")
    message = _MATCHMAKER + match_index.to_bytes(8, "big")
    return int.from_bytes(hmac.digest(bytes.fromhex(secret_hex), message, "sha256"), "big")


_MATCHMAKER: Final = b"arena952/ladder-matchmaker/1"

__all__ = ["SEED_MAX", "board_seeds", "deal_secret", "matchmaking_seed", "table_seeds"]
