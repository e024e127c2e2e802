"""The thinned rating history (issue 35), on SQLite and PostgreSQL: past *max_points*
schedule slots, each bot's points are its latest snapshots at or before evenly spaced
schedule indexes counted back from the last rated game, found by index seeks rather than a
window over every snapshot. The expected points are computed here from the whole history
(``max_points=None``), so the seeks must pick exactly those snapshots.

Control: the thinned history really is thinner than the whole one (the comparison is not
between two copies of everything), and it still ends with each bot's current rating.
"""

from __future__ import annotations

from collections import defaultdict

import pytest
from sqlalchemy import Engine

from arena import storage
from arena.storage.standings import RatingPoint
from tests.storage.helpers import make_bots, make_record, make_tournament, seating, store

GAMES = 30


def _expected(whole: list[RatingPoint], last: int, points: int) -> list[RatingPoint]:
    """From the whole history: per bot, the prior, then its latest snapshot at or before
    each target ``last - j * step`` (merged when two targets find the same snapshot)."""
    step = -(-(last + 1) // points)
    targets = [last - j * step for j in range(points) if last - j * step >= 0]
    by_bot: dict[int, list[RatingPoint]] = defaultdict(list)
    for point in whole:
        by_bot[point.bot_version_id].append(point)
    out: list[RatingPoint] = []
    for bot in sorted(by_bot):
        prior, *snapshots = by_bot[bot]
        picked = {
            max((p for p in snapshots if p.schedule_index <= t), key=lambda p: p.schedule_index)
            for t in targets
            if any(p.schedule_index <= t for p in snapshots)
        }
        out += [prior, *sorted(picked, key=lambda p: p.schedule_index)]
    return out


@pytest.mark.parametrize("points", [1, 2, 7, 29])
def test_thinned_history_picks_the_latest_snapshot_at_each_target(
    engine: Engine, points: int
) -> None:
    bots = make_bots(engine, 4)
    tournament = make_tournament(engine, bots, games_total=GAMES)
    for index in range(GAMES):
        store(engine, tournament, index, seating(bots, index), make_record(index))
    assert tournament.id is not None
    whole = storage.rating_history(engine, tournament.id, max_points=None)
    thinned = storage.rating_history(engine, tournament.id, max_points=points)
    assert thinned == _expected(whole, GAMES - 1, points)
    # Control: fewer points than the whole history, and each bot still ends where it is.
    assert len(thinned) < len(whole)
    current = {r.bot_version_id: r.games for r in storage.ratings(engine, tournament.id)}
    for bot, games in current.items():
        assert [p for p in thinned if p.bot_version_id == bot][-1].games == games
    # One bot only: the same points of that bot.
    one = storage.rating_history(engine, tournament.id, [bots[1]], max_points=points)
    assert one == [p for p in thinned if p.bot_version_id == bots[1]]


def test_a_short_history_is_never_thinned(engine: Engine) -> None:
    bots = make_bots(engine, 3)
    tournament = make_tournament(engine, bots, games_total=6)
    for index in range(6):
        store(engine, tournament, index, seating(bots, index), make_record(index))
    assert tournament.id is not None
    whole = storage.rating_history(engine, tournament.id, max_points=None)
    assert storage.rating_history(engine, tournament.id, max_points=6) == whole
    assert len(storage.rating_history(engine, tournament.id, max_points=5)) < len(whole)
