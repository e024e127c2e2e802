"""``arena tournament create|run|add|open|close|status``, ``arena standings``, ``arena replay``,
``arena export`` and ``arena ratings recompute``."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table
from sqlalchemy.engine import Engine

from arena import storage
from arena.cli import compare as compare_cli
from arena.cli.common import (
    ROW_ID,
    prepare_out_dir,
    progress_bar,
    resolve_ruleset,
    resolve_time_control,
)
from arena.cli.executors import executor_options, open_executor
from arena.cli.storage_options import db_options, open_engine
from arena.cli.terminal import safe_markup, safe_text
from arena.cli.users import acting_user, user_option
from arena.game.record import RecordError
from arena.game.rules import PRESETS
from arena.recordfiles import export_file_name, export_stem, load_record
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
from arena.storage.standings import (
    RATING_LAG_NOTE,
    STANDINGS_LEGEND,
    StandingRow,
    standings_json,
)
from arena.storage.tournaments import check_tournament_name, shown_name, stored_rules
from arena.storage.workspace import may_see_tournament, viewable_record
from arena.tournament import setup
from arena.tournament.compare import FORMAT as VERSION_TEST_FORMAT
from arena.tournament.deals import SEED_MAX
from arena.tournament.executor import ExecutorError
from arena.tournament.formats import FORMATS, MAX_GAMES
from arena.tournament.ladder import LadderProgress, run_ladder
from arena.tournament.runner import RunProgress, run_tournament


def _console() -> Console:
    console = Console()
    if not console.is_terminal:
        console.width = 200  # logs and pipes get whole rows
    return console


@click.group("tournament")
def tournament_group() -> None:
    """Create, run and follow tournaments."""


def _new_tournament_name(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """NAME, stripped as it will be stored, checked when the command line is parsed, so
    the error names NAME (the setup below would blame ``--bots`` for an empty name)."""
    try:
        return check_tournament_name(value.strip())
    except StorageError as exc:
        raise click.BadParameter(str(exc)) from None


def _ladder_budget(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """``--games``, a whole number of matches: a ladder plays matches of 6 games, so any
    other budget could never be reached (``--games 7`` would show 6/7 for ever)."""
    if value is None or value % storage.BOARD_SIZE == 0:
        return value
    lower = value - value % storage.BOARD_SIZE
    nearest = [n for n in (lower, lower + storage.BOARD_SIZE) if n <= MAX_GAMES]
    shown = " or ".join(f"{n} (no budget)" if n == 0 else str(n) for n in nearest)
    raise click.BadParameter(
        f"{value} is not a whole number of {storage.BOARD_SIZE}-game matches (a ladder "
        f"plays only whole matches); use {shown}"
    )


@tournament_group.command("create")
@click.argument("name", callback=_new_tournament_name)
@click.option(
    "--ruleset", default="classic", show_default=True, help=f"One of: {', '.join(PRESETS)}."
)
@click.option("--bots", default="",
              help="Comma-separated bot names (their latest versions); an --open ladder may "
              "start with none.")  # fmt: skip
@click.option("--boards", type=click.IntRange(min=1), default=None,
              help="Duplicate boards per table; each is played under all 6 seatings "
              "[default: 4; a ladder plays one board per match].")  # fmt: skip
@click.option("--seed", type=click.IntRange(min=0, max=SEED_MAX), default=None,
              help="Reproducible, predictable deals from this seed (research runs only); "
              "default: a fresh secret no bot can search.")  # fmt: skip
@click.option("--format", "format_name", type=click.Choice(sorted(FORMATS)), default="round_robin",
              show_default=True)  # fmt: skip
@click.option("--rating-mode", type=click.Choice(["board", "game"]), default="board", show_default=True,
              help="Rate once per board from its 6 games' totals, or every game.")  # fmt: skip
@click.option("--time-control", default="decision=1000,bank=10000,grace=50,startup=10000",
              show_default=True)  # fmt: skip
@click.option("--games", type=click.IntRange(min=0, max=MAX_GAMES), default=None,
              callback=_ladder_budget,
              help="Ladder: games to play in all, a multiple of 6 (it plays whole matches "
              "of 6) [default: 0, no budget: it stops on --confidence].")  # fmt: skip
@click.option("--confidence", type=float, default=None,
              help="Ladder: stop once every bot is above the next with this probability "
              "[default: 0.95].")  # fmt: skip
@click.option("--min-games", type=click.IntRange(min=0, max=MAX_GAMES), default=None,
              help="Ladder: rated games each bot plays before it may stop; bots below "
              "it are matched first [default: 12].")  # fmt: skip
@click.option("--open", "is_open", is_flag=True,
              help="Ladder: every newly stored version enters it by itself (after its "
              "smoke game), retiring its bot's previous version there.")  # fmt: skip
@click.option("--max-versions-per-day", type=click.IntRange(min=1), default=None,
              help="Open ladder: versions a participant may submit in 24 hours "
              "[default: no quota].")  # fmt: skip
@user_option
@db_options
def create_command(
    name: str,
    ruleset: str,
    bots: str,
    boards: int,
    seed: int | None,
    format_name: str,
    rating_mode: str,
    time_control: str,
    games: int | None,
    confidence: float | None,
    min_games: int | None,
    is_open: bool,
    max_versions_per_day: int | None,
    user: str | None,
    db: str | None,
    data: Path | None,
) -> None:
    """Create tournament NAME between the latest versions of --bots (organisers only).

    NAME: 1-120 letters, digits, spaces, '_', '.', '-', '@', '#' or '+', starting with a
    letter or digit.

    A ``--format ladder`` has no fixed schedule: it chooses each match from the ratings as
    it plays, takes new bots and versions while it runs, and stops on --games or
    --confidence. An --open ladder also takes every newly stored bot and version by itself
    (docs/ladder.md, "Open ladders").
    """
    resolve_ruleset(ruleset)
    resolve_time_control(time_control)
    if format_name == storage.LADDER_FORMAT and boards is not None:
        raise click.BadParameter(
            "a ladder plays one board per match; --boards is for round robins",
            param_hint="--boards",
        )
    if max_versions_per_day is not None and not is_open:
        raise click.BadParameter(
            "a quota is for an --open ladder", param_hint="--max-versions-per-day"
        )
    engine = open_engine(db, data)
    by = acting_user(engine, user)
    try:
        _, description = setup.create_tournament(
            engine,
            by=by,
            name=name,
            ruleset=ruleset,
            bots=[b.strip() for b in bots.split(",") if b.strip()],
            boards=boards or 4,
            seed=seed,
            format_name=format_name,
            rating_mode=rating_mode,
            time_control=time_control,
            ladder=_ladder_options(games, confidence, min_games, is_open, max_versions_per_day),
        )
    except setup.TournamentSetupError as exc:
        raise click.BadParameter(str(exc), param_hint=exc.param) from None
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(safe_text(description))


def _ladder_options(
    games: int | None,
    confidence: float | None,
    min_games: int | None,
    is_open: bool = False,
    max_versions_per_day: int | None = None,
) -> setup.LadderOptions | None:
    """The ladder options given, or ``None`` when none is (defaults for a ladder)."""
    if games is None and confidence is None and min_games is None and not is_open:
        return None
    default = setup.LadderOptions()
    return setup.LadderOptions(
        games=default.games if games is None else games,
        confidence=default.confidence if confidence is None else confidence,
        min_games=default.min_games if min_games is None else min_games,
        open=is_open,
        max_versions_per_day=max_versions_per_day,
    )


@tournament_group.command("run")
@click.argument("name")
@click.option("--parallel", type=click.IntRange(min=1), default=None,
              help="Games played at once [default: number of cores; with --executor ray, "
              "the cluster's CPUs].")  # fmt: skip
@click.option("--follow", is_flag=True,
              help="Ladder: keep running when it is settled, taking new bots and versions "
              "as they come (until its --games budget or Ctrl-C).")  # fmt: skip
@click.option("--no-reuse", is_flag=True,
              help="Start fresh bot processes for every game (by default a seating's "
              "processes play its boards, never a deal twice: docs/security.md).")  # fmt: skip
@click.option("--prestart", is_flag=True,
              help="Start the next game's bot processes during the current game where no "
              "live process may know its deal (local executor; off by default: it did "
              "not pay on 2 busy cores, docs/scaling.md).")  # fmt: skip
@executor_options
@user_option
@db_options
def run_command(
    name: str,
    parallel: int | None,
    follow: bool,
    no_reuse: bool,
    prestart: bool,
    executor: str,
    ray_address: str | None,
    user: str | None,
    db: str | None,
    data: Path | None,
) -> None:
    """Play (or resume) tournament NAME, then print its standings (organisers only)."""
    engine = open_engine(db, data)
    try:
        setup.check_may_run(acting_user(engine, user))
        tournament = storage.get_tournament(engine, name)
        stored_rules(tournament)  # every format's runner reads them: refuse bad ones here
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    if tournament.format == storage.LADDER_FORMAT:
        options = _pool_options(executor, reuse=not no_reuse, prestart=prestart)
        _run_ladder(engine, name, parallel, follow, executor, ray_address, **options)
        print_standings(engine, name)
        return
    if tournament.format == VERSION_TEST_FORMAT and not follow:
        compare_cli.resume(engine, storage.row_id(tournament), parallel)
    if follow:
        raise click.BadParameter("only a ladder can follow", param_hint="--follow")
    progress = progress_bar("tournament")
    with progress:
        task = progress.add_task(safe_markup(name), total=None, rate="")

        def show(state: RunProgress) -> None:
            rate = state.played_now / state.seconds if state.seconds else 0.0
            progress.update(
                task, total=state.total, completed=state.done, rate=f"{rate:.2f} games/s"
            )

        try:
            options = _pool_options(executor, reuse=not no_reuse, prestart=prestart)
            with open_executor(executor, ray_address, parallel, **options) as pool:
                asyncio.run(run_tournament(engine, name, pool, show))
        except StorageError as exc:
            raise click.ClickException(str(exc)) from None
        except ExecutorError as exc:
            raise click.ClickException(
                f"{exc} (finished games are kept; run again to resume)"
            ) from None
    print_standings(engine, name)


def _run_ladder(
    engine: Engine,
    name: str,
    parallel: int | None,
    follow: bool,
    executor: str = "local",
    ray_address: str | None = None,
    *,
    reuse: bool = True,
    prestart: bool = False,
) -> None:
    """Play ladder *name* with a progress bar over its budget, and say why it stopped
    (on *executor*: ``local`` or ``ray`` at *ray_address*; *reuse*: keep a seating's bot
    processes across its matches; *prestart*: start the next game's processes early)."""
    progress = progress_bar("ladder")
    with progress:
        task = progress.add_task(safe_markup(name), total=None, rate="")

        def show(state: LadderProgress) -> None:
            rate = state.played_now / state.seconds if state.seconds else 0.0
            progress.update(
                task,
                total=state.budget or None,
                completed=state.done,
                rate=f"{state.matches} matches, {rate:.2f} games/s",
            )

        try:
            options = _pool_options(executor, reuse=reuse, prestart=prestart)
            with open_executor(executor, ray_address, parallel, **options) as pool:
                final = asyncio.run(run_ladder(engine, name, pool, show, follow=follow))
        except StorageError as exc:
            raise click.ClickException(str(exc)) from None
        except ExecutorError as exc:
            raise click.ClickException(
                f"{exc} (finished games and chosen matches are kept; run again to resume)"
            ) from None
    for label in final.entered:
        click.echo(f"entered {safe_text(label)} (its older version is retired)")
    stopped = safe_text(str(final.stopped))
    click.echo(f"{safe_text(name)}: stopped after {final.matches} matches: {stopped}")


def _pool_options(executor: str, *, reuse: bool, prestart: bool) -> dict[str, bool]:
    """The executor's options for ``--no-reuse`` and ``--prestart``.

    :raises click.BadParameter: for ``--prestart`` on another executor than ``local`` (a
        Ray slot does not pre-start).
    """
    if not prestart:
        return {"reuse": reuse}
    if executor != "local":
        raise click.BadParameter("pre-start needs --executor local", param_hint="--prestart")
    return {"reuse": reuse, "prestart": True}


@tournament_group.command("add")
@click.argument("name")
@click.argument("bot")
@user_option
@db_options
def add_command(name: str, bot: str, user: str | None, db: str | None, data: Path | None) -> None:
    """Enter the latest version of BOT into ladder NAME, even while it runs (organisers
    only); an entered older version of BOT is retired from matchmaking, its games kept."""
    engine = open_engine(db, data)
    try:
        setup.check_may_run(acting_user(engine, user))
        tournament = storage.get_tournament(engine, name)
        version = storage.latest_version(engine, bot)
        if version is None:
            raise click.BadParameter(f"no bot named {bot!r} (submit it first)", param_hint="BOT")
        storage.enter_version(engine, storage.row_id(tournament), storage.row_id(version))
        retired = [
            e.label
            for e in storage.ladder_entrants(engine, storage.row_id(tournament))
            if e.retired and e.bot_id == version.bot_id
        ]
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    retiring = f" (retires {safe_text(', '.join(retired))})" if retired else ""
    click.echo(f"entered {safe_text(version.label)} into ladder {name!r}{retiring}")


@tournament_group.command("open")
@click.argument("name")
@click.option("--max-versions-per-day", type=click.IntRange(min=1), default=None,
              help="Versions a participant may submit in 24 hours [default: keep the "
              "ladder's quota].")  # fmt: skip
@click.option("--no-quota", is_flag=True, help="Remove the ladder's daily quota.")
@user_option
@db_options
def open_command(
    name: str,
    max_versions_per_day: int | None,
    no_quota: bool,
    user: str | None,
    db: str | None,
    data: Path | None,
) -> None:
    """Open ladder NAME (organisers only): from now on every newly stored version enters
    it by itself, retiring its bot's previous version there."""
    if no_quota and max_versions_per_day is not None:
        raise click.BadParameter(
            "give a quota or --no-quota, not both", param_hint="--max-versions-per-day"
        )
    engine = open_engine(db, data)
    try:
        tournament = storage.get_tournament(engine, name)
        tournament_id = storage.row_id(tournament)
        quota = storage.ladder_settings(engine, tournament_id).max_versions_per_day
        if no_quota or max_versions_per_day is not None:
            quota = max_versions_per_day
        storage.set_ladder_open(
            engine,
            tournament_id,
            is_open=True,
            max_versions_per_day=quota,
            by=acting_user(engine, user),
        )
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    limit = "no daily quota" if quota is None else f"at most {quota} versions a day per participant"
    click.echo(f"ladder {safe_text(tournament.name)!r} is open: new versions enter it ({limit})")


@tournament_group.command("close")
@click.argument("name")
@user_option
@db_options
def close_command(name: str, user: str | None, db: str | None, data: Path | None) -> None:
    """Close ladder NAME (organisers only): new versions no longer enter it by themselves
    (nor count against its quota); its entrants stay and it plays on."""
    engine = open_engine(db, data)
    try:
        tournament = storage.get_tournament(engine, name)
        tournament_id = storage.row_id(tournament)
        quota = storage.ladder_settings(engine, tournament_id).max_versions_per_day
        storage.set_ladder_open(
            engine,
            tournament_id,
            is_open=False,
            max_versions_per_day=quota,
            by=acting_user(engine, user),
        )
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"ladder {safe_text(tournament.name)!r} is closed: new versions no longer enter it")


