"""The bot sandbox: layers of protection around every bot process.

A bot is untrusted code. Each layer is probed once per referee process
(:mod:`arena.sandbox.probe`), a match's :class:`SandboxConfig` says how hard to insist
(``strict``, ``best-effort``, ``off``), and :mod:`arena.sandbox.launch` turns a bot's run
command into a chain of small exec wrappers, one per layer. ``arena doctor`` shows which
layers work on this machine; docs/security.md says what each one stops.

Modules: ``config`` (plain settings), ``probe`` (what works here), ``launch`` (one bot
process) with ``launch_layers`` (its layers' pieces) and ``workdirs`` (its private
directories), ``chain`` (the exec-chain steps bots and builds share), ``bwrap``,
``landlock``, ``seccomp``, ``cgroups``, ``uids``, ``quota`` (one layer each), ``confine``
(the exec wrapper that applies Landlock and seccomp in the bot's process),
``report`` (what ``arena doctor`` says). A bot's build step has its own subpackage,
:mod:`arena.sandbox.build`: nothing on the play path imports it.

This package's ``__init__`` stays light: the exec wrapper imports it in a fresh
interpreter on every bot start.
"""

from arena.sandbox.config import (
    Layer,
    Limits,
    SandboxConfig,
    SandboxError,
    SandboxMode,
    parse_mode,
)

__all__ = ["Layer", "Limits", "SandboxConfig", "SandboxError", "SandboxMode", "parse_mode"]
