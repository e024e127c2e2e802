"""Names given from outside, looked up as people read them: the user or bot a name means
(exactly that name, else the one stored name that looks like it) and every stored
look-alike, by the canonical keys of :mod:`arena.storage.names`. Shared by users and
bots, so both resolve a name the same way."""

from __future__ import annotations

from typing import TypeVar

from sqlalchemy import ColumnElement, func, or_
from sqlmodel import Session, col, select

from arena.storage.database import (
    StorageError,
)
from arena.storage.models import (
    Bot,
    User,
)
from arena.storage.names import LEGACY_MARK, NameKeys, name_keys


class AmbiguousName(StorageError):
    """A name given from outside is none of the stored names exactly, but looks like
    several of them (look-alikes stored before migration 0008, which reported them); the
    message lists them, in one line."""


# ------------------------------------------------------------------- canonical names

_Named = TypeVar("_Named", User, Bot)


def _matching_keys(model: type[_Named], keys: NameKeys) -> ColumnElement[bool]:
    """Rows of *model* whose stored keys are *keys*, including look-alikes stored before
    migration 0008 (their keys are marked with their id)."""
    conditions = []
    for column_name, key in keys.columns().items():
        column = col(getattr(model, column_name))
        marked = key + LEGACY_MARK
        conditions += [column == key, func.substr(column, 1, len(marked)) == marked]
    return or_(*conditions)


def look_alikes(session: Session, model: type[_Named], name: str) -> list[_Named]:
    """The stored users or bots (*model*) whose names look like *name* (itself included),
    oldest first."""
    statement = select(model).where(_matching_keys(model, name_keys(name)))
    return list(session.exec(statement.order_by(col(model.id))).all())


def resolve_name(session: Session, model: type[_Named], name: str) -> _Named | None:
    """The user or bot (*model*) that *name*, given from outside, means: the one called
    exactly *name*, else the one stored name that looks like it; ``None`` if none does.

    :raises AmbiguousName: when several stored names look like *name* and none is it.
    """
    exact = session.exec(select(model).where(col(model.name) == name)).first()
    if exact is not None:
        return exact
    found = look_alikes(session, model, name)
    if len(found) > 1:
        kind = model.__name__.lower()  # "user" or "bot"
        listed = ", ".join(repr(row.name) for row in found)
        raise AmbiguousName(
            f"{kind} name {name[:70]!r} looks like {len(found)} {kind}s: {listed}; "
            "give one of them exactly"
        )
    return found[0] if found else None
