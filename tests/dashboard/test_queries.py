"""The read models of ``arena.storage`` (standings, statistics, overviews) against numbers
computed from the stored records themselves, on SQLite and on PostgreSQL."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from typing import Any

import pytest
from sqlalchemy import func
from sqlmodel import Session, col, select

from arena import storage
from arena.cli import main
from arena.cli.standings import rank_span
from arena.ratings.trueskill_model import DEFAULT_MODEL
from arena.storage.models import RatingSnapshot
from arena.storage.privacy import HIDDEN, ORGANISER, SPECTATOR
from tests.dashboard.seed import STDERR, Seeded, seeded_sqlite


def seats_of(seeded: Seeded, index: int) -> list[int]:
    """Bot version ids by seat of game *index* of the finished tournament."""
    by_label = {label: version for version, label in seeded.labels.items()}
    return [by_label[p] for p in seeded.records[index]["players"]]


def test_tournaments_and_progress(seeded_any: Seeded) -> None:
    found = storage.tournament_overview(seeded_any.engine)
    assert [t.name for t in found] == ["fresh", "live", "main"]
    assert [t.games_stored for t in found] == [0, 6, 24]
    assert [t.games_total for t in found] == [24, 24, 24]
    assert found[2].entrants == ("alpha@1.0", "bravo@1.0", "charlie@1.0", "delta@1.0")
    progress = storage.progress(seeded_any.engine, seeded_any.tournament_id)
    assert (progress.status, progress.stored, progress.total) == ("finished", 24, 24)
    assert progress.last_game_id == max(seeded_any.game_ids)
    live = storage.progress(seeded_any.engine, seeded_any.running_id)
    assert (live.status, live.stored, live.fraction) == ("running", 6, 0.25)


def test_standings_count_every_stored_game(seeded_any: Seeded) -> None:
    rows = storage.standings(seeded_any.engine, seeded_any.tournament_id)
    assert [r.games for r in rows] == [18] * 4


def test_rating_history_starts_at_the_prior_and_ends_at_the_current_rating(
    seeded_any: Seeded,
) -> None:
    engine, tid = seeded_any.engine, seeded_any.tournament_id
    points = storage.rating_history(engine, tid)
    current = {r.bot_version_id: r for r in storage.ratings(engine, tid)}
    by_bot: dict[int, list[storage.RatingPoint]] = defaultdict(list)
    for point in points:
        by_bot[point.bot_version_id].append(point)
    assert set(by_bot) == set(current)
    for bot, series in by_bot.items():
        prior = DEFAULT_MODEL.initial()
        assert (series[0].games, series[0].mu, series[0].sigma) == (0, prior.mu, prior.sigma)
        assert [p.games for p in series] == sorted(p.games for p in series)
        assert series[-1].mu == pytest.approx(current[bot].mu)
        assert series[-1].games == current[bot].games == 18
        assert series[-1].bot == seeded_any.labels[bot]
    with Session(engine) as session:
        snapshots = session.exec(
            select(func.count()).where(col(RatingSnapshot.tournament_id) == tid)
        ).one()
    assert len(points) == snapshots + 4  # every snapshot plus one prior per bot
    assert storage.rating_history(engine, tid, max_points=None) == points
    thinned = storage.rating_history(engine, tid, max_points=2)
    for bot in current:
        series = [p for p in thinned if p.bot_version_id == bot]
        assert len(series) <= 1 + 3 and series[-1].games == 18
    alpha = seeded_any.versions["alpha"]
    assert {p.bot for p in storage.rating_history(engine, tid, [alpha])} == {"alpha@1.0"}
    assert storage.rating_history(engine, tid, []) == []


def test_head_to_head_matches_the_records(seeded_any: Seeded) -> None:
    boards: dict[tuple[int, int], dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for index, record in seeded_any.records.items():
        seats, scores = seats_of(seeded_any, index), record["result"]["scores"]
        for i in range(3):
            for j in range(3):
                if seats[i] < seats[j]:
                    boards[(seats[i], seats[j])][index // 6].append(scores[i] - scores[j])
    pairs = storage.head_to_head(seeded_any.engine, seeded_any.tournament_id)
    assert {(p.a, p.b) for p in pairs} == set(boards)
    for pair in pairs:
        means = [statistics.fmean(d) for d in boards[(pair.a, pair.b)].values()]
        assert pair.games == sum(len(d) for d in boards[(pair.a, pair.b)].values())
        assert pair.boards == len(means)
        assert pair.mean_diff == pytest.approx(statistics.fmean(means))
        assert pair.bot_a == seeded_any.labels[pair.a]
        if len(means) == 1:
            assert math.isnan(pair.ci_low) and math.isnan(pair.ci_high)
        else:
            half = storage.t_quantile(len(means) - 1) * statistics.stdev(means) / len(means) ** 0.5
            assert pair.ci_low == pytest.approx(pair.mean_diff - half)
            assert pair.ci_high == pytest.approx(pair.mean_diff + half)
        flipped = pair.flipped()
        assert (flipped.a, flipped.mean_diff) == (pair.b, -pair.mean_diff)


def test_head_to_head_interval_over_several_boards(tmp_path: Any) -> None:

    seeded = seeded_sqlite(tmp_path / "two.db", boards=2, running_games=0)
    pairs = storage.head_to_head(seeded.engine, seeded.tournament_id)
    # Each pair sits at 2 of the 4 tables: 2 boards x 2 tables, 6 games each.
    assert all(p.boards == 4 and p.games == 24 for p in pairs)
    assert all(p.ci_low <= p.mean_diff <= p.ci_high for p in pairs)
    assert storage.t_quantile(1) == pytest.approx(12.706)
    assert storage.t_quantile(200) == 1.96


def _per_contract(seeded: Seeded) -> tuple[dict[Any, list[int]], dict[Any, int]]:
    """(bot, contract) -> [hands, made, delta sum]; (bot, trump) -> hands dealt."""
    contracts: dict[Any, list[int]] = defaultdict(lambda: [0, 0, 0])
    trumps: dict[Any, int] = defaultdict(int)
    for index, record in seeded.records.items():
        seats = seats_of(seeded, index)
        for hand in record["hands"]:
            for seat in range(3):
                entry = contracts[(seeded.labels[seats[seat]], hand["contracts"][seat])]
                entry[0] += 1
                entry[1] += hand["tricks_won"][seat] >= hand["contracts"][seat]
                entry[2] += hand["deltas"][seat]
            trumps[(seeded.labels[seats[hand["dealer"]]], hand["trump"])] += 1
    return contracts, trumps


def test_contract_and_record_statistics_match_the_records(seeded_any: Seeded) -> None:
    contracts, trumps = _per_contract(seeded_any)
    made = storage.contract_stats(seeded_any.engine, seeded_any.tournament_id)
    assert {(m.bot, m.contract): [m.hands, m.made] for m in made} == {
        key: value[:2] for key, value in contracts.items()
    }
    stats = storage.record_stats(seeded_any.engine, seeded_any.tournament_id)
    assert stats.games == 24  # every stored game (from the tallies, no record read)
    assert {(b, c): (h, pytest.approx(d)) for b, c, h, d in stats.deltas} == {
        key: (value[0], pytest.approx(value[2] / value[0])) for key, value in contracts.items()
    }
    assert {(b, t): n for b, t, n in stats.trumps} == dict(trumps)


def test_faults(seeded_any: Seeded) -> None:
    engine, tid = seeded_any.engine, seeded_any.tournament_id
    faulty = {seats_of(seeded_any, i)[seat] for i, seat in seeded_any.faulted}
    counts = {c.bot_version_id: c for c in storage.fault_counts(engine, tid)}
    assert {b for b, c in counts.items() if c.faulted_games} == faulty
    assert sum(c.faulted_games for c in counts.values()) == len(seeded_any.faulted)
    assert all(c.games == 18 for c in counts.values())
    rows = storage.faults(engine, tournament_id=tid, viewer=ORGANISER)
    assert sorted((r.schedule_index, r.seat) for r in rows) == sorted(seeded_any.faulted)
    assert all(r.stderr_tail == STDERR and r.kind == "timeout" and r.hand == 1 for r in rows)
    assert [r.game_id for r in rows] == sorted((r.game_id for r in rows), reverse=True)
    assert storage.faults(engine, bot_version_ids=list(faulty), limit=1, viewer=ORGANISER)[
        0
    ].game_id == max(r.game_id for r in rows)
    # A spectator sees each fault's kind, hand and decision, never its detail or stderr.
    public = storage.faults(engine, tournament_id=tid, viewer=SPECTATOR)
    assert [(r.game_id, r.seat, r.kind, r.hand, r.decision) for r in public] == [
        (r.game_id, r.seat, r.kind, r.hand, r.decision) for r in rows
    ]
    assert all(r.hidden and r.stderr_tail == "" and r.detail == HIDDEN for r in public)
    clean = [v for v in seeded_any.versions.values() if v not in faulty]
    assert storage.faults(engine, bot_version_ids=clean, viewer=ORGANISER) == []
    assert storage.faults(engine, tournament_id=seeded_any.running_id, viewer=ORGANISER) == []


def test_bots(seeded_any: Seeded) -> None:
    bots = storage.bot_overview(seeded_any.engine)
    assert [b.name for b in bots] == ["alpha", "bravo", "charlie", "delta"]
    assert sum(b.games for b in bots) == 3 * (24 + 6)
    alpha = bots[0].versions[0]
    assert (alpha.label, alpha.seq, alpha.language) == ("alpha@1.0", 1, "python")
    assert alpha.tournaments == ("main", "live", "fresh")
    assert alpha.submitted_at.tzinfo is not None
    assert '"name": "alpha"' in alpha.manifest


def test_games_paging_and_filters(seeded_any: Seeded) -> None:
    engine, tid = seeded_any.engine, seeded_any.tournament_id
    delta = seeded_any.versions["delta"]
    assert storage.game_count(engine, tid) == 24
    assert storage.game_count(engine, tid, delta) == 18
    page = storage.game_page(engine, tid, bot_version_id=delta, start=3, limit=5)
    assert len(page) == 5
    assert [g.schedule_index for g in page] == sorted(g.schedule_index for g in page)
    assert all(delta in g.seats and g.schedule_index >= 3 for g in page)
    first = storage.game_page(engine, tid, limit=1)[0]
    record = seeded_any.records[0]
    assert first.schedule_index == 0 and list(first.players) == record["players"]
    assert list(first.scores) == record["result"]["scores"]
    assert list(first.winners) == record["result"]["winners"]
    assert storage.game_row(engine, first.id) == first
    assert storage.game_row(engine, 10**9) is None
    assert storage.game_record(engine, first.id) == record


def test_the_cli_prints_the_standings_the_dashboard_reads(
    seeded_any: Seeded, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # The Standings page shows storage.standings (test_pages.py); `arena standings` must
    # print the same numbers, from the same function.
    assert main(["standings", "main", "--db", seeded_any.url, "--data", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = storage.standings(seeded_any.engine, seeded_any.tournament_id)
    for row in rows:
        (line,) = [line for line in lines if f" {row.bot} " in line]
        cells = [cell.strip() for cell in line.strip("│ ").split("│")]
        assert cells[:3] == [str(row.rank), row.bot, row.owner]
        assert row.owner == "local"
        del cells[2]
        above = "-" if row.p_above_next is None else f"{row.p_above_next:.0%}"
        assert cells[:10] == [
            str(row.rank),
            row.bot,
            f"{row.conservative:.2f}",
            f"{row.mu:.2f}",
            f"{row.sigma:.2f}",
            above,
            rank_span(row),
            str(row.games),
            str(row.faults),
            str(row.clean_wins),  # wins in games without a fault of the bot's
        ]
