"""What :func:`arena.sdk.play_locally` returns: each game, each fault, and a summary.

Faults use the referee's kinds and wording (docs/bots.md section 9), so a fault found in
process reads as ``arena bot check`` would report it.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import fmean
from typing import Any


@dataclass(frozen=True)
class LocalFault:
    """A fault of a bot in a local game; the autopilot played its seat to the game's end."""

    game: int
    """The game's number, from 1."""
    seat: int
    player: str
    """``name@version`` of the bot in that seat."""
    hand: int
    """The hand it happened in (0 before the first decision)."""
    decision: str
    """The decision asked (``play``, ``trump``, ``discard``, ``give``) or the event
    (``game_start``, ``hand_end``, ``game_end``) the bot failed in."""
    kind: str
    """``illegal`` (a move the rules do not allow), ``protocol`` (an answer the wire
    refuses) or ``crash`` (an exception in the bot's code)."""
    detail: str
    """One line for people, in the referee's words."""
    traceback: str = ""
    """A crash's Python traceback; empty for the other kinds."""

    def __str__(self) -> str:
        return (
            f"game {self.game}, seat {self.seat} ({self.player}), hand {self.hand}, "
            f"{self.decision}: {self.kind}: {self.detail}"
        )


@dataclass(frozen=True)
class LocalGame:
    """One game played in process."""

    number: int
    """From 1."""
    seed: int
    seats: tuple[str, str, str]
    """``name@version`` per seat."""
    bot_seat: int
    """The seat of the bot under test."""
    scores: tuple[int, int, int]
    """Final scores per seat."""
    winners: tuple[int, ...]
    """The winning seats (more than one for a draw)."""
    faults: tuple[LocalFault, ...]
    decision_ms: tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]
    """Per seat, the milliseconds of each decision a bot took (empty for a built-in)."""
    record: dict[str, Any]
    """The game's ``arena952.game/1`` record (docs/record-format.md), faults included."""

    @property
    def bot_score(self) -> int:
        """The final score of the bot under test."""
        return self.scores[self.bot_seat]


@dataclass(frozen=True)
class LocalReport:
    """Every game of :func:`arena.sdk.play_locally`, and what they add up to."""

    players: tuple[str, ...]
    """``name@version`` of the bot under test, then of each opponent, in the order given."""
    games: tuple[LocalGame, ...]
    player_seats: tuple[tuple[int, ...], ...]
    """Per player, its seat in each game."""

    @property
    def faults(self) -> tuple[LocalFault, ...]:
        """Every fault of every game, in order."""
        return tuple(fault for game in self.games for fault in game.faults)

    @property
    def ok(self) -> bool:
        """No fault in any game."""
        return not self.faults

    @property
    def mean_scores(self) -> tuple[float, ...]:
        """Per player (the bot under test first), its mean final score over the games."""
        return tuple(
            fmean(game.scores[seat] for game, seat in zip(self.games, seats, strict=True))
            for seats in self.player_seats
        )

    @property
    def wins(self) -> tuple[int, ...]:
        """Per player, the games it won outright (a draw is nobody's win)."""
        return tuple(
            sum(game.winners == (seat,) for game, seat in zip(self.games, seats, strict=True))
            for seats in self.player_seats
        )

    @property
    def mean_decision_ms(self) -> tuple[float | None, ...]:
        """Per player, its mean milliseconds per decision (``None`` for a built-in)."""
        means: list[float | None] = []
        for seats in self.player_seats:
            times = [
                ms
                for game, seat in zip(self.games, seats, strict=True)
                for ms in game.decision_ms[seat]
            ]
            means.append(fmean(times) if times else None)
        return tuple(means)

    def summary(self) -> str:
        """A few lines for people: per player its mean score, wins and decision time, then
        one line per fault."""
        lines = [f"{len(self.games)} game(s) in process"]
        for player, score, wins, ms in zip(
            self.players, self.mean_scores, self.wins, self.mean_decision_ms, strict=True
        ):
            timing = "" if ms is None else f", {ms:.2f} ms per decision"
            lines.append(f"  {player}: mean score {score:+.2f}, {wins} win(s){timing}")
        lines.extend(f"  fault: {fault}" for fault in self.faults)
        lines.append(
            "no faults." if self.ok else f"{len(self.faults)} fault(s): fix them before submitting."
        )
        return "\n".join(lines)
