"""The game and rating tables: each played game with its record, its seats' numbers,
and every rating update with the current value."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Double,
    Index,
    Text,
    UniqueConstraint,
    text,
)
from sqlmodel import Field, SQLModel

from arena.storage.models.columns import (
    SeedText,
    utc_field,
)

# ------------------------------------------------------------------------------ games


class GameBase(SQLModel):
    schedule_index: int
    """Position in the tournament's schedule; unique per tournament."""
    table_index: int
    board_index: int
    seating_index: int
    seed: int = Field(sa_type=SeedText)
    """The board's deal key (up to 256 bits, so stored as decimal text)."""
    seats: str = Field(sa_type=Text)
    """JSON list of the 3 bot_version ids, by seat."""
    winners: str = Field(sa_type=Text)
    """JSON list of winning seats (more than one on a shared first place)."""
    reason: str = Field(max_length=16)
    """``target``, ``negative``, ``overtime``, ``draw`` or ``capped``."""
    scores: str = Field(sa_type=Text)
    """JSON list of final scores, by seat."""
    hands_played: int
    fault_count: int


class Game(GameBase, table=True):
    """One played game and its whole record."""

    __tablename__ = "game"
    __table_args__ = (UniqueConstraint("tournament_id", "schedule_index"),)

    id: int | None = Field(default=None, primary_key=True)
    # No separate index: the unique constraint's index starts with tournament_id.
    tournament_id: int = Field(foreign_key="tournament.id")
    record: str = Field(sa_type=Text)
    """The whole ``arena952.game/1`` record as JSON."""
    created_at: datetime = utc_field()


class GamePublic(GameBase):
    """A game without its (large) record."""

    id: int
    tournament_id: int
    created_at: datetime


class DeltasAndTrumps(SQLModel):
    """The statistics' columns of a seat (``game_seat``) and of their sum per bot
    (``bot_tally``): deltas per contract and trump calls as dealer. Migration 0017 added
    them (default 0, filled from the records), so that Statistics sums them instead of
    reading records."""

    delta_9: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    """Tricks won minus 9, summed over the hands played with contract 9 (``delta_5``,
    ``delta_2``: the same for 5 and 2)."""
    delta_5: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    delta_2: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    trump_s: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    """Hands dealt in which spades were called (``trump_h`` ... ``trump_nt``: the same for
    the other calls)."""
    trump_h: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    trump_d: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    trump_c: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    trump_nt: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class GameSeat(DeltasAndTrumps, table=True):
    """One seat of one game: who sat there and how it went."""

    __tablename__ = "game_seat"
    __table_args__ = (
        Index("ix_game_seat_bot_version_id", "bot_version_id"),
        # The faulted seats only (a few among millions): the latest faults without a scan.
        Index(
            "ix_game_seat_faulted",
            "game_id",
            sqlite_where=text("faulted = 1"),
            postgresql_where=text("faulted"),
        ),
    )

    game_id: int = Field(foreign_key="game.id", primary_key=True)
    seat: int = Field(primary_key=True)
    bot_version_id: int = Field(foreign_key="bot_version.id")
    score: int
    rank: int
    """0 = first; ties share a rank; a faulted seat ranks below every clean one."""
    won: bool
    """In ``result.winners`` (outright or shared first place)."""
    faulted: bool
    """The seat has at least one entry in the record's ``faults``."""
    hands_9: int
    made_9: int
    """Hands played with contract 9, and those where tricks won >= 9."""
    hands_5: int
    made_5: int
    hands_2: int
    made_2: int