@tournament_group.command("status")
@click.argument("name")
@db_options
def status_command(name: str, db: str | None, data: Path | None) -> None:
    """Show how far tournament NAME has got."""
    engine = open_engine(db, data)
    try:
        tournament = storage.get_tournament(engine, name)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    done = len(storage.stored_indexes(engine, storage.row_id(tournament)))
    entrants = ", ".join(v.label for v in storage.entries(engine, storage.row_id(tournament)))
    deals = (
        "secret deals"
        if tournament.seed is None
        else f"seed {tournament.seed} (deals are predictable)"
    )
    click.echo(
        f"{safe_text(tournament.name)}: {tournament.status}, {done}/{tournament.games_total} "
        f"games, {safe_text(tournament.ruleset)}, {tournament.boards} board(s), {deals}, "
        f"rating per {tournament.rating_mode}, {tournament.arena_faults} arena fault(s) "
        f"(replayed, not rated); bots: {safe_text(entrants)}"
    )
    ids = storage.tournament_game_ids(engine, storage.row_id(tournament))
    if ids:
        click.echo(f"game ids for `arena replay`: {min(ids)}..{max(ids)} ({len(ids)} stored)")
    if tournament.format == storage.LADDER_FORMAT:
        _ladder_status(engine, storage.row_id(tournament))


