"""The ``--executor`` and ``--ray-address`` options of ``arena tournament run``: where the
games are played (this machine's worker processes, or a Ray cluster, docs/scaling.md)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import click

from arena.tournament.executor import ExecutorError, LocalProcessExecutor, PoolExecutor
from arena.tournament.ray_executor import RayExecutor  # imports Ray only when it connects

F = TypeVar("F", bound=Callable[..., Any])


def executor_options(function: F) -> F:
    """Add ``--executor local|ray`` (or ``ARENA_EXECUTOR``) and ``--ray-address`` (or
    ``ARENA_RAY_ADDRESS``, then Ray's own ``RAY_ADDRESS``)."""
    function = click.option(
        "--ray-address",
        default=None,
        envvar=["ARENA_RAY_ADDRESS", "RAY_ADDRESS"],
        help="With --executor ray: the head's HOST:PORT (its GCS port, 6379 by default), or "
        "'local' for a private Ray on this machine [env ARENA_RAY_ADDRESS, RAY_ADDRESS].",
    )(function)
    return click.option(
        "--executor",
        type=click.Choice(["local", "ray"]),
        default="local",
        show_default=True,
        envvar="ARENA_EXECUTOR",
        help="Where games are played: worker processes on this machine, or the nodes of a "
        "Ray cluster (pip install 'arena952[ray]'; docs/scaling.md) [env ARENA_EXECUTOR].",
    )(function)


@contextlib.contextmanager
def open_executor(
    kind: str, ray_address: str | None, parallel: int | None, **options: Any
) -> Iterator[PoolExecutor]:
    """The executor *kind* with *parallel* slots, connected (a Ray cluster is joined here,
    so a missing Ray or an unreachable head is a one-line error before anything runs), and
    closed afterwards. *options* go to the executor (``reuse``).

    :raises click.ClickException: if the Ray cluster cannot be used.
    :raises click.BadParameter: for ``--executor ray`` without an address.
    """
    if kind == "local":
        yield LocalProcessExecutor(parallel, **options)
        return
    if not ray_address:
        raise click.BadParameter(
            "--executor ray needs the head's address: --ray-address HOST:PORT (or "
            "ARENA_RAY_ADDRESS), or 'local' for a private Ray on this machine",
            param_hint="--ray-address",
        )
    executor = RayExecutor(ray_address, parallel, **options)
    try:
        try:
            executor.connect()
        except ExecutorError as exc:
            raise click.ClickException(str(exc)) from None
        yield executor
    finally:
        executor.close()
