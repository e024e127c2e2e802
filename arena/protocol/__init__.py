"""The bot wire protocol ``arena.v1``: conversions between engine values and messages.

The messages themselves are generated into :mod:`arena.v1` from
``protos/arena/v1/arena.proto`` (described for bot authors in ``docs/protocol.md``). This
package is the only place that maps them to and from the engine's types, for both the
referee and the Python SDK, so the two ends always agree. It does no I/O and imports no
grpc: transport lives with the referee and the SDK.

The conversions live in one module per message group; :mod:`arena.protocol.convert` lists
them and re-exports every public name, and so does this package.
"""

from arena.protocol.convert import *  # noqa: F403 - the facade's names, listed once there
from arena.protocol.convert import __all__ as __all__
