"""``arena bot compare``: is a new version of a bot really better than the old one?

Exit status: 0 better, 1 not better, 3 no decision within ``--max-boards``; 2 a usage
error; 4 the test could not be run (database, worker or bot files), so that a script never
mistakes a broken run for a verdict. A stopped test goes on with ``arena tournament run
NAME`` (its stored games count).
"""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path
from typing import Final, NoReturn

import click
from rich.console import Console
from sqlalchemy.engine import Engine

from arena.cli.common import SEED, resolve_ruleset, resolve_time_control
from arena.cli.storage_options import db_options, open_engine
from arena.cli.terminal import safe_text
from arena.cli.users import acting_user, user_option
from arena.game.rules import PRESETS
from arena.ratings.sprt import MIN_BOARDS, SprtSettings, SprtState, Verdict
from arena.storage.database import StorageError
from arena.storage.outage import DatabaseFull
from arena.tournament import setup
from arena.tournament.compare import (
    GAMES_PER_BOARD,
    MAX_BOARDS,
    VersionTestError,
    VersionTestResult,
    VersionTestSpec,
    create_version_test,
    load_spec,
    run_version_test,
)
from arena.tournament.executor import ExecutorError, LocalProcessExecutor
from arena.tournament.outage import (
    DEFAULT_RETRY_FOR,
    EX_TEMPFAIL,
    RETRY_FOR_ENV,
    DatabaseGone,
    OutageWait,
    policy_from_env,
)
from arena.tournament.polite_stop import Stopped, until_stopped
from arena.tournament.setup import DEFAULT_TIME_CONTROL

EXIT_CODES: Final = {Verdict.BETTER: 0, Verdict.NOT_BETTER: 1, Verdict.UNDECIDED: 3}
EXIT_FAILED: Final = 4


class CompareFailed(click.ClickException):
    """The test could not be run (exit status 4, never a verdict's)."""

    exit_code = EXIT_FAILED


def _margin(ctx: click.Context, param: click.Parameter, value: float) -> float:
    """``--margin``, checked as :class:`SprtSettings` will check it (positive and finite),
    in the same words, when the command line is parsed: ``nan`` and ``inf`` are floats to
    click, but no test can be run against them."""
    if not (math.isfinite(value) and value > 0):
        raise click.BadParameter(f"the margin must be a positive number of points, got {value}")
    return value


@click.command("compare")
@click.argument("candidate")
@click.argument("baseline")
@click.option("--opponents", required=True, metavar="X,Y",
              help="The two bots both versions meet on every board (names or name@version).")  # fmt: skip
@click.option("--ruleset", default="classic", show_default=True,
              help=f"One of: {', '.join(PRESETS)}.")  # fmt: skip
@click.option("--margin", type=float, callback=_margin, default=1.0, show_default=True,
              metavar="POINTS",
              help="H1: the candidate scores at least this many points per game more.")  # fmt: skip
@click.option("--max-boards", type=click.IntRange(min=1, max=MAX_BOARDS), default=200,
              show_default=True, help=f"Stop undecided after this many boards ({GAMES_PER_BOARD} games each).")  # fmt: skip
@click.option("--alpha", type=click.FloatRange(min=0.0, max=0.5, min_open=True, max_open=True),
              default=0.05, show_default=True, help="Chance of calling a no-better candidate better.")  # fmt: skip
@click.option("--beta", type=click.FloatRange(min=0.0, max=0.5, min_open=True, max_open=True),
              default=0.05, show_default=True,
              help="Chance of calling a candidate --margin better not better.")  # fmt: skip
@click.option("--min-boards", type=click.IntRange(min=2), default=MIN_BOARDS, show_default=True,
              help="No verdict before this many boards (fewer make the variance unreliable).")  # fmt: skip
@click.option("--time-control", default=DEFAULT_TIME_CONTROL, show_default=True)
@click.option("--parallel", type=click.IntRange(min=1), default=None,
              help="Games played at once [default: number of cores].")  # fmt: skip
@click.option("--name", default=None,
              help="Name of the stored test [default: 'compare CANDIDATE vs BASELINE'].")  # fmt: skip
