"""One bot process: started alone in its own session, logged with a cap, stopped for sure.

No bot code ever runs in the referee's process. A bot gets a clean environment holding
only what it needs to reach the referee, its own process group (so stopping it stops
everything it started), and its output is captured up to a cap so a flood cannot eat
the referee's memory. If the referee dies, the kernel kills the bot (parent-death signal).

Unless the sandbox is off, the process also runs inside the layers of
:mod:`arena.sandbox` (a uid of its own, bubblewrap or Landlock and seccomp, rlimits, a
cgroup, a private HOME and TMPDIR); stopping it then also kills whatever of it the
sandbox can still reach and wipes its private directory.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import shutil
import signal
import sys
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from arena.protocol.wire import OUTPUT_MARK
from arena.referee.manifest import BotManifest
from arena.sandbox.config import SandboxConfig, SandboxMode
from arena.sandbox.launch import Launch, prepare

LOGGER = logging.getLogger(__name__)

DEFAULT_LOG_CAP = 64 * 1024
STDERR_TAIL = 600
STREAMS = ("stdout", "stderr")
MARK_POLL_S = 0.001
"""How often :meth:`LogCapture.settle` looks for a bot's mark."""


def die_with_parent_prefix() -> tuple[str, ...]:
    """A command prefix that makes the kernel SIGKILL the bot if the referee dies.

    util-linux ``setpriv --pdeathsig`` sets the parent-death signal and execs the bot.
    Doing it with ``preexec_fn`` instead would run Python between fork and exec while
    gRPC's threads run, which can crash the child.
    """
    setpriv = shutil.which("setpriv")
    return (setpriv, "--pdeathsig", "KILL", "--") if setpriv else ()


def _require_runtime(program: str, env: Mapping[str, str]) -> None:
    """Refuse a bare program name (a runtime, ``python``) that the bot's ``PATH`` lacks, as
    the spawn itself would: behind ``setpriv`` the exec fails in the child instead, where
    it looks like the bot's own exit before connecting.

    :raises FileNotFoundError: naming *program* (the arena's fault: :mod:`arena.referee.seat`).
    """
    if "/" not in program and shutil.which(program, path=env.get("PATH", "")) is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)


def bot_environment(
    address: str, token: str, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The whole environment of a bot: how to reach the referee and a minimal PATH.

    The arena's own interpreter directory comes first on PATH so that ``python`` in a
    manifest is the interpreter that has the SDK and grpcio installed.
    """
    interpreter_dir = str(Path(sys.executable).parent)
    env = {
        "ARENA_ADDRESS": address,
        "ARENA_TOKEN": token,
        "PATH": f"{interpreter_dir}:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    if extra:
        env.update(extra)
    return env


@dataclass
class LogCapture:
    """A bot's stdout and stderr, kept up to a byte cap per match, plus the stderr tail."""

    cap: int = DEFAULT_LOG_CAP
    kept: int = 0
    dropped: int = 0
    chunks: list[tuple[str, bytes]] = field(default_factory=list)
    stderr_tail: deque[int] = field(default_factory=lambda: deque(maxlen=STDERR_TAIL))
    received: int = 0
    """Bytes received so far, kept or not (how :meth:`settle` sees the bot still writing)."""
    marks: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STREAMS, 0))
    """Marks (:data:`OUTPUT_MARK`) received from the current process, per stream (stripped)."""
    _carry: dict[str, bytes] = field(default_factory=dict)
    """Per stream, the end of the last read when it may be the start of a mark."""
    _dropped_reported: int = 0

    def new_process(self) -> None:
        """A new process of the bot starts: its stderr tail starts empty, no mark seen."""
        self.stderr_tail.clear()
        self.marks = dict.fromkeys(STREAMS, 0)
        self._carry.clear()

    def new_game(self) -> None:
        """A game that is a match of its own starts (a tournament game on a kept process):
        the cap starts afresh, so its record keeps what a fresh process's would."""
        self.kept = 0

    def add(self, stream: str, data: bytes) -> None:
        """Keep *data* while under the cap; count what is dropped. Marks are counted and
        stripped (one split over two reads too)."""
        self.received += len(data)
        data = self._carry.pop(stream, b"") + data
        if OUTPUT_MARK in data:
            self.marks[stream] += data.count(OUTPUT_MARK)
            data = data.replace(OUTPUT_MARK, b"")
        held = _mark_start(data)
        if held:
            self._carry[stream], data = data[-held:], data[:-held]
        self._keep(stream, data)

    def end_of_stream(self, stream: str) -> None:
        """*stream* is closed: keep what was held back as a possible start of a mark."""
        self._keep(stream, self._carry.pop(stream, b""))

    def _keep(self, stream: str, data: bytes) -> None:
        if not data:
            return
        if stream == "stderr":
            self.stderr_tail.extend(data)
        room = self.cap - self.kept
        if room <= 0:
            self.dropped += len(data)
            return
        part = data[:room]
        self.chunks.append((stream, part))
        self.kept += len(part)
        self.dropped += len(data) - len(part)

    def take_new(self) -> dict[str, str | int]:
        """Output captured since the last call, per stream, as text (kept with each game),
        and the bytes dropped since the last call because the match's cap was reached."""
        new, self.chunks = self.chunks, []
        out: dict[str, str | int] = {
            name: b"".join(d for s, d in new if s == name).decode("utf-8", "replace")
            for name in ("stdout", "stderr")
        }
        out["dropped_bytes"] = self.dropped - self._dropped_reported
        self._dropped_reported = self.dropped
        return out

    async def settle(self, marks: int, quiet_s: float, limit_s: float) -> None:
        """Wait (at most *limit_s*) until the process's output for a game is all in, so
        that what a bot writes just after the game ends (a summary in its game-end handler)
        belongs to that game, not to the next one.

        A bot that marks its output (the SDK writes :data:`OUTPUT_MARK` when it starts and
        after each GameEnd) is waited for until *marks* marks are in on both streams; any
        other, until nothing new has come for *quiet_s*.
        """
        deadline = time.monotonic() + limit_s
        if all(self.marks.values()):
            while min(self.marks.values()) < marks and time.monotonic() < deadline:
                await asyncio.sleep(MARK_POLL_S)
            return
        while True:
            seen = self.received
            await asyncio.sleep(min(quiet_s, max(0.0, deadline - time.monotonic())))
            if self.received == seen or time.monotonic() >= deadline:
                return

    def tail(self) -> str:
        """The last few hundred characters of stderr, on one line."""
        text = bytes(self.stderr_tail).decode("utf-8", "replace")
        return " | ".join(line for line in text.splitlines() if line.strip())[-300:]


