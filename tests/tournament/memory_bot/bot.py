"""memory_bot: a bot that remembers every holding it has seen in its process lifetime.

It keeps, over all games its process plays, its own dealt cards of each hand and the cards
each opponent played in hand 1. When a new game's first holding shares at least
:data:`KNOWN` cards with a remembered one (two random holdings share about 5) it prints
``KNOWN-DEAL <game_id> ...`` to stderr: it has met this deal before and could play on
that knowledge. It also prints ``PROCESS <id> GAME <n> <game_id>`` at every game start,
so a test sees which games one process played, and ``END <game_id>`` after the game's
last decision (when its GameEnd arrives), so a test sees where that output is charged.

``--illegal`` makes every process answer its first request with a card it does not hold
(a fault: its next game must get a fresh process).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

from arena.game import Card
from arena.protocol import convert
from arena.sdk import Bot, Observation, Play

KNOWN = 12
"""Shared cards that mean "the same holding" (a holding is 16 cards)."""


class MemoryBot(Bot):
    name, version = "memory_bot", "1.0.0"

    def __init__(self, illegal: bool) -> None:
        super().__init__()
        self.illegal = illegal
        self.rng = random.Random(0)
        self.games = 0
        self.process = os.urandom(8).hex()
        """Names this process (its pid is the same in every sandbox's pid namespace)."""
        self.game_id = ""
        self.seen: list[frozenset[Card]] = []
        """Holdings remembered from earlier games of this process."""
        self.current: list[frozenset[Card]] = []
        self.checked = False

    def on_game_start(self, start: convert.GameStart) -> None:
        self.games += 1
        self.game_id = start.game_id
        self.checked = False
        self.current = []
        self.rng = random.Random(f"{start.game_id}-{start.seat}")
        print(f"PROCESS {self.process} GAME {self.games} {start.game_id}", file=sys.stderr)

    def on_hand_end(self, end: convert.HandEnd) -> None:
        if end.summary.number != 1:
            return
        played: list[set[Card]] = [set(), set(), set()]
        for trick in end.tricks:
            for offset, card in enumerate(trick.cards):
                played[(trick.leader + offset) % 3].add(card)
        self.current += [frozenset(cards) for seat, cards in enumerate(played) if seat != self.seat]

    def on_game_end(self, end: convert.GameEnd) -> None:
        self.seen += self.current
        # A moment after the GameEnd, as a summary that takes work would be: a cut that does
        # not wait for the bot's output then always misses the line (the logs test's control).
        time.sleep(0.05)
        print(f"END {end.game_id}", file=sys.stderr)

    def decide(self, obs: Observation):  # type: ignore[no-untyped-def]
        if obs.hand_number == 1 and not self.checked:
            self.checked = True
            dealt = frozenset(obs.dealt)
            best = max((len(dealt & old) for old in self.seen), default=0)
            if best >= KNOWN:
                print(f"KNOWN-DEAL {self.game_id} shares {best} cards", file=sys.stderr)
            self.current.append(dealt)
        if self.illegal:
            self.illegal = False
            held = set(obs.hand)
            return Play(next(Card(i) for i in range(52) if Card(i) not in held))
        return super().decide(obs)

    def play(self, obs: Observation) -> Play:
        assert obs.request is not None
        return Play(self.rng.choice(obs.request.cards))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--illegal", action="store_true")
    MemoryBot(parser.parse_args().illegal).run()
