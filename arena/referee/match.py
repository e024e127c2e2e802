"""Playing games between three seats through the referee.

A seat is a bot process (a :class:`BotManifest`), a remote bot that dials in over TCP
(:class:`RemoteSeat`), or a built-in policy run by the referee itself
(:class:`PolicySeat`, for opponents in ``arena bot check``). The referee alone holds the
game state; a bot only ever receives ``observe(state, seat)``.

On a bot's first fault in a game, the autopilot (:class:`GreedyPolicy`) plays its seat to
the end of that game, so the other two seats' game completes and counts; the bot process
is stopped and started again for the next game.

A failure of the arena itself (its descriptors or memory exhausted, a spawn that fails
for the host's reasons, a sandbox that cannot be set up) is never a bot's fault:
:func:`play_match` raises :class:`~arena.referee.errors.ArenaFault` for that game instead,
after every finished game has been handed to ``on_game``.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import math
import re
import secrets
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from arena import __version__
from arena.game import GameState, IllegalActionError, RuleSet, observe
from arena.game.actions import Decision, DecisionKind
from arena.game.dealing import HMAC_SHUFFLE, board_key
from arena.game.policies import GreedyPolicy, Policy
from arena.game.record import game_record
from arena.protocol import convert
from arena.referee.errors import (
    ArenaFault,
    BotError,
    BotIllegalAction,
    BotProtocolError,
    BotStartupError,
    BotStreamCut,
    FaultKind,
)
from arena.referee.manifest import BotManifest
from arena.referee.process import DEFAULT_LOG_CAP, BotProcess, LogCapture, bot_environment
from arena.referee.server import (
    MAX_MESSAGE_BYTES,
    RefereeServer,
    Session,
    check_descriptors,
    descriptors_needed,
    reserve_descriptors,
)
from arena.referee.timecontrol import Clock, TimeControl
from arena.sandbox.config import SandboxConfig, SandboxError
from arena.v1 import arena_pb2 as pb

LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class RemoteSeat:
    """A bot that connects by itself over TCP, e.g. from its author's machine."""

    name: str = "remote"


@dataclass(frozen=True)
class PolicySeat:
    """A built-in policy played by the referee (no process, no network)."""

    policy: Policy

    @property
    def label(self) -> str:
        """``name@builtin``."""
        return f"{self.policy.name}@builtin"


SeatSpec: TypeAlias = BotManifest | RemoteSeat | PolicySeat


@dataclass(frozen=True)
class MatchConfig:
    """What to play and under which limits."""

    rules: RuleSet
    games: int
    seed: int
    """Game *i*'s seed is ``seed + i`` when there is no *secret* (a tournament passes its
    board's key with ``games=1``)."""
    time_control: TimeControl = field(default_factory=TimeControl)
    log_cap: int = DEFAULT_LOG_CAP
    """Bytes of stdout+stderr kept per bot per match."""
    fresh_process_per_game: bool = False
    """Start every bot anew for every game (tournaments: no memory between seatings)."""
    listen: str | None = None
    """``host:port`` to accept remote bots over TCP; ``None``: a private unix socket only."""
    stop_grace_s: float = 1.0
    """How long a bot may take to exit after MatchEnd before it is killed."""
    first_dealers: tuple[int, ...] | None = None
    """First dealer of game *i* is ``first_dealers[i % len]``; default: rotate 0, 1, 2."""
    match_id: str | None = None
    """Names the match and its games (``<match_id>-<n>``); default: random. Tournaments set
    it so that a replayed game gets the same record."""
    announce_remote: Callable[[int, str, str], None] | None = None
    """Called with (seat, address, token) when a remote seat awaits its bot; default: stderr."""
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    """The sandbox of every bot process (docs/security.md); default best-effort."""
    secret: bytes | None = field(default=None, repr=False)
    """The match's deal secret: game *i*'s seed is ``board_key(secret, i)`` (never sent to a
    bot, kept out of ``repr``)."""
    shuffle: str = HMAC_SHUFFLE
    """How seeds become deals; only a tournament made before keyed deals passes legacy."""

    def game_seed(self, index: int) -> int:
        """The seed (deal key) of game *index*, from 0."""
        if self.secret is not None:
            return board_key(self.secret, index)
        return self.seed + index


