"""The Python SDK for bot authors: subclass :class:`Bot`, override the decisions you care
about, call :meth:`Bot.run`.

```python
from arena.sdk import Bot, Observation, Play

class HighCard(Bot):
    name, version = "high_card", "1.0"

    def play(self, obs: Observation) -> Play:
        return Play(max(obs.request.cards, key=lambda c: c.rank))

if __name__ == "__main__":
    HighCard().run()
```

A trained policy on the encoding of ``arena.envs.encoding`` becomes a bot with
:class:`EncodedBot` (docs/rl.md).
"""

import os
from typing import TYPE_CHECKING, Any

from arena.protocol.grpc_env import configure_grpc

# Before arena.sdk.bot imports grpc, which reads these once (arena.protocol.grpc_env says
# why); a bot that imported grpc itself first keeps gRPC's defaults.
configure_grpc(os.environ)

from arena.game import (  # noqa: E402 - after gRPC's settings, like every import below
    CallTrump,
    Card,
    DecisionKind,
    Discard,
    Give,
    Observation,
    Play,
    Request,
    Suit,
    Trump,
)
from arena.game.ending import GameResult  # noqa: E402
from arena.protocol.convert import GameEnd, GameStart, HandEnd  # noqa: E402
from arena.sdk.bot import Bot, BotRunError, Clock  # noqa: E402

if TYPE_CHECKING:
    from arena.sdk.encoded import EncodedBot, EncodedPolicy, IllegalPolicyAction, PolicyFunction

_ENCODED = frozenset({"EncodedBot", "EncodedPolicy", "IllegalPolicyAction", "PolicyFunction"})
"""Names of :mod:`arena.sdk.encoded`, imported on first use: most bots never touch the
encoding, and every bot process pays its imports at start-up (docs/performance.md)."""


def __getattr__(name: str) -> Any:
    """The lazily imported names of :data:`_ENCODED` (PEP 562)."""
    if name in _ENCODED:
        from arena.sdk import encoded  # noqa: PLC0415 - lazy on purpose: start-up time

        return getattr(encoded, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Bot",
    "BotRunError",
    "CallTrump",
    "Card",
    "Clock",
    "DecisionKind",
    "Discard",
    "EncodedBot",
    "EncodedPolicy",
    "GameEnd",
    "GameResult",
    "GameStart",
    "Give",
    "HandEnd",
    "IllegalPolicyAction",
    "Observation",
    "Play",
    "PolicyFunction",
    "Request",
    "Suit",
    "Trump",
]
