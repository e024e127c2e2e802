"""One seat's bot across the games of a match: start it, restart it, stop it for sure.

A :class:`SeatRunner` owns the seat's process (or waits for its remote bot), its session
and its captured output. On a bot's first fault in a game it tells the bot, keeps the
stderr tail for the record and kills the process; the next game starts a new one. It
also decides whose fault a failed start is: a bot whose own command cannot run gets a
startup fault, while the host's failure (no descriptors, memory or processes, a sandbox
that cannot be set up, a sandbox chain that ends or stalls before its ready signal) is an
:class:`~arena.referee.errors.ArenaFault`, never charged to a bot. The game loop
(:mod:`arena.referee.gameloop`) only asks and records.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import sys
from typing import Any

from arena.referee.config import (
    LOG_SETTLE_LIMIT_MS,
    MatchConfig,
    PolicySeat,
    RemoteSeat,
    SeatSpec,
)
from arena.referee.errors import ArenaFault, BotError, BotStartupError, FaultKind
from arena.referee.human_seat import HumanSeat
from arena.referee.manifest import BotManifest
from arena.referee.process import BotProcess, LogCapture, bot_environment
from arena.referee.wire.doors import RefereeServer
from arena.referee.wire.session import Session
from arena.sandbox import chain
from arena.sandbox.config import SandboxError
from arena.v1 import arena_pb2 as pb

LOGGER = logging.getLogger(__name__)


class SeatRunner:
    """One seat's bot across the games of a match: start, restart, ask, stop."""

    def __init__(
        self, seat: int, spec: SeatSpec, config: MatchConfig, door: int | None = None
    ) -> None:
        self.seat = seat
        self.door = seat if door is None else door
        """The number of the bot's own door on the referee's server: its seat in a match of
        its own, a number unique on the server when the bot moves between the tables of a
        worker's games (:class:`arena.referee.lobby.Lobby`)."""
        self.spec = spec
        self.config = config
        self.logs = LogCapture(cap=config.log_cap)
        self.process: BotProcess | None = None
        self.session: Session | None = None
        self.healthy = False
        self.remote_label: str | None = None
        self.games_ended = 0
        """GameEnds the current process was sent (its marks follow them)."""

    @property
    def label(self) -> str:
        if isinstance(self.spec, BotManifest):
            return self.spec.label
        if isinstance(self.spec, PolicySeat | HumanSeat):
            return self.spec.label
        return self.remote_label or f"{self.spec.name}@remote"

    @property
    def is_bot(self) -> bool:
        """A process or a remote bot (a policy or a person has no process to start)."""
        return not isinstance(self.spec, PolicySeat | HumanSeat)

    async def ensure_started(self, server: RefereeServer, welcome: pb.Welcome) -> None:
        """Make sure a healthy bot is connected to this seat.

        :raises BotStartupError: if it cannot be started or does not connect in time.
        :raises ArenaFault: if the host or the sandbox failed before the bot's command ran.
        """
        alive = self.process is None or not self.process.exited  # it may exit between games
        if not self.is_bot or (
            self.healthy and self.session is not None and not self.session.closed and alive
        ):
            return
        await self.stop(kill=True)
        remote = isinstance(self.spec, RemoteSeat)
        # A bot process dials its own door, so whatever it opens counts against it alone.
        address = server.address if remote else await server.door(self.door)
        session = server.service.open_session(self.seat, welcome, None if remote else self.door)
        self.session = session
        limit_s = self.config.time_control.startup_ms / 1000
        if isinstance(self.spec, RemoteSeat):
            announce = self.config.announce_remote or _print_remote
            announce(self.seat, server.address, session.token)
            waiters: list[asyncio.Future[Any]] = [asyncio.ensure_future(session.connected.wait())]
        else:
            assert isinstance(self.spec, BotManifest)
            env = bot_environment(address, session.token)
            self.games_ended = 0
            try:
                self.process = await self._spawn(env)
            except (OSError, SandboxError) as exc:
                server.service.forget(session)
                raise _spawn_failure(self.spec, exc) from None
            waiters = [
                asyncio.ensure_future(session.connected.wait()),
                asyncio.ensure_future(self.process.wait_exit()),
            ]
        _, pending = await asyncio.wait(
            waiters, timeout=limit_s, return_when=asyncio.FIRST_COMPLETED
        )
        for waiter in pending:
            waiter.cancel()
        if not session.connected.is_set():
            server.service.forget(session)
            if self.process is not None and not self.process.setup_finished():
                raise await self._setup_failure(self.process, limit_s)
            if self.process is not None and self.process.exited:
                code = self.process.process.returncode
                raise BotStartupError(f"exited with code {code} before connecting")
            raise BotStartupError(f"did not connect within {limit_s * 1000:.0f} ms")
        if not session.inbox.empty() and session.closed:
            raise session.inbox.get_nowait()
        if isinstance(self.spec, RemoteSeat) and session.hello is not None:
            self.remote_label = f"{session.hello.bot_name}@{session.hello.bot_version}"
        if self.process is not None:
            self.process.setup_finished()  # the signal is in (the bot ran): frees its pipe
        self.healthy = True

    async def _spawn(self, env: dict[str, str]) -> BotProcess:
        """Start the bot's process, once.

        There used to be one retry here for "a sandboxed spawn seen to fail once with ENOENT
        under parallel workers". Its cause is found and fixed in
        :func:`arena.sandbox.cgroups.sweep_stale`: two fresh referees swept the same dead
        referee's cgroup, and the second one's ``iterdir`` raised ENOENT out of the probe.
        A failure that is the host's is an :class:`ArenaFault`, which a tournament replays;
        one naming the bot's own command would fail the same way again, so a retry only hid
        the first kind and delayed the second.
        """
        assert isinstance(self.spec, BotManifest)
        return await BotProcess.start(self.spec, env, self.logs, sandbox=self.config.sandbox)

    async def _setup_failure(self, process: BotProcess, limit_s: float) -> ArenaFault:
        """The sandbox's chain exited, or was still setting up at the startup limit, before
        its last step signalled: the arena's failure, whatever the exit status (a bot
        cannot fake one: its command had not run). Stops the process; the fault names the
        failed step when its error line does, with the chain's stderr tail."""
        code = process.process.returncode
        await self.stop(kill=True)  # its output is all in after this
        step = chain.failed_step(bytes(self.logs.stderr_tail).decode("utf-8", "replace"))
        where = f" (in {step})" if step else ""
        if code is None:
            what = f"did not reach the bot's command within {limit_s * 1000:.0f} ms"
        else:
            what = f"exited with code {code} before the bot's command ran"
        tail = self.logs.tail()
        return ArenaFault(
            f"the sandbox could not start {self.label}{where}: its chain {what}"
            + (f": {tail}" if tail else "")
        )

    async def stop(self, *, kill: bool = False) -> None:
        """End the session and the process (asked nicely unless *kill*)."""
        if self.session is not None:
            self.session.close()
        if self.process is not None:
            if kill:
                self.process.kill_now()
            await self.process.stop(0 if kill else self.config.stop_grace_s)
            self.process = None
        self.healthy = False

    async def game_logs(self) -> dict[str, str | int] | None:
        """The bot's output since the last game's, cut once what it writes on GameEnd is in.

        The GameEnd is written first, then the cut waits for the bot's mark after that
        GameEnd (the SDK's, :data:`arena.protocol.wire.OUTPUT_MARK`) or, from a bot that
        does not mark, until it has been quiet for :attr:`MatchConfig.log_quiet_ms` (at
        most :data:`LOG_SETTLE_LIMIT_MS` either way): a summary a bot prints when its game
        ends is charged to that game, not to the next one (or lost, when its process is
        stopped or kept for another game). ``None`` for a seat the referee plays itself.
        """
        if not self.is_bot:
            return None
        if self.healthy and self.session is not None and not self.session.closed:
            self.games_ended += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.session.flush(), LOG_SETTLE_LIMIT_MS / 1000)
            quiet_s, limit_s = self.config.log_quiet_ms / 1000, LOG_SETTLE_LIMIT_MS / 1000
            # An SDK bot marks the start of its output and the end of each game's.
            await self.logs.settle(1 + self.games_ended, quiet_s, limit_s)
        return self.logs.take_new()

    async def after_fault(self, error: BotError, notice: pb.Fault) -> tuple[str, int | None]:
        """Tell the bot about its fault and stop it; the tail of its stderr as it was at the
        fault (after the exit, for a crash, so the traceback is in) and a crash's exit code."""
        self.healthy = False
        exit_code = None
        await asyncio.sleep(0.05)  # let the pipes deliver what the bot wrote before its answer
        tail = self.logs.tail()
        if self.process is not None and error.kind is FaultKind.CRASH:
            with contextlib.suppress(TimeoutError):
                exit_code = await asyncio.wait_for(self.process.wait_exit(), 1.0)
            tail = self.logs.tail()
        if self.session is not None:
            notice.request_id = self.session.last_request_id
            self.session.send(pb.RefereeMessage(fault=notice))
            self.session.close()
            if exit_code is None:  # a live bot gets its notice before the kill
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.session.flush(), 0.5)
        if self.process is not None:
            await self.stop(kill=True)
        return tail, exit_code


