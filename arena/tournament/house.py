"""House bots: the opponents a test match may name as ``builtin:random``, ``builtin:greedy``
or ``builtin:pimc``.

They are real bots, sandboxed processes like any other, not in-process policies: a test
match must measure a bot against what it will meet in a ladder, under the same referee and
time control. Each is the sample bot of the same kind (``sample_bots/random_bot`` ...)
stored through the ordinary submission path (build, smoke game, checksum) under the name
of :data:`arena.storage.test_matches.HOUSE_BOTS` by the account
:data:`~arena.storage.test_matches.HOUSE_ACCOUNT`, which has no password, so nobody can log
in as it and change them. They are stored on first use; storing again is a no-op, since
the submission path recognises files it already holds (a changed sample bot becomes a new
version). They never enter an open ladder by themselves: a test match must change no
ladder.
"""

from __future__ import annotations

import logging
import re
import shutil
import tempfile
from pathlib import Path
from typing import Final

from sqlalchemy.engine import Engine

from arena.storage.database import StorageError
from arena.storage.models import BotVersion
from arena.storage.test_matches import HOUSE_ACCOUNT, HOUSE_BOTS
from arena.storage.users import Actor, actor_of, create_user, find_user
from arena.submission import SubmitError, submit_bot

LOGGER = logging.getLogger(__name__)

SAMPLE_BOTS: Final = Path(__file__).resolve().parents[2] / "sample_bots"
"""The repository's sample bots, where the house bots come from (a source checkout)."""
SOURCES: Final = {
    "builtin:random": "random_bot",
    "builtin:greedy": "greedy_bot",
    "builtin:pimc": "pimc_bot",
}
"""Which sample bot each house bot is."""
_NAME_LINE: Final = re.compile(r'^name\s*=\s*"[^"]*"\s*$', re.MULTILINE)


class HouseBotError(RuntimeError):
    """A house bot cannot be stored: the arena's own failure; the message is one line."""


def house_account(engine: Engine) -> Actor:
    """The house bots' owner, made on first use without a password.

    :raises HouseBotError: if the name is taken by an account that can log in (it would
        own the house bots' names), or the database fails.
    """
    try:
        user = find_user(engine, HOUSE_ACCOUNT)
        if user is None:
            try:
                user = create_user(engine, HOUSE_ACCOUNT, "participant", password_hash=None)
            except StorageError:
                user = find_user(engine, HOUSE_ACCOUNT)  # made by a racing runner
                if user is None:
                    raise
    except StorageError as exc:
        raise HouseBotError(f"cannot make the house bots' account: {exc}") from None
    if user.password_hash is not None or user.email is not None:
        raise HouseBotError(
            f"the account {HOUSE_ACCOUNT!r} can log in, so it cannot own the house bots "
            "(an organiser must rename or remove it)"
        )
    return actor_of(user)


def house_version(engine: Engine, house: str, data_dir: Path) -> BotVersion:
    """The stored version of house bot *house* (``builtin:greedy``), stored now if needed.

    :raises HouseBotError: for an unknown house bot, a missing sample bot, a bot name taken
        by someone else, or a failed build or smoke game.
    """
    if house not in HOUSE_BOTS:
        raise HouseBotError(f"no house bot {house!r}: one of {', '.join(HOUSE_BOTS)}")
    source = SAMPLE_BOTS / SOURCES[house]
    if not (source / "bot.toml").is_file():
        raise HouseBotError(f"house bot {house} needs {source} (the arena's sample bots)")
    owner = house_account(engine)
    with tempfile.TemporaryDirectory(prefix="arena-house-") as scratch:
        copy = Path(scratch) / HOUSE_BOTS[house]
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        manifest = copy / "bot.toml"
        text, count = _NAME_LINE.subn(f'name = "{HOUSE_BOTS[house]}"', manifest.read_text())
        if count != 1:
            raise HouseBotError(f"{source / 'bot.toml'}: no single name line to rename")
        manifest.write_text(text, encoding="utf-8")
        try:
            version, created = submit_bot(
                engine, copy, data_dir, submitter=owner, via="cli", open_ladders=False
            )
        except SubmitError as exc:
            raise HouseBotError(f"house bot {house} cannot be stored: {exc}") from None
    if created:
        LOGGER.info("stored house bot %s as %s", house, version.label)
    assert isinstance(version, BotVersion)
    return version
