"""Search for 9-5-2 bots: determinisation, rollouts, exact endgames and a PIMC policy.

Pure like :mod:`arena.game` (no I/O), and built only on its public API: a search sees a
seat's :class:`~arena.game.Observation`, samples worlds consistent with it, and plays them
out with :class:`~arena.game.GameState`. ``builtin:pimc`` and ``sample_bots/pimc_bot`` are
:class:`PimcPolicy`.
"""

from arena.search.determinise import ReplayError, build_state
from arena.search.endgame import best_plays
from arena.search.knowledge import Knowledge, Regime, knowledge_of
from arena.search.pimc import DEFAULT_BUDGET_MS, PimcPolicy, think_seconds
from arena.search.rollout import rollout
from arena.search.sampler import SamplingError, sample_world

__all__ = [
    "DEFAULT_BUDGET_MS",
    "Knowledge",
    "PimcPolicy",
    "Regime",
    "ReplayError",
    "SamplingError",
    "best_plays",
    "build_state",
    "knowledge_of",
    "rollout",
    "sample_world",
    "think_seconds",
]
