"""The streams between the arena and a running build: the bot in, the result and output out.

The build never sees the host's copy of the bot: the arena writes the bot's files into
the sandbox as a tar stream, and the build's result comes back as another one. Every
stream is read with a cap (output tail, result size, file count), so a hostile build can
fill neither the arena's memory nor its disk, and the result is unpacked with tarfile's
``data`` filter, so it can put nothing outside the bot's directory.
"""

from __future__ import annotations

import contextlib
import os
import tarfile
import threading
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import IO

from arena.sandbox.build.settings import STAMP_NAME, BuildLimits, BuildSandboxError, mib

OUTPUT_TAIL = 64 * 1024
"""How much of the build's output is kept (the end, where the error is)."""


def tail(stream: IO[bytes] | None, output: deque[bytes]) -> None:
    """Keep the last :data:`OUTPUT_TAIL` bytes of *stream*."""
    if stream is None:
        return
    size = 0
    while chunk := stream.read1(65536):  # type: ignore[attr-defined]
        output.append(chunk)
        size += len(chunk)
        while size - len(output[0]) >= OUTPUT_TAIL:
            size -= len(output.popleft())


def spool(
    reader: IO[bytes],
    target: IO[bytes],
    cap: int,
    overflow: threading.Event,
    kill: Callable[[], None],
) -> None:
    """Copy the result stream into *target*, at most *cap* bytes."""
    total = 0
    while chunk := reader.read(65536):
        total += len(chunk)
        if total > cap:
            overflow.set()
            kill()
            return
        target.write(chunk)


def feed(source: Path, stdin: IO[bytes] | None, cap: int) -> None:
    """Write the bot's files as a tar stream (the sandbox's copy of the bot)."""
    if stdin is None:
        return
    with (
        contextlib.suppress(OSError, tarfile.TarError),
        stdin,
        tarfile.open(fileobj=stdin, mode="w|") as tar,
    ):
        total = 0
        for path in _entries(source):
            if path.name == STAMP_NAME and path.parent == source:
                continue
            info = tar.gettarinfo(str(path), arcname=str(path.relative_to(source)))
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            total += info.size
            if total > cap:
                return  # the sandbox's filesystem would be full anyway
            if info.isreg():
                with path.open("rb") as handle:
                    tar.addfile(info, handle)
            else:
                tar.addfile(info)


def _entries(source: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(source):
        dirs.sort()
        for name in [*sorted(dirs), *sorted(files)]:
            yield Path(root) / name


def unpack(stream: IO[bytes], directory: Path, limits: BuildLimits) -> None:
    """The result into *directory*: the ``data`` filter (no links out, no devices, no
    absolute names, no set-uid bits, files owned by the arena), within the caps.

    :raises BuildSandboxError: if the result breaks a cap, holds the stamp file, or
        cannot be unpacked.
    """
    try:
        with tarfile.open(fileobj=stream, mode="r:") as tar:
            members = tar.getmembers()
            if len(members) > limits.files:
                raise BuildSandboxError(f"the build left more than {limits.files} files")
            total = sum(m.size for m in members if m.isreg())
            if total > limits.disk_bytes:
                raise BuildSandboxError(f"the build left more than {mib(limits.disk_bytes)}")
            for member in members:
                if PurePosixPath(member.name).parts[:1] == (STAMP_NAME,):
                    raise BuildSandboxError("the build wrote the arena's stamp file")
            tar.extractall(directory, members, filter="data")
    except (tarfile.TarError, OSError) as exc:
        raise BuildSandboxError(f"the build's result cannot be unpacked: {exc}") from None
