"""``arena bot check``: the compliance kit for bot authors in any language."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table
from sqlalchemy.engine import Engine

from arena import storage
from arena.cli.bot_logs import logs_command
from arena.cli.build_options import build_network_option, echo_build_tail, resolve_build_network
from arena.cli.common import resolve_ruleset, resolve_time_control
from arena.cli.compare import compare_command
from arena.cli.ladder_notice import echo_ladder_notices
from arena.cli.match import ensure_built
from arena.cli.queue import test_command
from arena.cli.storage_options import data_dir, db_options, open_engine
from arena.cli.terminal import Hanging, safe_markup, safe_text
from arena.cli.users import acting_user, user_option
from arena.game.dealing import SECRET_BYTES, board_key
from arena.game.policies import RandomPolicy
from arena.game.rules import PRESETS
from arena.referee.errors import ArenaFault
from arena.referee.manifest import BotManifest, ManifestError, load_manifest
from arena.referee.match import MatchConfig, PolicySeat, SeatSpec, play_match
from arena.storage.bots import name_collisions
from arena.storage.database import StorageError
from arena.submission import (
    BuildFailed,
    ChecksumError,
    SubmitError,
    scan_bot,
    submit_bot,
    verify_checksum,
)
from arena.tournament.deals import SEED_MAX

_PLAIN = {
    "timeout": "did not answer in time",
    "crash": "crashed or closed its connection",
    "illegal": "made a move the rules do not allow",
    "protocol": "broke the protocol",
    "startup": "did not start and connect",
}


MAX_CHECK_GAMES = 1000
MAX_BUILD_TIMEOUT_S = 24 * 3600


def _checked_bot(path: str) -> BotManifest:
    """The bot at *path* if ``arena bot submit`` would accept its manifest and files (names,
    types, sizes; nothing is read but ``bot.toml``), or a usage error saying why not."""
    try:
        manifest = load_manifest(path)
        scan_bot(manifest.directory)
    except (ManifestError, SubmitError) as exc:
        raise click.BadParameter(str(exc), param_hint="PATH") from None
    return manifest


@click.group("bot")
def bot_group() -> None:
    """Work with bots: check one before submitting it."""


@bot_group.command("check")
@click.argument("path", type=click.Path(exists=False))
@click.option("--games", type=click.IntRange(min=1, max=MAX_CHECK_GAMES), default=3,
              show_default=True, help="Games to play; the bot sits in seat 0, 1, 2 in turn.")  # fmt: skip
@click.option(
    "--ruleset", default="classic", show_default=True, help=f"One of: {', '.join(PRESETS)}."
)
@click.option("--seed", type=click.IntRange(min=0, max=SEED_MAX), default=None,
              help="Game i uses seed S+i (predictable deals); default: a fresh secret.")  # fmt: skip
@click.option(
    "--time-control",
    default="decision=1000,bank=10000,grace=50,startup=10000",
    show_default=True,
)
@click.option("--rebuild", is_flag=True, help="Run the bot's build step even if it ran before.")
@build_network_option
def check_command(
    path: str,
    games: int,
    ruleset: str,
    seed: int | None,
    time_control: str,
    rebuild: bool,
    build_network: bool | None,
) -> None:
    """Play a few games of the bot at PATH against random bots through the real referee
    and report every fault in plain words. Exits 1 if there was any."""
    rules = resolve_ruleset(ruleset)
    control = resolve_time_control(time_control)
    network = resolve_build_network(build_network)
    manifest = _checked_bot(path)
    ensure_built([manifest], rebuild=rebuild, network=network)
    console = Console()
    console.print(
        f"checking {safe_markup(manifest.label)} ({safe_markup(manifest.language)}): "
        f"{games} game(s) of {ruleset}"
    )
    problems = 0
    secret = secrets.token_bytes(SECRET_BYTES)
    policy_seed = seed or 0
    for game in range(games):
        seat = game % 3
        seats: list[SeatSpec] = [
            PolicySeat(RandomPolicy(policy_seed + game * 3 + i)) for i in range(3)
        ]
        seats[seat] = manifest
        game_seed = seed + game if seed is not None else board_key(secret, game)
        config = MatchConfig(rules, 1, game_seed, control)
        try:
            result = asyncio.run(play_match(seats, config))
        except ArenaFault as exc:
            raise click.ClickException(
                f"arena fault in game {game + 1}, charged to no bot: {exc}"
            ) from None
        record = result.records[0]
        stats = result.stats[seat]
        faults = [f for f in record["faults"] if f["seat"] == seat]
        verdict = "[green]ok[/]" if not faults else f"[red]{len(faults)} fault(s)[/]"
        timing = f"{len(stats.decision_ms)} decisions, mean {stats.mean_ms:.1f} ms, p99 {stats.p99_ms:.1f} ms"
        console.print(f"game {game + 1} (seat {seat}): {verdict}; {timing}")
        for fault in faults:
            problems += 1
            console.print(
                Hanging(
                    f"  hand {fault['hand']}, {fault['decision']}: the bot "
                    f"{_PLAIN[fault['kind']]} ({fault['kind']}): {safe_markup(fault['detail'])}"
                )
            )
            if fault.get("stderr_tail"):
                tail = safe_markup(fault["stderr_tail"])
                console.print(Hanging(f"  its stderr ended with: {tail}"))
    if problems:
        console.print(f"[red]{problems} fault(s): fix them before submitting.[/]")
        raise click.exceptions.Exit(1)
    console.print("[green]no faults: the bot speaks the protocol and plays legally.[/]")


@bot_group.command("submit")
@click.argument("path", type=click.Path(exists=False))
@click.option("--build-timeout", type=click.IntRange(min=1, max=MAX_BUILD_TIMEOUT_S), default=600,
              show_default=True, help="Seconds the build step may take.")  # fmt: skip
@build_network_option
@user_option
@db_options
def submit_command(
    path: str,
    build_timeout: int,
    build_network: bool | None,
    user: str | None,
    db: str | None,
    data: Path | None,
) -> None:
    """Validate, build and smoke-test the bot at PATH, then store it as a new version.

    A new bot name becomes the acting user's (--user; the host's organiser by default);
    only its owner or an organiser may add versions of it.
    """
    _checked_bot(path)
    network = resolve_build_network(build_network)
    engine = open_engine(db, data)
    submitter = acting_user(engine, user)
    try:
        version, created = submit_bot(
            engine,
            path,
            data or data_dir(),
            build_timeout_s=build_timeout,
            build_network=network,
            submitter=submitter,
            via="cli",
        )
    except SubmitError as exc:
        if isinstance(exc, BuildFailed):
            echo_build_tail(exc.tail)
        raise click.ClickException(str(exc)) from None
    if created:
        click.echo(
            f"stored {safe_text(version.label)} (version {version.seq}, {version.checksum[:12]})"
        )
        echo_ladder_notices(engine, version)  # the ladders it entered, or will, and retires in
    else:
        click.echo(
            f"unchanged: {safe_text(version.label)} is already stored ({version.checksum[:12]})"
        )


@bot_group.command("list")
@db_options
def list_command(db: str | None, data: Path | None) -> None:
    """Every submitted bot with its latest version."""
    engine = open_engine(db, data)
    table = Table(title="Bots")
    for column in ("bot", "owner", "latest", "versions", "language", "submitted"):
        table.add_column(column)
    for bot in storage.list_bots(engine):
        versions = storage.bot_versions(engine, bot.name)
        latest = versions[-1]
        table.add_row(
            safe_markup(bot.name), safe_markup(storage.bot_owner(engine, bot.name) or "?"),
            safe_markup(latest.label), str(len(versions)), safe_markup(latest.language),
            latest.submitted_at.strftime("%Y-%m-%d %H:%M"),
        )  # fmt: skip
    console = Console()
    console.print(table)
    _look_alikes(console, engine)


def _look_alikes(console: Console, engine: Engine) -> None:
    """Name pairs stored before names were compared in their canonical form: kept as they
    are (games name them), listed so that an organiser knows which to tell apart."""
    for collision in name_collisions(engine):
        console.print(
            f"[yellow]look-alike names kept from before:[/] {safe_markup(str(collision))}"
        )


@bot_group.command("show")
@click.argument("name")
@db_options
def show_command(name: str, db: str | None, data: Path | None) -> None:
    """A bot's versions and manifest."""
    engine = open_engine(db, data)
    try:
        versions = storage.bot_versions(engine, name)
        owner = storage.bot_owner(engine, name)
    except StorageError as exc:  # a name that looks like several bots stored before 0008
        raise click.ClickException(str(exc)) from None
    if not versions:
        raise click.ClickException(f"no bot named {name!r}")
    console = Console()
    console.print(f"owner: {safe_markup(owner or '?')}")
    submitters = {u.id: u.name for u in storage.list_user_rows(engine)}
    for version in versions:
        who = submitters.get(version.submitted_by, "?")
        console.print(
            f"[bold]{safe_markup(version.label)}[/] version {version.seq}, "
            f"{safe_markup(version.language)}, checksum {version.checksum[:19]}, "
            f"submitted {version.submitted_at:%Y-%m-%d %H:%M} by {safe_markup(who)} "
            f"via {safe_markup(version.submitted_via)}"
        )
        try:
            verify_checksum(Path(version.path), version.checksum)
            state = "[green]intact[/]"
        except ChecksumError as exc:
            state = f"[red]{safe_markup(str(exc))}[/]"
        console.print(f"  files: {safe_markup(version.path)} ({state})")
    console.print(f"manifest of the latest version: {safe_markup(versions[-1].manifest)}")