def _ladder_status(engine: Engine, tournament_id: int) -> None:
    """A ladder's stopping rule, whether it is open, its entrants that left and the matches
    in play."""
    settings = storage.ladder_settings(engine, tournament_id)
    budget = f"budget {settings.games_budget} games" if settings.games_budget else "no budget"
    entrants = storage.ladder_entrants(engine, tournament_id)
    retired = [e.label for e in entrants if e.retired]
    withdrawn = [e.label for e in entrants if e.withdrawn]
    click.echo(
        f"ladder: {budget}, stops at P(above next) >= {settings.confidence:g} after "
        f"{settings.min_games}+ games each; retired: {safe_text(', '.join(retired)) or 'none'}; "
        f"withdrawn: {safe_text(', '.join(withdrawn)) or 'none'}"
    )
    if settings.open:
        quota = settings.max_versions_per_day
        limit = "no daily quota" if quota is None else f"at most {quota} versions a day each"
        click.echo(f"open: new versions enter by themselves ({limit})")
    else:
        click.echo("closed: entrants are added by an organiser (arena tournament add)")
    active = sum(e.active for e in entrants)
    if active < 3:
        click.echo(f"waiting: {active} active entrant(s); a match needs 3")
    for match in storage.unfinished_matches(engine, tournament_id):
        click.echo(
            f"in play: match {match.match_index} ({safe_text(', '.join(match.labels))}), "
            f"{match.games_stored}/6 games stored"
        )


