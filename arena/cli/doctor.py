"""``arena doctor``: which sandbox layers work on this machine, found by trying each, and
what bots, their builds and the referee get here; and how ``arena dashboard`` would be
exposed with this environment's settings."""

from __future__ import annotations

import click

from arena.cli.dashboard import DEFAULT_HOST, DEFAULT_PORT, exposure_lines, web_settings
from arena.referee.wire import describe_limits
from arena.sandbox.build import sandbox as build_sandbox
from arena.sandbox.build.sandbox import network_allowed
from arena.sandbox.config import Layer, SandboxConfig, SandboxError, SandboxMode
from arena.sandbox.probe import Plan, plan, probe
from arena.sandbox.report import Protection, channels, writes
from arena.tournament.ray_executor import describe_ray

EXIT_STRICT_REFUSES = 1


@click.command("doctor")
@click.option(
    "--sandbox",
    "mode",
    type=click.Choice([m.value for m in SandboxMode]),
    default=SandboxMode.BEST_EFFORT.value,
    show_default=True,
    help="The mode to check: with strict, exit 1 if a match would be refused here.",
)
@click.option(
    "--disable",
    multiple=True,
    type=click.Choice([layer.value for layer in Layer]),
    help="Leave a layer out, as a match configured so would (repeatable).",
)
def doctor_command(mode: str, disable: tuple[str, ...]) -> None:
    """Probe every sandbox layer (bubblewrap, Landlock, seccomp, uid switch, cgroups,
    rlimits) by actually using it, and say which protections bots get here: the layers,
    then each channel between bots and each place a bot can write, with the layer that
    closes or bounds it."""
    caps = probe()
    width = max(len(layer.value) for layer in Layer)
    click.echo("sandbox layers on this machine (each probed by trying it):")
    for layer, status in caps.layers.items():
        state = "available" if status.available else "MISSING  "
        click.echo(f"  {layer.value:<{width}}  {state}  {status.detail}")
    config = SandboxConfig(SandboxMode(mode), disable=frozenset(Layer(x) for x in disable))
    try:
        active = plan(config, caps)
    except SandboxError as exc:
        click.echo(f"bots here: refused: {exc}")
        raise click.exceptions.Exit(EXIT_STRICT_REFUSES) from None
    click.echo(f"bots here: {active.describe()}")
    try:
        network = network_allowed()
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    click.echo(build_sandbox.describe(config, network, caps))
    click.echo(describe_limits())
    click.echo(describe_ray())
    if active.layers:
        _protections(active, config)
    _dashboard()


def _dashboard() -> None:
    """The dashboard's exposure as ``arena dashboard`` would serve it by default."""
    exposure, limits = web_settings(DEFAULT_HOST, DEFAULT_PORT)
    click.echo(
        f"the dashboard (`arena dashboard` on {DEFAULT_HOST}:{DEFAULT_PORT}; "
        "`arena dashboard --check --host H --port P` for another address):"
    )
    click.echo("\n".join(exposure_lines(exposure, limits)))


def _protections(active: Plan, config: SandboxConfig) -> None:
    caps = probe()
    title = "channels between bots (docs/security.md, section 9):"
    _table(title, channels(active, caps), ("closed", "OPEN"))
    title = "where a bot can write (docs/security.md, section 5):"
    _table(title, writes(active, caps, config.limits), ("bounded", "UNBOUNDED"))


def _table(title: str, rows: list[Protection], states: tuple[str, str]) -> None:
    click.echo(title)
    width = max(len(row.name) for row in rows)
    state_width = max(map(len, states))
    for row in rows:
        state = states[0] if row.closed else states[1]
        click.echo(f"  {row.name:<{width}}  {state:<{state_width}}  {row.how}")
