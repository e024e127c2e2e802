"""connflood: at its first decision, asks for STREAMS more streams with made-up tokens
(each refused), then starts a flooder (a fresh interpreter: forking the bot itself, with
gRPC's threads running, could deadlock) that forks CHILDREN children. Each child opens as
many unix-socket connections to ``ARENA_ADDRESS`` as its descriptor limit allows, holds
them, and every ROUND_S closes them all and opens them again, until the bot is stopped.
The flooder writes ``ZOO-CONNFLOOD connected=N`` (the connections the children opened in
their first round). The bot plays on."""

import os
import subprocess
import sys

import grpc

from arena.game.actions import Decision
from arena.protocol import convert
from arena.sdk import Bot, Observation
from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc

STREAMS = 3
STREAM_TIMEOUT_S = 30.0
"""The referee refuses at once; a busy machine may take seconds to say so."""

FLOOD = """
import errno, os, socket, sys, time
CHILDREN, PER_CHILD, ROUND_S = 8, 2000, 1.0
path = os.environ["ARENA_ADDRESS"].removeprefix("unix://").removeprefix("unix:")

def open_all():
    socks, misses = [], 0
    while len(socks) < PER_CHILD and misses < 500:
        sock = None
        try:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.setblocking(False)
            sock.connect(path)
        except OSError as exc:  # EAGAIN: the listener's backlog is full, try again
            if sock is not None:
                sock.close()
            if exc.errno in (errno.EMFILE, errno.ENFILE):
                break
            misses += 1
            time.sleep(0.001)
            continue
        socks.append(sock)
    return socks

reader, writer = os.pipe()
for _ in range(CHILDREN):
    if os.fork() == 0:
        os.close(reader)
        socks = open_all()
        os.write(writer, str(len(socks)).encode() + b"\\n")
        while True:
            time.sleep(ROUND_S)
            for sock in socks:
                sock.close()
            socks = open_all()
os.close(writer)
total = 0
with os.fdopen(reader) as lines:
    for _ in range(CHILDREN):
        line = lines.readline()
        total += int(line or 0)
os.write(2, f"ZOO-CONNFLOOD connected={total}\\n".encode())
while True:
    time.sleep(60)
"""


def extra_stream(token: str) -> str:
    """Open one more stream with *token*; the status code's name (or ``welcome``)."""
    with grpc.insecure_channel(os.environ["ARENA_ADDRESS"]) as channel:
        stub = arena_pb2_grpc.RefereeStub(channel)
        first = pb.BotMessage(hello=convert.hello_to_proto(token, "connflood", "1"))
        try:
            next(stub.Play(iter([first]), timeout=STREAM_TIMEOUT_S))
        except grpc.RpcError as exc:
            return exc.code().name
        return "welcome"


class ConnFlood(Bot):
    name, version = "connflood", "1"

    def __init__(self) -> None:
        super().__init__()
        self.done = False

    def decide(self, obs: Observation) -> Decision:
        if not self.done:
            self.done = True
            kind = obs.request.kind.value if obs.request else "?"
            os.write(2, f"ZOO-MISBEHAVES decision={kind} hand={obs.hand_number}\n".encode())
            for n in range(STREAMS):
                os.write(2, f"ZOO-CONNFLOOD stream={extra_stream(f'made-up-{n}')}\n".encode())
            subprocess.Popen([sys.executable, "-c", FLOOD])
        return super().decide(obs)


if __name__ == "__main__":
    print(f"connflood started pid={os.getpid()}", file=sys.stderr, flush=True)
    ConnFlood().run()
