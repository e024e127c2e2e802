"""A game job: everything a worker needs to play one scheduled game, as plain JSON.

A job carries its board's seed (the deal key) to the worker over a pipe; the worker is the
arena's own process, and the key never goes further than the referee in it (bots get
observations only).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Hashable
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypeAlias

from arena.game.dealing import HMAC_SHUFFLE
from arena.submission import ChecksumError, verify_checksum

Deal: TypeAlias = tuple[str, int]
"""A job's :attr:`GameJob.deal`: its shuffle and deal key."""
ReuseKey: TypeAlias = tuple[tuple[tuple[str, str | None], ...], str, str, str, int, str]
"""A job's :attr:`GameJob.reuse_key`."""


class VersionChangedError(RuntimeError):
    """A stored bot version's files are not those it was stored with: the arena's problem
    (tampering or a damaged disk), never charged to a bot; the message is one line."""


@dataclass(frozen=True)
class GameJob:
    """One scheduled game, ready to be sent to any executor (local or, later, remote)."""

    schedule_index: int
    seed: int
    first_dealer: int
    rules: dict[str, Any]
    ruleset: str
    time_control: str
    bot_paths: tuple[str, str, str]
    """Per seat, the directory of the stored bot version."""
    game_id: str
    log_cap: int
    shuffle: str = HMAC_SHUFFLE
    """How *seed* becomes deals (legacy only for tournaments made before keyed deals)."""
    checksums: tuple[str, str, str] | None = None
    """Per seat, the stored version's checksum, verified before the game is played."""
    labels: tuple[str, str, str] = field(default=("?", "?", "?"))
    """Per seat, ``name@version``, to name a version whose files changed."""
    overheard: bool = False
    """The worker's live bot processes may have heard this deal played by another worker
    (one that was lost, freeing its deals): play it on new processes only
    (:class:`arena.tournament.scheduling.Scheduler`, :mod:`arena.tournament.player`)."""

    @cached_property
    def deal(self) -> Deal:
        """What identifies the job's deals: games with equal deals never run at once.
        Cached, as :attr:`reuse_key` is."""
        return self.shuffle, self.seed

    @cached_property
    def reuse_key(self) -> ReuseKey:
        """What a set of bot processes may be kept for: the exact seating (the stored
        version in each seat) and every setting that shapes a game. Jobs with one key
        differ only in their deal, first dealer and game id; the boards of one table's
        seating share a key, its other seatings do not (:mod:`arena.tournament.player`).
        Cached: the queue compares it for every waiting job at every hand-out."""
        # Interned: every job of a tournament then holds one string, compared by identity.
        rules = sys.intern(json.dumps(self.rules, sort_keys=True, separators=(",", ":")))
        checksums = self.checksums or (None, None, None)
        return (
            tuple(zip(self.bot_paths, checksums, strict=True)),
            self.ruleset,
            rules,
            self.time_control,
            self.log_cap,
            self.shuffle,
        )

    @cached_property
    def settings_key(self) -> Hashable:
        """Every setting that shapes a game (:attr:`reuse_key` without the seats): a
        worker's processes are kept only for games of one settings key."""
        return self.reuse_key[1:]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameJob:
        """The job from :meth:`to_json`."""
        data = dict(data)
        data["bot_paths"] = tuple(data["bot_paths"])
        if data.get("checksums") is not None:
            data["checksums"] = tuple(data["checksums"])
        if "labels" in data:
            data["labels"] = tuple(data["labels"])
        return cls(**data)


def verify_versions(job: GameJob) -> None:
    """Check that every seat's stored files are still those it was stored with.

    :raises VersionChangedError: naming the first version whose files differ.
    """
    if job.checksums is None:
        return
    for path, expected, label in zip(job.bot_paths, job.checksums, job.labels, strict=True):
        try:
            verify_checksum(Path(path), expected)
        except ChecksumError as exc:
            raise VersionChangedError(f"bot version {label}: {exc}") from None
