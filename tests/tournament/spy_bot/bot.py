"""spy_bot: a hostile bot that tries to learn the deal.

It prints to stderr (which the referee keeps in the record's ``bot_logs``) everything it
was given: its environment, the files it can see in its directory and HOME, and every
message from the referee in hex. With ``--search N`` it also does what the attacker did:
try the seeds 0..N of the old ``random.Random(seed)`` deal against its own 16 cards, and
prints ``FOUND <seed> <opponents' hands>`` or ``NOT FOUND``. Otherwise it plays randomly.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
from pathlib import Path

from arena.sdk import Bot, CallTrump, Discard, Give, Observation, Play
from arena.v1 import arena_pb2 as pb


def _mask(cards: object) -> int:
    mask = 0
    for card in cards:  # type: ignore[attr-defined]
        mask |= 1 << int(card)
    return mask


def legacy_deal(seed: int, dealer: int) -> tuple[list[int], int]:
    """The old engine's first deal of *seed*: draw the first dealer, shuffle, deal."""
    rng = random.Random(seed)
    rng.randrange(3)
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [0, 0, 0]
    for i in range(48):
        hands[(dealer + 1 + i) % 3] |= 1 << deck[i]
    return hands, sum(1 << c for c in deck[48:])


class SpyBot(Bot):
    name, version = "spy_bot", "1.0.0"

    def __init__(self, search: int) -> None:
        super().__init__()
        self.search = search
        self.rng = random.Random()
        self.searched = False

    def _handle(
        self, message: pb.RefereeMessage, outbox: asyncio.Queue[pb.BotMessage | None]
    ) -> bool:
        kind = message.WhichOneof("message")
        if kind in ("welcome", "game_start") or not self.searched:
            print(f"MSG {kind} {message.SerializeToString().hex()}", file=sys.stderr)
        return super()._handle(message, outbox)

    def _spy(self, obs: Observation) -> None:
        if self.searched:
            return
        self.searched = True
        mine, seat, dealer = _mask(obs.dealt), obs.seat, obs.dealer
        found = None
        for seed in range(self.search + 1):
            hands, kitty = legacy_deal(seed, dealer)
            if hands[seat] == mine:
                found = (seed, hands, kitty)
                break
        if found is None:
            print("NOT FOUND", file=sys.stderr)
        else:
            seed, hands, kitty = found
            print(f"FOUND {seed} {hands[0]} {hands[1]} {hands[2]} {kitty}", file=sys.stderr)

    def decide(self, obs: Observation):  # type: ignore[no-untyped-def]
        if obs.hand_number == 1:
            self._spy(obs)
        return super().decide(obs)

    def play(self, obs: Observation) -> Play:
        assert obs.request is not None
        return Play(self.rng.choice(obs.request.cards))

    def trump(self, obs: Observation) -> CallTrump:
        assert obs.request is not None
        return CallTrump(self.rng.choice(obs.request.trump_options))

    def discard(self, obs: Observation) -> Discard:
        assert obs.request is not None
        return Discard(tuple(self.rng.sample(obs.request.cards, obs.request.discard_count)))

    def give(self, obs: Observation) -> Give:
        assert obs.request is not None
        counts = [count for _, count in obs.request.give_legs]
        chosen = self.rng.sample(obs.request.cards, sum(counts))
        legs, start = [], 0
        for count in counts:
            legs.append(tuple(chosen[start : start + count]))
            start += count
        return Give(tuple(legs))


def dump_surroundings() -> None:
    for key, value in sorted(os.environ.items()):
        print(f"ENV {key}={value}", file=sys.stderr)
    for root in {Path.cwd(), Path(os.environ.get("HOME", "/nonexistent"))}:
        try:
            files = [p for p in root.rglob("*") if p.is_file()][:50]
        except OSError:
            continue
        for path in files:
            try:
                data = path.read_bytes()[:4096]
            except OSError:
                continue
            print(f"FILE {path} {data.hex()}", file=sys.stderr)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--search", type=int, default=0)
    dump_surroundings()
    SpyBot(parser.parse_args().search).run()
