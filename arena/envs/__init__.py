"""Research and reinforcement-learning interfaces to the rules engine (docs/rl.md).

* :mod:`arena.envs.encoding`: the fixed-size observation encoding and the 57-action mask,
  pure Python, shared with the SDK adapter :mod:`arena.sdk.encoded`;
* :mod:`arena.envs.pettingzoo`: a PettingZoo AEC environment (the ``pettingzoo`` extra);
* :mod:`arena.envs.openspiel`: 9-5-2 registered as an OpenSpiel game (the ``bench`` extra),
  with :mod:`arena.envs.resample` drawing states from a seat's information state (ISMCTS).

Only the encoding is imported here: PettingZoo, Gymnasium, numpy and OpenSpiel are
optional and loaded by their own modules, so ``import arena.envs`` works on arena's default
install and inside the bot sandbox.
"""

from arena.envs.encoding import (
    ACTION_COUNT,
    FIELDS,
    SIZE,
    TRUMP_CALLS,
    Field,
    action_index,
    action_mask,
    action_of,
    encode,
    legal_indices,
)

__all__ = [
    "ACTION_COUNT",
    "FIELDS",
    "SIZE",
    "TRUMP_CALLS",
    "Field",
    "action_index",
    "action_mask",
    "action_of",
    "encode",
    "legal_indices",
]
