"""952 Arena: a tournament arena for bots playing the 9-5-2 card game.

The package is layered: :mod:`arena.game` holds the pure rules engine (no I/O);
everything that touches processes, the network, storage or the terminal lives
in sibling packages and only talks to the engine through its public API.
"""

__version__ = "0.1.0"
