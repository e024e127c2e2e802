"""Playing a match: several games between three seats through the referee.

This is the referee's entry point (:func:`play_match`) and the one import for its callers:
the CLI, the tournament, the benchmarks and the tests build a :class:`MatchConfig` and
seats, call :func:`play_match`, and read a :class:`MatchResult`. The parts live in
modules of one job each:

- :mod:`arena.referee.config`: the seats, the match's settings and its totals (re-exported
  here);
- :mod:`arena.referee.seat`: one seat's bot process or remote bot, started, restarted and
  stopped;
- :mod:`arena.referee.gameloop`: one game from the deal to its record;
- :mod:`arena.referee.faults`: how a fault is worded in the record and to the bot.

This module keeps only the match itself: the servers and descriptors around its games,
the games in order, and the shutdown that stops every bot whatever happens. A tournament
that keeps a seating's bots across its boards holds a :class:`Match` open and plays the
games it is given (:meth:`Match.play` with a :class:`GameSetup`). A bot that
faults is stopped and started again for the next game.

A failure of the arena itself (its descriptors or memory exhausted, a spawn that fails
for the host's reasons, a sandbox that cannot be set up) is never a bot's fault:
:func:`play_match` raises :class:`~arena.referee.errors.ArenaFault` for that game instead,
after every finished game has been handed to ``on_game``.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable, Sequence
from typing import Any

from arena.referee.config import (
    GameSetup,
    MatchConfig,
    MatchResult,
    PolicySeat,
    RemoteSeat,
    SeatSpec,
    SeatStats,
)
from arena.referee.errors import ArenaFault
from arena.referee.faults import cut_detail
from arena.referee.gameloop import GameLoop
from arena.referee.seat import SeatRunner
from arena.referee.wire.descriptors import reserve_descriptors
from arena.referee.wire.doors import RefereeServer
from arena.v1 import arena_pb2 as pb


class Match:
    """A match of several games between three seats, refereed over gRPC.

    :meth:`run` plays the match's own games. A caller that keeps the seats' bots between
    games of its own (a tournament's seating across its boards) opens the match, plays
    each game with :meth:`play` and a :class:`GameSetup`, and closes it.
    """

    def __init__(
        self,
        seats: Sequence[SeatSpec],
        config: MatchConfig,
        runners: Sequence[SeatRunner] | None = None,
    ) -> None:
        if len(seats) != 3:
            raise ValueError(f"a match needs 3 seats, got {len(seats)}")
        if config.listen is None and any(isinstance(s, RemoteSeat) for s in seats):
            raise ValueError("a remote seat needs a TCP listen address (--listen HOST:PORT)")
        self.config = config
        self.match_id = config.match_id or secrets.token_hex(6)
        if runners is None:
            runners = [SeatRunner(i, spec, config) for i, spec in enumerate(seats)]
        self.runners = list(runners)
        self.games = GameLoop(config, self.match_id, self.runners)
        self.stats = [SeatStats(r.label) for r in self.runners]
        self.played = 0
        """Games finished so far."""
        self._records: list[dict[str, Any]] = []
        self._server: RefereeServer | None = None
        self._lent = False
        """The server and the seats' bots are a :class:`~arena.referee.lobby.Lobby`'s:
        :meth:`close` leaves them running for the lobby's next game."""

    @classmethod
    def lent(
        cls, server: RefereeServer, runners: Sequence[SeatRunner], config: MatchConfig
    ) -> Match:
        """A match on *server* whose seats are *runners* (live bots or not yet started),
        seated in that order; the caller keeps the server and the bots
        (:class:`arena.referee.lobby.Lobby`), so :meth:`close` stops neither."""
        for seat, runner in enumerate(runners):
            runner.seat = seat
        match = cls([runner.spec for runner in runners], config, runners)
        match._server, match._lent = server, True
        return match

    async def open(self) -> None:
        """Reserve the match's descriptors and start its server (bots start with a game)."""
        if self._lent:
            reserve_descriptors(self.games.descriptors)
            return
        server = RefereeServer(hello_timeout_s=self.config.time_control.startup_ms / 1000)
        self._server = server
        reserve_descriptors(self.games.descriptors)
        shared = f"unix:{server.directory}/shared-{secrets.token_hex(8)}.sock"
        await server.start(self.config.listen or shared)

    async def start_bots(self) -> None:
        """Start every seat's bot now (each up and its Hello said) rather than with the first
        game, which then finds them ready: a tournament overlaps this start-up with a game
        in flight (pre-start, :mod:`arena.tournament.player`).

        :raises RuntimeError: if the match is not open.
        :raises BotStartupError: if a bot cannot be started or does not connect in time.
        """
        if self._server is None:
            raise RuntimeError("the match is not open: open() it first")
        server = self._server
        outcomes = await asyncio.gather(
            *(r.ensure_started(server, self.games.welcome(r.seat)) for r in self.runners),
            return_exceptions=True,
        )
        for outcome in outcomes:  # all at once, as a game starts them; the first in seat order
            if outcome is not None:
                raise outcome

    async def play(self, index: int, setup: GameSetup | None = None) -> dict[str, Any]:
        """Play game *index* (from 0) of the open match, or the game *setup* describes (then
        as a match of its own: its log cap starts afresh); its record.

        :raises ArenaFault: if the arena failed the game.
        """
        if self._server is None:
            raise RuntimeError("the match is not open: open() it first")
        if setup is not None:
            for runner in self.runners:
                runner.logs.new_game()
        try:
            record = await self.games.play(self._server, index, self.stats, setup)
        except MemoryError:
            raise ArenaFault(f"the referee ran out of memory in game {index + 1}") from None
        self.played += 1
        return record

    async def close(self) -> None:
        """Tell every bot the match is over, stop them all and the server (a lent match:
        nothing, its lobby does)."""
        if self._lent:
            return
        server, self._server = self._server, None
        if server is not None:
            await self._shutdown(server, self.played)

    async def run(self, on_game: Callable[[dict[str, Any]], None] | None = None) -> MatchResult:
        """Play every game; always stops every bot and the server, whatever happens."""
        try:
            await self.open()
            records = self._records
            for index in range(self.config.games):
                record = await self.play(index)
                records.append(record)
                if on_game is not None:
                    on_game(record)
            for runner, seat_stats in zip(self.runners, self.stats, strict=True):
                seat_stats.label = runner.label
            return MatchResult(records, self.stats)
        finally:
            await self.close()

    async def _shutdown(self, server: RefereeServer, played: int) -> None:
        reason = "completed" if played >= self.config.games else "aborted"
        end = pb.RefereeMessage(match_end=pb.MatchEnd(games_played=played, reason=reason))
        for runner in self.runners:
            if runner.session is not None:
                runner.session.send(end)
        await asyncio.gather(*(r.stop() for r in self.runners), return_exceptions=True)
        await server.stop(0.5)


async def play_match(
    seats: Sequence[SeatSpec],
    config: MatchConfig,
    on_game: Callable[[dict[str, Any]], None] | None = None,
) -> MatchResult:
    """Play a match (see :class:`Match`)."""
    return await Match(seats, config).run(on_game)


__all__ = [
    "GameSetup",
    "Match",
    "MatchConfig",
    "MatchResult",
    "PolicySeat",
    "RemoteSeat",
    "SeatSpec",
    "SeatStats",
    "cut_detail",
    "play_match",
]
