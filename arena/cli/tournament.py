"""``arena tournament create|run|status`` (and, from :mod:`arena.cli.ladder`, ``add|open|close``;
from :mod:`arena.cli.tournament_admin`, ``list|remove``; from :mod:`arena.cli.tournament_stop`,
``stop``).

``arena tournament run`` plays any format through the one run loop
(:func:`arena.tournament.runner.run`) under one progress bar; a version test answers with
its verdict instead (:mod:`arena.cli.compare`). The standings it prints are
:mod:`arena.cli.standings`'.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import click
from sqlalchemy.engine import Engine

from arena import storage
from arena.cli import compare as compare_cli
from arena.cli.common import resolve_ruleset, resolve_time_control
from arena.cli.executors import executor_options, open_executor
from arena.cli.ladder import add_command, close_command, open_command
from arena.cli.run_progress import RunDisplay
from arena.cli.standings import print_standings
from arena.cli.storage_options import db_options, open_engine
from arena.cli.terminal import safe_text
from arena.cli.tournament_admin import (
    latest_name,
    list_command,
    remove_command,
    resume_hint,
    run_status,
)
from arena.cli.tournament_stop import stop_command
from arena.cli.users import acting_user, user_option
from arena.game.rules import PRESETS
from arena.storage.database import StorageError
from arena.storage.outage import DatabaseFull
from arena.storage.tournaments import check_tournament_name, stored_rules
from arena.tournament import runner, setup
from arena.tournament.compare import FORMAT as VERSION_TEST_FORMAT
from arena.tournament.deals import SEED_MAX
from arena.tournament.executor import ExecutorError
from arena.tournament.formats import FORMATS, MAX_GAMES
from arena.tournament.ladder import LadderProgress
from arena.tournament.outage import (
    DEFAULT_RETRY_FOR,
    EX_TEMPFAIL,
    RETRY_FOR_ENV,
    DatabaseGone,
    OutageWait,
    RetryPolicy,
)
from arena.tournament.polite_stop import Stopped, until_stopped


@click.group("tournament")
def tournament_group() -> None:
    """Create, run and follow tournaments."""


for _command in (
    add_command,
    open_command,
    close_command,
    list_command,
    remove_command,
    stop_command,
):
    tournament_group.add_command(_command)


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
@click.option("--db-retry-for", type=click.FloatRange(min=0), default=DEFAULT_RETRY_FOR,
              envvar=RETRY_FOR_ENV, show_default=True, metavar="SECONDS",
              help="How long to wait for a database that cannot be reached (a restart, a "
              "failover) before stopping with exit status 75; finished games are held "
              f"meanwhile [env {RETRY_FOR_ENV}].")  # fmt: skip
@executor_options
@user_option
@db_options
def run_command(
    name: str,
    parallel: int | None,
    follow: bool,
    no_reuse: bool,
    prestart: bool,
    db_retry_for: float,
    executor: str,
    ray_address: str | None,
    user: str | None,
    db: str | None,
    data: Path | None,
) -> None:
    """Play (or resume) tournament NAME, then print its standings (organisers only).

    If the database cannot be reached meanwhile, it holds the finished games, waits up to
    --db-retry-for (one line a retry), then stores them and carries on; past that, or on
    a full disk, it stops with exit status 75, and running it again resumes. SIGTERM or
    Ctrl-C stop it politely: the games in play are abandoned (played again by the next
    run, never rated), the status is "interrupted" (docs/operations.md).
    """
    engine = open_engine(db, data)
    try:
        setup.check_may_run(acting_user(engine, user))
        tournament = storage.get_tournament(engine, name)
        stored_rules(tournament)  # every format's run reads them: refuse bad ones here
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    is_ladder = tournament.format == storage.LADDER_FORMAT
    if tournament.format == VERSION_TEST_FORMAT and not follow:
        # A version test answers with a verdict and its exit status, not a progress bar.
        compare_cli.resume(engine, storage.row_id(tournament), parallel, db_retry_for)
    if follow and not is_ladder:
        raise click.BadParameter("only a ladder can follow", param_hint="--follow")
    options = _pool_options(executor, reuse=not no_reuse, prestart=prestart)
    kept = "finished games and chosen matches are kept" if is_ladder else "finished games are kept"
    # A bar on a terminal, plain lines in a log (each version a ladder enters, too).
    with RunDisplay(name, "ladder" if is_ladder else "tournament") as display:
        outage = OutageWait(RetryPolicy(retry_for=db_retry_for), say=display_line(display))
        try:
            with open_executor(executor, ray_address, parallel, **options) as pool:
                work = runner.run(engine, name, pool, display.update, follow=follow, outage=outage)
                final = asyncio.run(until_stopped(work))
        except Stopped as stop:
            click.echo(
                f"{safe_text(name)}: stopped by {stop.name}: {kept}, the games in play were "
                "abandoned (played again, never rated); status interrupted; run again to resume",
                err=True,
            )
            raise click.exceptions.Exit(stop.exit_status) from None
        except (DatabaseGone, DatabaseFull) as exc:
            click.echo(f"arena: {safe_text(str(exc))} ({kept}; run again to resume)", err=True)
            raise click.exceptions.Exit(EX_TEMPFAIL) from None
        except StorageError as exc:
            raise click.ClickException(str(exc)) from None
        except ExecutorError as exc:
            raise click.ClickException(f"{exc} ({kept}; run again to resume)") from None
    if isinstance(final, LadderProgress):
        stopped = safe_text(str(final.stopped))
        click.echo(f"{safe_text(name)}: stopped after {final.matches} matches: {stopped}")
    print_standings(engine, name)


def display_line(display: RunDisplay) -> Callable[[str], None]:
    """Where a run's outage lines go: above the bar, else on standard error."""

    def say(line: str) -> None:
        if display.bar is not None:
            display.bar.console.print(safe_text(line), markup=False, highlight=False)
        else:
            click.echo(safe_text(line), err=True)

    return say


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


@tournament_group.command("status")
@click.argument("name", required=False)
@db_options
def status_command(name: str | None, db: str | None, data: Path | None) -> None:
    """Show how far tournament NAME (default: the newest) has got, and whether its runner
    is alive: "running" only while a runner holds it."""
    engine = open_engine(db, data)
    try:
        tournament = storage.get_tournament(engine, name or latest_name(engine))
        status = run_status(engine, tournament)
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
        f"{safe_text(tournament.name)}: {status}, {done}/{tournament.games_total} "
        f"games, {safe_text(tournament.ruleset)}, {tournament.boards} board(s), {deals}, "
        f"rating per {tournament.rating_mode}, {tournament.arena_faults} arena fault(s) "
        f"(replayed, not rated); bots: {safe_text(entrants)}"
    )
    hint = resume_hint(tournament.name, status)
    if hint is not None:
        click.echo(hint)
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
