"""The ``--executor`` and ``--ray-address`` options of ``arena tournament run``: where the
games are played (this machine's worker processes, or a Ray cluster, docs/scaling.md)."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any, TypeVar, cast

import click
from click.core import ParameterSource

from arena.tournament.executor import ExecutorError, LocalProcessExecutor, PoolExecutor
from arena.tournament.ray_executor import RayExecutor  # imports Ray only when it connects

F = TypeVar("F", bound=Callable[..., Any])


def executor_options(function: F) -> F:
    """Add ``--executor local|ray`` (or ``ARENA_EXECUTOR``) and ``--ray-address`` (or
    ``ARENA_RAY_ADDRESS``, then Ray's own ``RAY_ADDRESS``).

    A ``--ray-address`` typed on the command line with any executor but ray is a usage
    error, checked before the command runs: the user meant a cluster, and silently
    playing on this machine instead would hide that. The same address from the
    environment is not refused: a shell (or a Ray node, which sets ``RAY_ADDRESS``
    itself) exports it for every command, and ``--executor local`` there is a deliberate
    choice, so refusing it would make the local executor unusable on such a machine.
    """
    function = _refuse_a_stray_ray_address(function)
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


def _refuse_a_stray_ray_address(function: F) -> F:
    """*function* (a command's callback) behind the ``--ray-address`` check of
    :func:`executor_options`; click's options stay on it (``functools.wraps`` copies
    them)."""

    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        executor, address = kwargs.get("executor"), kwargs.get("ray_address")
        source = click.get_current_context().get_parameter_source("ray_address")
        if executor != "ray" and address is not None and source is ParameterSource.COMMANDLINE:
            raise click.BadParameter(
                f"--ray-address only applies with --executor ray (the executor here is "
                f"{executor}); drop it, or add --executor ray",
                param_hint="--ray-address",
            )
        return function(*args, **kwargs)

    return cast(F, checked)


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
