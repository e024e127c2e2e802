"""How a process of ours sets up gRPC: read by gRPC once, when it is first imported.

gRPC takes these settings from the environment when its core starts, so the referee
(``arena/referee/__init__.py``) and the SDK (``arena/sdk/__init__.py``) put them in place
before any of their modules imports ``grpc`` (``tests/protocol/test_grpc_env.py`` checks
the order for the CLI, a tournament's worker, the referee and a bot). A value the user set
already is kept, so an operator or a bot author can still turn any of them back.

- **Fork support off.** The referee forks bot processes while gRPC's threads run; gRPC's
  fork handlers are for processes that use gRPC on both sides of a fork, which ours
  never do, and they log noise.
- **Errors only** in gRPC's own log.
- **The iomgr transport on both ends** (:data:`EXPERIMENTS_OFF`). With gRPC's default
  EventEngine listener (server side) and EventEngine client (a bot's channel), every
  connection is read by a pool of EventEngine threads, which hand each completion to the
  aio poller thread, which wakes the event loop: two thread hops per message. With iomgr
  the poller thread reads the socket itself. The wire is the same HTTP/2. Measured on a
  match of three bench bots: the referee's process used about 30% less CPU per decision
  and half the context switches; the bots about 27% less (docs/performance.md, "The
  referee's CPU per decision"). These are gRPC experiments: the test above fails once the
  installed gRPC no longer knows one, and then its setting goes.

The bots' environment itself stays as docs/protocol.md documents it: a bot in another
language is untouched, and a Python bot gets this only by importing the SDK.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Final

LISTENER_EXPERIMENT: Final = "event_engine_listener"
"""The experiment (on by default) that serves accepted connections on EventEngine threads."""
CLIENT_EXPERIMENT: Final = "event_engine_client"
"""The experiment (on by default) that runs a client's connections on EventEngine threads."""
EXPERIMENTS_OFF: Final = (LISTENER_EXPERIMENT, CLIENT_EXPERIMENT)
VARIABLES: Final = ("GRPC_ENABLE_FORK_SUPPORT", "GRPC_VERBOSITY", "GRPC_EXPERIMENTS")
"""The environment variables :func:`configure_grpc` sets."""


def configure_grpc(environ: MutableMapping[str, str]) -> None:
    """Put our gRPC settings into *environ*, keeping what the user set."""
    environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "0")
    environ.setdefault("GRPC_VERBOSITY", "ERROR")
    experiments = environ.get("GRPC_EXPERIMENTS", "").strip()
    named = {part.strip().lstrip("-") for part in experiments.split(",")}
    added = [f"-{name}" for name in EXPERIMENTS_OFF if name not in named]
    if added:
        environ["GRPC_EXPERIMENTS"] = ",".join(part for part in (experiments, *added) if part)


def grpc_settings(environ: Mapping[str, str]) -> dict[str, str]:
    """Our settings merged with the user's in *environ*, for a process that starts
    elsewhere and imports gRPC before any module of ours can set them: a Ray actor gets
    them as its runtime environment (:mod:`arena.tournament.ray_executor`)."""
    merged = {name: environ[name] for name in VARIABLES if name in environ}
    configure_grpc(merged)
    return merged
