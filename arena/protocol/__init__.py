"""The bot wire protocol ``arena.v1``: conversions between engine values and messages.

The messages themselves are generated into :mod:`arena.v1` from
``protos/arena/v1/arena.proto`` (described for bot authors in ``docs/protocol.md``). This
package is the only place that maps them to and from the engine's types, for both the
referee and the Python SDK, so the two ends always agree. It does no I/O and imports no
grpc: transport lives with the referee and the SDK.

The conversions live in one module per message group; :mod:`arena.protocol.convert` lists
them and re-exports every public name, and so does this package, on first use: importing
:mod:`arena.protocol.grpc_env` (what every entry point does first, the ``arena`` command
included) must not load the generated messages and protobuf with them.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.protocol.convert import *  # noqa: F403 - the facade's names, listed once there
    from arena.protocol.convert import __all__ as __all__


def __getattr__(name: str) -> Any:
    """A name of :mod:`arena.protocol.convert` (or its ``__all__``), imported on first use.

    A submodule's name is not one: ``from arena.protocol import enums`` asks for it here
    before importing the submodule, and importing the facade then would import the
    module that asked, half-made, in a circle.
    """
    if name.startswith("__") and name != "__all__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if importlib.util.find_spec(f"{__name__}.{name}") is not None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    convert = importlib.import_module(f"{__name__}.convert")
    if name == "__all__":
        return convert.__all__
    if name not in convert.__all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(convert, name)
    globals()[name] = value  # found without this function from now on
    return value
