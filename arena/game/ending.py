"""End of the game (docs/rules.md section 7): triggers, winner rules, tie rules and the cap."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from arena.game.rules import NegativeRole, RuleSet, TieRule, WinnerRule
from arena.game.values import EndReason, GameResult


@dataclass(frozen=True, slots=True)
class EndCheck:
    """What :func:`check_end` decided after a hand."""

    over: bool
    winners: tuple[int, ...] = ()
    reason: EndReason | None = None
    overtime: bool = False
    """True when the game goes on in sudden-death overtime."""


def check_end(
    rules: RuleSet, scores: tuple[int, int, int] | list[int], hands_played: int, overtime: bool
) -> EndCheck:
    """Decide whether the game is over after a hand has been scored (docs/rules.md 7.6)."""
    positive_hit = max(scores) >= rules.target
    negative = rules.negative_target
    negative_hit = negative is not None and min(scores) <= negative
    if overtime or positive_hit or negative_hit:
        if rules.winner_rule is WinnerRule.LARGEST_EXCESS:
            return _largest_excess(rules, scores, positive_hit)
        check = _highest(rules, scores, positive_hit, overtime)
        if check.over:
            return check
        overtime = True
    if hands_played >= rules.max_hands:
        return EndCheck(True, _top_seats(scores), EndReason.CAPPED)
    return _GO_ON_IN_OVERTIME if overtime else _GO_ON


_GO_ON: Final = EndCheck(False)
_GO_ON_IN_OVERTIME: Final = EndCheck(False, overtime=True)
"""The usual answers, built once: a frozen dataclass costs a call per field to build."""


def _top_seats(scores: tuple[int, int, int] | list[int]) -> tuple[int, ...]:
    top = max(scores)
    return tuple(i for i in range(3) if scores[i] == top)


def _highest(
    rules: RuleSet, scores: tuple[int, int, int] | list[int], positive_hit: bool, overtime: bool
) -> EndCheck:
    """Winner rule ``highest``: a unique top score wins; a tie draws or goes to overtime."""
    winners = _top_seats(scores)
    if len(winners) == 1:
        if overtime:
            return EndCheck(True, winners, EndReason.OVERTIME)
        return EndCheck(True, winners, EndReason.TARGET if positive_hit else EndReason.NEGATIVE)
    if rules.tie_rule is TieRule.DRAW:
        return EndCheck(True, winners, EndReason.DRAW)
    return EndCheck(False, overtime=True)


def _largest_excess(
    rules: RuleSet, scores: tuple[int, int, int] | list[int], positive_hit: bool
) -> EndCheck:
    """Winner rule ``largest_excess``: the seat furthest past its objective wins."""
    target, negative = rules.target, rules.negative_target
    candidates: list[tuple[int, int, int]] = []  # (excess, is_positive, seat)
    for seat in range(3):
        score = scores[seat]
        if score >= target:
            candidates.append((score - target, 1, seat))
        elif (
            negative is not None
            and rules.negative_role is NegativeRole.OBJECTIVE
            and score <= negative
        ):
            candidates.append((negative - score, 0, seat))
    if not candidates:
        # Only a negative limit that merely ends the game fired: the highest score wins.
        winners = _top_seats(scores)
        return EndCheck(True, winners, EndReason.NEGATIVE if len(winners) == 1 else EndReason.DRAW)
    best = max(c[0] for c in candidates)
    tied = [c for c in candidates if c[0] == best]
    if len(tied) > 1 and rules.tie_rule is TieRule.POSITIVE_SIDE:
        tied = [c for c in tied if c[1] == 1] or tied
    winners = tuple(sorted(c[2] for c in tied))
    if len(winners) > 1:
        return EndCheck(True, winners, EndReason.DRAW)
    return EndCheck(True, winners, EndReason.TARGET if positive_hit else EndReason.NEGATIVE)


__all__ = ["EndCheck", "EndReason", "GameResult", "check_end"]
