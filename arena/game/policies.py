"""Built-in policies: decisions computed from an :class:`Observation` alone.

They serve as opponents in ``arena simulate``, as the referee's autopilot for a seat whose
bot has faulted, and as baselines. Because they only see an observation, they can never
use information their seat should not have.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol

from arena.game.actions import CallTrump, Decision, DecisionKind, Discard, Give, Play
from arena.game.cards import Card, Trump
from arena.game.observation import Observation


class Policy(Protocol):
    """Anything that answers a decision request from an observation."""

    name: str

    def act(self, observation: Observation) -> Decision:
        """The decision for ``observation.request``."""
        ...


class RandomPolicy:
    """Uniformly random legal decisions from its own seeded RNG."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def act(self, observation: Observation) -> Decision:
        request = observation.request
        if request is None:
            raise ValueError(f"seat {observation.seat} has nothing to decide")
        rng = self._rng
        if request.kind is DecisionKind.PLAY:
            return Play(rng.choice(request.cards))
        if request.kind is DecisionKind.TRUMP:
            return CallTrump(rng.choice(request.trump_options))
        if request.kind is DecisionKind.DISCARD:
            return Discard(tuple(sorted(rng.sample(request.cards, request.discard_count))))
        total = sum(count for _, count in request.give_legs)
        chosen = rng.sample(request.cards, total)
        return Give(_split(chosen, [count for _, count in request.give_legs]))


class GreedyPolicy:
    """A simple, deterministic player: it keeps strength, sheds weakness, and chases or
    ducks tricks depending on whether its contract is already made.

    Good enough to beat random play by a wide margin, and safe as an autopilot.
    """

    name = "greedy"

    def act(self, observation: Observation) -> Decision:
        request = observation.request
        if request is None:
            raise ValueError(f"seat {observation.seat} has nothing to decide")
        trump = observation.trump
        trump_suit = None if trump is None else trump.suit
        if request.kind is DecisionKind.TRUMP:
            return CallTrump(_best_trump(observation.hand, request.trump_options))
        if request.kind is DecisionKind.DISCARD:
            weakest = sorted(request.cards, key=lambda c: _keep_value(c, trump_suit))
            return Discard(tuple(sorted(weakest[: request.discard_count])))
        if request.kind is DecisionKind.GIVE:
            weakest = sorted(request.cards, key=lambda c: _keep_value(c, trump_suit))
            total = sum(count for _, count in request.give_legs)
            return Give(_split(weakest[:total], [count for _, count in request.give_legs]))
        return Play(_play(observation, request.cards, trump_suit))


def _split(cards: Sequence[Card], counts: Sequence[int]) -> tuple[tuple[Card, ...], ...]:
    out = []
    start = 0
    for count in counts:
        out.append(tuple(sorted(cards[start : start + count])))
        start += count
    return tuple(out)


def _keep_value(card: Card, trump_suit: int | None) -> int:
    """How much a card is worth keeping: rank, plus a premium for trumps."""
    return card.rank + (13 if trump_suit is not None and card.suit == trump_suit else 0)


def _best_trump(hand: Sequence[Card], options: Sequence[Trump]) -> Trump:
    """The suit with the most length and strength; no trump for a hand full of aces."""

    def strength(trump: Trump) -> float:
        suit = trump.suit
        if suit is None:
            return sum(1.0 for c in hand if c.rank >= 11) * 1.6
        cards = [c for c in hand if c.suit == suit]
        return len(cards) + sum(c.rank for c in cards) / 13

    return max(options, key=strength)


def _play(observation: Observation, legal: Sequence[Card], trump_suit: int | None) -> Card:
    seat = observation.seat
    need = observation.contracts[seat] - observation.tricks_won[seat]
    trick = observation.current_trick
    played = trick.cards if trick is not None else ()
    lowest: Callable[[Card], int] = lambda c: _keep_value(c, trump_suit)  # noqa: E731
    if not played:
        return max(legal, key=lowest) if need > 0 else min(legal, key=lowest)
    winners = [c for c in legal if _beats_all(c, played, trump_suit)]
    if need > 0:
        return min(winners, key=lowest) if winners else min(legal, key=lowest)
    losers = [c for c in legal if c not in winners]
    return max(losers, key=lowest) if losers else min(legal, key=lowest)


def _beats_all(card: Card, played: Sequence[Card], trump_suit: int | None) -> bool:
    """Whether *card* would beat every card already in the trick."""
    led = played[0].suit
    for other in played:
        if card.suit == other.suit:
            if card.rank < other.rank:
                return False
        elif card.suit == trump_suit:
            continue
        elif other.suit == trump_suit or card.suit != led:
            return False
    return True


class EpsilonGreedyPolicy:
    """Greedy play with a uniformly random decision with probability *epsilon*: players of
    known strength order (smaller epsilon, stronger), for measuring how fast a schedule
    finds that order."""

    name = "epsilon_greedy"

    def __init__(self, epsilon: float, seed: int) -> None:
        self.epsilon = epsilon
        self.rng = random.Random(seed)
        self.greedy = GreedyPolicy()
        self.random = RandomPolicy(seed + 1)

    def act(self, observation: Observation) -> Decision:
        chosen = self.random if self.rng.random() < self.epsilon else self.greedy
        return chosen.act(observation)


POLICIES: dict[str, Callable[[int], Policy]] = {
    "random": RandomPolicy,
    "greedy": lambda seed: GreedyPolicy(),
}
"""Built-in policy factories by name; each takes a seed."""
