"""weak_greedy_bot: greedy play weakened on purpose, for the version test's end-to-end test.

Each card it plays is, with probability ``--random-play P``, a uniformly random legal card
instead of the greedy choice; its trump calls and discards stay greedy. Its generator is
seeded afresh at every game from the game's number and seat, so a game on the same deal
plays the same way whichever earlier games its process played (a reproducible opponent,
also under process reuse).
"""

import argparse
import random

from arena.game import Card, Observation, Play
from arena.sdk import Bot, GameStart


class WeakGreedyBot(Bot):
    name, version = "weak_greedy_bot", "1.0.0"

    def __init__(self, random_play: float) -> None:
        super().__init__()
        self.random_play = random_play
        self.rng = random.Random(952)

    def on_game_start(self, start: GameStart) -> None:
        self.rng = random.Random(f"952-{start.game_number}-{start.seat}")

    def play(self, obs: Observation) -> Play | Card:
        assert obs.request is not None
        if self.rng.random() < self.random_play:
            return Play(self.rng.choice(obs.request.cards))
        return super().play(obs)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--random-play", type=float, default=0.5)
    WeakGreedyBot(parser.parse_args().random_play).run()
