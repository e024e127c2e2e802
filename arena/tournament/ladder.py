"""Running a ladder: choose a match when a worker is free, store it, play it, repeat.

A ladder differs from a round robin in one way that matters for crash safety: its schedule
is not a function of its settings, since each table is chosen from the ratings of the games
stored so far. So every chosen match is stored (:func:`arena.storage.schedule_match`)
*before* its games are handed to the executor. A ladder killed at any moment and run again
finds its stored matches, plays the games they miss, and only then chooses new ones:
nothing is lost, nothing is played twice, and no match is chosen twice.

When a worker has nothing it may start, the executor asks this module for more
(:data:`arena.tournament.executor.MoreJobs`). Each time it:

1. enters the newest version of every entered bot that has a newer one (submitting a new
   version is all it takes), retiring the old; an open ladder's new entrants are entered by
   the submission itself (:func:`arena.storage.enter_open_ladders`), and the next choice
   sees them, as it stops seeing entrants withdrawn meanwhile;
2. stops if the game budget is spent, or if the ladder is settled (every bot above the next
   with at least the confidence, each with the minimum games), unless it follows;
3. otherwise asks :func:`arena.tournament.matchmaker.pick_table` for a table, with a random
   generator seeded from the tournament secret and the match number, stores the match and
   hands its 6 games over.

So every match is chosen from the freshest ratings, and with ``--parallel 1`` the whole
ladder is a function of its secret (and of the bots' deterministic play). A ladder that
*follows* never stops on confidence or for want of bots: it waits and looks again every few
seconds, so new entrants and new versions are picked up while it runs.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from sqlalchemy.engine import Engine

from arena import storage
from arena.ratings.trueskill_model import DEFAULT_MODEL
from arena.storage.models import BotVersion, Tournament
from arena.storage.tournaments import stored_rules
from arena.tournament.deals import board_seeds, matchmaking_seed
from arena.tournament.executor import Executor
from arena.tournament.formats import Ladder, ScheduledGame
from arena.tournament.jobs import GameJob
from arena.tournament.loop import RunFormat, game_job, play, store_game
from arena.tournament.matchmaker import Contender, MatchmakerSettings, is_settled, pick_table
from arena.tournament.outage import OutageWait

LOGGER = logging.getLogger(__name__)

POLL_SECONDS: Final = 2.0
"""How often a following ladder with nothing to play looks for new entrants."""


class NotALadderError(ValueError):
    """The tournament is not a ladder; the message is one line."""


@dataclass
class LadderProgress:
    """What a progress display needs."""

    done: int
    """Games stored."""
    budget: int
    """The game budget (0: none)."""
    matches: int
    """Matches chosen so far."""
    played_now: int = 0
    seconds: float = 0.0
    stopped: str | None = None
    """Why it stopped choosing matches (``None`` while it goes on)."""
    entered: list[str] = field(default_factory=list)
    """Versions entered during this run (new versions of entered bots)."""


def contenders(engine: Engine, tournament_id: int) -> list[Contender]:
    """The bots the matchmaker may seat: the newest entered version of every bot that has
    not been withdrawn, with its current rating (the prior before its first rated game)."""
    rated = {r.bot_version_id: r for r in storage.ratings(engine, tournament_id)}
    prior = DEFAULT_MODEL.initial()
    out = []
    for entrant in storage.ladder_entrants(engine, tournament_id):
        if not entrant.active:
            continue
        rating = rated.get(entrant.bot_version_id)
        if rating is None:
            out.append(Contender(entrant.bot_version_id, prior.mu, prior.sigma, 0))
        else:
            out.append(Contender(entrant.bot_version_id, rating.mu, rating.sigma, rating.games))
    return out


class LadderRun(RunFormat[LadderProgress]):
    """One run of one ladder: its jobs, its choices and its store callback."""

    kind = "ladder"
    on_demand = True

    def __init__(self, engine: Engine, tournament: Tournament, follow: bool) -> None:
        self.id = storage.row_id(tournament)
        self.settings = storage.ladder_settings(engine, self.id)
        super().__init__(self.id, tournament.name, LadderProgress(0, self.settings.games_budget, 0))
        self.engine = engine
        self.tournament = tournament
        self.follow = follow
        self.format = Ladder()
        self.rules = stored_rules(tournament)
        self.seeds = board_seeds(tournament.shuffle, tournament.seed, tournament.deal_secret)
        if not tournament.deal_secret:
            raise NotALadderError(f"ladder {tournament.name!r} has no deal secret")
        self.secret = tournament.deal_secret
        self.matchmaker = MatchmakerSettings(min_games=self.settings.min_games)
        self.games: dict[int, tuple[ScheduledGame, list[int]]] = {}
        """Schedule index -> the game and its seats (bot version ids), for games handed out."""
        self.next_match = 0

    def start(self) -> list[GameJob]:
        """What is stored, under the lock; the missing games of the stored matches."""
        self.next_match = len(storage.ladder_matches(self.engine, self.id))
        self.progress.done = len(storage.stored_indexes(self.engine, self.id))
        self.progress.matches = self.next_match
        resumed = self.resumed_jobs()
        if resumed:
            LOGGER.info("ladder %s: resuming %d game(s) of stored matches", self.name, len(resumed))
        return resumed

    def resumed_jobs(self) -> list[GameJob]:
        """The missing games of the stored matches (cut off by a kill), in order."""
        stored = storage.stored_indexes(self.engine, self.id)
        jobs = []
        for match in storage.unfinished_matches(self.engine, self.id):
            jobs.extend(self._jobs(match.match_index, match.bot_version_ids, stored))
        return jobs

    def _jobs(self, match_index: int, table: tuple[int, int, int], skip: set[int]) -> list[GameJob]:
        versions: list[BotVersion] = storage.entries(self.engine, self.id)
        position = {storage.row_id(v): i for i, v in enumerate(versions)}
        a, b, c = (position[v] for v in table)
        jobs = []
        for game in self.format.match_games(match_index, self.seeds(match_index), (a, b, c)):
            if game.schedule_index in skip:
                continue
            seats = [storage.row_id(versions[e]) for e in game.entrants]
            self.games[game.schedule_index] = (game, seats)
            jobs.append(game_job(self.tournament, self.rules, game, versions))
        return jobs

    async def more(self) -> list[GameJob]:
        """The next match's games, or none when the ladder stops (see the module)."""
        while True:
            jobs, reason, final = self._choose()
            if jobs:
                return jobs
            if final or not self.follow:
                self.progress.stopped = reason
                return []
            await asyncio.sleep(POLL_SECONDS)

    def _choose(self) -> tuple[list[GameJob], str, bool]:
        """``(jobs, "", _)`` for a new match, else ``([], why not, whether it is final)``."""
        entered = storage.enter_new_versions(self.engine, self.id)
        for label in entered:
            LOGGER.info("ladder %s: entered %s", self.tournament.name, label)
        self.progress.entered.extend(entered)
        budget = self.settings.games_budget
        size = self.format.board_size
        if budget and (self.next_match + 1) * size > budget:
            return [], f"the budget of {budget} games is spent", True
        bots = contenders(self.engine, self.id)
        if len(bots) < 3:
            return [], "fewer than 3 bots to match", False
        if is_settled(bots, self.settings.confidence, self.settings.min_games):
            return [], f"every bot is above the next with P >= {self.settings.confidence:g}", False
        index = self.next_match
        rng = random.Random(matchmaking_seed(self.secret, index))
        table = pick_table(bots, rng, self.matchmaker)
        try:
            storage.schedule_match(self.engine, self.id, index, table)
        except storage.EntrantLeft:
            # Withdrawn or retired since the contenders were read: choose again, from
            # the entrants as they are now (the same draw, so still reproducible).
            return self._choose()
        self.next_match += 1
        self.progress.matches = self.next_match
        return self._jobs(index, table, set()), "", False

    def store(self, job: GameJob, record: dict[str, Any]) -> None:
        """Store one finished game with its rating update."""
        game, seats = self.games.pop(job.schedule_index)
        store_game(self.engine, self.id, game, seats, record, self.format.board_size)


async def run_ladder(
    engine: Engine,
    name: str,
    executor: Executor | None = None,
    on_progress: Callable[[LadderProgress], None] | None = None,
    *,
    follow: bool = False,
    outage: OutageWait | None = None,
) -> LadderProgress:
    """Play ladder *name*: first the missing games of its stored matches, then new matches
    until it stops (budget spent or settled); with *follow*, only the budget stops it.
    The matchmaker's reads and writes wait out a database outage like the games' stores
    (*outage*, :mod:`arena.tournament.outage`).

    :raises NotALadderError: if *name* is not a ladder.
    :raises arena.storage.StorageError: if there is no such tournament.
    :raises arena.tournament.executor.ExecutorError: if a worker fails (not a bot fault).
    :raises arena.storage.runner_lock.RunnerBusy: if another runner is playing it.
    """
    tournament = storage.get_tournament(engine, name)
    if tournament.format != storage.LADDER_FORMAT:
        raise NotALadderError(f"{name!r} is a {tournament.format}, not a ladder")
    run = LadderRun(engine, tournament, follow)
    return await play(engine, run, executor, on_progress, outage)