def print_standings(engine: Engine, name: str | None, as_json: bool = False) -> None:
    """The standings table of tournament *name* (default: the latest), or every column of
    it as one JSON object (*as_json*)."""
    try:
        tournament = storage.get_tournament(engine, name) if name else None
        # By default the newest public tournament: a test match's is private to its requester.
        public = (t for t in storage.list_tournaments(engine) if t.private_to is None)
        shown_one = tournament or next(public, None)
        shown_id = storage.row_id(shown_one) if shown_one is not None else None
        rows = storage.standings(engine, shown_id) if shown_id is not None else []
        progress = storage.progress(engine, shown_id) if shown_id is not None else None
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        shown = tournament.name if tournament is not None else None
        faults = tournament.arena_faults if tournament is not None else None
        # json.dumps escapes every control and non-ASCII character (ensure_ascii).
        click.echo(json.dumps(standings_json(shown, rows, faults, progress), indent=1))
        return
    table = Table(title=f"Standings{f': {safe_markup(name)}' if name else ''}")
    headers = ("rank", "bot", "owner", "rating", "mu", "sigma", "P(>next)", "rank 95%", "games",
               "wins", "score/game", "made 9", "made 5", "made 2", "faults")  # fmt: skip
    for header in headers:
        left = header in ("bot", "owner")
        table.add_column(header, justify="left" if left else "right", no_wrap=True)

    def rate(value: float | None) -> str:
        return "-" if value is None else f"{value:.0%}"

    for row in rows:
        table.add_row(
            str(row.rank), safe_markup(_shown_bot(row)), safe_markup(row.owner),
            f"{row.conservative:.2f}",
            f"{row.mu:.2f}", f"{row.sigma:.2f}",
            rate(row.p_above_next), rank_span(row), str(row.games), str(row.wins),
            f"{row.mean_score:+.2f}", rate(row.made_9), rate(row.made_5), rate(row.made_2),
            str(row.faults),
        )  # fmt: skip
    console = _console()
    console.print(table)
    if rows:
        console.print(STANDINGS_LEGEND, highlight=False)
    if progress is not None and progress.rated < progress.stored:
        console.print(
            f"ratings cover {progress.rated} of {progress.stored} stored games: {RATING_LAG_NOTE}",
            highlight=False,
        )
    if tournament is not None and tournament.arena_faults:
        console.print(
            f"arena faults: {tournament.arena_faults} game(s) failed by the arena itself, "
            "replayed and never rated"
        )


