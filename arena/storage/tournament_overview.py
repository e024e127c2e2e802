"""Tournaments as people follow them: the list of every tournament, the overview of each
(entrants, games stored of games scheduled, its status) and one tournament's progress,
shared by the CLI and the dashboard."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, func
from sqlalchemy import select as sa_select
from sqlmodel import col, select

from arena.game.dealing import HMAC_SHUFFLE
from arena.storage.database import (
    StorageError,
    database_errors,
    read_rows,
    read_session,
)
from arena.storage.models import (
    BOARD_DEALS,
    BotTally,
    BotVersion,
    Entry,
    Rating,
    Tournament,
    row_id,
)


@database_errors
def list_tournaments(engine: Engine) -> list[Tournament]:
    """Every tournament, newest first."""
    with read_session(engine) as session:
        return list(
            session.exec(
                select(Tournament).order_by(
                    col(Tournament.created_at).desc(), col(Tournament.id).desc()
                )
            ).all()
        )


# ------------------------------------------------------------ overview and progress


@dataclass(frozen=True, slots=True)
class TournamentInfo:
    """A tournament with how far it has got."""

    id: int
    name: str
    ruleset: str
    format: str
    boards: int
    seed: int | None
    """The explicit seed of a reproducible run; ``None`` when the deals are secret."""
    rating_mode: str
    time_control: str
    status: str
    games_total: int
    games_stored: int
    created_at: datetime
    finished_at: datetime | None
    entrants: tuple[str, ...]
    """Bot version labels in entry order."""
    entrant_ids: tuple[int, ...]
    shuffle: str = HMAC_SHUFFLE
    arena_faults: int = 0
    """Games the arena itself failed (replayed, never rated)."""
    deal_scope: str = BOARD_DEALS
    """Which games share a deal key (:attr:`arena.storage.models.TournamentBase.deal_scope`)."""
    private_to: int | None = None
    """A test match's requester, the only participant who may see it
    (:func:`arena.storage.test_matches.may_see_tournament`); ``None``: public."""

    @property
    def predictable(self) -> bool:
        """True when the deals follow from a known seed (an explicit ``--seed``, or a
        tournament made before secret deals): fine for research, not for a fair contest."""
        return self.seed is not None

    @property
    def deals(self) -> str:
        """How the deals were made, in words, for status lines."""
        if self.seed is None:
            return "secret deals"
        return f"seed {self.seed} (deals are predictable)"

    @property
    def fraction(self) -> float:
        """Share of the schedule stored, 0.0 to 1.0."""
        return self.games_stored / self.games_total if self.games_total else 1.0


@database_errors
def tournament_overview(engine: Engine) -> list[TournamentInfo]:
    """Every tournament, newest first, with its entrants and stored game count."""
    # From the tallies (one row per entrant): each stored game adds one to three of them.
    stored = {
        tournament_id: int(seats or 0) // 3
        for tournament_id, seats in read_rows(
            engine,
            sa_select(col(BotTally.tournament_id), func.sum(col(BotTally.games))).group_by(
                col(BotTally.tournament_id)
            ),
        )
    }
    entrants: dict[int, list[tuple[int, str]]] = {}
    for tournament_id, version_id, label in read_rows(
        engine,
        sa_select(col(Entry.tournament_id), col(BotVersion.id), col(BotVersion.label))
        .join(BotVersion, col(BotVersion.id) == col(Entry.bot_version_id))
        .order_by(col(Entry.tournament_id), col(Entry.position)),
    ):
        entrants.setdefault(tournament_id, []).append((version_id, label))
    return [
        TournamentInfo(
            id=row_id(t),
            name=t.name,
            ruleset=t.ruleset,
            format=t.format,
            boards=t.boards,
            seed=t.seed,
            rating_mode=t.rating_mode,
            time_control=t.time_control,
            status=t.status,
            games_total=t.games_total,
            games_stored=stored.get(row_id(t), 0),
            created_at=t.created_at,
            finished_at=t.finished_at,
            entrants=tuple(label for _, label in entrants.get(row_id(t), [])),
            entrant_ids=tuple(i for i, _ in entrants.get(row_id(t), [])),
            shuffle=t.shuffle,
            arena_faults=t.arena_faults,
            deal_scope=t.deal_scope,
            private_to=t.private_to,
        )
        for t in list_tournaments(engine)
    ]


@dataclass(frozen=True, slots=True)
class Progress:
    """How far a tournament has got; also the key that says its data changed."""

    status: str
    stored: int
    total: int
    last_game_id: int
    """Largest stored game id (0 before the first game)."""
    arena_faults: int = 0
    """Games the arena itself failed so far (replayed, never rated)."""
    rated: int = 0
    """Games the ratings cover: the schedule's prefix in which every game is stored, up to
    the last whole rating unit (``arena.storage.ratings``). Fewer than :attr:`stored`
    while games finished early wait for the ones before them."""

    @property
    def fraction(self) -> float:
        """Share of the schedule stored, 0.0 to 1.0."""
        return self.stored / self.total if self.total else 1.0


@database_errors
def progress(engine: Engine, tournament_id: int) -> Progress:
    """Status and stored games of a tournament (index-only: cheap enough to poll).

    :raises StorageError: for an unknown tournament.
    """
    head = read_rows(
        engine,
        sa_select(
            col(Tournament.status), col(Tournament.games_total), col(Tournament.arena_faults)
        ).where(col(Tournament.id) == tournament_id),
    )
    if not head:
        raise StorageError(f"no tournament with id {tournament_id}")
    # From the tallies, kept as games are stored (arena.storage.tallies): a third of the
    # seats counted is the games stored, without scanning them.
    ((seats, last),) = read_rows(
        engine,
        sa_select(func.sum(col(BotTally.games)), func.max(col(BotTally.last_game_id))).where(
            col(BotTally.tournament_id) == tournament_id
        ),
    )
    count = int(seats or 0) // 3
    ((rated_through,),) = read_rows(
        engine,
        sa_select(func.max(col(Rating.rated_through))).where(
            col(Rating.tournament_id) == tournament_id
        ),
    )
    status, total, arena_faults = head[0]
    rated = 0 if rated_through is None else int(rated_through) + 1
    return Progress(str(status), int(count), int(total), int(last or 0), int(arena_faults), rated)
