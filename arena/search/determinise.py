"""A :class:`GameState` for one sampled world, standing where the observation stands.

The state is built through the engine's public API only: :meth:`GameState.from_position`
deals the sampled cards, and the hand is replayed up to the seat's decision with
:meth:`GameState.apply_decision`, so the engine checks every step (a world that could not
have happened raises instead of silently diverging).

* Current regime (exchange complete or none): the deal is each seat's hand now plus the
  cards it has played, the kitty is the dead pile; the hand starts without an exchange
  (its steps are then the same in every preset), the dealer takes the "kitty" and
  discards those same cards, and the observed tricks are replayed. Trick play from there
  on is exactly the real one's.
* Deal regime (exchange under way): the deal is the sampled dealt hands and kitty, the
  real previous deltas drive the exchange, and decisions the seat did not see (another
  giver's cards, another dealer's discard) are filled in by a simple rule that keeps the
  cards the seat knows were given to it.
"""

from __future__ import annotations

from functools import lru_cache

from arena.game import (
    CARDS,
    CallTrump,
    Card,
    Discard,
    GameState,
    Give,
    Observation,
    Phase,
    RuleSet,
    observe,
)
from arena.search.knowledge import DEAD, Regime, mask_of, played_by_seat


class ReplayError(RuntimeError):
    """The replay could not reach the observation's decision (a bug, not bad luck)."""


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a mask, sorted."""
    out = []
    while mask:
        low = mask & -mask
        out.append(CARDS[low.bit_length() - 1])
        mask ^= low
    return tuple(out)


def build_state(obs: Observation, regime: Regime, world: tuple[int, int, int, int]) -> GameState:
    """The state of the sampled *world* at the observation's decision point.

    :raises ReplayError: if the replay cannot reach that point.
    """
    start = _current_start if regime is Regime.CURRENT else _deal_start
    state = start(obs, world)
    _replay(obs, state, regime, world)
    return state


@lru_cache(maxsize=64)
def last_hand_rules(rules: RuleSet, hand_number: int) -> RuleSet:
    """*rules* with the game capped after hand *hand_number*: a search looks no further
    than the hand, and the engine then deals no next hand at the end of every playout."""
    return rules.replace(max_hands=hand_number)


def _current_start(obs: Observation, world: tuple[int, int, int, int]) -> GameState:
    played = played_by_seat(obs)
    deal = [world[s] | played[s] for s in range(3)]
    kitty = world[DEAD]
    if obs.seat == obs.dealer and obs.kitty is not None and not obs.discard_done:
        kitty = mask_of(list(obs.kitty))
        deal[obs.seat] &= ~kitty
    return GameState.from_position(
        last_hand_rules(obs.rules, obs.hand_number),
        dealer=obs.dealer,
        deal=(cards_of(deal[0]), cards_of(deal[1]), cards_of(deal[2])),
        kitty=cards_of(kitty),
        previous_deltas=None,
        scores=obs.scores,
        hands_played=obs.hand_number - 1,
    )


def _deal_start(obs: Observation, world: tuple[int, int, int, int]) -> GameState:
    return GameState.from_position(
        last_hand_rules(obs.rules, obs.hand_number),
        dealer=obs.dealer,
        deal=(cards_of(world[0]), cards_of(world[1]), cards_of(world[2])),
        kitty=cards_of(world[DEAD]),
        previous_deltas=obs.previous_deltas,
        scores=obs.scores,
        hands_played=obs.hand_number - 1,
    )


def _observed_plays(obs: Observation) -> list[Card]:
    plays = [card for trick in obs.tricks for card in trick.cards]
    if obs.current_trick is not None:
        plays.extend(obs.current_trick.cards)
    return plays


def _replay(
    obs: Observation, state: GameState, regime: Regime, world: tuple[int, int, int, int]
) -> None:
    me = obs.seat
    plays = _observed_plays(obs)
    done = 0
    for _ in range(200):  # a hand has fewer steps; the bound only stops a runaway bug
        if state.is_over:
            break
        phase, seat = state.phase, state.current_seat
        if seat == me and phase is obs.phase and (phase is not Phase.PLAY or done == len(plays)):
            return
        if phase is Phase.PLAY:
            if done >= len(plays):
                break
            state.apply(plays[done])
            done += 1
        elif phase is Phase.TRUMP:
            if obs.trump is None:
                break
            state.apply_decision(CallTrump(obs.trump))
        elif phase is Phase.DISCARD:
            state.apply_decision(_discard(obs, state, regime, world))
        elif phase is Phase.GIVE:
            state.apply_decision(_give(obs, state))
    raise ReplayError(f"could not replay seat {me}'s hand {obs.hand_number} to {obs.phase.value}")


def _discard(
    obs: Observation, state: GameState, regime: Regime, world: tuple[int, int, int, int]
) -> Discard:
    if regime is Regime.CURRENT:
        return Discard(cards_of(world[DEAD]))
    if state.current_seat == obs.seat:
        return Discard(tuple(obs.discards or ()))
    # Another dealer's unseen discard (catalan-plus-minus: before the exchange): keep
    # the cards he is known to give the seat, throw the lowest of the rest.
    keep = _promised(obs, state.current_seat)
    hand = observe(state, state.current_seat).hand
    return Discard(tuple(sorted(_weakest([c for c in hand if not keep >> c & 1], 4))))


def _give(obs: Observation, state: GameState) -> Give:
    giver = state.current_seat
    legs = [leg for leg in obs.exchange if leg.giver == giver]
    if giver == obs.seat:
        return Give(tuple(tuple(leg.given or ()) for leg in legs))
    promised = _promised(obs, giver)
    hand = [c for c in observe(state, giver).hand if not promised >> c & 1]
    out = []
    for leg in legs:
        if leg.receiver == obs.seat and leg.given is not None:
            out.append(tuple(sorted(leg.given)))
        else:
            chosen = _weakest(hand, leg.count)
            hand = [c for c in hand if c not in chosen]
            out.append(tuple(sorted(chosen)))
    return Give(tuple(out))


def _promised(obs: Observation, giver: int) -> int:
    """Cards the seat saw *giver* give it: the replay must leave them with him to give."""
    mask = 0
    for leg in obs.exchange:
        if leg.giver == giver and leg.receiver == obs.seat and leg.given is not None:
            mask |= mask_of(list(leg.given))
    return mask


def _weakest(cards: list[Card], count: int) -> list[Card]:
    return sorted(cards, key=lambda c: (c.rank, c))[:count]