_BOT_SPAWN_ERRNOS = frozenset(
    {errno.ENOENT, errno.EACCES, errno.ENOEXEC, errno.ENOTDIR, errno.ELOOP, errno.ENAMETOOLONG}
)
"""Errors that, naming the bot's own command, mean the bot cannot be run (its fault)."""


def _spawn_failure(spec: BotManifest, exc: OSError | SandboxError) -> BotError | ArenaFault:
    """Whose fault a failed spawn is.

    The bot's: its own command is missing or not executable (the exec error names it;
    behind the sandbox's chain of helpers the same shows as an exit before connecting).
    The arena's: anything else: no descriptors, memory or processes left, a helper of
    the sandbox missing, a sandbox that cannot be set up, no free bot uid, and a runtime
    named by a bare program name (``python``, ``node``) that is not on the arena's
    ``PATH`` (the sandbox's chain tells the same apart: :func:`chain.ready_step`).
    """
    command = " ".join(spec.run)
    program = spec.run[0]
    missing = isinstance(exc, OSError) and exc.errno == errno.ENOENT and exc.filename == program
    if missing and "/" not in program:
        return ArenaFault(
            f"the arena could not start {spec.label}: no program {program} on its PATH"
        )
    if isinstance(exc, OSError) and exc.errno in _BOT_SPAWN_ERRNOS and exc.filename == program:
        return BotStartupError(f"cannot start {command!r}: {exc.strerror or exc} ({exc.filename})")
    what = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    where = f" ({exc.filename})" if isinstance(exc, OSError) and exc.filename else ""
    return ArenaFault(f"the arena could not start {spec.label}: {what}{where}")


def _print_remote(seat: int, address: str, token: str) -> None:
    """Tell the organiser what the remote author must set (on stderr)."""
    print(
        f"seat {seat}: waiting for a remote bot: ARENA_ADDRESS={address} ARENA_TOKEN={token}",
        file=sys.stderr,
        flush=True,
    )