def _shown_bot(row: StandingRow) -> str:
    """The row's label, and why it left a ladder if it did (its rating stays)."""
    return row.bot if row.left is None else f"{row.bot} ({row.left})"


def rank_span(row: StandingRow) -> str:
    """The 95% rank interval as text: ``2`` when certain, else ``1-3``."""
    if row.rank_low == row.rank_high:
        return str(row.rank_low)
    return f"{row.rank_low}-{row.rank_high}"


@click.command("standings")
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True,
              help="Print every column (with the rank confidence) as one JSON object.")  # fmt: skip
@db_options
def standings_command(name: str | None, as_json: bool, db: str | None, data: Path | None) -> None:
    """Standings of tournament NAME (default: the most recent one that is not a test
    match), with how sure each rank is."""
    print_standings(open_engine(db, data), name, as_json)


@click.command("replay")
@click.argument("game_id", type=ROW_ID)
@user_option
@db_options
def replay_command(game_id: int, user: str | None, db: str | None, data: Path | None) -> None:
    """A readable replay of stored game GAME_ID: the number `arena tournament status NAME`
    lists under "game ids for `arena replay`" (and the dashboard's Replays page shows), not
    the "game_id" text inside a record. A damaged record is refused, saying what is wrong.

    Fault details are shown as --user may read them: a bot's own to its owner, all to an
    organiser (the host's `local` by default).
    """
    engine = open_engine(db, data)
    viewer = Viewer.of(acting_user(engine, user))
    try:
        stored = game_record_text(engine, game_id)
        record = load_record(stored.text, game=str(game_id))
        shown = viewable_record(engine, game_id, viewer)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    except RecordError as exc:
        raise click.ClickException(f"damaged record: {_one_line(str(exc))}") from None
    del record  # checked above; what is shown is the viewer's copy of it
    click.echo(replay_text(_shown_record(shown)))


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


@click.group("ratings")
def ratings_group() -> None:
    """Maintain ratings."""


@ratings_group.command("recompute")
@click.argument("name")
@db_options
def recompute_command(name: str, db: str | None, data: Path | None) -> None:
    """Recompute tournament NAME's ratings and snapshots from its stored games."""
    engine = open_engine(db, data)
    try:
        tournament = storage.get_tournament(engine, name)
        storage.recompute_ratings(engine, storage.row_id(tournament))
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    print_standings(engine, name)
