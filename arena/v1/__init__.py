"""Generated gRPC/protobuf code for the bot wire protocol ``arena.v1``.

The modules here are generated from ``protos/arena/v1/arena.proto`` by
``scripts/gen_protos.py`` and committed, so installing the arena needs no protoc; do not
edit them by hand (``tests/test_proto_fresh.py`` fails when they are stale). Code outside
this package converts to and from them only in :mod:`arena.protocol`.
"""
