"""``arena bot logs``: a bot author's own logs, game by game (the My bots page's twin).

Only the bot's owner and organisers may read them (:mod:`arena.storage.privacy`); anyone
else is refused in one line. Every piece of bot text goes through
:func:`~arena.cli.terminal.safe_markup` or :func:`~arena.cli.terminal.safe_text`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table
from sqlalchemy.engine import Engine

from arena.cli.common import ROW_ID
from arena.cli.storage_options import db_options, open_engine
from arena.cli.terminal import Hanging, safe_markup
from arena.cli.users import acting_user, user_option
from arena.referee.timecontrol import TimeControl
from arena.storage.database import StorageError
from arena.storage.privacy import Viewer
from arena.storage.workspace import (
    AuthorBot,
    VersionGame,
    author_bots,
    check_may_read_bot,
    timing,
    version_game_count,
    version_games,
    version_of,
    viewable_record,
)

MAX_LIMIT = 200


def decision_limit_ms(time_control: str) -> int | None:
    """The per-decision limit of a stored time control text, or ``None`` if it does not
    parse (a record from elsewhere)."""
    try:
        return TimeControl.parse(time_control).decision_ms
    except ValueError:
        return None


def percent_of_limit(game: VersionGame) -> str:
    """The slowest decision as a share of the per-decision limit, for a table cell."""
    share = game.timing.percent_of(decision_limit_ms(game.time_control))
    return "-" if share is None else f"{share:.0f}%"


@click.command("logs")
@click.argument("name")
@click.option("--version", "version", default=None, metavar="V",
              help="The version: its label, its version field or its number [default: the "
              "latest].")  # fmt: skip
@click.option("--game", "game_id", type=ROW_ID, default=None,
              help="Show this game's stderr of the bot's seat(s) and its faults in full.")  # fmt: skip
@click.option("--start", type=click.IntRange(min=0), default=0, show_default=True,
              help="Skip this many of the newest games.")  # fmt: skip
@click.option("--limit", type=click.IntRange(min=1, max=MAX_LIMIT), default=20,
              show_default=True, help="Games listed.")  # fmt: skip
@user_option
@db_options
def logs_command(
    name: str,
    version: str | None,
    game_id: int | None,
    start: int,
    limit: int,
    user: str | None,
    db: str | None,
    data: Path | None,
) -> None:
    """Bot NAME's games, newest first, with its faults and time per decision; with --game,
    that game's stderr of the bot and its faults in full.

    Only the bot's owner (--user) and organisers may read a bot's logs.
    """
    engine = open_engine(db, data)
    viewer = Viewer.of(acting_user(engine, user))
    try:
        bot = _readable_bot(engine, name, viewer)
        if game_id is not None:
            _show_game(engine, bot, version, game_id, viewer)
            return
        chosen = version_of(bot, version)
        total = version_game_count(engine, chosen.id, viewer)
        games = version_games(engine, chosen.id, viewer, start=start, limit=limit)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    console = Console()
    console.print(
        f"[bold]{safe_markup(chosen.label)}[/]: {safe_markup(chosen.state)}; "
        f"{total} game(s), newest first"
    )
    if chosen.submission is not None and chosen.submission.message:
        console.print(Hanging(f"submission: {safe_markup(chosen.submission.message)}"))
    table = Table()
    for column in ("game", "tournament", "#", "seats", "faults", "decisions",
                   "mean ms", "p99 ms", "max ms", "% of limit"):  # fmt: skip
        table.add_column(column)
    for game in games:
        t = game.timing
        table.add_row(
            str(game.game_id), safe_markup(game.tournament), str(game.schedule_index),
            ",".join(str(s) for s in game.seats), str(game.faults), str(t.decisions),
            f"{t.mean_ms:.1f}", f"{t.p99_ms:.1f}", f"{t.max_ms:.1f}", percent_of_limit(game),
        )  # fmt: skip
    console.print(table)
    if start + len(games) < total:
        console.print(f"more: --start {start + len(games)}")


def _readable_bot(engine: Engine, name: str, viewer: Viewer) -> AuthorBot:
    """The bot *name*, with its versions, if *viewer* may read its logs."""
    bot = check_may_read_bot(engine, name, viewer)
    for author_bot in author_bots(engine, bot.owner_id, viewer):
        if author_bot.id == bot.id:
            return author_bot
    raise StorageError(f"no bot named {name[:70]!r}")


def _show_game(
    engine: Engine, bot: AuthorBot, version: str | None, game_id: int, viewer: Viewer
) -> None:
    """Print game *game_id*'s logs of *bot*'s seats (of *version* if given) and faults.

    :raises StorageError: for a game the viewer may not see, or one the bot did not play.
    """
    record = viewable_record(engine, game_id, viewer)
    wanted = {version_of(bot, version).label} if version else {v.label for v in bot.versions}
    players = [str(p) for p in record.get("players") or []]
    seats = [seat for seat, label in enumerate(players) if label in wanted]
    if not seats:
        raise StorageError(f"game {game_id} was not played by {bot.name!r}{_of(version)}")
    console = Console()
    console.print(f"game {game_id}: {safe_markup(' / '.join(players))}")
    logs = record.get("bot_logs") or []
    for seat in seats:
        t = timing(record, [seat])
        console.print(
            f"[bold]seat {seat}[/] ({safe_markup(players[seat])}): {t.decisions} decisions, "
            f"mean {t.mean_ms:.1f} ms, p99 {t.p99_ms:.1f} ms, max {t.max_ms:.1f} ms"
        )
        own: Mapping[str, Any] = logs[seat] if seat < len(logs) else {}
        for stream in ("stderr", "stdout"):
            text = str(own.get(stream) or "").rstrip("\n")
            console.print(f"{stream}:" + ("" if text else " (empty)"))
            if text:
                console.print(Hanging(f"  {safe_markup(text)}"))
        if own.get("dropped_bytes"):
            console.print(f"  ({own['dropped_bytes']} more bytes were not kept)")
    faults = [f for f in record.get("faults") or [] if isinstance(f, dict)]
    mine = [f for f in faults if f.get("seat") in seats]
    console.print(f"faults: {len(mine)}")
    for fault in mine:
        console.print(
            Hanging(
                f"  seat {fault.get('seat')}, hand {fault.get('hand')}, "
                f"{safe_markup(str(fault.get('decision')))}: "
                f"[bold]{safe_markup(str(fault.get('kind')))}[/]: "
                f"{safe_markup(str(fault.get('detail')))}"
                + (" (autopilot afterwards)" if fault.get("autopilot") else "")
            )
        )
        if fault.get("stderr_tail"):
            console.print(
                Hanging(f"  stderr at the fault: {safe_markup(str(fault['stderr_tail']))}")
            )


def _of(version: str | None) -> str:
    return f" version {version!r}" if version else ""
