"""Who may read a bot's logs: the one rule, and the record copy each viewer gets.

A bot's stdout and stderr (a record's ``bot_logs``) and the detail of its faults
(``detail``, ``stderr_tail``) are its author's debugging output: they may hold the bot's
reasoning, its hand, its secrets. Only the bot's owner and organisers read them; everyone
else (spectators, other participants) sees that a fault happened, its kind, hand and
decision, and the game itself. Standings, scores and timings are public.

:func:`redact_record` is the one pure function every display path calls (the dashboard's
pages, ``arena replay``, ``arena bot logs``, ``arena export --user``): it takes the
record, the :class:`Viewer` and each seat's owner, and returns a copy holding only what the
viewer may read. :func:`seat_owners` reads the owners from the database.

:raises StorageError: from the functions that read the database.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Engine
from sqlalchemy import select as sa_select
from sqlmodel import col

from arena.storage.database import StorageError, database_errors, read_rows
from arena.storage.models import Bot, BotVersion, Game
from arena.storage.users import Actor

HIDDEN: Final = "private to the bot's owner"
"""What a viewer who may not read a fault's detail sees in its place."""
PRIVATE_FAULT_FIELDS: Final = ("detail", "stderr_tail")
"""The fields of a fault entry that quote the bot (or say what it did wrong in detail)."""
PUBLIC_FAULT_FIELDS: Final = ("seat", "hand", "decision", "kind", "autopilot")
"""What everyone sees of a fault."""


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is looking: a spectator (no account), a participant, or an organiser."""

    user_id: int | None = None
    """The account's id; ``None`` for a spectator, or the host's complete export."""
    organiser: bool = False
    """Organisers read every bot's logs."""

    @classmethod
    def of(cls, actor: Actor | None) -> Viewer:
        """The viewer a logged-in *actor* (``None``: a spectator) is."""
        if actor is None:
            return SPECTATOR
        return cls(actor.id, actor.is_organiser)

    def may_read(self, owner_id: int | None) -> bool:
        """May this viewer read the logs of a bot owned by *owner_id* (``None``: unknown)?"""
        return self.organiser or (self.user_id is not None and owner_id == self.user_id)

    def readable_seats(self, owners: Sequence[int | None]) -> frozenset[int]:
        """The seats whose logs this viewer may read, given each seat's bot's owner."""
        return frozenset(seat for seat, owner in enumerate(owners) if self.may_read(owner))


SPECTATOR: Final = Viewer()
"""A visitor without an account (and a participant looking at others' bots reads as much)."""
ORGANISER: Final = Viewer(None, organiser=True)
"""The host's complete view (``arena export`` without ``--user``)."""


def redact_record(
    record: Mapping[str, Any], viewer: Viewer, owners: Sequence[int | None]
) -> dict[str, Any]:
    """A copy of *record* with only what *viewer* may read, *owners* being each seat's
    bot's owner (``None``: unknown, so only organisers read it).

    Of every seat the viewer may not read, ``bot_logs`` keeps no text (``stdout`` and
    ``stderr`` empty, ``hidden`` true) and each fault keeps only
    :data:`PUBLIC_FAULT_FIELDS`, with ``detail`` saying it is private. The rest of the
    record (hands, result, timings) is copied unchanged, so it replays as before.
    """
    return redact_seats(record, viewer.readable_seats(owners))


def redact_seats(record: Mapping[str, Any], readable: Collection[int]) -> dict[str, Any]:
    """A deep copy of *record* in which only the seats in *readable* keep their logs and
    fault details (:func:`redact_record`'s work, for a caller that knows the seats)."""
    copy: dict[str, Any] = json.loads(json.dumps(record))
    if len(readable) >= 3 and set(readable) >= {0, 1, 2}:
        return copy
    logs = copy.get("bot_logs")
    if isinstance(logs, list):
        copy["bot_logs"] = [
            entry if seat in readable else _hidden_logs() for seat, entry in enumerate(logs)
        ]
    faults = copy.get("faults")
    if isinstance(faults, list):
        copy["faults"] = [
            fault
            if isinstance(fault, dict) and fault.get("seat") in readable
            else redact_fault(fault)
            for fault in faults
        ]
    return copy


def redact_fault(fault: Any) -> dict[str, Any]:
    """What everyone may see of a fault entry: its public fields, its detail hidden."""
    if not isinstance(fault, Mapping):
        return {"detail": HIDDEN, "hidden": True}
    shown = {key: fault[key] for key in PUBLIC_FAULT_FIELDS if key in fault}
    shown["detail"] = HIDDEN
    shown["hidden"] = True
    return shown


def _hidden_logs() -> dict[str, Any]:
    return {"stdout": "", "stderr": "", "dropped_bytes": 0, "hidden": True}


# ------------------------------------------------------------------------ the owners


@database_errors
def owners_of_versions(engine: Engine, version_ids: Collection[int]) -> dict[int, int]:
    """Bot version id -> the user id owning its bot, for *version_ids*."""
    if not version_ids:
        return {}
    rows = read_rows(
        engine,
        sa_select(col(BotVersion.id), col(Bot.owner_id))
        .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
        .where(col(BotVersion.id).in_(sorted(set(version_ids)))),
    )
    return {int(version_id): int(owner) for version_id, owner in rows}


def owners_of_seats(engine: Engine, seats: Sequence[int]) -> list[int | None]:
    """Each seat's owner, *seats* being the game's bot version ids by seat."""
    owners = owners_of_versions(engine, seats)
    return [owners.get(version_id) for version_id in seats]


@database_errors
def seat_owners(engine: Engine, game_id: int) -> list[int | None]:
    """The owner of each seat's bot in stored game *game_id*.

    :raises StorageError: if there is no such game.
    """
    rows = read_rows(engine, sa_select(col(Game.seats)).where(col(Game.id) == game_id))
    if not rows:
        raise StorageError(f"no game with id {game_id}")
    return owners_of_seats(engine, _seat_ids(rows[0][0]))


@database_errors
def tournament_seats(engine: Engine, tournament_id: int) -> dict[int, list[int]]:
    """Schedule index -> each seat's bot version id, of a tournament's stored games (what
    an export redacts its records by)."""
    rows = read_rows(
        engine,
        sa_select(col(Game.schedule_index), col(Game.seats)).where(
            col(Game.tournament_id) == tournament_id
        ),
    )
    return {int(index): _seat_ids(seats) for index, seats in rows}


def _seat_ids(seats_text: str) -> list[int]:
    try:
        seats = json.loads(seats_text)
    except ValueError:
        return []
    return [int(s) for s in seats] if isinstance(seats, list) else []