@dataclass
class SeatStats:
    """One seat's totals over a match."""

    label: str
    score: int = 0
    wins: int = 0
    draws: int = 0
    faults: int = 0
    refused: int = 0
    """Streams refused at the seat's door (second streams, bad tokens, no Hello)."""
    decision_ms: list[float] = field(default_factory=list)

    @property
    def mean_ms(self) -> float:
        """Mean decision time (bot seats only)."""
        return sum(self.decision_ms) / len(self.decision_ms) if self.decision_ms else 0.0

    @property
    def p99_ms(self) -> float:
        """99th percentile decision time (nearest rank)."""
        if not self.decision_ms:
            return 0.0
        ordered = sorted(self.decision_ms)
        return ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]


@dataclass
class MatchResult:
    """Every game record of a match, and per-seat totals."""

    records: list[dict[str, Any]]
    stats: list[SeatStats]


class _SeatRunner:
    """One seat's bot across the games of a match: start, restart, ask, stop."""

    def __init__(self, seat: int, spec: SeatSpec, config: MatchConfig) -> None:
        self.seat = seat
        self.spec = spec
        self.config = config
        self.logs = LogCapture(cap=config.log_cap)
        self.process: BotProcess | None = None
        self.session: Session | None = None
        self.healthy = False
        self.remote_label: str | None = None

    @property
    def label(self) -> str:
        if isinstance(self.spec, BotManifest):
            return self.spec.label
        if isinstance(self.spec, PolicySeat):
            return self.spec.label
        return self.remote_label or f"{self.spec.name}@remote"

    @property
    def is_bot(self) -> bool:
        return not isinstance(self.spec, PolicySeat)

    async def ensure_started(self, server: RefereeServer, welcome: pb.Welcome) -> None:
        """Make sure a healthy bot is connected to this seat.

        :raises BotStartupError: if it cannot be started or does not connect in time.
        """
        if not self.is_bot or (
            self.healthy and self.session is not None and not self.session.closed
        ):
            return
        await self.stop(kill=True)
        remote = isinstance(self.spec, RemoteSeat)
        # A bot process dials its own door, so whatever it opens counts against it alone.
        address = server.address if remote else await server.door(self.seat)
        session = server.service.open_session(self.seat, welcome, None if remote else self.seat)
        self.session = session
        limit_s = self.config.time_control.startup_ms / 1000
        if isinstance(self.spec, RemoteSeat):
            announce = self.config.announce_remote or _print_remote
            announce(self.seat, server.address, session.token)
            waiters: list[asyncio.Future[Any]] = [asyncio.ensure_future(session.connected.wait())]
        else:
            assert isinstance(self.spec, BotManifest)
            env = bot_environment(address, session.token)
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
            if self.process is not None and self.process.exited:
                code = self.process.process.returncode
                raise BotStartupError(f"exited with code {code} before connecting")
            raise BotStartupError(f"did not connect within {limit_s * 1000:.0f} ms")
        if not session.inbox.empty() and session.closed:
            raise session.inbox.get_nowait()
        if isinstance(self.spec, RemoteSeat) and session.hello is not None:
            self.remote_label = f"{session.hello.bot_name}@{session.hello.bot_version}"
        self.healthy = True

    async def _spawn(self, env: dict[str, str]) -> BotProcess:
        """Start the bot's process; one retry when the spawn itself fails.

        A spawn failure is the host's problem, not the bot's (a missing command fails the
        same way twice): under parallel workers a sandboxed spawn was seen to fail once
        with ENOENT, and a single retry keeps that from being charged as a startup fault.
        """
        assert isinstance(self.spec, BotManifest)
        try:
            return await BotProcess.start(self.spec, env, self.logs, sandbox=self.config.sandbox)
        except OSError as exc:
            LOGGER.warning("spawning %s failed (%s); retrying once", self.spec.label, exc)
            await asyncio.sleep(0.1)
            return await BotProcess.start(self.spec, env, self.logs, sandbox=self.config.sandbox)

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


_TOO_LARGE = re.compile(r"larger than max \((\d+) vs\. (\d+)\)")
"""gRPC's own words to a bot whose message it refused for its size."""