@bot_group.command("withdraw")
@click.argument("name")
@click.option("--ladder", "ladder", required=True, help="The ladder to leave.")
@click.option("--version", "version", default=None,
              help="The entered version (its version or label) [default: the bot's version "
              "that the ladder still plays].")  # fmt: skip
@user_option
@db_options
def withdraw_command(
    name: str, ladder: str, version: str | None, user: str | None, db: str | None,
    data: Path | None,
) -> None:  # fmt: skip
    """Withdraw bot NAME from a ladder (its owner or an organiser): the ladder schedules it
    no more; its games and ratings stay, and the standings show it as left."""
    engine = open_engine(db, data)
    by = acting_user(engine, user)
    try:
        tournament = storage.get_tournament(engine, ladder)
        tournament_id = storage.row_id(tournament)
        version_id, label = _entrant_to_withdraw(engine, tournament_id, name, version)
        storage.withdraw_entry(engine, tournament_id, version_id, by)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(
        f"withdrew {safe_text(label)} from ladder {safe_text(tournament.name)!r}: it "
        "is scheduled no more; its games and ratings stay"
    )


def _entrant_to_withdraw(
    engine: Engine, tournament_id: int, name: str, version: str | None
) -> tuple[int, str]:
    """The bot version id and label that ``bot withdraw`` means: bot *name*'s *version* (a
    version or a label) if given, else its entrant the ladder still plays (or, when none
    is left, its last entrant, which :func:`arena.storage.withdraw_entry` refuses saying
    why).

    :raises StorageError: for an unknown bot or version, or a bot that was never entered.
    """
    versions = storage.bot_versions(engine, name)
    if not versions:
        raise StorageError(f"no bot named {name!r}")
    if version is not None:
        named = [v for v in versions if version in (v.version, v.label)]
        if not named:
            raise StorageError(f"bot {name!r} has no version {version!r}")
        return storage.row_id(named[-1]), named[-1].label
    entered = [
        e for e in storage.ladder_entrants(engine, tournament_id) if e.bot_id == versions[0].bot_id
    ]
    chosen = [e for e in entered if e.active] or entered[-1:]
    if not chosen:
        raise StorageError(f"bot {name!r} is not entered in this ladder")
    return chosen[-1].bot_version_id, chosen[-1].label


bot_group.add_command(compare_command)
bot_group.add_command(test_command)
bot_group.add_command(logs_command)