class BotTally(DeltasAndTrumps, table=True):
    """The sums of a bot version's ``game_seat`` rows in one tournament, kept up to date by
    :func:`arena.storage.games.record_game` in the same transaction as each game.

    Why: the standings and the statistics need per-bot sums, and summing ``game_seat`` is
    a scan of three rows per stored game (3,000,000 at a million games: seconds); this is
    one row per entrant, never stale, since no game is stored without it
    (:mod:`arena.storage.tallies`; migration 0016 fills it from ``game_seat``).
    """

    __tablename__ = "bot_tally"
    tournament_id: int = Field(foreign_key="tournament.id", primary_key=True)
    bot_version_id: int = Field(foreign_key="bot_version.id", primary_key=True)
    games: int = 0
    wins: int = 0
    """Games won outright or with a shared first place, faulted games included."""
    score: int = 0
    """Sum of final scores, faulted games included."""
    hands_9: int = 0
    made_9: int = 0
    hands_5: int = 0
    made_5: int = 0
    hands_2: int = 0
    made_2: int = 0
    faults: int = 0
    """Games in which the bot faulted at least once."""
    clean_wins: int = 0
    """Wins in games without a fault of the bot's."""
    clean_score: int = 0
    """Sum of final scores in games without a fault of the bot's."""
    last_game_id: int = 0
    """The newest of these games' ids: with ``games`` (a third of their sum over a
    tournament's tallies is its stored games), the data version pages cache by."""


class PairBoardTally(SQLModel, table=True):
    """Two bots' games together on one duplicate board (schedule indexes ``6b .. 6b+5``)
    of a tournament: how many, and the sum of ``score_a - score_b`` (``a < b``). Kept by
    ``record_game`` with :class:`PairTally`, whose board means need it."""

    __tablename__ = "pair_board_tally"
    tournament_id: int = Field(foreign_key="tournament.id", primary_key=True)
    bot_a: int = Field(foreign_key="bot_version.id", primary_key=True)
    bot_b: int = Field(foreign_key="bot_version.id", primary_key=True)
    board: int = Field(primary_key=True)
    """``schedule_index // BOARD_SIZE``."""
    games: int = 0
    diff: int = 0


class PairTally(SQLModel, table=True):
    """Two bots' head-to-head in a tournament, summed over boards, kept as games are stored
    (:mod:`arena.storage.tallies`): the statistics page reads one row per pair.

    A board's mean difference ``m = diff / games`` has ``games`` in 1..6, so ``60 m`` is an
    integer: the sums of ``60 m`` and ``(60 m)^2`` are kept exactly (no float drift as
    boards fill up), and the mean and the confidence interval follow from them."""

    __tablename__ = "pair_tally"
    tournament_id: int = Field(foreign_key="tournament.id", primary_key=True)
    bot_a: int = Field(foreign_key="bot_version.id", primary_key=True)
    bot_b: int = Field(foreign_key="bot_version.id", primary_key=True)
    games: int = 0
    boards: int = 0
    mean60_sum: int = Field(default=0, sa_type=BigInteger)
    """Sum over boards of ``60 * diff / games``."""
    mean60_squares: int = Field(default=0, sa_type=BigInteger)
    """Sum over boards of ``(60 * diff / games) ** 2``."""


# ---------------------------------------------------------------------------- ratings


class RatingSnapshot(SQLModel, table=True):
    """A bot version's rating after one rating update; every snapshot is kept."""

    __tablename__ = "rating_snapshot"
    __table_args__ = (
        # Also the index for "snapshots of a bot in a tournament", and it enforces
        # one snapshot per rated game (or board) per bot.
        UniqueConstraint("tournament_id", "bot_version_id", "schedule_index"),
    )

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id")
    bot_version_id: int = Field(foreign_key="bot_version.id")
    schedule_index: int
    """The game (or the last game of the board) after which this rating holds."""
    mu: float = Field(sa_type=Double)
    sigma: float = Field(sa_type=Double)
    games: int
    """Rated games of this bot in this tournament so far."""


class Rating(SQLModel, table=True):
    """A bot version's current rating in a tournament (the last snapshot)."""

    __tablename__ = "rating"
    tournament_id: int = Field(foreign_key="tournament.id", primary_key=True)
    bot_version_id: int = Field(foreign_key="bot_version.id", primary_key=True)
    mu: float = Field(sa_type=Double)
    sigma: float = Field(sa_type=Double)
    games: int
    rated_through: int
    """Schedule index of the last update that included this bot."""
