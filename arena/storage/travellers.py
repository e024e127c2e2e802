"""The games a duplicate analysis of one bot may use: a tournament's stored games, each
record as the viewer may read it, none whose cards are still held back.

The analysis (:mod:`arena.analysis`) compares a bot's games with every other game dealt the
same cards, so it reads the whole tournament, not only the bot's games. Two rules apply
before anything leaves here:

* privacy: every record goes through :func:`arena.storage.privacy.redact_seats` for the
  viewer (a bot's stderr and fault details stay its owner's and the organisers'), and a
  private tournament that is not the viewer's is "no tournament" (its existence is private);
* held back: while a tournament with secret deals runs, a game whose deal group is not all
  stored shows the cards of games still to be played. The rule lives above storage
  (:func:`arena.tournament.held_back.held_back`), so the caller passes it in; every game it
  holds back is left out, and counted.

:raises StorageError: from :func:`duplicate_games`, with a one-line message.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from sqlalchemy import Engine
from sqlalchemy import select as sa_select
from sqlmodel import col

from arena.analysis import PlayedGame
from arena.storage.database import StorageError, database_errors, read_rows, read_session
from arena.storage.ladder import LADDER_FORMAT
from arena.storage.models import Bot, BotVersion, Game, row_id
from arena.storage.name_lookup import resolve_name
from arena.storage.privacy import Viewer, owners_of_versions, redact_seats
from arena.storage.tournament_overview import TournamentInfo, tournament_overview
from arena.storage.workspace_games import may_see_tournament

DUPLICATE_FORMATS: Final = ("round_robin", LADDER_FORMAT, "version_test")
"""Formats that play every board under all seatings of a table (duplicate deals)."""

HeldBackRule = Callable[[TournamentInfo, int], bool]
"""``(tournament, schedule index) -> whether that stored game's cards are held back``."""


@dataclass(frozen=True, slots=True)
class DuplicateGames:
    """What :func:`duplicate_games` gathers for one bot in one tournament."""

    tournament: TournamentInfo
    bot: str
    versions: tuple[int, ...]
    """The bot's versions entered in the tournament."""
    games: tuple[PlayedGame, ...]
    """Every usable stored game of the tournament, records redacted for the viewer."""
    held_back: int
    """Stored games left out because their cards are held back."""


@database_errors
def duplicate_games(
    engine: Engine,
    tournament_name: str,
    bot_name: str,
    viewer: Viewer,
    held_back: HeldBackRule,
) -> DuplicateGames:
    """The games of tournament *tournament_name* an analysis of bot *bot_name* may use.

    :raises StorageError: for an unknown (or invisible) tournament, a format without
        duplicate deals, an unknown bot, or a bot that did not enter the tournament.
    """
    tournament = next((t for t in tournament_overview(engine) if t.name == tournament_name), None)
    if tournament is None or not may_see_tournament(engine, tournament.id, viewer):
        raise StorageError(f"no tournament named {tournament_name[:70]!r}")
    if tournament.format not in DUPLICATE_FORMATS:
        raise StorageError(
            f"tournament {tournament.name!r} ({tournament.format}) has no duplicate deals"
        )
    with read_session(engine) as session:
        bot = resolve_name(session, Bot, bot_name)
        if bot is None:
            raise StorageError(f"no bot named {bot_name[:70]!r}")
        owned = {
            int(version_id)
            for (version_id,) in session.execute(
                sa_select(col(BotVersion.id)).where(col(BotVersion.bot_id) == row_id(bot))
            )
        }
    versions = tuple(v for v in tournament.entrant_ids if v in owned)
    if not versions:
        raise StorageError(f"bot {bot.name!r} did not play in tournament {tournament.name!r}")
    labels = dict(zip(tournament.entrant_ids, tournament.entrants, strict=True))
    rows = read_rows(
        engine,
        sa_select(
            col(Game.id),
            col(Game.schedule_index),
            col(Game.table_index),
            col(Game.board_index),
            col(Game.seating_index),
            col(Game.seed),
            col(Game.seats),
            col(Game.record),
        )
        .where(col(Game.tournament_id) == tournament.id)
        .order_by(col(Game.schedule_index)),
    )
    kept = []
    withheld = 0
    for game_id, index, table, board, seating, seed, seats_text, record_text in rows:
        seats = tuple(int(s) for s in json.loads(seats_text))
        if held_back(tournament, int(index)):
            withheld += any(s in versions for s in seats)
            continue
        kept.append((int(game_id), int(index), int(table), int(board), int(seating), seed, seats,
                     record_text))  # fmt: skip
    owners = owners_of_versions(engine, {s for *_, seats, _ in kept for s in seats})
    games = []
    for game_id, index, table, board, seating, seed, seats, record_text in kept:
        if len(seats) != 3:  # the storage checks it; a damaged row is no traveller row
            continue
        readable = viewer.readable_seats([owners.get(s) for s in seats])
        games.append(
            PlayedGame(
                game_id=game_id,
                schedule_index=index,
                table_index=table,
                board_index=board,
                seating_index=seating,
                seed=int(seed),
                seats=(seats[0], seats[1], seats[2]),
                players=(
                    labels.get(seats[0], "?"),
                    labels.get(seats[1], "?"),
                    labels.get(seats[2], "?"),
                ),
                record=redact_seats(json.loads(record_text), readable),
            )
        )
    return DuplicateGames(tournament, bot.name, versions, tuple(games), withheld)


__all__ = ["DUPLICATE_FORMATS", "DuplicateGames", "HeldBackRule", "duplicate_games"]
