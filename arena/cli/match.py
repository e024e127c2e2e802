"""``arena match``: a match between three bots, refereed over gRPC."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from arena.cli.build_options import build_network_option, echo_build_tail, resolve_build_network
from arena.cli.common import (
    SEED,
    ListenAddress,
    progress_bar,
    resolve_ruleset,
    resolve_time_control,
)
from arena.cli.terminal import Hanging, safe_markup, safe_text
from arena.game.dealing import SECRET_BYTES
from arena.game.rules import PRESETS
from arena.recordfiles import write_record
from arena.referee.errors import ArenaFault
from arena.referee.manifest import BotManifest, ManifestError, load_manifest
from arena.referee.match import (
    MatchConfig,
    MatchResult,
    PolicySeat,
    RemoteSeat,
    SeatSpec,
    play_match,
)
from arena.referee.process import DEFAULT_LOG_CAP
from arena.sandbox.build.bot import BuildError, build, needs_build
from arena.sandbox.config import SandboxConfig, SandboxError, SandboxMode
from arena.sandbox.probe import plan
from arena.simulate import BUILTIN_POLICIES as POLICIES


def parse_seat(text: str, seed: int, seat: int) -> SeatSpec:
    """A seat from the command line: a bot directory, ``builtin:POLICY`` or ``remote[:NAME]``.

    :raises click.BadParameter: for an unusable seat.
    """
    if text.startswith("builtin:"):
        name = text.removeprefix("builtin:")
        factory = POLICIES.get(name)
        if factory is None:
            raise click.BadParameter(
                f"unknown built-in policy {name!r}; choose from: {', '.join(sorted(POLICIES))}",
                param_hint="BOTS",
            )
        return PolicySeat(factory(seed * 3 + seat))
    if text == "remote" or text.startswith("remote:"):
        return RemoteSeat(text.partition(":")[2] or "remote")
    try:
        return load_manifest(text)
    except ManifestError as exc:
        raise click.BadParameter(str(exc), param_hint="BOTS") from None


def ensure_built(
    seats: list[SeatSpec],
    rebuild: bool,
    sandbox: SandboxConfig | None = None,
    *,
    network: bool = False,
) -> None:
    """Run the build step of every bot that needs one (once per manifest), in the build
    sandbox of the match's mode, with the *network* or without (``--build-network``).

    :raises click.ClickException: for a failed build, after its last meaningful lines.
    """
    done: set[Path] = set()
    for spec in seats:
        if not isinstance(spec, BotManifest) or spec.directory in done:
            continue
        done.add(spec.directory)
        if spec.build is not None and (rebuild or needs_build(spec)):
            command = " ".join(spec.build)  # the manifest refuses only NUL in it
            click.echo(f"building {safe_text(spec.label)}: {safe_text(command)}", err=True)
            try:
                build(spec, sandbox=sandbox, network=network)
            except BuildError as exc:
                echo_build_tail(exc.tail)
                raise click.ClickException(str(exc)) from None


@click.command("match")
@click.argument("bots", nargs=3)
@click.option(
    "--ruleset", default="classic", show_default=True, help=f"One of: {', '.join(PRESETS)}."
)
@click.option("--games", type=click.IntRange(min=1), default=3, show_default=True)
@click.option("--seed", type=SEED, default=None,
              help="Game i uses seed S+i: reproducible, predictable deals (research only); "
              "default: a fresh secret per match.")  # fmt: skip
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Directory for the game records (<seed>.json).",
)
@click.option(
    "--time-control",
    default="decision=1000,bank=10000,grace=50,startup=10000",
    show_default=True,
    help="Milliseconds: per decision, bank per game, transport grace, startup limit.",
)
@click.option(
    "--listen",
    type=ListenAddress(),
    default=None,
    help="Serve bots over TCP at HOST:PORT instead of a private unix socket, so remote bots can join.",
)
@click.option("--log-cap", type=click.IntRange(min=0), default=DEFAULT_LOG_CAP, show_default=True,
              help="Bytes of stdout+stderr kept per bot per match.")  # fmt: skip
@click.option("--rebuild", is_flag=True, help="Run every bot's build step even if it ran before.")
@build_network_option
@click.option("--sandbox", type=click.Choice([m.value for m in SandboxMode]), default="best-effort",
              show_default=True, help="Bot sandbox: strict refuses to run without every layer "
              "(see arena doctor); off is for debugging your own bot only.")  # fmt: skip
def match_command(
    bots: tuple[str, str, str],
    ruleset: str,
    games: int,
    seed: int | None,
    out: Path | None,
    time_control: str,
    listen: str | None,
    log_cap: int,
    rebuild: bool,
    build_network: bool | None,
    sandbox: str,
) -> None:
    """Play GAMES games between three BOTS (bot directories, builtin:random|greedy|pimc, or
    remote[:NAME] with --listen) through the referee, and print a table of results."""
    rules = resolve_ruleset(ruleset)
    control = resolve_time_control(time_control)
    seats = [parse_seat(text, seed or 0, i) for i, text in enumerate(bots)]
    if listen is None and any(isinstance(s, RemoteSeat) for s in seats):
        raise click.BadParameter("a remote seat needs --listen HOST:PORT", param_hint="BOTS")
    sandbox_config = SandboxConfig(SandboxMode(sandbox))
    network = resolve_build_network(build_network)
    layers = None
    if any(isinstance(s, BotManifest) for s in seats):
        try:
            layers = plan(sandbox_config)  # strict: refuse now, before building anything
        except SandboxError as exc:
            raise click.ClickException(f"{exc} (see: arena doctor)") from None
    ensure_built(seats, rebuild, sandbox_config, network=network)
    if layers is not None:
        click.echo(layers.describe(), err=True)
    if seed is not None:
        click.echo(f"deals are predictable: game i uses seed {seed}+i (--seed)", err=True)
    config = MatchConfig(
        rules,
        games,
        seed or 0,
        control,
        log_cap=log_cap,
        listen=listen,
        sandbox=sandbox_config,
        secret=None if seed is not None else secrets.token_bytes(SECRET_BYTES),
    )
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    progress = progress_bar("match")
    with progress:
        task = progress.add_task(ruleset, total=games, rate="")

        finished: list[dict[str, Any]] = []

        def on_game(record: dict[str, Any]) -> None:
            # Written as each game ends (atomically), so a crash later keeps every game.
            if out is not None:
                try:
                    write_record(out, record, durable=True)
                except OSError as exc:
                    raise click.ClickException(
                        f"cannot write the record of game {len(finished) + 1} in {out}: "
                        f"{exc.strerror or exc}"
                    ) from None
            finished.append(record)
            faults = len(record["faults"])
            progress.update(task, advance=1, rate=f"{faults} fault(s) last game" if faults else "")

        try:
            result = asyncio.run(play_match(seats, config, on_game))
        except ArenaFault as exc:
            kept = f"; their records are in {out}" if out is not None and finished else ""
            raise click.ClickException(
                f"arena fault in game {len(finished) + 1}, charged to no bot: {exc}; "
                f"the match stopped after {len(finished)} finished game(s){kept}"
            ) from None
    print_results(result, out)


def print_results(result: MatchResult, out: Path | None) -> None:
    """The closing table: score, wins, faults and decision times per seat."""
    table = Table(title=f"Match: {len(result.records)} game(s)")
    for column in ("seat", "bot", "score", "wins", "draws", "faults", "mean ms", "p99 ms"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for seat, stats in enumerate(result.stats):
        timed = bool(stats.decision_ms)
        table.add_row(
            str(seat),
            safe_markup(stats.label),
            str(stats.score),
            str(stats.wins),
            str(stats.draws),
            str(stats.faults),
            f"{stats.mean_ms:.2f}" if timed else "-",
            f"{stats.p99_ms:.2f}" if timed else "-",
        )
    console = Console()
    if not console.is_terminal:
        console.width = 120  # a log or a pipe: room for name@version, never an ellipsis
    console.print(table)
    for record in result.records:
        for fault in record["faults"]:
            console.print(
                Hanging(
                    f"game {record['seed']}: seat {fault['seat']} {fault['kind']} "
                    f"(hand {fault['hand']}, {fault['decision']}): {safe_markup(fault['detail'])}"
                )
            )
    for seat, stats in enumerate(result.stats):
        if stats.refused:
            console.print(f"seat {seat}: {stats.refused} extra stream(s) refused at its door")
    if out is not None:
        console.print(f"records: {safe_markup(str(out))}")
