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

from arena.game import (
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
from arena.game.ending import GameResult
from arena.protocol.convert import GameEnd, GameStart, HandEnd
from arena.sdk.bot import Bot, BotRunError
from arena.sdk.encoded import EncodedBot, EncodedPolicy, IllegalPolicyAction, PolicyFunction

__all__ = [
    "Bot",
    "BotRunError",
    "CallTrump",
    "Card",
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