def cut_detail(error: BotStreamCut, stderr_tail: str, exit_code: int | None) -> str:
    """The fault line of a stream cut before an answer.

    gRPC tells the bot, not the referee, why it cut the call; a bot that shows that
    status (as the SDK does) on stderr gets the size named. That line is the bot's own
    output: it only words the bot's own crash fault, it changes nothing else.
    """
    too_large = _TOO_LARGE.search(stderr_tail)
    if too_large:
        return (
            f"a message of {int(too_large[1])} bytes, over the {MAX_MESSAGE_BYTES >> 20} MiB "
            f"limit ({MAX_MESSAGE_BYTES} bytes): gRPC refused it and cut the stream"
        )
    if exit_code is not None:
        return f"the bot exited before answering (exit code {exit_code})"
    return error.detail


def _fault_detail(error: BotError, stderr_tail: str, exit_code: int | None) -> str:
    """A fault's line, with what was seen after it (an exit code, gRPC's reason)."""
    if isinstance(error, BotStreamCut):
        return cut_detail(error, stderr_tail, exit_code)
    return error.detail + (f" (exit code {exit_code})" if exit_code is not None else "")


_BOT_SPAWN_ERRNOS = frozenset(
    {errno.ENOENT, errno.EACCES, errno.ENOEXEC, errno.ENOTDIR, errno.ELOOP, errno.ENAMETOOLONG}
)
"""Errors that, naming the bot's own command, mean the bot cannot be run (its fault)."""


def _spawn_failure(spec: BotManifest, exc: OSError | SandboxError) -> BotError | ArenaFault:
    """Whose fault a spawn that failed twice is.

    The bot's: its own command is missing or not executable (the exec error names it;
    behind the sandbox's chain of helpers the same shows as an exit before connecting).
    The arena's: anything else: no descriptors, memory or processes left, a helper of
    the sandbox missing, a sandbox that cannot be set up, no free bot uid.
    """
    command = " ".join(spec.run)
    if isinstance(exc, OSError) and exc.errno in _BOT_SPAWN_ERRNOS and exc.filename == spec.run[0]:
        return BotStartupError(f"cannot start {command!r}: {exc.strerror or exc} ({exc.filename})")
    what = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    where = f" ({exc.filename})" if isinstance(exc, OSError) and exc.filename else ""
    return ArenaFault(f"the arena could not start {spec.label}: {what}{where}")


