"""The ladder's matchmaker and stopping rule (pure functions), and the executor's job queue
asking for more work only when a worker would otherwise wait."""

from __future__ import annotations

import asyncio
import itertools
import random
from collections import Counter
from collections.abc import Sequence

import pytest

from arena.tournament.jobs import GameJob
from arena.tournament.matchmaker import (
    Contender,
    MatchmakerSettings,
    is_settled,
    pick_table,
    standings_order,
)
from arena.tournament.pool import _Queue

SETTLED = 50
"""Games of a bot past its newcomer phase."""


def _field(mus: Sequence[float], sigmas: Sequence[float] | float = 1.0) -> list[Contender]:
    spread = [sigmas] * len(mus) if isinstance(sigmas, float) else list(sigmas)
    return [Contender(i, mu, s, SETTLED) for i, (mu, s) in enumerate(zip(mus, spread, strict=True))]


def _seatings(bots: Sequence[Contender], decisions: int = 1500) -> Counter[int]:
    """How often each bot is seated over *decisions* seeded decisions."""
    counts: Counter[int] = Counter()
    for seed in range(decisions):
        counts.update(pick_table(bots, random.Random(seed)))
    return counts


def test_a_table_is_three_distinct_contenders_and_reproducible_from_its_seed() -> None:
    bots = _field([25 + i for i in range(8)])
    for seed in range(200):
        table = pick_table(bots, random.Random(seed))
        assert len(set(table)) == 3 and set(table) <= {b.key for b in bots}
        assert pick_table(list(reversed(bots)), random.Random(seed)) == table
    assert len({pick_table(bots, random.Random(s)) for s in range(50)}) > 10
    with pytest.raises(ValueError, match="needs 3 bots"):
        pick_table(bots[:2], random.Random(0))
    with pytest.raises(ValueError, match="twice"):
        pick_table([*bots[:3], bots[0]], random.Random(0))


def test_newcomers_sit_at_every_table_until_they_have_their_games() -> None:
    bots = _field([20 + 2 * i for i in range(10)])
    newcomer = Contender(99, 25.0, 8.3, 3)
    tables = [pick_table([*bots, newcomer], random.Random(s)) for s in range(300)]
    assert all(99 in table for table in tables)
    # Two newcomers both sit at every table, whatever their ratings.
    other = Contender(98, 40.0, 8.3, 5)
    tables = [pick_table([*bots, newcomer, other], random.Random(s)) for s in range(300)]
    assert all({98, 99} <= set(table) for table in tables)
    settled_other = Contender(98, 40.0, 8.3, MatchmakerSettings().min_games)
    tables = [pick_table([*bots, newcomer, settled_other], random.Random(s)) for s in range(300)]
    assert not all(98 in table for table in tables)  # the control
    # The control: with its minimum games played (and a settled sigma) it is one bot
    # among eleven.
    settled = Contender(99, 25.0, 1.0, MatchmakerSettings().min_games)
    share = _seatings([*bots, settled], 600)[99] / 600
    assert share < 0.6


def test_uncertain_ratings_are_seated_more_often() -> None:
    mus = [10 + 3 * i for i in range(10)]
    sure = _seatings(_field(mus))
    unsure = _seatings(_field(mus, [1.0] * 5 + [4.0] + [1.0] * 4))
    assert unsure[5] > 1.5 * sure[5]
    # The control: the same bot with the same sigma as its neighbours is seated about as
    # often as they are.
    assert sure[5] < 1.5 * max(sure[4], sure[6])


def test_the_least_certain_pair_is_matched_most() -> None:
    close = _field([0, 10, 20, 30, 40, 40.5, 50, 60, 70, 80])
    together = sum({4, 5} <= set(pick_table(close, random.Random(s))) for s in range(1000))
    even = _field([10 * i for i in range(10)])
    control = sum({4, 5} <= set(pick_table(even, random.Random(s))) for s in range(1000))
    assert together > 600 and control < 300


def test_pairs_whose_order_is_certain_spend_few_games() -> None:
    """Four clusters of three equal bots, far apart: tables stay inside a cluster, where
    the order is a coin flip; a pair across two clusters, whose order is certain, meets
    only when exploration draws it."""
    bots = _field([40.0 * (i // 3) + 0.1 * (i % 3) for i in range(12)])
    across = sum(len({k // 3 for k in pick_table(bots, random.Random(s))}) > 1 for s in range(1000))
    assert across < 200
    # The control: the same draws with every third seat explored cross clusters often.
    uniform = MatchmakerSettings(explore=1.0)
    across = sum(
        len({k // 3 for k in pick_table(bots, random.Random(s), uniform)}) > 1 for s in range(1000)
    )
    assert across > 500


def _fewest_met(bots: Sequence[Contender], settings: MatchmakerSettings) -> int:
    """The fewest different opponents any bot meets over 600 seeded tables."""
    met: dict[int, set[int]] = {b.key: set() for b in bots}
    for seed in range(600):
        table = pick_table(bots, random.Random(seed), settings)
        for a, b in itertools.permutations(table, 2):
            met[a].add(b)
    return min(len(opponents) for opponents in met.values())


def test_every_bot_meets_a_spread_of_opponents() -> None:
    bots = _field([25 + 1.5 * i for i in range(20)], 2.0)
    assert _fewest_met(bots, MatchmakerSettings()) >= 6
    # The control: without exploration some bot meets fewer.
    assert _fewest_met(bots, MatchmakerSettings(explore=0.0)) < _fewest_met(
        bots, MatchmakerSettings()
    )


def test_the_stopping_rule() -> None:
    apart = _field([40, 30, 20, 10], 1.0)
    assert is_settled(apart, 0.95, 12)
    assert not is_settled(apart, 0.95, SETTLED + 1)  # one game short each
    close = _field([40, 30, 29.5, 10], 1.0)
    assert not is_settled(close, 0.95, 12)
    assert is_settled(close, 0.6, 12)  # P(30 above 29.5) = Phi(0.5 / sqrt(2)) = 0.64
    assert standings_order(close)[0].key == 0


def test_the_queue_asks_for_more_only_when_a_worker_would_wait() -> None:
    """Two workers, a ladder that gives one match (6 games, one deal) per question: no two
    games of one deal ever run at once, every game runs once, and each question comes when
    no waiting game could start."""

    def match(index: int) -> list[GameJob]:
        return [
            GameJob(index * 6 + s, seed=index, first_dealer=0, rules={}, ruleset="classic",
                    time_control="", bot_paths=("a", "b", "c"), game_id="", log_cap=0)
            for s in range(6)
        ]  # fmt: skip

    async def scenario() -> tuple[list[int], list[bool]]:
        asked = 0
        startable_when_asked: list[bool] = []
        queue: _Queue

        async def more() -> list[GameJob]:
            nonlocal asked
            startable_when_asked.append(any(job.deal not in queue.running for job in queue.waiting))
            asked += 1
            await asyncio.sleep(0.001)
            return match(asked) if asked <= 4 else []

        queue = _Queue(match(0), separate_deals=True, more=more)
        ran: list[int] = []
        running: set[tuple[str, int]] = set()

        async def worker() -> None:
            while (job := await queue.take()) is not None:
                assert job.deal not in running, "two games of one deal at once"
                running.add(job.deal)
                await asyncio.sleep(0.002)
                running.discard(job.deal)
                ran.append(job.schedule_index)
                await queue.done(job)

        await asyncio.gather(worker(), worker())
        return ran, startable_when_asked

    ran, startable = asyncio.run(scenario())
    assert sorted(ran) == list(range(30))
    assert startable and not any(startable)
