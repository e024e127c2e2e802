"""Perfect-information Monte Carlo (PIMC): the search behind ``builtin:pimc`` and pimc_bot.

For a decision, PIMC repeats until its time is up: sample a world consistent with the
seat's observation (:mod:`arena.search.sampler`), put the engine in that world at the
decision (:mod:`arena.search.determinise`), and score every candidate decision
(:mod:`arena.search.candidates`) in it by the seat's delta at the end of the hand: tricks
won against the contract, the points the game counts. A candidate is scored by a greedy
rollout, or, once few tricks remain, by an exact max-n search
(:mod:`arena.search.endgame`). All candidates see the same worlds (common random numbers),
and the best mean wins. This is the recipe of Ginsberg's GIB for bridge and of Buro et
al.'s Skat player (2009).

The search is *anytime*: it checks a deadline before every evaluation, keeps only worlds
in which every candidate was scored, and falls back on the greedy choice if no world was
finished in time. The deadline is read from an injectable clock, so tests count calls
instead of measuring wall time.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable

from arena.game import Decision, GameState, Observation, Phase, Play
from arena.search.candidates import candidates
from arena.search.determinise import ReplayError, build_state
from arena.search.endgame import best_plays
from arena.search.knowledge import knowledge_of
from arena.search.rollout import rollout
from arena.search.sampler import SamplingError, sample_world

LOGGER = logging.getLogger(__name__)

DEFAULT_BUDGET_MS = 100.0
"""Thinking time per decision unless the clock allows less."""
TRICKS_PER_HAND = 16
ENDGAME_TRICKS = 3
"""Tricks left (the one in progress included) from which plays are searched exactly."""
DECISION_SHARE = 0.5
"""Share of the per-decision allowance the search may plan to use (the rest is margin
for decoding, encoding and transport)."""
TRANSPORT_MS = 20.0
"""Milliseconds kept back for the round trip to the referee."""
BANK_SLICE = 0.01
"""Share of the remaining bank one decision may draw on: the bank shrinks geometrically
and never runs dry."""


def think_seconds(budget_ms: float, decision_ms_left: float, bank_ms_left: float) -> float:
    """Seconds to think for one decision under the time control: at most *budget_ms*, and
    never more than a safe share of the decision allowance plus a small slice of the bank.
    """
    safe = DECISION_SHARE * decision_ms_left - TRANSPORT_MS + BANK_SLICE * bank_ms_left
    return max(0.0, min(budget_ms, safe)) / 1000.0


class PimcPolicy:
    """A PIMC player for all four decisions; a :class:`~arena.game.policies.Policy`."""

    name = "pimc"

    def __init__(
        self,
        seed: int | None = None,
        budget_ms: float = DEFAULT_BUDGET_MS,
        *,
        clock: Callable[[], float] = time.perf_counter,
        endgame_tricks: int = ENDGAME_TRICKS,
        max_worlds: int | None = None,
    ) -> None:
        """*budget_ms* bounds the thinking time per decision; *clock* tells the time in
        seconds (tests pass a fake one); *max_worlds* also bounds the worlds sampled."""
        self.budget_ms = budget_ms
        self.endgame_tricks = endgame_tricks
        self.max_worlds = max_worlds
        self._clock = clock
        self._rng = random.Random(seed)
        self.last_worlds = 0
        """Worlds fully evaluated by the last decision (for reports and tests)."""

    def act(self, observation: Observation) -> Decision:
        """The decision for ``observation.request`` within the policy's own budget."""
        return self.decide(observation, self.budget_ms / 1000.0)

    def decide(self, observation: Observation, seconds: float) -> Decision:
        """The decision for ``observation.request``, thinking at most *seconds*.

        :raises ValueError: if the seat has nothing to decide.
        """
        options = candidates(observation)
        self.last_worlds = 0
        if len(options) == 1:
            return options[0]
        deadline = self._clock() + seconds
        knowledge = knowledge_of(observation)
        totals = [0.0] * len(options)
        worlds = 0
        tricks_left = TRICKS_PER_HAND - len(observation.tricks)  # the one in progress too
        exact = observation.phase is Phase.PLAY and tricks_left <= self.endgame_tricks
        while self._clock() < deadline and (self.max_worlds is None or worlds < self.max_worlds):
            try:
                world = sample_world(knowledge, self._rng)
                state = build_state(observation, knowledge.regime, world)
            except (SamplingError, ReplayError) as exc:
                # An observation the sampler cannot explain (a bug, never expected): play
                # on with what was evaluated rather than crash the seat.
                LOGGER.warning("search stopped at hand %d: %s", observation.hand_number, exc)
                break
            values = self._evaluate(state, observation, options, deadline, exact)
            if values is None:
                break
            for i, value in enumerate(values):
                totals[i] += value
            worlds += 1
        self.last_worlds = worlds
        if worlds == 0:
            return options[0]
        best = max(range(len(options)), key=lambda i: (totals[i], -i))
        return options[best]

    def _evaluate(
        self,
        state: GameState,
        observation: Observation,
        options: list[Decision],
        deadline: float,
        exact: bool,
    ) -> list[float] | None:
        """The seat's delta for each option in one world, or ``None`` if time ran out."""
        seat = observation.seat
        if exact:
            if self._clock() >= deadline:
                return None
            payoffs = best_plays(state, seat)
            return [float(payoffs[o.card][seat]) if isinstance(o, Play) else 0.0 for o in options]
        values = []
        for option in options:
            if self._clock() >= deadline:
                return None
            child = state.clone()
            child.apply_decision(option)
            values.append(float(rollout(child)[seat]))
        return values