class Match:
    """A match of several games between three seats, refereed over gRPC."""

    def __init__(self, seats: Sequence[SeatSpec], config: MatchConfig) -> None:
        if len(seats) != 3:
            raise ValueError(f"a match needs 3 seats, got {len(seats)}")
        if config.listen is None and any(isinstance(s, RemoteSeat) for s in seats):
            raise ValueError("a remote seat needs a TCP listen address (--listen HOST:PORT)")
        self.config = config
        self.match_id = config.match_id or secrets.token_hex(6)
        self.runners = [_SeatRunner(i, spec, config) for i, spec in enumerate(seats)]
        self.autopilot = GreedyPolicy()
        self._records: list[dict[str, Any]] = []

    async def run(self, on_game: Callable[[dict[str, Any]], None] | None = None) -> MatchResult:
        """Play every game; always stops every bot and the server, whatever happens."""
        server = RefereeServer(hello_timeout_s=self.config.time_control.startup_ms / 1000)
        try:
            reserve_descriptors(self._descriptors())
            shared = f"unix:{server.directory}/shared-{secrets.token_hex(8)}.sock"
            await server.start(self.config.listen or shared)
            stats = [SeatStats(r.label) for r in self.runners]
            records = self._records
            for index in range(self.config.games):
                try:
                    record = await self._play_game(server, index, stats)
                except MemoryError:
                    raise ArenaFault(f"the referee ran out of memory in game {index + 1}") from None
                records.append(record)
                if on_game is not None:
                    on_game(record)
            for runner, seat_stats in zip(self.runners, stats, strict=True):
                seat_stats.label = runner.label
            return MatchResult(records, stats)
        finally:
            await self._shutdown(server, len(self._records))

    def _descriptors(self) -> int:
        """Descriptors this match may hold at once."""
        return descriptors_needed(sum(1 for r in self.runners if r.is_bot))

    async def _shutdown(self, server: RefereeServer, played: int) -> None:
        reason = "completed" if played == self.config.games else "aborted"
        end = pb.RefereeMessage(match_end=pb.MatchEnd(games_played=played, reason=reason))
        for runner in self.runners:
            if runner.session is not None:
                runner.session.send(end)
        await asyncio.gather(*(r.stop() for r in self.runners), return_exceptions=True)
        await server.stop(0.5)

    def _welcome(self, seat: int) -> pb.Welcome:
        tc = self.config.time_control
        return convert.welcome_to_proto(
            convert.Welcome(
                seat=seat,
                match_id=self.match_id,
                games_in_match=self.config.games,
                time_control=convert.TimeControl(tc.decision_ms, tc.bank_ms),
                referee_version=__version__,
            )
        )

    async def _play_game(
        self, server: RefereeServer, index: int, stats: list[SeatStats]
    ) -> dict[str, Any]:
        config = self.config
        seed = config.game_seed(index)
        dealers = config.first_dealers or (0, 1, 2)
        state = GameState(
            config.rules,
            seed,
            first_dealer=dealers[index % len(dealers)],
            shuffle=config.shuffle,
        )
        game_id = (
            self.match_id
            if self.config.games == 1 and self.config.match_id
            else (f"{self.match_id}-{index + 1}")
        )
        faults: list[dict[str, Any]] = []
        autopilot = [False, False, False]
        # The arena's own shortage is never a bot's startup fault (raises ArenaFault).
        check_descriptors(self._descriptors() // 2)
        refused_before = [server.refused(r.seat) for r in self.runners]
        await self._start_bots(server, faults, autopilot)
        labels = [r.label for r in self.runners]
        self._broadcast(state, game_id, index, labels, autopilot)
        clocks = [Clock(config.time_control) for _ in range(3)]
        times: list[list[float]] = [[], [], []]
        while not state.is_over:
            seat = state.current_seat
            hand = state.hand
            runner = self.runners[seat]
            if autopilot[seat] or not runner.is_bot:
                policy = (
                    runner.spec.policy if isinstance(runner.spec, PolicySeat) else self.autopilot
                )
                state.apply_decision(policy.act(observe(state, seat)))
            else:
                try:
                    decision, elapsed = await self._ask(runner, state, clocks[seat])
                    times[seat].append(round(elapsed * 1000, 3))
                    try:
                        state.apply_decision(decision)
                    except IllegalActionError as exc:
                        raise BotIllegalAction(str(exc)) from None
                except BotError as error:
                    kind = state.decision_kind
                    notice = _notice(seat, hand.number, kind, error)
                    tail, code = await runner.after_fault(error, notice)
                    decision_name = kind.value if kind else "play"
                    fault = self._fault(seat, hand.number, decision_name, error, tail)
                    fault["detail"] = _fault_detail(error, tail, code)
                    faults.append(fault)
                    autopilot[seat] = True
                    state.apply_decision(self.autopilot.act(observe(state, seat)))
            if hand.scores is not None:
                self._send_all(
                    autopilot,
                    pb.RefereeMessage(
                        hand_end=convert.hand_end_to_proto(convert.hand_end_from_log(hand))
                    ),
                )
        assert state.result is not None
        # A seat that faulted is no longer connected, so GameEnd never carries faults here.
        self._send_all(
            autopilot,
            pb.RefereeMessage(
                game_end=pb.GameEnd(
                    game_id=game_id, result=convert.game_result_to_proto(state.result)
                )
            ),
        )
        refused = [server.refused(r.seat) - refused_before[r.seat] for r in self.runners]
        self._tally(state, stats, faults, times)
        for seat_stats, count in zip(stats, refused, strict=True):
            seat_stats.refused += count
        logs = [r.logs.take_new() if r.is_bot else None for r in self.runners]
        extra = {
            "game_id": game_id,
            "match_id": self.match_id,
            "time_control": str(config.time_control),
            "timings": {"decision_ms": times},
            "bot_logs": logs,
            "referee": f"arena {__version__}",
            "refused_streams": refused,
        }
        return game_record(state, labels, faults, extra)

    async def _start_bots(
        self, server: RefereeServer, faults: list[dict[str, Any]], autopilot: list[bool]
    ) -> None:
        """(Re)start every bot seat that needs it; a bot that fails is a startup fault."""
        for runner in self.runners:
            if self.config.fresh_process_per_game and runner.healthy:
                await runner.stop()
            try:
                await runner.ensure_started(server, self._welcome(runner.seat))
            except BotError as error:
                faults.append(self._fault(runner.seat, 0, "startup", error, runner.logs.tail()))
                autopilot[runner.seat] = True
                await runner.stop(kill=True)

    def _broadcast(
        self, state: GameState, game_id: str, index: int, labels: list[str], autopilot: list[bool]
    ) -> None:
        tc = self.config.time_control
        for runner in self.runners:
            if runner.session is None or autopilot[runner.seat]:
                continue
            start = convert.GameStart(
                game_id=game_id,
                game_number=index + 1,
                games_in_match=self.config.games,
                rules=state.rules,
                seat=runner.seat,
                first_dealer=state.first_dealer,
                players=(labels[0], labels[1], labels[2]),
                time_control=convert.TimeControl(tc.decision_ms, tc.bank_ms),
            )
            runner.session.send(pb.RefereeMessage(game_start=convert.game_start_to_proto(start)))

    def _send_all(self, autopilot: list[bool], message: pb.RefereeMessage) -> None:
        for runner in self.runners:
            if runner.session is not None and runner.healthy and not autopilot[runner.seat]:
                runner.session.send(message)

    async def _ask(
        self, runner: _SeatRunner, state: GameState, clock: Clock
    ) -> tuple[Decision, float]:
        assert runner.session is not None
        obs = observe(state, runner.seat)
        request = convert.request_to_proto(
            obs, 0, self.config.time_control.decision_ms, int(clock.bank_ms)
        )
        start = time.perf_counter()
        reply, _ = await runner.session.ask(request, clock.deadline_ms / 1000)
        elapsed = time.perf_counter() - start
        clock.charge(elapsed * 1000)
        try:
            return convert.decision_from_proto(reply), elapsed
        except convert.ProtocolError as exc:
            raise BotProtocolError(f"malformed answer: {exc}") from None

    @staticmethod
    def _fault(seat: int, hand: int, decision: str, error: BotError, tail: str) -> dict[str, Any]:
        detail = error.detail
        LOGGER.info("seat %d fault %s: %s", seat, error.kind.value, detail)
        return {
            "seat": seat,
            "hand": hand,
            "decision": decision,
            "kind": error.kind.value,
            "detail": detail,
            "autopilot": True,
            "stderr_tail": tail,
        }

    @staticmethod
    def _tally(
        state: GameState,
        stats: list[SeatStats],
        faults: list[dict[str, Any]],
        times: list[list[float]],
    ) -> None:
        result = state.result
        assert result is not None
        for seat in range(3):
            stats[seat].score += result.scores[seat]
            stats[seat].decision_ms.extend(times[seat])
            if seat in result.winners:
                if result.is_draw:
                    stats[seat].draws += 1
                else:
                    stats[seat].wins += 1
        for fault in faults:
            stats[fault["seat"]].faults += 1


def _notice(seat: int, hand: int, kind: DecisionKind | None, error: BotError) -> pb.Fault:
    """The Fault message a bot gets before the referee stops it."""
    return convert.fault_to_proto(
        convert.Fault(
            kind=error.kind,
            decision=kind,
            hand=hand,
            detail=error.detail,
            autopilot=True,
            seat=seat,
        )
    )


def _print_remote(seat: int, address: str, token: str) -> None:
    """Tell the organiser what the remote author must set (on stderr)."""
    print(
        f"seat {seat}: waiting for a remote bot: ARENA_ADDRESS={address} ARENA_TOKEN={token}",
        file=sys.stderr,
        flush=True,
    )


async def play_match(
    seats: Sequence[SeatSpec],
    config: MatchConfig,
    on_game: Callable[[dict[str, Any]], None] | None = None,
) -> MatchResult:
    """Play a match (see :class:`Match`)."""
    return await Match(seats, config).run(on_game)
