"""The referee: runs bots as separate processes, talks to them over gRPC, keeps the time,
turns every misbehaviour into a recorded fault, and plays games to the end whatever the
bots do.

Layers, each in its own module: ``manifest`` (what a bot is), ``timecontrol`` (limits),
``errors`` (the one exception family for bot misbehaviour), ``process`` (starting,
logging and stopping one bot process), ``server`` (the gRPC service and its sessions),
``match`` (playing games between three seats).
"""

import os

# The referee forks bot processes while gRPC threads run; gRPC's fork handlers are for
# processes that use gRPC on both sides of a fork, which ours never do, and they log noise.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "0")
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
