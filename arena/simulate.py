"""In-process simulation: play games between built-in policies and write their records.

This is the fast path for rule checks, policy baselines and demo data; bots as real
processes go through the referee instead.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.game.observation import observe
from arena.game.policies import POLICIES, Policy
from arena.game.record import game_record
from arena.game.rules import RuleSet
from arena.game.state import GameState
from arena.recordfiles import write_record
from arena.search import PimcPolicy

LOGGER = logging.getLogger(__name__)


BUILTIN_POLICIES: dict[str, Callable[[int], Policy]] = {**POLICIES, "pimc": PimcPolicy}
"""Built-in policies by name (``arena simulate --players``, ``builtin:NAME`` seats): the
engine's own plus the PIMC search, which lives above the engine in ``arena.search``."""


class UnknownPolicyError(ValueError):
    """Raised for a policy name that is not built in."""


@dataclass
class SimulationSummary:
    """Totals of a simulation run."""

    games: int = 0
    hands: int = 0
    decisions: int = 0
    seconds: float = 0.0
    wins: list[int] = field(default_factory=lambda: [0, 0, 0])
    """Games won outright per seat."""
    draws: int = 0
    """Games with a shared first place."""

    @property
    def hands_per_second(self) -> float:
        """Hands played per wall-clock second."""
        return self.hands / self.seconds if self.seconds else 0.0


def make_policies(names: Sequence[str], seed: int) -> list[Policy]:
    """One policy per seat; seat *i*'s RNG is seeded from *seed* and *i*.

    :raises UnknownPolicyError: for a name that is not built in.
    """
    policies = []
    for seat, name in enumerate(names):
        factory = BUILTIN_POLICIES.get(name)
        if factory is None:
            raise UnknownPolicyError(
                f"unknown policy {name!r}; choose from: {', '.join(sorted(BUILTIN_POLICIES))}"
            )
        policies.append(factory(seed * 3 + seat))
    return policies


def play_game(rules: RuleSet, seed: int, policies: Sequence[Policy]) -> GameState:
    """Play one whole game; each seat's policy sees only its observation."""
    state = GameState(rules, seed)
    while not state.is_over:
        seat = state.current_seat
        state.apply_decision(policies[seat].act(observe(state, seat)))
    return state


def simulate(
    rules: RuleSet,
    games: int,
    seed: int,
    out_dir: Path,
    player_names: Sequence[str],
    on_game: Callable[[SimulationSummary], None] | None = None,
) -> SimulationSummary:
    """Play *games* games, game *i* with seed ``seed + i``, writing ``out_dir/<seed>.json``.

    Each record is written to a temporary name and renamed, so an interrupted run never
    leaves a half-written record behind.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = SimulationSummary()
    start = time.perf_counter()
    for i in range(games):
        game_seed = seed + i
        policies = make_policies(player_names, game_seed)
        state = play_game(rules, game_seed, policies)
        record = game_record(state, [f"{p.name}@builtin" for p in policies])
        write_record(out_dir, record)
        assert state.result is not None
        summary.games += 1
        summary.hands += state.result.hands_played
        summary.decisions += state.decisions
        if state.result.is_draw:
            summary.draws += 1
        else:
            summary.wins[state.result.winners[0]] += 1
        summary.seconds = time.perf_counter() - start
        if on_game is not None:
            on_game(summary)
    LOGGER.info("simulated %d games in %.2f s", summary.games, summary.seconds)
    return summary