@click.option("--seed", type=SEED, default=None,
              help="Reproducible, predictable deals from this seed (research runs only); "
              "default: a fresh secret no bot can search.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
@click.option("--db-retry-for", type=click.FloatRange(min=0), default=DEFAULT_RETRY_FOR,
              envvar=RETRY_FOR_ENV, show_default=True, metavar="SECONDS",
              help="How long to wait for a database that cannot be reached before stopping "
              f"with exit status 75 (run it again to resume) [env {RETRY_FOR_ENV}].")  # fmt: skip
@user_option
@db_options
def compare_command(
    candidate: str,
    baseline: str,
    opponents: str,
    ruleset: str,
    margin: float,
    max_boards: int,
    alpha: float,
    beta: float,
    min_boards: int,
    time_control: str,
    parallel: int | None,
    name: str | None,
    seed: int | None,
    as_json: bool,
    db_retry_for: float,
    user: str | None,
    db: str | None,
    data: Path | None,
) -> None:
    """Test whether CANDIDATE is better than BASELINE: on each board both meet the two
    --opponents under all 6 seatings on the same deals, and a sequential probability
    ratio test (fishtest's) on the per-board score difference stops at the first verdict.

    CANDIDATE and BASELINE are bot names (latest version) or NAME@VERSION. Every game is
    stored as a tournament of format version_test, so the dashboard replays it and draws
    the test's progress. Exit status: 0 better, 1 not better, 3 no decision within
    --max-boards, 4 the test could not be run, 75 the database stayed unreachable past
    --db-retry-for or its disk is full (run it again to resume). Like any tournament,
    organisers only.
    """
    resolve_ruleset(ruleset)
    resolve_time_control(time_control)
    if min_boards > max_boards:
        # The test may not decide before --min-boards and stops at --max-boards: every
        # game would be played for a verdict that can never come.
        raise click.BadParameter(
            f"--min-boards {min_boards} is more than --max-boards {max_boards}: "
            "the test could never reach a verdict",
            param_hint="--min-boards",
        )
    pair = [o.strip() for o in opponents.split(",") if o.strip()]
    if len(pair) != 2:
        raise click.BadParameter("give exactly two opponents, e.g. X,Y", param_hint="--opponents")
    engine = open_engine(db, data)
    try:
        setup.check_may_run(acting_user(engine, user))
        spec = create_version_test(
            engine,
            candidate=candidate,
            baseline=baseline,
            opponents=pair,
            sprt=SprtSettings(margin, alpha, beta, min_boards),
            max_boards=max_boards,
            ruleset=ruleset,
            time_control=time_control,
            name=name,
            seed=seed,
        )
    except VersionTestError as exc:
        raise click.BadParameter(str(exc), param_hint=exc.param) from None
    except (StorageError, OSError) as exc:
        raise CompareFailed(str(exc)) from None
    play(engine, spec, parallel, as_json, db_retry_for)


def resume(
    engine: Engine, tournament_id: int, parallel: int | None, retry_for: float | None = None
) -> NoReturn:
    """Go on with a stopped version test (``arena tournament run NAME`` calls this): its
    stored games count, the rest are played until the test decides.

    :raises CompareFailed: if its settings are not stored.
    """
    try:
        spec = load_spec(engine, tournament_id)
    except StorageError as exc:
        raise CompareFailed(str(exc)) from None
    if spec is None:
        raise CompareFailed("this version test's settings are not stored; start a new one")
    play(engine, spec, parallel, as_json=False, retry_for=retry_for)


def play(
    engine: Engine,
    spec: VersionTestSpec,
    parallel: int | None,
    as_json: bool,
    retry_for: float | None = None,
) -> NoReturn:
    """Run version test *spec* to its verdict, print it, and exit with its status; a
    database outage is waited out for *retry_for* seconds (default ``$ARENA_DB_RETRY_FOR``
    or 3 minutes), one line a wait, then exit 75."""
    errors = Console(stderr=True, highlight=False)
    errors.print(safe_text(describe(spec)), markup=False)  # bot labels are the authors' text

    def show(state: SprtState) -> None:
        errors.print(
            f"board {state.boards}: mean difference {state.mean:+.2f}, LLR {state.llr:+.2f} "
            f"(bounds {state.lower:+.2f}, {state.upper:+.2f})"
        )

    outage = OutageWait(
        policy_from_env(retry_for), say=lambda line: errors.print(safe_text(line), markup=False)
    )
    executor = LocalProcessExecutor(parallel)
    try:
        outcome = asyncio.run(
            until_stopped(run_version_test(engine, spec, executor, show, outage=outage))
        )
    except Stopped as stop:
        errors.print(f"version test stopped by {stop.name}: games played so far are kept")
        raise click.exceptions.Exit(stop.exit_status) from None
    except (DatabaseGone, DatabaseFull) as exc:
        errors.print(
            f"arena: {safe_text(str(exc))} (games played so far are kept; run again)",
            markup=False,
        )
        raise click.exceptions.Exit(EX_TEMPFAIL) from None
    except (StorageError, ExecutorError) as exc:
        raise CompareFailed(f"{exc} (games played so far are kept)") from None
    if as_json:
        # json.dumps escapes every control and non-ASCII character (ensure_ascii).
        click.echo(json.dumps(result_json(outcome), indent=1))
    else:
        for line in summary(outcome):
            click.echo(safe_text(line))
    raise click.exceptions.Exit(EXIT_CODES[outcome.verdict])


def describe(spec: VersionTestSpec) -> str:
    """One line naming the test and its settings."""
    return (
        f"version test {spec.tournament!r} (tournament id {spec.tournament_id}): "
        f"{spec.candidate} vs {spec.baseline}, each against {spec.opponents[0]} and "
        f"{spec.opponents[1]}; H1: at least {spec.margin:g} point(s) per game better; "
        f"alpha {spec.alpha:g}, beta {spec.beta:g}, {spec.min_boards} to {spec.max_boards} boards"
    )


_WORDS: Final = {
    Verdict.BETTER: "better",
    Verdict.NOT_BETTER: "not better",
    Verdict.UNDECIDED: "no decision",
}


def summary(outcome: VersionTestResult) -> list[str]:
    """The verdict, boards, mean difference with its interval, and the LLR with its bounds."""
    final, spec = outcome.final, outcome.spec
    extra = outcome.boards_stored - final.boards
    played = f"{final.boards} board(s), {final.boards * GAMES_PER_BOARD} games"
    if extra > 0:
        played += f" (and {extra} more board(s) played at once, not counted)"
    return [
        f"verdict: {_WORDS[final.verdict]} ({spec.candidate} vs {spec.baseline}, "
        f"margin {spec.margin:g} point(s) per game)",
        f"boards: {played}",
        f"mean difference: {_signed(final.mean)} points per game, 95% interval "
        f"[{_signed(final.ci_low)}, {_signed(final.ci_high)}]",
        f"LLR: {final.llr:+.3f} (bounds {final.lower:+.3f} not better, {final.upper:+.3f} better)",
    ]


def result_json(outcome: VersionTestResult) -> dict[str, object]:
    """The result as JSON-ready values (NaN, before two boards, becomes ``null``)."""
    final, spec = outcome.final, outcome.spec
    return {
        "verdict": final.verdict.value,
        "tournament": spec.tournament,
        "tournament_id": spec.tournament_id,
        "candidate": spec.candidate,
        "baseline": spec.baseline,
        "opponents": list(spec.opponents),
        "margin": spec.margin,
        "alpha": spec.alpha,
        "beta": spec.beta,
        "min_boards": spec.min_boards,
        "max_boards": spec.max_boards,
        "boards": final.boards,
        "games": final.boards * GAMES_PER_BOARD,
        "boards_stored": outcome.boards_stored,
        "mean_difference": _number(final.mean),
        "ci_low": _number(final.ci_low),
        "ci_high": _number(final.ci_high),
        "llr": final.llr,
        "lower_bound": final.lower,
        "upper_bound": final.upper,
        "llr_by_board": [state.llr for state in outcome.states],
    }


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value


def _signed(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:+.2f}"
