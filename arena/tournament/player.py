"""Playing game jobs inside one worker, keeping bot processes alive between them safely.

Starting a bot process is most of a short game's cost, so a worker (a local worker
process, a Ray actor) keeps its bot processes for later games when that is fair. The rule
that makes it fair: **a bot process never meets the same deal twice, nor one it may have
heard of.** Processes that live at the same time in one worker are counted as one
*generation* that may know every deal any of them played, or that was played while they
lived: the machine's load is a channel between live processes (docs/security.md, section
9), so a process could signal what it saw to another that plays the deal later. Within a
generation, a process is seated again in any later game where its stored version plays
(the same table's next board, or another table's board: each table of a round robin has
deals of its own), in whatever seat the game gives it; a job whose deal the generation may
know ends the generation: every process of it is stopped, and its end awaited, before new
processes with fresh private directories play that deal. So does a job the queue marks
:attr:`GameJob.overheard` (its deal was freed by a lost worker while these processes
lived, so they may have heard it there). A round robin's seating *k* of
every table a worker owns is then one generation, whose processes are one per bot
version: 4 bots in 2 tables take 4 processes a generation instead of 3 per table (the
scheduler, :class:`arena.tournament.scheduling.Scheduler`, hands a worker the games its
generation may play first, from the same :class:`Generation` model of what it may know). A bot that faulted, or a game the arena failed, gets fresh
processes for its seat (all three seats after an arena fault); at most
:data:`IDLE_PROCESSES` are kept idle, the least recently used stopped first.

The processes, their doors and sessions live on one referee server per generation, in a
:class:`arena.referee.lobby.Lobby`; each game is a match lent the lobby's processes.

**Pre-start** (:meth:`GamePlayer.play` told the job the slot will likely take next):
while a game is played, the processes the next job will need and no kept one provides
are started (up, Hello said), when no live process of the worker may know that job's
deal, so its game need not wait for their start-up. In a round robin with reuse, that is
a bot joining the generation (another table's bot); at a generation's end nothing is
pre-started (the new processes would live beside the old, which know the deal). With
fresh processes per game (:attr:`Reuse.NONE`) the next game is usually another board, and
its processes are pre-started (every other game: the set after a pre-started one has
heard the deal it replays). Processes pre-started for a job that the very next game does
not use are stopped. A pre-start's failure is charged to no one: the game starts that
seat itself, where a failure counts as it would without pre-start.

Each game is announced to the bots exactly as it would be with fresh processes (game 1 of
1, its own game id, its players and the bot's seat) and its record is the same; only a
bot's own use of its memory (which now spans the games of its generation, never a deal it
may know) can differ.

A bot's processes are children of the thread that runs the player's event loop: their
parent-death signal fires when that thread ends, so run it in the main thread of the
worker process (as :mod:`arena.tournament.worker` does).
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Final, NamedTuple

from arena.game.rules import RuleSet
from arena.referee.config import GameSetup, SeatSpec
from arena.referee.errors import ArenaFault
from arena.referee.lobby import Lobby
from arena.referee.manifest import BotManifest, load_manifest
from arena.referee.match import MatchConfig
from arena.referee.seat import SeatRunner
from arena.referee.timecontrol import TimeControl
from arena.tournament.jobs import Deal, GameJob, VersionChangedError, verify_versions
from arena.tournament.replies import WorkerReply
from arena.tournament.scheduling import Generation

LOGGER = logging.getLogger(__name__)

IDLE_PROCESSES: Final = 6
"""Bot processes a player keeps idle at most (a table's three and three more): the queue
hands a worker the games its kept processes can play first, so more would mostly sit
idle holding memory."""


class Reuse(enum.Enum):
    """Which games may share bot processes."""

    NONE = "none"
    """Fresh processes for every game."""
    SAFE = "safe"
    """Keep processes for any game whose deal no live process of the worker may know (the
    default)."""
    ANY_DEAL = "any-deal"
    """UNSAFE, for tests only: keep processes for every game, whatever deal they have seen,
    so a bot meets every deal of a table once per seating. Kept to show the danger the safe
    scheme avoids (like ``separate_deals=False``); never selectable from the command line."""


def reuse_scheme(reuse: bool | Reuse) -> Reuse:
    """The scheme an executor's ``reuse`` setting names: ``True`` is the safe default
    (:attr:`Reuse.SAFE`), ``False`` is :attr:`Reuse.NONE` (``--no-reuse``)."""
    if isinstance(reuse, Reuse):
        return reuse
    return Reuse.SAFE if reuse else Reuse.NONE


class _Live(NamedTuple):
    """A worker's live bot processes: what they may know (the scheduler's model of them
    too) and the lobby that holds them."""

    generation: Generation
    lobby: Lobby


class GamePlayer:
    """Plays jobs one at a time, reusing bot processes as *reuse* allows, and pre-starting
    the next job's processes when it is told that job and that is safe."""

    def __init__(self, reuse: Reuse = Reuse.SAFE) -> None:
        self.reuse = reuse
        self._live: _Live | None = None
        self._closing: dict[asyncio.Task[None], set[Deal]] = {}
        """Processes being stopped in the background (the reply does not wait for them),
        with the deals they may know."""
        self._manifests: dict[str, BotManifest] = {}
        """Per stored version's directory, its manifest: read once, not at every game (a
        stored version never changes; its files are verified before every game)."""

    async def play(
        self,
        job: GameJob,
        upcoming: GameJob | None = None,
        on_public: Callable[[dict[str, Any]], None] | None = None,
    ) -> WorkerReply:
        """Play *job*; the worker's reply (``record``, ``arena_fault`` or ``error``; and
        ``warm``: a seat's process was pre-started for it, ``prestarted``: processes were
        pre-started for *upcoming* meanwhile, ``started``: bot processes started for its
        own game). Never raises for a bot's or the arena's fault.

        *upcoming* is the job the slot will likely take next: the processes it needs that
        no kept one provides are started during this game if no live process here may know
        its deal. *on_public* is told the game's public view at its start and after every
        decision (the live feed, :mod:`arena.tournament.live_feed`).
        """
        index = job.schedule_index
        reply: WorkerReply = {"schedule_index": index}
        try:
            verify_versions(job)
            record = await self._play(job, upcoming, reply, on_public)
            reply["record"] = record
        except ArenaFault as exc:
            reply["arena_fault"] = _one_line(exc)
        except VersionChangedError as exc:
            reply["error"] = _one_line(exc)
        except Exception as exc:  # reported to the runner, which stops the tournament
            LOGGER.exception("game %d failed", index)
            reply["error"] = f"{type(exc).__name__}: {exc}"
        return reply

    async def aclose(self) -> None:
        """Stop every bot process the player holds (and wait for those being stopped)."""
        self._end_generation()
        await asyncio.gather(*self._closing)

    def _end_generation(self) -> None:
        """Stop every live process in the background; until they are gone they count as
        knowing the generation's deals."""
        live, self._live = self._live, None
        if live is not None:
            self._closing_task(live.lobby.close(), live.generation.deals)

    def _closing_task(self, stopping: Any, known: set[Deal]) -> None:
        task: asyncio.Task[None] = asyncio.create_task(stopping)
        self._closing[task] = set(known)
        task.add_done_callback(lambda done: self._closing.pop(done, None))

    def _stop(self, live: _Live, runners: Sequence[SeatRunner]) -> None:
        """Stop *runners* in the background (the next game need not wait for their exit
        and the sandbox's cleanup, unless it plays a deal they may know: :meth:`_forget`)."""
        if runners:
            stopping = asyncio.gather(*(live.lobby.stop(r) for r in runners))
            self._closing_task(_quietly(stopping), live.generation.deals)

    async def _forget(self, deal: Deal) -> None:
        """Stop, and wait until they are gone, every process that may know *deal*: a live
        process that may know a deal must not run beside a game of it, idle or not (it
        could signal what it saw through the machine's load, the danger
        :attr:`arena.tournament.executor.PoolExecutor.separate_deals` closes between
        workers)."""
        if self._live is not None and self._live.generation.knows(deal):
            self._end_generation()
        knowing = [task for task, deals in self._closing.items() if deal in deals]
        if knowing:
            await asyncio.gather(*knowing)

    async def _play(
        self,
        job: GameJob,
        upcoming: GameJob | None,
        flags: WorkerReply,
        on_public: Callable[[dict[str, Any]], None] | None,
    ) -> dict[str, Any]:
        settings = job.settings_key
        live = self._live
        if live is not None and (live.generation.settings != settings or job.overheard):
            self._end_generation()
        if job.overheard:  # heard from another worker's games, by any process here
            await asyncio.gather(*self._closing)
        if self.reuse is not Reuse.ANY_DEAL:
            await self._forget(job.deal)
        config = self._config(job)
        if self._live is None:
            lobby = Lobby(config, keeps=self.reuse is not Reuse.NONE)
            self._live = _Live(Generation(settings), lobby)
        live = self._live
        match = live.lobby.match(self._seats(job), config)
        if on_public is not None:  # a new match per game: no feed outlives its game
            match.games.on_public = on_public
        self._stop(live, live.lobby.unused_early())
        if await live.lobby.ready(match):
            flags["warm"] = True
        started = live.lobby.fresh(match)
        if started:
            flags["started"] = started
        self._mingle(live.generation, job)
        if upcoming is not None and self._wants_prestart(live.generation, upcoming):
            early = live.lobby.start_early(self._seats(upcoming), self._config(upcoming))
            flags["prestarted"] = early > 0
        ok = False
        try:
            await match.open()
            setup = GameSetup(
                seed=job.seed,
                first_dealer=job.first_dealer,
                game_id=job.game_id,
                match_id=job.game_id,
                number=1,
                games=1,
            )
            record = await match.play(0, setup)
            ok = True
            return record
        finally:
            if ok:
                self._stop(live, live.lobby.keep(match) + live.lobby.surplus(IDLE_PROCESSES))
            else:
                self._stop(live, live.lobby.drop(match))

    def _seats(self, job: GameJob) -> list[tuple[Hashable, SeatSpec]]:
        """Per seat of *job*, the key its processes are kept under (the stored version and
        its checksum) and its manifest."""
        seats, *_ = job.reuse_key
        for path, _checksum in seats:
            if path not in self._manifests:
                self._manifests[path] = load_manifest(path)
        return [(seat, self._manifests[seat[0]]) for seat in seats]

    def _config(self, job: GameJob) -> MatchConfig:
        """The settings of *job*'s game."""
        return MatchConfig(
            rules=RuleSet.from_json(job.rules, name=job.ruleset),
            games=1,
            seed=job.seed,
            time_control=TimeControl.parse(job.time_control),
            log_cap=job.log_cap,
            first_dealers=(job.first_dealer,),
            match_id=job.game_id,
            shuffle=job.shuffle,
        )

    def _wants_prestart(self, live: Generation, upcoming: GameJob) -> bool:
        """Whether the processes *upcoming* needs may be started now, beside the game
        being played: the live ones may play it (it runs under the same settings, and no
        live process here may know its deal: the new ones would hear it, and could then
        never play it)."""
        return self.reuse is not Reuse.ANY_DEAL and live.may_play(upcoming)

    def _mingle(self, live: Generation, job: GameJob) -> None:
        """*job* is about to be played: every live process may from now on know what any
        live process may know (those being stopped included), its deal too."""
        live.join(job)
        for deals in self._closing.values():
            live.deals |= deals


async def _quietly(stopping: Any) -> None:
    """Await *stopping*; a failure to stop is the lobby's to log, never the game's."""
    try:
        await stopping
    except Exception as exc:
        LOGGER.warning("stopping bot processes failed: %s", exc)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
