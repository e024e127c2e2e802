"""greedy_bot: a whole bot in five lines. Every decision it does not override is taken
by the SDK's built-in greedy policy (chase the contract, duck once it is made)."""

from arena.sdk import Bot


class GreedyBot(Bot):
    name, version = "greedy_bot", "1.0.0"


if __name__ == "__main__":
    GreedyBot().run()
