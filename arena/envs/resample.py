"""Resampling an OpenSpiel state of 9-5-2 from one seat's information state (for ISMCTS).

ISMCTS needs, for every simulation, a whole state drawn among those the seat cannot tell
from the real one. The hidden cards are drawn by the PIMC bot's sampler
(:mod:`arena.search.knowledge` says what the seat's observation implies about them, the
exchange, the kitty and the shows included; :mod:`arena.search.sampler` draws a world that
fits), and this module turns that world into an OpenSpiel history: this hand's deal (its 52
chance draws) and the other seats' hidden choices, after the earlier hands, which are kept
as they were (they cannot change what follows).

* Before the exchange is complete the world is the deal itself, and the others' hidden gives
  and discards are made again during the replay (keeping the cards the seat saw them give).
* Once it is complete the world is where the cards are now, and the hand is unwound to its
  deal (:mod:`arena.envs.unwind`).

Each candidate is replayed through the engine and returned only if the seat's
information-state text is unchanged, so a state that is returned is always consistent.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol

from arena.envs.encoding import action_index
from arena.envs.unwind import Unwound, unwind
from arena.game import GameState, Observation, Phase, observe
from arena.search import Knowledge, Regime, SamplingError, knowledge_of, sample_world
from arena.search.knowledge import mask_of

Tag = tuple[str, int, int, "Phase | None"]
"""What one history entry was: (``dealer``, ``draw`` or ``act``; the hand the draw deals or
the action is played in; the acting seat or -1; the phase of the action)."""


class SampledState(Protocol):
    """What the resampler needs of an OpenSpiel state (``SampledState``)."""

    def history(self) -> list[int]: ...
    def tags(self) -> list[Tag]: ...
    def drawn(self, hand: int) -> list[int]: ...
    def game_state(self) -> GameState: ...
    def view(self, player: int) -> Observation | None: ...
    def information_text(self, player: int) -> str: ...
    def clone(self) -> Any: ...
    def apply_action(self, action: int) -> None: ...
    def get_game(self) -> Any: ...


HIDDEN = (Phase.GIVE, Phase.DISCARD)
"""Phases whose actions only the acting seat (and a receiver, for a give) sees."""
ATTEMPTS = 2000
"""Worlds drawn before giving up. A world is redrawn only when no exchange could have led to
it (a hidden giver without enough cards above the receiver's, say); the real cards always
could, and in seeded random games no position needs more than a few dozen draws
(tests/envs/test_resample.py), so reaching the bound means a bug, reported as such."""


class Resampler:
    """A state drawn among those *player* cannot tell from *state* (one per :meth:`sample`)."""

    def __init__(self, state: SampledState, player: int, rng: random.Random) -> None:
        self.state = state
        self.player = player
        self.rng = rng
        obs = state.view(player)
        assert obs is not None  # resampling starts once hand 1 is dealt
        self.obs: Observation = obs
        self.hand = obs.hand_number
        self.target = state.information_text(player)
        history, tags = state.history(), state.tags()
        first = next(i for i, t in enumerate(tags) if t[0] == "draw" and t[1] == self.hand)
        self.prefix = history[:first]
        self.rest: list[tuple[Tag, int]] = list(zip(tags[first:], history[first:], strict=True))
        self.knowledge = _knowledge(obs)

    def sample(self) -> SampledState:
        """Draw worlds until one replays to the seat's information state.

        :raises RuntimeError: if none does within :data:`ATTEMPTS` draws (a bug).
        """
        start: SampledState = self.state.get_game().new_initial_state()
        for action in self.prefix:
            start.apply_action(action)
        for _ in range(ATTEMPTS):
            try:
                world = sample_world(self.knowledge, self.rng)
            except SamplingError as exc:
                raise RuntimeError(f"seat {self.player}'s knowledge admits no world") from exc
            plan = self._plan(world)
            if plan is None:
                continue
            candidate: SampledState = start.clone()
            if self._play(candidate, plan) and (
                candidate.information_text(self.player) == self.target
            ):
                return candidate
        raise RuntimeError(
            f"no state consistent with seat {self.player}'s information was found "
            f"in {ATTEMPTS} draws"
        )

    def _plan(self, world: tuple[int, int, int, int]) -> Unwound | None:
        """The deal and the hidden choices behind *world*, or ``None`` if none fits."""
        if self.knowledge.regime is Regime.DEAL:
            deal = (world[0], world[1], world[2])
            return Unwound(deal=deal, kitty=world[3], picks={})
        picks_made: dict[tuple[int, Phase], list[int]] = {}
        for tag, action in self.rest:
            if tag[0] == "act" and tag[3] in HIDDEN:
                picks_made.setdefault((tag[2], tag[3]), []).append(action)
        return unwind(self.obs, world, picks_made, self.rng)

    # ---------------------------------------------------------------- the replay

    def _play(self, state: SampledState, plan: Unwound) -> bool:
        """Deal *plan*'s cards, then replay the hand with the hidden choices made again."""
        order = self._draw_order(plan)
        queues = {key: list(picks) for key, picks in plan.picks.items()}
        for tag, actual in self.rest:
            action: int | None = actual
            if tag[0] == "draw" and tag[1] == self.hand:
                action = order.pop()
            elif tag[0] == "draw":
                # The next hand's deal, drawn before its last trick: nobody has seen it.
                drawn = set(state.drawn(tag[1]))
                action = self.rng.choice([c for c in range(52) if c not in drawn])
            elif tag[2] != self.player and tag[3] in HIDDEN and tag[1] == self.hand:
                queue = queues.get((tag[2], tag[3]))
                action = queue.pop(0) if queue else self._hidden_choice(state, tag, actual)
            if action is None:
                return False
            try:
                state.apply_action(action)
            except Exception:  # an illegal replay (the engine's error, maybe wrapped by pyspiel)
                return False
        return True

    def _draw_order(self, plan: Unwound) -> list[int]:
        """The 52 draws that deal *plan*, last first (card n goes to seat dealer + 1 + n)."""
        dealer = self.obs.dealer
        queues = [_cards(plan.deal[s]) for s in range(3)]
        for queue in queues:
            self.rng.shuffle(queue)
        order = [queues[(dealer + 1 + i) % 3].pop() for i in range(48)]
        kitty = _cards(plan.kitty)
        return list(reversed(order + kitty))

    def _hidden_choice(self, state: SampledState, tag: Tag, actual: int) -> int | None:
        """A give pick or discard of another seat that the unwinding left open.

        Nothing this seat sees depends on it but the cards it saw that seat give it: those
        are given again (a pick of its leg) or kept (any other pick or discard).
        """
        engine = state.game_state()
        seat = engine.current_seat
        promised = self._promised(seat)
        if tag[3] is Phase.GIVE:
            request = observe(engine, seat).request
            assert request is not None
            picked = len(engine.pending_picks)
            if _receiver_of_pick(request.give_legs, picked) == self.player and promised:
                return actual
        legal = [action_index(a) for a in engine.legal_actions()]
        options = [a for a in legal if not promised >> a & 1]
        return self.rng.choice(options) if options else None

    def _promised(self, giver: int) -> int:
        """The cards this seat saw *giver* give it (their give is complete)."""
        mask = 0
        for leg in self.obs.exchange:
            if leg.giver == giver and leg.receiver == self.player and leg.given is not None:
                mask |= mask_of(list(leg.given))
        return mask


def _knowledge(obs: Observation) -> Knowledge:
    """The seat's knowledge, with what the search's derivation leaves out for a seat that is
    not to act (a search only ever asks for the seat to act; a resampler for any seat)."""
    if obs.discards and not obs.discard_done:
        # A dealer part-way through a step-level discard: the cards already put aside are
        # his as much as the ones still in hand.
        obs = replace(obs, hand=tuple(sorted((*obs.hand, *obs.discards))))
    knowledge = knowledge_of(obs)
    if knowledge.regime is Regime.DEAL:
        knowledge = _with_my_returns(obs, knowledge)
    return knowledge


def _with_my_returns(obs: Observation, knowledge: Knowledge) -> Knowledge:
    """Before the exchange is complete, a leg the seat gave in may already be resolved (the
    first of two givers, while the second gives): the receiver's dealt hand held the
    returns the seat got, and nothing above the lowest of them in each given suit."""
    allowed = list(knowledge.allowed)
    for leg in obs.exchange:
        if leg.giver != obs.seat or leg.given is None or leg.returned is None:
            continue
        given, returned = mask_of(list(leg.given)), mask_of(list(leg.returned))
        for holder in range(4):
            if holder != leg.receiver:
                allowed[holder] &= ~(returned & ~given)
        for card in leg.returned:
            lowest = min(c for c in leg.returned if c // 13 == card // 13)
            allowed[leg.receiver] &= ~(_above(lowest) & ~returned)
    return replace(knowledge, allowed=(allowed[0], allowed[1], allowed[2], allowed[3]))


def _above(card: int) -> int:
    """Mask of the cards of *card*'s suit ranked above it."""
    top = (card // 13) * 13 + 13
    return ((1 << top) - 1) & ~((1 << (card + 1)) - 1)


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def _receiver_of_pick(legs: Sequence[tuple[int, int]], picked: int) -> int:
    """The receiver of the pick after *picked* cards of a give (legs in plan order)."""
    for receiver, count in legs:
        if picked < count:
            return receiver
        picked -= count
    return legs[-1][0]
