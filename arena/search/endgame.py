"""Exact search of the last tricks of a hand, for three players with their own payoffs.

9-5-2 is not zero-sum between two sides: each seat scores its own tricks against its own
contract. The search is therefore max-n (Luckhardt and Irani 1986): at every node the seat
to play picks the card that maximises its own delta (tricks won minus contract) at the end
of the hand, all cards being known in the sampled world. Deltas always sum to zero, so
max-n's *immediate pruning* applies: once a card reaches the best delta the seat can still
get (its delta now plus every trick left), no sibling can do better. Among cards equal for
the seat to play, an opponent of the searching seat takes the one worst for it (a
cautious reading of ties); the searching seat takes the first.
"""

from __future__ import annotations

from arena.game import Card, GameState, Phase
from arena.search.rollout import hand_deltas

Payoff = tuple[int, int, int]


def tricks_left(state: GameState) -> int:
    """Tricks of the current hand not yet completed (the one in progress included)."""
    return 16 - len(state.hand.tricks)


def solve(state: GameState, root: int) -> Payoff:
    """Every seat's delta for the hand under max-n play from *state* (play phase), seen
    from seat *root* for ties."""
    before = (state.scores[0], state.scores[1], state.scores[2])
    return _maxn(state, root, before, state.hands_played)


def best_plays(state: GameState, root: int) -> dict[Card, Payoff]:
    """The max-n payoff of each legal card of the seat to play."""
    before = (state.scores[0], state.scores[1], state.scores[2])
    out: dict[Card, Payoff] = {}
    for card in state.legal_actions():
        child = state.clone()
        child.apply(card)
        out[card] = _maxn(child, root, before, state.hands_played)  # type: ignore[index]
    return out


def _maxn(state: GameState, root: int, before: Payoff, number: int) -> Payoff:
    if state.is_over or state.hands_played != number or state.phase is not Phase.PLAY:
        return hand_deltas(state, before)
    seat = state.current_seat
    hand = state.hand
    # The most this seat can still reach: its delta now plus every trick not yet won.
    ceiling = hand.tricks_won[seat] - hand.contracts[seat] + tricks_left(state)
    best: Payoff | None = None
    for card in state.legal_actions():
        child = state.clone()
        child.apply(card)
        value = _maxn(child, root, before, number)
        if (
            best is None
            or value[seat] > best[seat]
            or (value[seat] == best[seat] and seat != root and value[root] < best[root])
        ):
            best = value
            if best[seat] >= ceiling and seat == root:
                break
    assert best is not None  # a seat in the play phase always has a legal card
    return best
