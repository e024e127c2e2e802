"""cheater: plays a card it does not hold (one from another seat, never played yet)."""

import os
import sys

from arena.game.cards import FULL_DECK, Card, cards_in
from arena.sdk import Bot, Observation, Play


class Cheater(Bot):
    name, version = "cheater", "1"

    def play(self, obs: Observation) -> Play:
        seen = set(obs.hand)
        for trick in obs.tricks:
            seen.update(trick.cards)
        if obs.current_trick is not None:
            seen.update(obs.current_trick.cards)
        if obs.kitty is not None:
            seen.update(obs.kitty)
        card = next(Card(c) for c in cards_in(FULL_DECK) if c not in seen)
        print(
            f"ZOO-MISBEHAVES decision=play hand={obs.hand_number} card={card}",
            file=sys.stderr,
            flush=True,
        )
        return Play(card)


if __name__ == "__main__":
    print(f"cheater started pid={os.getpid()}", file=sys.stderr, flush=True)
    Cheater().run()
