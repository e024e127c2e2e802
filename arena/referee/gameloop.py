"""The game loop: one game between three seats, from the deal to its record.

The referee alone holds the game state; a bot only ever receives
``observe(state, seat)``, and every answer is checked against the rules before it is
applied. On a bot's first fault in a game, the autopilot (:class:`GreedyPolicy`) plays
its seat to the end of that game, so the other two seats' game completes and counts.
Starting and stopping the bots is the seat runners' job (:mod:`arena.referee.seat`), the
wording of faults that of :mod:`arena.referee.faults`; the match
(:mod:`arena.referee.match`) runs this loop once per game.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

from arena import __version__
from arena.game import GameState, IllegalActionError, observe
from arena.game.actions import Decision
from arena.game.policies import GreedyPolicy
from arena.game.public import public_view
from arena.game.record import game_record
from arena.protocol import convert
from arena.referee.config import GameSetup, MatchConfig, PolicySeat, SeatStats
from arena.referee.errors import BotError, BotIllegalAction, BotProtocolError
from arena.referee.faults import fault_detail, fault_notice, fault_record
from arena.referee.human_seat import HumanSeat, ask_person
from arena.referee.seat import SeatRunner
from arena.referee.timecontrol import Clock
from arena.referee.wire.descriptors import check_descriptors, descriptors_needed
from arena.referee.wire.doors import RefereeServer
from arena.v1 import arena_pb2 as pb

PublicFeed = Callable[[dict[str, Any]], None]
"""Told the public view (:func:`arena.game.public.public_view`) of a game in play at its
start and after every decision: the live feed (docs/live.md). It must return at once."""


def welcome(config: MatchConfig, match_id: str, seat: int) -> pb.Welcome:
    """The Welcome a bot of match *match_id* gets at *seat* when its stream is admitted."""
    tc = config.time_control
    return convert.welcome_to_proto(
        convert.Welcome(
            seat=seat,
            match_id=match_id,
            games_in_match=config.games,
            time_control=convert.TimeControl(tc.decision_ms, tc.bank_ms),
            referee_version=__version__,
        )
    )


class GameLoop:
    """Plays the games of one match, one at a time, on the match's three seat runners."""

    def __init__(self, config: MatchConfig, match_id: str, runners: Sequence[SeatRunner]) -> None:
        self.config = config
        self.match_id = match_id
        self.runners = runners
        self.autopilot = GreedyPolicy()
        self.descriptors = descriptors_needed(sum(1 for r in runners if r.is_bot))
        """Descriptors the match may hold at once."""
        self.on_public: PublicFeed | None = None
        """The live feed, if any: only the public view of the state ever leaves the loop,
        so no private card can reach an onlooker, whatever the feed does with it."""

    def welcome(self, seat: int) -> pb.Welcome:
        """The Welcome a bot gets at *seat* when its stream is admitted."""
        return welcome(self.config, self.match_id, seat)

    async def play(
        self,
        server: RefereeServer,
        index: int,
        stats: list[SeatStats],
        setup: GameSetup | None = None,
    ) -> dict[str, Any]:
        """Play game *index* (from 0) to the end, as *setup* says (default: the match's own
        game *index*); its record. Adds the game to *stats*.

        :raises ArenaFault: if the referee lacks the descriptors for the game.
        """
        config = self.config
        setup = setup or config.game_setup(index, self.match_id)
        state = GameState(
            config.rules, setup.seed, first_dealer=setup.first_dealer, shuffle=config.shuffle
        )
        game_id = setup.game_id
        faults: list[dict[str, Any]] = []
        autopilot = [False, False, False]
        # The arena's own shortage is never a bot's startup fault (raises ArenaFault).
        check_descriptors(self.descriptors // 2)
        refused_before = [server.refused(r.door) for r in self.runners]
        await self._start_bots(server, faults, autopilot)
        labels = [r.label for r in self.runners]
        self._broadcast(state, setup, labels, autopilot)
        # One turn of the loop starts the writes, so they complete while the next request
        # is built, not inside its timed round trip (Session.ask writes it after them).
        await asyncio.sleep(0)
        # A person's seat keeps its own clock (minutes: docs/play.md), the bots the match's.
        clocks = [
            Clock(r.spec.time_control if isinstance(r.spec, HumanSeat) else config.time_control)
            for r in self.runners
        ]
        times: list[list[float]] = [[], [], []]
        self._tell(state)
        while not state.is_over:
            seat = state.current_seat
            hand = state.hand
            runner = self.runners[seat]
            if autopilot[seat] or not (runner.is_bot or isinstance(runner.spec, HumanSeat)):
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
                    faults.append(await self._fault(runner, state, error))
                    autopilot[seat] = True
                    state.apply_decision(self.autopilot.act(observe(state, seat)))
            self._tell(state)
            if hand.scores is not None:
                self._send_all(
                    autopilot,
                    pb.RefereeMessage(
                        hand_end=convert.hand_end_to_proto(convert.hand_end_from_log(hand))
                    ),
                )
                await asyncio.sleep(0)  # as after GameStart: the writes start now
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
        refused = [
            server.refused(r.door) - before
            for r, before in zip(self.runners, refused_before, strict=True)
        ]
        self._tally(state, stats, faults, times)
        for seat_stats, count in zip(stats, refused, strict=True):
            seat_stats.refused += count
        # Cut each bot's log once what it wrote on GameEnd is in (seat.SeatRunner.game_logs).
        logs = await asyncio.gather(*(r.game_logs() for r in self.runners))
        extra = {
            "game_id": game_id,
            "match_id": setup.match_id,
            "time_control": str(config.time_control),
            "timings": {"decision_ms": times},
            "bot_logs": list(logs),
            "referee": f"arena {__version__}",
            "refused_streams": refused,
        }
        return game_record(state, labels, faults, extra)

    def _tell(self, state: GameState) -> None:
        """Tell the live feed the public view, and every person's desk its own seat's
        observation (nothing else: docs/play.md)."""
        if self.on_public is not None:
            self.on_public(public_view(state))
        for runner in self.runners:
            if isinstance(runner.spec, HumanSeat):
                runner.spec.desk.show(observe(state, runner.seat))

    @staticmethod
    async def _fault(runner: SeatRunner, state: GameState, error: BotError) -> dict[str, Any]:
        """The fault record of *runner*'s *error* at *state*'s decision, once the bot is
        told and its last output read (:meth:`SeatRunner.after_fault`)."""
        seat, number, kind = runner.seat, state.hand.number, state.decision_kind
        notice = fault_notice(seat, number, kind, error)
        tail, code = await runner.after_fault(error, notice)
        fault = fault_record(seat, number, kind.value if kind else "play", error, tail)
        fault["detail"] = fault_detail(error, tail, code)
        return fault

    async def _start_bots(
        self, server: RefereeServer, faults: list[dict[str, Any]], autopilot: list[bool]
    ) -> None:
        """(Re)start every bot seat that needs it; a bot that fails is a startup fault.

        The seats start at once, so a new set of processes is ready after its slowest bot's
        start-up, not after the sum of the three (most of a start is the bot's own
        interpreter and imports, waiting for which left a core idle). The outcome is
        taken in seat order: the same faults, in the same order, as one after another; an
        arena fault of any seat is raised once every seat's start has ended.
        """
        outcomes = await asyncio.gather(
            *(self._start_seat(server, runner) for runner in self.runners),
            return_exceptions=True,
        )
        arena_fault: BaseException | None = None
        for runner, outcome in zip(self.runners, outcomes, strict=True):
            if isinstance(outcome, BotError):
                faults.append(fault_record(runner.seat, 0, "startup", outcome, runner.logs.tail()))
                autopilot[runner.seat] = True
                await runner.stop(kill=True)
            elif outcome is not None and arena_fault is None:
                arena_fault = outcome
        if arena_fault is not None:
            raise arena_fault

    async def _start_seat(self, server: RefereeServer, runner: SeatRunner) -> None:
        """Start *runner*'s bot if it needs it (a fresh one per game if so configured)."""
        if self.config.fresh_process_per_game and runner.healthy:
            await runner.stop()
        await runner.ensure_started(server, self.welcome(runner.seat))

    def _broadcast(
        self, state: GameState, setup: GameSetup, labels: list[str], autopilot: list[bool]
    ) -> None:
        tc = self.config.time_control
        for runner in self.runners:
            if runner.session is None or autopilot[runner.seat]:
                continue
            start = convert.GameStart(
                game_id=setup.game_id,
                game_number=setup.number,
                games_in_match=setup.games,
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
        self, runner: SeatRunner, state: GameState, clock: Clock
    ) -> tuple[Decision, float]:
        if isinstance(runner.spec, HumanSeat):
            return await ask_person(runner.spec, observe(state, runner.seat), clock)
        assert runner.session is not None
        obs = observe(state, runner.seat)
        request = convert.request_message(
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
