"""A worker's live bot processes, on one referee server, lent to the games of any table.

A tournament worker plays game after game under the same settings (rules, time control,
log cap, shuffle) between the bots of different tables. Starting a bot process is most of
a short game's cost, so the worker keeps the processes that played without a fault and
seats them again in a later game of any table where their version plays. Their doors and
sessions live on a server that outlives each game's match, which is what a
:class:`Lobby` holds: each game is a :meth:`Match.lent` of live or new seat runners, and
:meth:`Lobby.keep` takes the healthy ones back afterwards.

Which games a kept process may play is the caller's rule, never the lobby's (the
tournament's: never a deal any live process of the worker may know,
:mod:`arena.tournament.player`); the lobby only keeps, lends, starts early and stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections import OrderedDict
from collections.abc import Hashable, Sequence

from arena.referee.config import MatchConfig, SeatSpec
from arena.referee.gameloop import welcome
from arena.referee.match import Match
from arena.referee.seat import SeatRunner
from arena.referee.wire.doors import RefereeServer
from arena.v1 import arena_pb2 as pb

LOGGER = logging.getLogger(__name__)


class Lobby:
    """Live bot processes under one set of match settings, kept between games on one
    server, each under the caller's key for its version (a stored version's directory).

    *config* gives the settings every kept process runs under (its time control, log cap,
    sandbox); each game brings its own :class:`MatchConfig` for the rest (seed, dealer,
    ids), with equal settings: the caller keys lobbies by them.
    """

    def __init__(self, config: MatchConfig, *, keeps: bool = True) -> None:
        self.config = config
        self.keeps = keeps
        """Whether bots come back from their games (:meth:`keep`); a lobby that keeps
        none only holds bots started early, each for one game."""
        self.server = RefereeServer(hello_timeout_s=config.time_control.startup_ms / 1000)
        self._idle: OrderedDict[SeatRunner, Hashable] = OrderedDict()
        """Kept processes not in a game, least recently used first, with their keys."""
        self._keys: dict[SeatRunner, Hashable] = {}
        """Every runner lent out or kept, with its key."""
        self._starting: dict[SeatRunner, asyncio.Task[None]] = {}
        """Runners being started ahead of their game (:meth:`start_early`)."""
        self._early: set[SeatRunner] = set()
        """Kept runners started early that no game has used yet (:meth:`unused_early`)."""
        self._doors = itertools.count()

    def has(self, key: Hashable) -> bool:
        """Whether a process of *key* is here for the next game: kept, starting early, or
        lent to the game in play if it will come back."""
        return key in (self._keys if self.keeps else self._idle).values()

    def match(self, seats: Sequence[tuple[Hashable, SeatSpec]], config: MatchConfig) -> Match:
        """A match of *seats* (per seat, its key and spec) under *config*: each seat gets a
        kept process of its key where there is one (the least recently used), else a new
        seat runner that its first game starts. Hand the match back with :meth:`keep`."""
        runners = []
        for seat, (key, spec) in enumerate(seats):
            runner = next((r for r, k in self._idle.items() if k == key), None)
            if runner is None:
                runner = SeatRunner(seat, spec, self.config, door=next(self._doors))
                self._keys[runner] = key
            else:
                del self._idle[runner]
                self._early.discard(runner)
            runners.append(runner)
        return Match.lent(self.server, runners, config)

    def fresh(self, match: Match) -> int:
        """How many of *match*'s seats have a bot that has not started yet (its game starts
        it)."""
        return sum(
            1 for r in match.runners if r.is_bot and r.process is None and r not in self._starting
        )

    async def ready(self, match: Match) -> bool:
        """Wait for the early starts of *match*'s seats (:meth:`start_early`); whether any
        of them was started early. A failed early start is nobody's fault: the game starts
        that seat itself and meets the problem there, if it persists."""
        early = [self._starting.pop(r) for r in match.runners if r in self._starting]
        await asyncio.gather(*early)
        return bool(early)

    def unused_early(self) -> list[SeatRunner]:
        """The kept runners started early for a game that did not come (the very next
        game did not use them), no longer kept: a guess that failed is stopped at once."""
        unused = [self._let_go(runner) for runner in list(self._idle) if runner in self._early]
        self._early.clear()
        return unused

    def keep(self, match: Match) -> list[SeatRunner]:
        """Take back *match*'s seats after its game: every bot that is healthy and running
        is kept for another game; the others are returned, to be stopped (:meth:`stop`)."""
        gone = []
        for runner in match.runners:
            alive = runner.process is not None and not runner.process.exited
            if self.keeps and runner.healthy and alive and runner.session is not None:
                self._idle[runner] = self._keys[runner]
            else:
                gone.append(self._let_go(runner))
        return gone

    def drop(self, match: Match) -> list[SeatRunner]:
        """Take back *match*'s seats to be stopped, whatever their state (after a failure
        of the arena, or when nothing may be kept)."""
        return [self._let_go(runner) for runner in match.runners]

    def surplus(self, limit: int) -> list[SeatRunner]:
        """The least recently used kept processes beyond *limit*, no longer kept."""
        extra = []
        while len(self._idle) > limit:
            runner, _ = self._idle.popitem(last=False)
            extra.append(self._let_go(runner))
        return extra

    def _let_go(self, runner: SeatRunner) -> SeatRunner:
        """*runner* is no longer kept (it is to be stopped): no game gets it, and its key no
        longer counts as live (:meth:`has`)."""
        self._idle.pop(runner, None)
        self._keys.pop(runner, None)
        self._early.discard(runner)
        return runner

    def start_early(self, seats: Sequence[tuple[Hashable, SeatSpec]], config: MatchConfig) -> int:
        """Start, in the background, a process for each key of *seats* that has no kept
        process, and keep it for the game that needs it (:meth:`ready`); how many were
        started. A key twice at one table gets one early, the other with its game."""
        started = 0
        for key, spec in dict(seats).items():
            if self.has(key):
                continue
            runner = SeatRunner(0, spec, self.config, door=next(self._doors))
            self._keys[runner] = key
            self._idle[runner] = key
            self._early.add(runner)
            hello = welcome(config, config.match_id or "", runner.seat)
            self._starting[runner] = asyncio.create_task(self._start(runner, hello))
            started += 1
        return started

    async def _start(self, runner: SeatRunner, hello: pb.Welcome) -> None:
        try:
            await runner.ensure_started(self.server, hello)
        except Exception as exc:  # the game starts it again, and meets the problem there
            LOGGER.warning("early start of %s failed: %s", runner.label, exc)

    async def stop(self, runner: SeatRunner) -> None:
        """Tell *runner*'s bot its match is over, kill it and close its door.

        Killed at once, not let exit: nothing a bot does after its last game survives (its
        private directory is wiped, no record takes its output), so its own exit would
        only spend its interpreter's teardown (about 0.05 CPU-s for a Python bot), on the
        next game's path when a generation ends (:mod:`arena.tournament.player`)."""
        starting = self._starting.pop(runner, None)
        if starting is not None:  # never cancelled: a spawn cut short could leave a process
            with contextlib.suppress(Exception):
                await starting
        self._let_go(runner)
        try:
            if runner.session is not None and runner.healthy:
                end = pb.MatchEnd(games_played=runner.games_ended, reason="completed")
                runner.session.send(pb.RefereeMessage(match_end=end))
        finally:  # whatever the goodbye did, the process is stopped
            await runner.stop(kill=True)
            await self.server.close_door(runner.door)

    async def close(self) -> None:
        """Stop every kept process and the server."""
        runners = list(self._idle)
        self._idle.clear()
        await asyncio.gather(*(self.stop(runner) for runner in runners), return_exceptions=True)
        await self.server.stop(0.5)
