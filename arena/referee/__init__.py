"""The referee: runs bots as separate processes, talks to them over gRPC, keeps the time,
turns every misbehaviour into a recorded fault, and plays games to the end whatever the
bots do.

Layers, each in its own module: ``manifest`` (what a bot is), ``timecontrol`` (limits),
``errors`` (the one exception family for bot misbehaviour), ``process`` (starting,
logging and stopping one bot process); the gRPC side (whose process settings are
:mod:`arena.protocol.grpc_env`): ``session`` (one admitted stream, where wire failures become
faults), ``admission`` (the service that admits a bot by its token), ``doors`` (the gRPC
servers and their connection caps), ``descriptors`` (the referee's descriptor limit); the
games: ``config`` (seats, settings and totals), ``seat`` (one seat's bot across a match),
``faults`` (how a fault is worded), ``gameloop`` (one game), ``match`` (a match of games,
and :func:`play_match`). ``match`` and ``server`` re-export the public names of the two
halves for callers outside.
"""

import os

from arena.protocol.grpc_env import configure_grpc

# Before any module of the referee imports grpc, which reads these once (grpc_env says why).
configure_grpc(os.environ)
