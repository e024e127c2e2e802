"""memhog: at its first decision, allocates (and touches) 16 MiB after 16 MiB, writing
``ZOO-MEM mb=N`` after each, until the sandbox stops it: a MemoryError (RLIMIT_DATA,
re-raised, so the bot crashes) or the kernel's OOM killer (cgroup memory cap)."""

import os
import sys

from arena.game.actions import Decision
from arena.sdk import Bot, Observation

CHUNK_MB = 16
CEILING_MB = 64 * 1024  # never reached when the sandbox works


class MemHog(Bot):
    name, version = "memhog", "1"

    def __init__(self) -> None:
        super().__init__()
        self.hoard: list[bytearray] = []

    def decide(self, obs: Observation) -> Decision:
        if not self.hoard:
            kind = obs.request.kind.value if obs.request else "?"
            os.write(2, f"ZOO-MISBEHAVES decision={kind} hand={obs.hand_number}\n".encode())
            mb = 0
            try:
                while mb < CEILING_MB:
                    self.hoard.append(bytearray(b"\x01") * (CHUNK_MB << 20))
                    mb += CHUNK_MB
                    os.write(2, f"ZOO-MEM mb={mb}\n".encode())
            except MemoryError:
                self.hoard.clear()
                os.write(2, f"ZOO-MEM MemoryError after mb={mb}\n".encode())
                raise
        return super().decide(obs)


if __name__ == "__main__":
    print(f"memhog started pid={os.getpid()}", file=sys.stderr, flush=True)
    MemHog().run()
