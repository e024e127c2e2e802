"""snoop: at its first decision, tries to read every file and list every directory named
in ``targets.json`` (the database, the game records, another bot's directory, /etc/shadow,
...) and scans every process it can see for secrets in its command line and environment.
Whatever it reads it writes to stderr (``ZOO-READ path=... result=ok|ERRNO data=...``), so
a leak shows up in the game record. Then it plays normally."""

import errno
import json
import os
import sys

from arena.game.actions import Decision
from arena.sdk import Bot, Observation

HERE = os.path.dirname(os.path.abspath(__file__))


def report(path: str, action) -> None:  # type: ignore[no-untyped-def]
    try:
        data = action()
        result = "ok"
    except OSError as exc:
        data, result = "", errno.errorcode.get(exc.errno or 0, str(exc))
    line = f"ZOO-READ path={path} result={result} data={data!r}"
    os.write(2, line[:2000].encode(errors="replace") + b"\n")


def read(path: str) -> str:
    with open(path, "rb") as file:
        return file.read(4096).decode(errors="replace")


def scan_processes() -> None:
    seen = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        seen += 1
        for part in ("cmdline", "environ"):
            path = f"/proc/{pid}/{part}"
            try:
                data = read(path).replace("\0", " ")
            except OSError:
                continue
            if "SECRET" in data or "ARENA_TOKEN" in data:
                os.write(2, f"ZOO-READ path={path} result=ok data={data[:1500]!r}\n".encode())
    os.write(2, f"ZOO-READ processes-visible={seen}\n".encode())


class Snoop(Bot):
    name, version = "snoop", "1"

    def __init__(self) -> None:
        super().__init__()
        self.done = False

    def decide(self, obs: Observation) -> Decision:
        if not self.done:
            self.done = True
            with open(os.path.join(HERE, "targets.json")) as file:
                targets = json.load(file)
            for path in targets["files"]:
                report(path, lambda p=path: read(p))
            for path in targets["dirs"]:
                report(path, lambda p=path: " ".join(sorted(os.listdir(p))))
            try:
                scan_processes()
            except OSError as exc:
                os.write(2, f"ZOO-READ path=/proc result={exc.errno}\n".encode())
        return super().decide(obs)


if __name__ == "__main__":
    print(f"snoop started pid={os.getpid()}", file=sys.stderr, flush=True)
    Snoop().run()
