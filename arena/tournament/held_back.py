"""Whether a stored game's cards may be shown yet: held back while games dealt alike are
still to be played in a tournament with secret deals.

The other seatings of a duplicate board are dealt the same cards, so showing one stored
game of a running (or interrupted) tournament with secret deals would show the hands of
games still to be played, to every viewer, bot authors and organisers included. Once the
tournament is finished, or when its deals were predictable anyway, nothing is held back.
A format without known deal groups (:mod:`arena.tournament.deal_groups`) holds back its
whole schedule. The dashboard's pages (through its cached counts) and the HTTP API's
``GET /api/v1/games/{id}`` ask here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.engine import Engine

from arena import storage
from arena.storage.database import database_errors, read_session
from arena.storage.models import Tournament
from arena.tournament.deal_groups import deal_group

StoredBetween = Callable[[int, int, int], int]
"""``(tournament id, start, stop) -> stored games with schedule index in start .. stop-1``."""


@dataclass(frozen=True, slots=True)
class HeldBack:
    """A stored game whose cards are not shown yet: of the *total* games dealt alike
    (its deal group), only *stored* are played."""

    stored: int
    total: int

    def notice(self) -> str:
        """The one line shown instead of the game's cards."""
        return (
            "Its cards are held back until the other games dealt alike are played "
            f"({self.stored} of {self.total} stored)."
        )


@dataclass(frozen=True, slots=True)
class DealFacts:
    """What decides whether a tournament's games are held back."""

    tournament_id: int
    status: str
    predictable: bool
    """Deals from a known seed: nothing to hide."""
    format: str
    deal_scope: str
    entrants: int
    games_total: int

    @classmethod
    def of(cls, tournament: storage.TournamentInfo) -> DealFacts:
        """The facts of a tournament as the read models list it."""
        return cls(
            tournament.id,
            tournament.status,
            tournament.predictable,
            tournament.format,
            tournament.deal_scope,
            len(tournament.entrant_ids),
            tournament.games_total,
        )


def held_back(
    facts: DealFacts, schedule_index: int, stored_between: StoredBetween
) -> HeldBack | None:
    """Why game *schedule_index* of the tournament *facts* describe may not show its cards
    yet, or ``None``; *stored_between* counts its stored games in a range of the schedule
    (:func:`arena.storage.games_in_range`, or a cached copy of it)."""
    if facts.status == "finished" or facts.predictable:
        return None
    try:
        group = deal_group(facts.format, facts.deal_scope, facts.entrants, schedule_index)
    except ValueError:
        group = range(0, max(facts.games_total, schedule_index + 1))
    stored = stored_between(facts.tournament_id, group.start, group.stop)
    return None if stored >= len(group) else HeldBack(stored, len(group))


@database_errors
def game_held_back(engine: Engine, game_id: int) -> HeldBack | None:
    """:func:`held_back` for stored game *game_id* (``None`` for an unknown game too: the
    caller says it is unknown).

    :raises arena.storage.StorageError: if the database cannot be read.
    """
    game = storage.game_row(engine, game_id)
    if game is None:
        return None
    with read_session(engine) as session:
        tournament = session.get(Tournament, game.tournament_id)
    if tournament is None:  # a game's tournament is a foreign key
        return None
    facts = DealFacts(
        game.tournament_id,
        tournament.status,
        tournament.seed is not None,
        tournament.format,
        tournament.deal_scope,
        len(storage.entries(engine, game.tournament_id)),
        tournament.games_total,
    )

    def stored_between(tournament_id: int, start: int, stop: int) -> int:
        return storage.games_in_range(engine, tournament_id, start, stop)

    return held_back(facts, game.schedule_index, stored_between)


__all__ = ["DealFacts", "HeldBack", "game_held_back", "held_back"]
