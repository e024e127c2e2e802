"""weak_greedy_bot: greedy play weakened on purpose, for the version test's end-to-end test.

Each card it plays is, with probability ``--random-play P``, a uniformly random legal card
instead of the greedy choice; its trump calls and discards stay greedy. Its generator has a
fixed seed, so given the same deals it plays the same game (a reproducible opponent).
"""

import argparse
import random

from arena.game import Card, Observation, Play
from arena.sdk import Bot


class WeakGreedyBot(Bot):
    name, version = "weak_greedy_bot", "1.0.0"

    def __init__(self, random_play: float) -> None:
        super().__init__()
        self.random_play = random_play
        self.rng = random.Random(952)

    def play(self, obs: Observation) -> Play | Card:
        assert obs.request is not None
        if self.rng.random() < self.random_play:
            return Play(self.rng.choice(obs.request.cards))
        return super().play(obs)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--random-play", type=float, default=0.5)
    WeakGreedyBot(parser.parse_args().random_play).run()
