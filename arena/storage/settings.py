"""The organiser's arena-wide settings (``arena settings``): how people join, and the quotas
that keep one participant from taking the arena's time.

Each setting is declared once in :data:`SETTINGS` with its parser and default, so the CLI,
the dashboard and the code that enforces a setting agree on its name, its type and what an
unset setting means. A stored value is text (``arena_setting``); reading it parses it again,
so a value written by hand into the table that no longer parses is reported, not used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from sqlalchemy import Engine
from sqlmodel import Session, select

from arena.storage.database import StorageError
from arena.storage.models import ArenaSetting, utcnow

JOIN_MODES: Final = ("closed", "invite", "open")
"""``closed``: only an organiser adds accounts; ``invite``: anyone with a valid code signs
up; ``open``: anyone signs up (rate-limited per client)."""


def _join_mode(text: str) -> str:
    if text not in JOIN_MODES:
        raise ValueError(f"one of {', '.join(JOIN_MODES)}")
    return text


def _count(low: int, high: int) -> Callable[[str], str]:
    def parse(text: str) -> str:
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"a whole number from {low} to {high}") from None
        if not low <= value <= high:
            raise ValueError(f"a whole number from {low} to {high}")
        return str(value)

    return parse


@dataclass(frozen=True, slots=True)
class Setting:
    """One arena-wide setting: its key, what it means, its default and its parser (which
    returns the canonical text to store, or raises :class:`ValueError` saying what fits)."""

    key: str
    help: str
    default: str
    parse: Callable[[str], str]


SETTINGS: Final[dict[str, Setting]] = {
    s.key: s
    for s in (
        Setting(
            "join",
            "how people join: closed (organisers add accounts), invite (with a code from "
            "`arena user invite`) or open (anyone, rate-limited per client)",
            "closed",
            _join_mode,
        ),
        Setting(
            "test_boards_per_hour",
            "test-match boards a participant may request in any 60 minutes (organisers: no quota)",
            "6",
            _count(0, 1000),
        ),
        Setting(
            "test_games_at_once",
            "test-match games played at once on the whole arena, so tests cannot starve ladders",
            "1",
            _count(1, 64),
        ),
    )
}


def _setting(key: str) -> Setting:
    try:
        return SETTINGS[key]
    except KeyError:
        raise StorageError(f"no setting {key!r}: known are {', '.join(SETTINGS)}") from None


def get_setting(engine: Engine, key: str) -> str:
    """The value of setting *key*: the stored one, else its default.

    :raises StorageError: for an unknown key, or a stored value that does not parse.
    """
    setting = _setting(key)
    with Session(engine) as session:
        row = session.get(ArenaSetting, key)
    if row is None:
        return setting.default
    try:
        return setting.parse(row.value)
    except ValueError as exc:
        raise StorageError(f"setting {key} holds {row.value!r}, which is not {exc}") from None


def get_int(engine: Engine, key: str) -> int:
    """The value of a numeric setting."""
    return int(get_setting(engine, key))


def set_setting(engine: Engine, key: str, value: str, by: int | None) -> str:
    """Store *value* for *key* (set by user id *by*); the canonical text stored.

    :raises StorageError: for an unknown key or a value that does not fit, saying what fits.
    """
    setting = _setting(key)
    try:
        text = setting.parse(value.strip())
    except ValueError as exc:
        raise StorageError(f"setting {key} must be {exc}, not {value!r}") from None
    with Session(engine) as session:
        row = session.get(ArenaSetting, key)
        if row is None:
            row = ArenaSetting(key=key, value=text, updated_by=by)
        else:
            row.value, row.updated_at, row.updated_by = text, utcnow(), by
        session.add(row)
        session.commit()
    return text


def all_settings(engine: Engine) -> dict[str, str]:
    """Every setting's current value (stored or default), in declaration order."""
    with Session(engine) as session:
        stored = {row.key: row.value for row in session.exec(select(ArenaSetting))}
    return {key: stored.get(key, s.default) for key, s in SETTINGS.items()}
