"""greedy_bot: a whole bot in five lines. Every decision it does not override is taken
by the SDK's built-in greedy policy (chase the contract, duck once it is made).

Greedy is a baseline to beat, not a model to copy: a hand scores tricks won minus
contract, so every trick over the contract is one more point, and ducking once the
contract is made gives those points away. A bot of your own should keep winning tricks:
override ``play`` (sample_bots/heuristic_bot does; docs/bots.md section 6).
"""

from arena.sdk import Bot


class GreedyBot(Bot):
    name, version = "greedy_bot", "1.0.0"


if __name__ == "__main__":
    GreedyBot().run()
