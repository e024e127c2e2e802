"""Bots from functions of the encoded observation: the road from a trained policy to the arena.

A *policy function* takes the encoding of :mod:`arena.envs.encoding` (a list of
:data:`~arena.envs.encoding.SIZE` floats) and the 57-value action mask, and returns an
action id, exactly as an agent of the PettingZoo environment or the OpenSpiel game does.
:class:`EncodedBot` turns it into an arena bot: the referee asks for whole decisions, so
a give of *k* cards or the 4-card discard is taken as *k* (or 4) steps, each on the
observation the environment would show at that step. Everything here is pure Python, so a
bot needs no numpy in the sandbox (a policy function may use numpy if the bot installs it).

```python
from arena.sdk import EncodedBot

def first_legal(features: list[float], mask: list[int]) -> int:
    return mask.index(1)

if __name__ == "__main__":
    EncodedBot(first_legal, name="first_legal", version="1.0").run()
```
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable
from typing import SupportsIndex

from arena.envs.encoding import action_mask, action_of, encode
from arena.game import CallTrump, Card, DecisionKind, Discard, Give, Observation, Play, Trump
from arena.game.actions import Decision
from arena.sdk.bot import Bot

PolicyFunction = Callable[[list[float], list[int]], int]
"""``(encoded observation, action mask) -> action id``."""


class IllegalPolicyAction(ValueError):
    """The policy function chose an action its mask does not allow."""


def step_observation(obs: Observation, picks: tuple[Card, ...]) -> Observation:
    """The observation of the same seat after it has picked *picks* of a give or discard,
    as the engine shows it at the next step: picked gives wait in ``pending_give`` until
    the give is complete; discarded cards leave the hand one by one."""
    request = obs.request
    assert request is not None
    chosen = set(picks)
    if request.kind is DecisionKind.GIVE:
        remaining = tuple(c for c in request.cards if c not in chosen)
        return dataclasses.replace(
            obs,
            pending_give=obs.pending_give + picks,
            request=dataclasses.replace(request, cards=remaining),
        )
    hand = tuple(c for c in obs.hand if c not in chosen)
    discards = (obs.discards or ()) + picks
    return dataclasses.replace(
        obs,
        hand=hand,
        discards=discards,
        request=dataclasses.replace(
            request, cards=hand, discard_count=request.discard_count - len(picks)
        ),
    )


def decide_encoded(policy: PolicyFunction, obs: Observation) -> Decision:
    """The whole decision *policy* takes for ``obs.request``, one step at a time.

    :raises IllegalPolicyAction: if the policy picks an action its mask forbids.
    """
    request = obs.request
    if request is None:
        raise ValueError(f"seat {obs.seat} has nothing to decide")
    if request.kind is DecisionKind.TRUMP or request.kind is DecisionKind.PLAY:
        action = _step(policy, obs)
        if isinstance(action, Trump):
            return CallTrump(action)
        return Play(action)
    total = (
        request.discard_count
        if request.kind is DecisionKind.DISCARD
        else sum(count for _, count in request.give_legs)
    )
    picks: tuple[Card, ...] = ()
    while len(picks) < total:
        action = _step(policy, step_observation(obs, picks) if picks else obs)
        assert isinstance(action, Card)  # the mask of a give or discard holds cards only
        picks += (action,)
    if request.kind is DecisionKind.DISCARD:
        return Discard(picks)
    legs, start = [], 0
    for _, count in request.give_legs:
        legs.append(picks[start : start + count])
        start += count
    return Give(tuple(legs))


def _step(policy: PolicyFunction, obs: Observation) -> Card | Trump:
    mask = action_mask(obs)
    chosen: object = policy(encode(obs), mask)
    # An int, or a numpy integer; anything else is no action.
    index = operator.index(chosen) if isinstance(chosen, SupportsIndex) else -1
    if not 0 <= index < len(mask) or not mask[index]:
        raise IllegalPolicyAction(f"the policy chose action {chosen!r}, not allowed by its mask")
    return action_of(index)


class EncodedBot(Bot):
    """A bot whose every decision comes from a policy function on the encoding."""

    def __init__(
        self, policy: PolicyFunction, name: str = "encoded_bot", version: str = "0"
    ) -> None:
        super().__init__()
        self.policy = policy
        self.name = name
        self.version = version

    def decide(self, obs: Observation) -> Decision:
        """Every request goes to the policy function."""
        return decide_encoded(self.policy, obs)


class EncodedPolicy:
    """The same policy function as an in-process :class:`arena.game.policies.Policy`
    (``arena.simulate.play_game``, evaluations without bot processes)."""

    def __init__(self, policy: PolicyFunction, name: str = "encoded") -> None:
        self.policy = policy
        self.name = name

    def act(self, observation: Observation) -> Decision:
        """The decision the policy function takes."""
        return decide_encoded(self.policy, observation)
