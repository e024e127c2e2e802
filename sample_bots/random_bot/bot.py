"""random_bot: uniformly random legal decisions, reproducible.

The RNG is seeded from --seed, the game number and the seat at every GameStart, so the
same match replays the same way (tournaments rely on that to resume after a crash).
"""

from __future__ import annotations

import argparse
import random

from arena.sdk import Bot, CallTrump, Discard, GameStart, Give, Play, Turn


class RandomBot(Bot):
    name, version = "random_bot", "1.0.0"

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.seed = seed
        self.rng = random.Random(seed)

    def on_game_start(self, start: GameStart) -> None:
        self.rng = random.Random(f"{self.seed}-{start.game_number}-{start.seat}")

    def play(self, obs: Turn) -> Play:
        return Play(self.rng.choice(obs.request.cards))

    def trump(self, obs: Turn) -> CallTrump:
        return CallTrump(self.rng.choice(obs.request.trump_options))

    def discard(self, obs: Turn) -> Discard:
        return Discard(tuple(self.rng.sample(obs.request.cards, obs.request.discard_count)))

    def give(self, obs: Turn) -> Give:
        counts = [count for _, count in obs.request.give_legs]
        chosen = self.rng.sample(obs.request.cards, sum(counts))
        legs, start = [], 0
        for count in counts:
            legs.append(tuple(chosen[start : start + count]))
            start += count
        return Give(tuple(legs))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    RandomBot(parser.parse_args().seed).run()