def _mark_start(data: bytes) -> int:
    """How many bytes at the end of *data* could begin an :data:`OUTPUT_MARK`."""
    for size in range(min(len(OUTPUT_MARK) - 1, len(data)), 0, -1):
        if OUTPUT_MARK.startswith(data[-size:]):
            return size
    return 0


class BotProcess:
    """A running (or finished) bot process."""

    def __init__(
        self,
        manifest: BotManifest,
        process: asyncio.subprocess.Process,
        logs: LogCapture,
        launch: Launch | None = None,
    ) -> None:
        self.manifest = manifest
        self.process = process
        self.logs = logs
        self.launch = launch
        """The sandbox around the process (``None``: sandbox off)."""
        self._readers = [
            asyncio.create_task(self._pump("stdout", process.stdout)),
            asyncio.create_task(self._pump("stderr", process.stderr)),
        ]

    @classmethod
    async def start(
        cls,
        manifest: BotManifest,
        env: Mapping[str, str],
        logs: LogCapture,
        cwd: Path | None = None,
        sandbox: SandboxConfig | None = None,
    ) -> BotProcess:
        """Start the bot's run command in its own session, inside *sandbox* (default: no
        sandbox, for callers that predate it; matches pass theirs).

        :raises OSError: if the command cannot be started (missing executable, ...).
        :raises SandboxError: if the sandbox is ``strict`` and a layer is missing.
        """
        directory = cwd or manifest.directory
        launch = None
        if sandbox is not None and sandbox.mode is not SandboxMode.OFF:
            launch = await prepare(sandbox, directory, manifest.run, env)
            argv, run_env, run_cwd = launch.argv, launch.env, launch.cwd
        else:
            _require_runtime(manifest.run[0], env)
            argv = [*die_with_parent_prefix(), *manifest.run]
            run_env, run_cwd = dict(env), str(directory)
        stdin = asyncio.subprocess.DEVNULL
        if launch is not None and launch.ready_writer is not None:
            stdin = launch.ready_writer  # the chain's last step puts /dev/null in its place
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                cwd=run_cwd,
                env=run_env,
                stdin=stdin,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
                pass_fds=launch.pass_fds if launch is not None else (),
            )
        except BaseException:
            if launch is not None:
                await launch.cleanup()
            raise
        if launch is not None:
            launch.started()
        LOGGER.debug("started %s as pid %d", manifest.label, process.pid)
        logs.new_process()
        return cls(manifest, process, logs, launch)

    @property
    def pid(self) -> int:
        """The process id (also its process group id)."""
        return self.process.pid

    def setup_finished(self) -> bool:
        """Whether everything of the arena's before the bot's command is done: the
        sandbox's chain said so (:meth:`Launch.setup_finished`). Always true with the
        sandbox off, where the bot's command follows ``setpriv`` at once."""
        return self.launch is None or self.launch.setup_finished()

    @property
    def exited(self) -> bool:
        """True once the process has exited."""
        return self.process.returncode is not None

    async def _pump(self, name: str, stream: asyncio.StreamReader | None) -> None:
        if stream is None:
            return
        while True:
            data = await stream.read(65536)
            if not data:
                self.logs.end_of_stream(name)
                return
            self.logs.add(name, data)

    async def wait_exit(self) -> int:
        """Wait for the process to exit; its return code."""
        return await self.process.wait()

    async def stop(self, grace_s: float = 1.0) -> None:
        """Let the bot exit by itself for *grace_s*, then SIGTERM, then SIGKILL its group."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), grace_s)
        for sig, wait in ((signal.SIGTERM, 0.5), (signal.SIGKILL, 5.0)):
            self._signal_group(sig)
            if self.exited:
                # The leader is gone; make sure nothing it started survives either.
                self._signal_group(signal.SIGKILL)
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), wait)
        if self.launch is not None:
            # Daemons that left the process group die here (cgroup, uid); then the private
            # directory is wiped and the uid given back.
            await self.launch.cleanup()
        for reader in self._readers:
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(reader, 1.0)

    def kill_now(self) -> None:
        """SIGKILL the whole process group at once (used when giving up on a bot), and
        whatever else of the bot the sandbox can reach."""
        self._signal_group(signal.SIGKILL)
        if self.launch is not None:
            self.launch.kill()

    def _signal_group(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)
