"""The referee: runs bots as separate processes, talks to them over gRPC, keeps the time,
turns every misbehaviour into a recorded fault, and plays games to the end whatever the
bots do.

Layers, each in its own module: ``manifest`` (what a bot is), ``timecontrol`` (limits),
``errors`` (the one exception family for bot misbehaviour), ``process`` (starting,
logging and stopping one bot process); the gRPC side: ``session`` (one admitted stream,
where wire failures become faults), ``admission`` (the service that admits a bot by its
token), ``doors`` (the gRPC servers and their connection caps), ``descriptors`` (the
referee's descriptor limit); the games: ``config`` (seats, settings and totals),
``seat`` (one seat's bot across a match), ``faults`` (how a fault is worded),
``gameloop`` (one game), ``match`` (a match of games, and :func:`play_match`). ``match``
and ``server`` re-export the public names of the two halves for callers outside.
"""

import os

# The referee forks bot processes while gRPC threads run; gRPC's fork handlers are for
# processes that use gRPC on both sides of a fork, which ours never do, and they log noise.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "0")
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
