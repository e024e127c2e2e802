"""What a match is given and what it gives back: the seats, the limits, the totals.

Plain values with no processes or gRPC behind them, so that the CLI, the tournament and
the tests can build a match and read its result without knowing how it is run. A seat is
a bot process (a :class:`~arena.referee.manifest.BotManifest`), a remote bot that dials
in over TCP (:class:`RemoteSeat`), or a built-in policy run by the referee itself
(:class:`PolicySeat`, for opponents in ``arena bot check``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from arena.game import RuleSet
from arena.game.dealing import HMAC_SHUFFLE, board_key
from arena.game.policies import Policy
from arena.referee.human_seat import HumanSeat
from arena.referee.manifest import BotManifest
from arena.referee.process import DEFAULT_LOG_CAP
from arena.referee.timecontrol import TimeControl
from arena.sandbox.config import SandboxConfig


@dataclass(frozen=True)
class RemoteSeat:
    """A bot that connects by itself over TCP, e.g. from its author's machine."""

    name: str = "remote"


@dataclass(frozen=True)
class PolicySeat:
    """A built-in policy played by the referee (no process, no network)."""

    policy: Policy

    @property
    def label(self) -> str:
        """``name@builtin``."""
        return f"{self.policy.name}@builtin"


SeatSpec: TypeAlias = BotManifest | RemoteSeat | PolicySeat | HumanSeat
"""A person's seat (:class:`HumanSeat`) is asked through its desk (docs/play.md)."""


@dataclass(frozen=True)
class MatchConfig:
    """What to play and under which limits."""

    rules: RuleSet
    games: int
    seed: int
    """Game *i*'s seed is ``seed + i`` when there is no *secret* (a tournament passes its
    board's key with ``games=1``)."""
    time_control: TimeControl = field(default_factory=TimeControl)
    log_cap: int = DEFAULT_LOG_CAP
    """Bytes of stdout+stderr kept per bot per match."""
    fresh_process_per_game: bool = False
    """Start every bot anew for every game (tournaments: no memory between seatings)."""
    listen: str | None = None
    """``host:port`` to accept remote bots over TCP; ``None``: a private unix socket only."""
    stop_grace_s: float = 1.0
    """How long a bot may take to exit after MatchEnd before it is killed."""
    first_dealers: tuple[int, ...] | None = None
    """First dealer of game *i* is ``first_dealers[i % len]``; default: rotate 0, 1, 2."""
    match_id: str | None = None
    """Names the match and its games (``<match_id>-<n>``); default: random. Tournaments set
    it so that a replayed game gets the same record."""
    announce_remote: Callable[[int, str, str], None] | None = None
    """Called with (seat, address, token) when a remote seat awaits its bot; default: stderr."""
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    """The sandbox of every bot process (docs/security.md); default best-effort."""
    secret: bytes | None = field(default=None, repr=False)
    """The match's deal secret: game *i*'s seed is ``board_key(secret, i)`` (never sent to a
    bot, kept out of ``repr``)."""
    shuffle: str = HMAC_SHUFFLE
    """How seeds become deals; only a tournament made before keyed deals passes legacy."""
    log_quiet_ms: int = 25
    """After a game ends, the log of a bot that does not mark its output (the SDK does:
    :data:`arena.protocol.wire.OUTPUT_MARK`) is cut once its output has been quiet this
    long (at most :data:`LOG_SETTLE_LIMIT_MS`): what it writes on GameEnd belongs to that
    game."""

    def game_seed(self, index: int) -> int:
        """The seed (deal key) of game *index*, from 0."""
        if self.secret is not None:
            return board_key(self.secret, index)
        return self.seed + index

    def game_setup(self, index: int, match_id: str) -> GameSetup:
        """Game *index* (from 0) of the match *match_id*."""
        dealers = self.first_dealers or (0, 1, 2)
        single = self.games == 1 and bool(self.match_id)
        return GameSetup(
            seed=self.game_seed(index),
            first_dealer=dealers[index % len(dealers)],
            game_id=match_id if single else f"{match_id}-{index + 1}",
            match_id=match_id,
            number=index + 1,
            games=self.games,
        )


LOG_SETTLE_LIMIT_MS = 250
"""The longest the referee waits for a bot's output to settle after a game."""


@dataclass(frozen=True)
class GameSetup:
    """What makes one game of a match itself: its deal key, first dealer and names.

    A match numbers its games from its own settings (:meth:`MatchConfig.game_setup`); a
    tournament that keeps a seating's processes across its boards gives each game the setup
    it would have as a match of its own, so its record and what the bots are told are the
    same as with fresh processes.
    """

    seed: int
    """The deal key."""
    first_dealer: int
    game_id: str
    match_id: str
    """The match id in the record."""
    number: int
    """The game's number in its match, from 1 (``GameStart.game_number``)."""
    games: int
    """Games planned in its match (``GameStart.games_in_match``)."""


@dataclass
class SeatStats:
    """One seat's totals over a match."""

    label: str
    score: int = 0
    wins: int = 0
    draws: int = 0
    faults: int = 0
    refused: int = 0
    """Streams refused at the seat's door (second streams, bad tokens, no Hello)."""
    decision_ms: list[float] = field(default_factory=list)

    @property
    def mean_ms(self) -> float:
        """Mean decision time (bot seats only)."""
        return sum(self.decision_ms) / len(self.decision_ms) if self.decision_ms else 0.0

    @property
    def p99_ms(self) -> float:
        """99th percentile decision time (nearest rank)."""
        if not self.decision_ms:
            return 0.0
        ordered = sorted(self.decision_ms)
        return ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]


@dataclass
class MatchResult:
    """Every game record of a match, and per-seat totals."""

    records: list[dict[str, Any]]
    stats: list[SeatStats]
