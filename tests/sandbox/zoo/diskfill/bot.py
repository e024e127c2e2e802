"""diskfill: when it starts, writes files of 4 MiB (under the per-file limit) into each
place it can write (HOME, TMPDIR, /tmp, /var/tmp, /dev/shm) until a write fails or it
has written ``target_mib`` (``target.json``) there, and writes ``ZOO-DISK place=P
wrote=BYTES error=ERRNO|none fs_bytes=SIZE`` (SIZE: the size of the filesystem holding P).
Then it deletes what it wrote and plays."""

import contextlib
import errno
import json
import os
import sys

from arena.sdk import Bot

HERE = os.path.dirname(os.path.abspath(__file__))
CHUNK = b"\xa5" * (1 << 20)


def places() -> list[str]:
    found = [os.environ.get("HOME", ""), os.environ.get("TMPDIR", "")]
    unique: list[str] = []
    for place in [*found, "/tmp", "/var/tmp", "/dev/shm"]:
        if place and os.path.realpath(place) not in {os.path.realpath(p) for p in unique}:
            unique.append(place)
    return unique


def fill(place: str, target: int) -> None:
    wrote, error, files = 0, "none", []
    try:
        while wrote < target:
            path = os.path.join(place, f"zoo-diskfill-{len(files)}")
            files.append(path)
            with open(path, "wb") as file:
                for _ in range(4):
                    file.write(CHUNK)
                    file.flush()
                    os.fsync(file.fileno())
                    wrote += len(CHUNK)
                    if wrote >= target:
                        break
    except OSError as exc:
        error = errno.errorcode.get(exc.errno or 0, str(exc))
    try:
        info = os.statvfs(place)
        size = info.f_blocks * info.f_frsize
    except OSError:
        size = -1
    print(
        f"ZOO-DISK place={place} wrote={wrote} error={error} fs_bytes={size}",
        file=sys.stderr,
        flush=True,
    )
    for path in files:
        with contextlib.suppress(OSError):
            os.unlink(path)


class DiskFill(Bot):
    name, version = "diskfill", "1"


if __name__ == "__main__":
    with open(os.path.join(HERE, "target.json")) as config:
        target = json.load(config)["target_mib"] << 20
    for place in places():
        fill(place, target)
    DiskFill().run()
