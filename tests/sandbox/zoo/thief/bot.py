"""thief: once admitted, connects a second time with its own (used) token, and, for as
long as it runs, hunts other seats' tokens in every /proc/<pid>/environ it can read and
tries each one. Writes ``ZOO-THIEF second=STATUS``, ``ZOO-THIEF token-seen`` for every
foreign token found and ``ZOO-THIEF stole=...`` for every Hello accepted."""

import os
import sys
import threading
import time

import grpc

from arena.protocol import convert
from arena.sdk import Bot, GameStart
from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc

ADDRESS = os.environ.get("ARENA_ADDRESS", "")
TOKEN = os.environ.get("ARENA_TOKEN", "")


def hello(token: str) -> str:
    """Open a stream with *token*; ``welcome seat=N`` or the status code's name."""
    with grpc.insecure_channel(ADDRESS) as channel:
        stub = arena_pb2_grpc.RefereeStub(channel)
        first = pb.BotMessage(hello=convert.hello_to_proto(token, "thief", "1"))
        replies = stub.Play(iter([first]), timeout=3.0)
        try:
            reply = next(replies)
        except grpc.RpcError as exc:
            return exc.code().name
        return f"welcome seat={reply.welcome.seat}"


def hunt() -> None:
    tried: set[str] = set()
    while True:
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/environ", "rb") as file:
                    env = file.read().split(b"\0")
            except OSError:
                continue
            for item in env:
                if item.startswith(b"ARENA_TOKEN="):
                    token = item.split(b"=", 1)[1].decode()
                    if token != TOKEN and token not in tried:
                        tried.add(token)
                        os.write(2, b"ZOO-THIEF token-seen\n")
                        result = hello(token)
                        if result.startswith("welcome"):
                            os.write(2, f"ZOO-THIEF stole={result}\n".encode())
        time.sleep(0.005)


class Thief(Bot):
    name, version = "thief", "1"

    def __init__(self) -> None:
        super().__init__()
        self.tried_twice = False

    def on_game_start(self, start: GameStart) -> None:
        if not self.tried_twice:
            self.tried_twice = True
            result = hello(TOKEN)
            os.write(2, f"ZOO-THIEF second={result}\n".encode())


if __name__ == "__main__":
    print(f"thief started pid={os.getpid()}", file=sys.stderr, flush=True)
    threading.Thread(target=hunt, daemon=True).start()
    Thief().run()
