"""How ``arena remote`` shows what the server answered: tables and lines, every value the
server sent passed through :func:`~arena.cli.terminal.safe_markup` or
:func:`~arena.cli.terminal.safe_text` (names, messages and logs may quote a bot)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.table import Table

from arena.cli.remote_client import RemoteError
from arena.cli.terminal import safe_markup, safe_text

T = TypeVar("T")


def field(body: object, key: str, kind: type[T]) -> T:
    """``body[key]`` if the server's answer holds it with the type the API documents, or
    one line saying it does not (a server of another version, or not the arena's API)."""
    value = body.get(key) if isinstance(body, Mapping) else None
    if isinstance(value, bool) and kind is not bool:
        value = None
    if not isinstance(value, kind):
        raise RemoteError(
            f"the server's answer has no {key!r} of the expected kind: is it the arena's API v1?"
        )
    return value


def _cell(value: object) -> str:
    """A table cell from a server's value: ``-`` for none, markup-safe otherwise."""
    if value is None or value == "":
        return "-"
    return safe_markup(str(value))


def _when(value: object) -> str:
    """A timestamp as ``YYYY-MM-DD HH:MM`` (ISO text from the server, cut short)."""
    text = str(value or "")
    return safe_markup(text[:16].replace("T", " ")) if text else "-"


def _moment(value: object) -> str:
    """A timestamp to the second (ISO text from the server), for plain output."""
    return safe_text(str(value)[:19].replace("T", " ")) if value else "-"


def _console() -> Console:
    console = Console()
    if not console.is_terminal:
        console.width = 200  # a pipe or a file: no wrapping of long rows
    return console


def print_bots(answer: object) -> None:
    """``remote status``: each bot's latest version, then the submissions that stored
    nothing."""
    bots = [b for b in field(answer, "bots", list) if isinstance(b, Mapping)]
    console = _console()
    if not bots:
        console.print("no bots yet: `arena remote submit DIR` uploads one")
    else:
        table = Table(title="My bots")
        for column in ("bot", "latest", "version", "state", "games", "faulted", "ladders",
                       "submitted", "via"):  # fmt: skip
            table.add_column(column)
        for bot in bots:
            versions = [v for v in bot.get("versions") or [] if isinstance(v, Mapping)]
            if not versions:
                table.add_row(_cell(bot.get("name")), "-", "-", "no stored version", *"-----")
                continue
            latest = versions[-1]
            ladders = ", ".join(
                f"{p.get('tournament')} ({p.get('state')})"
                for p in latest.get("ladders") or []
                if isinstance(p, Mapping)
            )
            table.add_row(
                _cell(bot.get("name")), _cell(latest.get("label")), _cell(latest.get("seq")),
                _cell(latest.get("state")), _cell(latest.get("games")),
                _cell(latest.get("faulted_games")), _cell(ladders), _when(latest.get("submitted_at")),
                _cell(latest.get("via")),
            )  # fmt: skip
        console.print(table)
    failed = [
        s for bot in bots for s in bot.get("failed_submissions") or [] if isinstance(s, Mapping)
    ]
    unstored = answer.get("unstored_submissions") if isinstance(answer, Mapping) else None
    failed += [s for s in unstored or [] if isinstance(s, Mapping)]
    if failed:
        failed.sort(key=_id_of, reverse=True)
        table = Table(title="Submissions that stored nothing")
        for column in ("id", "bot", "state", "submitted", "message"):
            table.add_column(column)
        for sub in failed:
            table.add_row(
                _cell(sub.get("id")), _cell(sub.get("bot")), _cell(sub.get("state")),
                _when(sub.get("submitted_at")), _cell(sub.get("message")),
            )  # fmt: skip
        console.print(table)
        console.print("its log: arena remote status --submission ID")


def _id_of(row: Mapping[str, Any]) -> int:
    number = row.get("id")
    return number if isinstance(number, int) else 0


def print_submission(submission: object) -> None:
    """``remote status --submission``: the submission's fields, then its log."""
    number = field(submission, "id", int)
    assert isinstance(submission, Mapping)
    what = submission.get("label") or (
        f"{submission.get('bot') or '?'} {submission.get('version') or ''}".strip()
    )
    click.echo(
        f"submission {number}: {safe_text(str(what))}, {safe_text(str(submission.get('state')))}"
        f" (via {safe_text(str(submission.get('via')))}, submitted "
        f"{_moment(submission.get('submitted_at'))}, finished "
        f"{_moment(submission.get('finished_at'))})"
    )
    if submission.get("message"):
        click.echo(f"message: {safe_text(str(submission['message']))}")
    log = str(submission.get("log") or "")
    if log.strip():
        click.echo("log:" + safe_text("\n" + log.rstrip()))
    else:
        click.echo("log: (empty)")


def print_games(name: str, games: list[dict[str, Any]], more: int | None) -> None:
    """``remote games``: one row per game, newest first."""
    console = _console()
    if not games:
        console.print(f"no games of {safe_markup(name)} to show")
        return
    table = Table(title=f"Games of {safe_markup(name)}")
    for column in ("game", "tournament", "index", "version", "seats", "faults", "decisions",
                   "mean ms", "p99 ms", "max ms", "played"):  # fmt: skip
        table.add_column(column)
    for game in games:
        timing = game.get("timing") if isinstance(game.get("timing"), Mapping) else {}
        assert isinstance(timing, Mapping)
        seats = game.get("seats")
        tournament = str(game.get("tournament"))
        if game.get("private"):
            tournament += " (private)"
        table.add_row(
            _cell(game.get("id")), _cell(tournament), _cell(game.get("schedule_index")),
            _cell(game.get("version")),
            _cell(", ".join(str(s) for s in seats) if isinstance(seats, list) else seats),
            _cell(game.get("faults")), _cell(timing.get("decisions")), _ms(timing.get("mean_ms")),
            _ms(timing.get("p99_ms")), _ms(timing.get("max_ms")), _when(game.get("created_at")),
        )  # fmt: skip
    console.print(table)
    if more is not None:
        console.print(f"more: arena remote games {safe_markup(name)} --after {more}")


def _ms(value: object) -> str:
    return f"{value:.1f}" if isinstance(value, int | float) else "-"


def test_match_line(match: Mapping[str, Any]) -> str:
    """One line on where a test match stands (queued at a place, or its games so far)."""
    number, state = match.get("id"), safe_text(str(match.get("state")))
    position = match.get("queue_position")
    if state == "queued" and position is not None:
        return f"test match #{number}: queued, position {position}"
    done, total = match.get("games_stored"), match.get("games_total")
    if done is not None and total is not None:
        return f"test match #{number}: {state}, {done}/{total} games"
    return f"test match #{number}: {state}"
