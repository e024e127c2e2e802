"""What ``arena bot submit`` says about the ladders a new version goes into.

Submitting a new version of a bot entered in a ladder is all it takes to play the new
version there: an open ladder enters it at once (:func:`arena.storage.enter_open_ladders`),
any other ladder when its runner next chooses a match
(:func:`arena.storage.enter_new_versions`), and either way the bot's older version is
retired. Submission used to say none of it, so a bot author could not tell whether the
new version played, or whether its old version's results still counted. These lines say
it, for every ladder where the bot is entered and not withdrawn.
"""

from __future__ import annotations

import click
from sqlalchemy.engine import Engine

from arena import storage
from arena.cli.terminal import safe_text
from arena.storage.database import StorageError
from arena.storage.models import BotVersion


def ladder_notices(engine: Engine, version: BotVersion) -> list[str]:
    """One line for each ladder that new *version* entered, or will enter at its next
    match, naming the version it retires there.

    :raises StorageError: if the ladders cannot be read.
    """
    lines = []
    version_id = storage.row_id(version)
    for tournament in storage.list_tournaments(engine):
        if tournament.format != storage.LADDER_FORMAT:
            continue
        ladder = safe_text(tournament.name)
        entrants = [
            e
            for e in storage.ladder_entrants(engine, storage.row_id(tournament))
            if e.bot_id == version.bot_id
        ]
        if not entrants:
            continue
        older = [e.label for e in entrants if e.bot_version_id != version_id]
        retires = safe_text(older[-1]) if older else None
        if any(e.bot_version_id == version_id for e in entrants):
            retiring = f", retiring {retires} there" if retires else ""
            lines.append(f"entered ladder {ladder!r}{retiring} (its games and ratings stay)")
            continue
        newest = entrants[-1]
        if newest.withdrawn or newest.seq > version.seq:
            continue
        lines.append(
            f"ladder {ladder!r} plays {safe_text(newest.label)}: its runner enters "
            f"{safe_text(version.label)} at its next match and retires "
            f"{safe_text(newest.label)} (its games and ratings stay)"
        )
    return lines


def echo_ladder_notices(engine: Engine, version: BotVersion) -> None:
    """Print :func:`ladder_notices`; the version is stored already, so a failure to read
    the ladders is one warning line, not an error of the submission."""
    try:
        lines = ladder_notices(engine, version)
    except StorageError as exc:
        click.echo(f"warning: could not read the ladders it may enter: {exc}", err=True)
        return
    for line in lines:
        click.echo(line)
