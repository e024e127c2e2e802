"""An executor that plays each game in this process, by Python policies, one at a time.

:class:`InProcessExecutor` keeps the :class:`arena.tournament.executor.Executor` protocol
with no bot process, sandbox or referee: a *game* function plays each job and returns its
record. It hands out the jobs through the same scheduler as the pools
(:class:`arena.tournament.scheduling.Scheduler`, as one slot that keeps no processes, so in
schedule order) and asks a ladder for more whenever nothing is left, so any run (a round
robin, a ladder, a version test) goes through it unchanged, in a fraction of a second a
game. It is for tests of the runs' own logic and for an author's quick local runs of a
Python policy; it proves nothing about a bot as a process (``arena bot check`` does that).

::

    executor = InProcessExecutor(policy_game(lambda job, seat: MyPolicy()))
    asyncio.run(run_tournament(engine, "trial", executor))

A game raises what its function raises: in this process nothing else can fail it, so
nothing is ever an arena fault or played again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from arena.game.observation import observe
from arena.game.policies import Policy
from arena.game.record import game_record
from arena.game.rules import RuleSet
from arena.game.state import GameState
from arena.tournament.executor_api import ArenaFaultCallback, MoreJobs, ResultCallback
from arena.tournament.jobs import GameJob
from arena.tournament.scheduling import Scheduler, Verdict

GameFunction = Callable[[GameJob], dict[str, Any]]
"""Plays one job in this process: its game's record (``arena952.game/1``)."""
SeatPolicy = Callable[[GameJob, int], Policy]
"""The policy that plays one seat (0, 1, 2) of a job (:func:`policy_game`)."""


def policy_game(seat_policy: SeatPolicy, *, max_hands: int | None = None) -> GameFunction:
    """A :data:`GameFunction` that plays each job's game with the rules engine, each seat by
    ``seat_policy(job, seat)`` (made afresh for every game), under the job's rules, deal
    key, first dealer and shuffle; with *max_hands*, games end after that many hands (tests
    that need many short games)."""

    def play(job: GameJob) -> dict[str, Any]:
        rules = RuleSet.from_json(job.rules, name=job.ruleset)
        if max_hands is not None:
            rules = rules.replace(max_hands=max_hands)
        state = GameState(rules, job.seed, first_dealer=job.first_dealer, shuffle=job.shuffle)
        policies = [seat_policy(job, seat) for seat in range(3)]
        while not state.is_over:
            seat = state.current_seat
            state.apply_decision(policies[seat].act(observe(state, seat)))
        return game_record(state, list(job.labels))

    return play


class InProcessExecutor:
    """Plays jobs one at a time in this process, each with *game*; with *stop_after*, raises
    ``KeyboardInterrupt`` when it would start a game after that many (a Ctrl-C, for tests
    of resuming a cut-off run)."""

    def __init__(self, game: GameFunction, *, stop_after: int | None = None) -> None:
        self.game = game
        self.stop_after = stop_after
        self.played: list[int] = []
        """The schedule indices of the games played, in order (tests and diagnostics)."""

    async def run(
        self,
        jobs: Sequence[GameJob],
        on_result: ResultCallback,
        on_arena_fault: ArenaFaultCallback | None = None,
        more: MoreJobs | None = None,
    ) -> None:
        """See :meth:`arena.tournament.executor_api.Executor.run`; *on_arena_fault* is never
        called. Between games the event loop runs its other tasks (a ladder that follows,
        a progress display)."""
        scheduler = Scheduler(jobs, supply=more is not None)
        while True:
            given = scheduler.hand_out()
            if given is Verdict.ASK and more is not None:
                supplied: Sequence[GameJob] = ()
                try:
                    supplied = await more()
                finally:
                    scheduler.supplied(supplied)
                continue
            if not isinstance(given, GameJob):
                return  # finished: one slot never waits, as it never leaves a game running
            if self.stop_after is not None and len(self.played) >= self.stop_after:
                raise KeyboardInterrupt
            outcome = on_result(given, self.game(given))
            if outcome is not None:
                await outcome
            self.played.append(given.schedule_index)
            scheduler.finished(given)
            await asyncio.sleep(0)
