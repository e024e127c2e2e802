"""netcat: at its first decision, tries TCP (IPv4 and IPv6) and UDP to the loopback ports
listed in ``targets.json`` and opens a netlink socket; writes ``ZOO-NET what=result``
per attempt (``ok`` or the errno name). Then it plays normally."""

import errno
import json
import os
import socket
import sys

from arena.game.actions import Decision
from arena.sdk import Bot, Observation

HERE = os.path.dirname(os.path.abspath(__file__))


def attempt(name: str, action) -> None:  # type: ignore[no-untyped-def]
    try:
        action()
        result = "ok"
    except OSError as exc:
        result = errno.errorcode.get(exc.errno or 0, str(exc))
    os.write(2, f"ZOO-NET {name}={result}\n".encode())


def connect(family: int, host: str, port: int) -> None:
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.settimeout(1.0)
        sock.connect((host, port))
        sock.sendall(b"zoo-netcat was here\n")


def send_udp(port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.sendto(b"zoo-netcat was here\n", ("127.0.0.1", port))


def netlink() -> None:
    socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0).close()


class NetCat(Bot):
    name, version = "netcat", "1"

    def __init__(self) -> None:
        super().__init__()
        self.done = False

    def decide(self, obs: Observation) -> Decision:
        if not self.done:
            self.done = True
            with open(os.path.join(HERE, "targets.json")) as file:
                targets = json.load(file)
            for port in targets["tcp"]:
                attempt(f"tcp4:{port}", lambda p=port: connect(socket.AF_INET, "127.0.0.1", p))
            for port in targets.get("tcp6", []):
                attempt(f"tcp6:{port}", lambda p=port: connect(socket.AF_INET6, "::1", p))
            for port in targets["udp"]:
                attempt(f"udp:{port}", lambda p=port: send_udp(p))
            attempt("netlink", netlink)
        return super().decide(obs)


if __name__ == "__main__":
    print(f"netcat started pid={os.getpid()}", file=sys.stderr, flush=True)
    NetCat().run()
