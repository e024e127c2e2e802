"""The Python SDK for bot authors: subclass :class:`Bot`, override the decisions you care
about, call :meth:`Bot.run`. Each decision method gets a :class:`Turn`: the seat's
observation, with ``request`` (the decision and its legal options) always set.

```python
from arena.sdk import Bot, Play, Turn

class HighCard(Bot):
    name, version = "high_card", "1.0"

    def play(self, obs: Turn) -> Play:
        return Play(max(obs.request.cards, key=lambda c: c.rank))

if __name__ == "__main__":
    HighCard().run()
```

``play_locally(HighCard(), ["greedy", "random"], games=6)`` plays it in process, through
the engine and the SDK's own conversion, before ``arena bot check`` plays it for real.

A trained policy on the encoding of ``arena.envs.encoding`` becomes a bot with
:class:`EncodedBot` (docs/rl.md).
"""

import importlib
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
from arena.sdk.turn import Turn  # noqa: E402

if TYPE_CHECKING:
    from arena.sdk.encoded import EncodedBot, EncodedPolicy, IllegalPolicyAction, PolicyFunction
    from arena.sdk.local import play_locally
    from arena.sdk.results import LocalFault, LocalGame, LocalReport

_LAZY = {
    **dict.fromkeys(
        ("EncodedBot", "EncodedPolicy", "IllegalPolicyAction", "PolicyFunction"), "encoded"
    ),
    "play_locally": "local",
    **dict.fromkeys(("LocalFault", "LocalGame", "LocalReport"), "results"),
}
"""Names imported on first use, with their module: most bots never touch the encoding, a
bot process never plays locally, and every bot process pays its imports at start-up
(docs/performance.md)."""


def __getattr__(name: str) -> Any:
    """The lazily imported names of :data:`_LAZY` (PEP 562)."""
    module = _LAZY.get(name)
    if module is not None:
        return getattr(importlib.import_module(f"arena.sdk.{module}"), name)
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
    "LocalFault",
    "LocalGame",
    "LocalReport",
    "Observation",
    "Play",
    "PolicyFunction",
    "Request",
    "Suit",
    "Trump",
    "Turn",
    "play_locally",
]
