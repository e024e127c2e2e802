"""``arena doctor``: which sandbox layers work on this machine, found by trying each."""

from __future__ import annotations

import click

from arena.sandbox.config import Layer, SandboxConfig, SandboxError, SandboxMode
from arena.sandbox.probe import plan, probe

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
    rlimits) by actually using it, and say which protections bots get here."""
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
