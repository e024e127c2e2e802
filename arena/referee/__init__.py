"""The referee: runs bots as separate processes, talks to them over gRPC, keeps the time,
turns every misbehaviour into a recorded fault, and plays games to the end whatever the
bots do.

Layers, each in its own module: ``manifest`` (what a bot is), ``timecontrol`` (limits),
``errors`` (the one exception family for bot misbehaviour), ``process`` (starting,
logging and stopping one bot process); the gRPC side in its own subpackage,
:mod:`arena.referee.wire` (``doors``, ``admission``, ``session``, ``descriptors``); the
games: ``config`` (seats, settings and totals), ``seat`` (one seat's bot across a match),
``faults`` (how a fault is worded), ``gameloop`` (one game), ``match`` (a match of games,
and :func:`play_match`). ``match`` and ``wire`` re-export the public names of the two
halves for callers outside.

Importing the referee configures nothing. gRPC reads its process settings
(:mod:`arena.protocol.grpc_env`) once, when it is first imported, so each entry point
sets them before it imports anything that imports grpc: the ``arena`` command
(:mod:`arena.cli`), a tournament's worker process (:mod:`arena.tournament.worker`), a Ray
slot's actor (:mod:`arena.tournament.ray_slot`), an SDK bot (:mod:`arena.sdk`), and the
test suite's ``tests/conftest.py``.
"""
