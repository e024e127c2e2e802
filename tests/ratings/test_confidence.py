"""Rank confidence: P(above the next) against known normal values, rank intervals against
cases whose answer is known exactly, and controls where the answer must widen."""

from __future__ import annotations

from statistics import NormalDist

import pytest

from arena.ratings import Rating
from arena.ratings.confidence import (
    RankInterval,
    p_above_next,
    probability_above,
    rank_intervals,
)


def test_probability_above_is_phi_of_the_standardised_gap() -> None:
    # (30 - 26) / sqrt(3^2 + 4^2) = 0.8, Phi(0.8) = 0.788145 (normal tables).
    assert probability_above(Rating(30.0, 3.0), Rating(26.0, 4.0)) == pytest.approx(
        0.788145, abs=1e-6
    )
    assert probability_above(Rating(26.0, 4.0), Rating(30.0, 3.0)) == pytest.approx(
        0.211855, abs=1e-6
    )
    # Equal means: a coin flip whatever the sigmas.
    assert probability_above(Rating(25.0, 8.0), Rating(25.0, 1.0)) == pytest.approx(0.5)


def test_probability_above_with_known_skills_is_certain() -> None:
    assert probability_above(Rating(26.0, 0.0), Rating(25.0, 0.0)) == 1.0
    assert probability_above(Rating(25.0, 0.0), Rating(26.0, 0.0)) == 0.0
    assert probability_above(Rating(25.0, 0.0), Rating(25.0, 0.0)) == 0.5


def test_p_above_next_follows_the_given_order_and_ends_with_none() -> None:
    ratings = [Rating(30.0, 1.0), Rating(20.0, 1.0), Rating(25.0, 1.0)]
    values = p_above_next(ratings)
    assert values[2] is None
    assert values[0] == pytest.approx(NormalDist().cdf(10 / 2**0.5))
    # The list puts 20 above 25: the value says that order is unlikely.
    assert values[1] is not None and values[1] < 0.001
    assert p_above_next([]) == []
    assert p_above_next([Rating(25.0, 1.0)]) == [None]


def test_well_separated_bots_have_exact_ranks() -> None:
    ratings = [Rating(40.0, 0.5), Rating(30.0, 0.5), Rating(20.0, 0.5)]
    assert rank_intervals(ratings) == [RankInterval(1, 1), RankInterval(2, 2), RankInterval(3, 3)]


def test_indistinguishable_bots_can_take_any_rank() -> None:
    ratings = [Rating(25.0, 8.0)] * 3
    assert rank_intervals(ratings) == [RankInterval(1, 3)] * 3


def test_only_the_uncertain_pair_shares_its_ranks() -> None:
    ratings = [Rating(30.0, 2.0), Rating(30.0, 2.0), Rating(10.0, 0.5)]
    assert rank_intervals(ratings) == [RankInterval(1, 2), RankInterval(1, 2), RankInterval(3, 3)]


@pytest.mark.parametrize(
    ("gap", "expected_high"),
    [
        # P(first above second) = Phi(gap / sqrt(2)): 0.99 leaves under 2.5% at rank 2 ...
        (2.0**0.5 * NormalDist().inv_cdf(0.99), 1),
        # ... while 0.95 (the control) puts 5% there, so the interval must reach rank 2.
        (2.0**0.5 * NormalDist().inv_cdf(0.95), 2),
    ],
)
def test_the_interval_widens_exactly_when_the_order_is_in_doubt(
    gap: float, expected_high: int
) -> None:
    ratings = [Rating(25.0 + gap, 1.0), Rating(25.0, 1.0)]
    intervals = rank_intervals(ratings)
    assert intervals[0] == RankInterval(1, expected_high)
    assert intervals[1] == RankInterval(3 - expected_high, 2)


def test_intervals_are_deterministic_and_seeded() -> None:
    ratings = [Rating(25.0 + i * 0.7, 2.0 + (i % 3)) for i in range(12)]
    first = rank_intervals(ratings)
    assert rank_intervals(ratings) == first
    # A narrower level never gives a wider interval than a wider level.
    narrow = rank_intervals(ratings, level=0.5)
    for wide, small in zip(first, narrow, strict=True):
        assert wide.low <= small.low <= small.high <= wide.high


def test_an_interval_contains_the_listed_rank_of_a_settled_leaderboard() -> None:
    ratings = sorted(
        (Rating(20.0 + 1.5 * i, 1.2) for i in range(10)), key=lambda r: r.mu, reverse=True
    )
    for position, interval in enumerate(rank_intervals(ratings), start=1):
        assert interval.low <= position <= interval.high


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="level"):
        rank_intervals([Rating(25.0, 1.0)], level=1.0)
    with pytest.raises(ValueError, match="draws"):
        rank_intervals([Rating(25.0, 1.0)], draws=0)
    assert rank_intervals([]) == []
