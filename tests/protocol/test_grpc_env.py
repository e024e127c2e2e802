"""Our gRPC settings (:mod:`arena.protocol.grpc_env`): what they are, that they are in
place before gRPC reads them (in the referee's processes and in an SDK bot's), and that the
installed gRPC still knows them.

Their effect on CPU is measured by ``benchmarks/referee.py --cpu``, never asserted here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from arena.protocol.grpc_env import (
    CLIENT_EXPERIMENT,
    LISTENER_EXPERIMENT,
    configure_grpc,
    grpc_settings,
)

OFF = f"-{LISTENER_EXPERIMENT},-{CLIENT_EXPERIMENT}"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (None, OFF),
        ("", OFF),
        # Another experiment of the user's is kept, ours added.
        ("-tcp_rcv_lowat", f"-tcp_rcv_lowat,{OFF}"),
        # The user's own word on one of ours wins, whichever way; the other is added.
        (LISTENER_EXPERIMENT, f"{LISTENER_EXPERIMENT},-{CLIENT_EXPERIMENT}"),
        (
            f"tcp_rcv_lowat, -{LISTENER_EXPERIMENT}",
            f"tcp_rcv_lowat, -{LISTENER_EXPERIMENT},-{CLIENT_EXPERIMENT}",
        ),
        (
            f"{CLIENT_EXPERIMENT},-{LISTENER_EXPERIMENT}",
            f"{CLIENT_EXPERIMENT},-{LISTENER_EXPERIMENT}",
        ),
    ],
)
def test_our_experiments_are_turned_off_unless_the_user_named_them(
    before: str | None, after: str
) -> None:
    environ = {} if before is None else {"GRPC_EXPERIMENTS": before}
    configure_grpc(environ)
    assert environ["GRPC_EXPERIMENTS"] == after


def test_the_users_fork_and_log_settings_are_kept() -> None:
    environ = {"GRPC_ENABLE_FORK_SUPPORT": "1", "GRPC_VERBOSITY": "DEBUG"}
    configure_grpc(environ)
    assert environ["GRPC_ENABLE_FORK_SUPPORT"] == "1"
    assert environ["GRPC_VERBOSITY"] == "DEBUG"
    defaults: dict[str, str] = {}
    configure_grpc(defaults)
    assert (defaults["GRPC_ENABLE_FORK_SUPPORT"], defaults["GRPC_VERBOSITY"]) == ("0", "ERROR")


# Records GRPC_EXPERIMENTS as it is when grpc is first imported (gRPC reads it then).
SEEN_AT_GRPC_IMPORT = """
import importlib.abc, os, sys
seen = []
class Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "grpc" and not seen:
            seen.append(os.environ.get("GRPC_EXPERIMENTS", "<unset>"))
        return None
sys.meta_path.insert(0, Watch())
"""


def run_python(code: str, experiments: str | None = None) -> subprocess.CompletedProcess[str]:
    """*code* run by a fresh interpreter with the user's *experiments* in GRPC_EXPERIMENTS
    (``None``: unset); it must succeed."""
    env = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    if experiments is not None:
        env["GRPC_EXPERIMENTS"] = experiments
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done


def experiments_at_grpc_import(imports: str) -> str:
    """GRPC_EXPERIMENTS when a fresh interpreter running *imports* first imported grpc."""
    code = SEEN_AT_GRPC_IMPORT + textwrap.dedent(imports) + "\nprint(seen[0])\n"
    return run_python(code).stdout.strip()


@pytest.mark.parametrize(
    "module",
    ["arena.cli.match", "arena.tournament.worker", "arena.tournament.ray_slot", "arena.sdk"],
)
def test_the_experiments_are_set_before_grpc_is_loaded(module: str) -> None:
    """Every entry point: the CLI (a command that uses gRPC: `arena` imports a command's
    module only when it runs, after arena.cli itself), a tournament's worker process, a Ray
    slot's actor and an SDK bot."""
    assert experiments_at_grpc_import(f"import {module}") == OFF


@pytest.mark.parametrize("module", ["arena.cli", "arena.sdk"])
def test_control_grpc_loaded_first_misses_the_setting(module: str) -> None:
    """Control: the check sees it when gRPC is loaded before the entry point."""
    assert experiments_at_grpc_import(f"import grpc\nimport {module}") == "<unset>"


def test_importing_the_referee_configures_nothing() -> None:
    """The referee is a library: importing it sets no process setting (its callers' entry
    points do); the control above shows the check would see one."""
    assert experiments_at_grpc_import("import arena.referee.match") == "<unset>"


SERVE = """
import asyncio, os, sys, tempfile
from arena.protocol.grpc_env import configure_grpc
configure_grpc(os.environ)
import grpc

async def serve():
    server = grpc.aio.server()
    server.add_insecure_port(f"unix:{tempfile.mkdtemp()}/check.sock")
    await server.start()
    await server.stop(0)

asyncio.run(serve())
"""


def grpc_log(experiments: str | None) -> str:
    """What gRPC writes to stderr while a server configured as the entry points do serves,
    with the user's *experiments* (``None``: unset)."""
    return run_python(SERVE, experiments).stderr


def test_the_installed_grpc_knows_our_experiments() -> None:
    """Fails once gRPC drops one of them: then its setting goes (grpc_env)."""
    assert "Unknown experiment" not in grpc_log(None)


def test_control_an_unknown_experiment_is_reported() -> None:
    assert "Unknown experiment: no_such_experiment" in grpc_log("-no_such_experiment")


def test_a_ray_actor_gets_the_settings_merged_with_the_users_and_nothing_else() -> None:
    environ = {"GRPC_VERBOSITY": "DEBUG", "GRPC_EXPERIMENTS": "-tcp_rcv_lowat", "HOME": "/root"}
    assert grpc_settings(environ) == {
        "GRPC_ENABLE_FORK_SUPPORT": "0",
        "GRPC_VERBOSITY": "DEBUG",
        "GRPC_EXPERIMENTS": f"-tcp_rcv_lowat,{OFF}",
    }
    assert environ["GRPC_EXPERIMENTS"] == "-tcp_rcv_lowat", "the caller's mapping is unchanged"
