"""pimc_bot: the arena's reference opponent, a perfect-information Monte Carlo player.

For every decision it samples deals of the cards it has not seen, consistent with
everything its observation implies (cards played, suits a seat failed to follow, its own
exchange legs, the kitty and its discards when it dealt, cards the dealer showed it),
plays each candidate decision out in every sampled deal, and takes the best on average.
The search is ``arena.search.PimcPolicy``; this file only connects it to the referee and
to the clock.

Time: it thinks at most ``--budget-ms`` per decision (default 100), and less when the
referee's clock says so: it reads the clock of the request being decided (``self.clock``,
set by the SDK) and plans within a safe share of the allowance plus a small slice of the
bank (``arena.search.think_seconds``), so it never exceeds the time control.
"""

from __future__ import annotations

import argparse
import random

from arena.game import Decision
from arena.sdk import Bot, GameStart, Observation
from arena.search import DEFAULT_BUDGET_MS, PimcPolicy, think_seconds


class PimcBot(Bot):
    name, version = "pimc_bot", "1.0.1"

    def __init__(self, budget_ms: float, seed: int) -> None:
        super().__init__()
        self.budget_ms = budget_ms
        self.seed = seed
        self.policy = PimcPolicy(seed, budget_ms)

    def on_game_start(self, start: GameStart) -> None:
        # Reseeded per game and seat, so a match replays the same way.
        seed = random.Random(f"{self.seed}-{start.game_number}-{start.seat}").randrange(1 << 62)
        self.policy = PimcPolicy(seed, self.budget_ms)

    def decide(self, obs: Observation) -> Decision:
        assert self.clock is not None  # the SDK sets it before every decision
        seconds = think_seconds(self.budget_ms, self.clock.decision_ms, self.clock.bank_ms)
        return self.policy.decide(obs, seconds)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--budget-ms", type=float, default=DEFAULT_BUDGET_MS)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    PimcBot(args.budget_ms, args.seed).run()
