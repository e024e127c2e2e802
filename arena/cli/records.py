"""``arena replay`` and ``arena export``: stored game records, checked against the rules,
as a readable replay or as record files, each as the reader may see them."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import click
from sqlalchemy.engine import Engine

from arena import storage
from arena.cli.common import ROW_ID, prepare_out_dir
from arena.cli.storage_options import db_options, open_engine
from arena.cli.terminal import safe_text
from arena.cli.users import acting_user, user_option
from arena.game.record import RecordError
from arena.recordfiles import export_file_name, export_stem, load_record
from arena.replay.frames import frames_json
from arena.replay.steps import build_replay
from arena.replay.text import replay_text
from arena.storage.database import StorageError
from arena.storage.privacy import (
    ORGANISER,
    Viewer,
    owners_of_versions,
    redact_record,
    tournament_seats,
)
from arena.storage.record_texts import RecordText, game_record_text, tournament_record_texts
from arena.storage.tournaments import shown_name
from arena.storage.workspace import may_see_tournament, viewable_record
from arena.tournament.held_back import game_held_back
from arena.viewer import viewer_html


@click.command("replay")
@click.argument("game_id", type=ROW_ID)
@click.option("--html", "html_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, metavar="FILE",
              help="Write the game as one self-contained HTML page to FILE instead: the "
              "dashboard's replay viewer (step, autoplay, each seat's view), working "
              "offline. Refused while the game's cards are held back.")  # fmt: skip
@user_option
@db_options
def replay_command(
    game_id: int, html_file: Path | None, user: str | None, db: str | None, data: Path | None
) -> None:
    """A readable replay of stored game GAME_ID: the number `arena tournament status NAME`
    lists under "game ids for `arena replay`" (and the dashboard's Replays page shows), not
    the "game_id" text inside a record. A damaged record is refused, saying what is wrong.

    Fault details are shown as --user may read them: a bot's own to its owner, all to an
    organiser (the host's `local` by default).

    With --html FILE the replay is the dashboard's viewer in one HTML file (docs/replays.md).
    Either is refused while the game's cards are held back: while a tournament with secret
    deals runs, a game whose other seatings are not all stored would show their cards in
    advance (the dashboard and the HTTP API hold it back the same way).
    """
    engine = open_engine(db, data)
    viewer = Viewer.of(acting_user(engine, user))
    try:
        held = game_held_back(engine, game_id)
        if held is not None:
            raise StorageError(f"game {game_id}: {held.notice()}")
        stored = game_record_text(engine, game_id)
        record = load_record(stored.text, game=str(game_id))
        shown = viewable_record(engine, game_id, viewer)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    except RecordError as exc:
        raise click.ClickException(f"damaged record: {_one_line(str(exc))}") from None
    del record  # checked above; what is shown is the viewer's copy of it
    if html_file is None:
        click.echo(replay_text(_shown_record(shown)))
        return
    size = _write_viewer(html_file, game_id, shown)
    click.echo(f"wrote the replay viewer of game {game_id} to {html_file} ({size // 1024} KiB)")


def _write_viewer(path: Path, game_id: int, record: Any) -> int:
    """Write the replay viewer of *record* (the reader's copy, checked) to *path*; its size.

    :raises click.ClickException: in one line, if *path* cannot be written.
    """
    replay = build_replay(record, game=str(game_id))
    players = " vs ".join(str(p) for p in record.get("players", []))
    page = viewer_html(frames_json(replay), title=f"Game {game_id}: {players}")
    data = page.encode("utf-8")
    try:
        path.write_bytes(data)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise click.ClickException(
            f"cannot write {_one_line(safe_text(str(path)))}: {reason}"
        ) from None
    return len(data)


def _shown_record(value: Any) -> Any:
    """*value* (a record, or a part of one) with every string made :func:`safe_text`: its
    players' labels and fault details are bot text, and the replay shows them as lines of
    its own."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, list):
        return [_shown_record(item) for item in value]
    if isinstance(value, dict):
        return {key: _shown_record(item) for key, item in value.items()}
    return value


@click.command("export")
@click.argument("name")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--user", "user", envvar="ARENA_USER", default=None, metavar="NAME",
              help="Export as this account may read the records: each bot's stderr and "
              "fault details only for its owner (an organiser reads all) [env ARENA_USER; "
              "default: the host's complete organiser export].")  # fmt: skip
@db_options
def export_command(
    name: str, out: Path, user: str | None, db: str | None, data: Path | None
) -> None:
    """Write every stored game of tournament NAME to --out as JSON game records in the
    arena952.game/1 format (docs/record-format.md, docs/record-format.md), one file per game:
    NAME-000000.json, NAME-000001.json, ... by schedule index.

    Without --user this is the host's organiser export, complete: every bot's stdout and
    stderr (bot_logs) and every fault's detail. With --user U the records are redacted for
    U: only U's own bots keep their logs and fault details; a private tournament that is
    not U's is refused.

    A NAME with characters other than letters, digits, '_', '.' and '-' gets a file-safe
    stem instead (the others become '_', plus a short hash of NAME); files never land
    outside --out. Every record is checked against the rules first: if any is damaged,
    nothing is written, and the error names the first damaged game and how many there
    are (exit status 1).
    """
    engine = open_engine(db, data)
    viewer = ORGANISER if user is None else Viewer.of(acting_user(engine, user))
    try:
        tournament = storage.get_tournament(engine, name)
        if not may_see_tournament(engine, storage.row_id(tournament), viewer):
            raise StorageError(f"no tournament named {name!r}")
        stored = tournament_record_texts(engine, storage.row_id(tournament))
        records = _checked_records(tournament.name, stored)
        if viewer != ORGANISER:
            records = _redacted(engine, storage.row_id(tournament), records, viewer)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    prepare_out_dir(out)
    _write_records(out, tournament.name, records)
    pattern = f"{export_stem(tournament.name)}-NNNNNN.json"
    click.echo(f"wrote {len(stored)} record(s) to {out} as {pattern}")


def _redacted(
    engine: Engine, tournament_id: int, records: list[tuple[int, Any]], viewer: Viewer
) -> list[tuple[int, Any]]:
    """*records* (by schedule index) as *viewer* may read them
    (:func:`arena.storage.privacy.redact_record`)."""
    seats = tournament_seats(engine, tournament_id)
    owners = owners_of_versions(engine, {v for by_seat in seats.values() for v in by_seat})
    return [
        (index, redact_record(record, viewer, [owners.get(v) for v in seats.get(index, [])]))
        for index, record in records
    ]


def _checked_records(tournament: str, stored: list[RecordText]) -> list[tuple[int, Any]]:
    """``(schedule_index, record)`` of every record, each loaded and checked before
    anything is written, so a damaged one leaves no half export behind that looks whole.

    :raises click.ClickException: naming the first damaged game and how many there are.
    """
    records: list[tuple[int, Any]] = []
    damaged: list[RecordError] = []
    for item in stored:
        try:
            records.append((item.schedule_index, load_record(item.text, game=str(item.game_id))))
        except RecordError as exc:
            damaged.append(exc)
    if damaged:
        raise click.ClickException(
            f"tournament {shown_name(tournament)}: {len(damaged)} of {len(stored)} stored "
            f"record(s) damaged, nothing written; the first: {_one_line(str(damaged[0]))}"
        )
    return records


def _write_records(out: Path, tournament: str, records: list[tuple[int, Any]]) -> None:
    """Write the (checked) records into a staging folder inside *out*, then move them into
    place: a failed write (disk full) leaves the earlier contents of *out* as they were.

    :raises click.ClickException: if *out* cannot take the files.
    """
    moved = 0
    staging: Path | None = None
    try:
        staging = Path(tempfile.mkdtemp(prefix=".arena-export-", dir=out))
        names = [export_file_name(tournament, index) for index, _ in records]
        for file_name, (_, record) in zip(names, records, strict=True):
            text = json.dumps(record, indent=1) + "\n"
            (staging / file_name).write_text(text, encoding="utf-8")
        for file_name in names:
            (staging / file_name).replace(out / file_name)
            moved += 1
    except OSError as exc:
        raise click.ClickException(
            f"cannot write the records to {out}: {exc.strerror or type(exc).__name__} "
            f"({moved} of {len(records)} files in place)"
        ) from None
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)


def _one_line(text: str, limit: int = 300) -> str:
    """*text* on one line and at most *limit* characters (a record error may quote a
    hostile value)."""
    flat = re.sub(r"\s+", " ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
