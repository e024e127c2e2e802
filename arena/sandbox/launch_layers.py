"""What the layers of one bot process need from the referee, outside the exec chain itself.

:mod:`arena.sandbox.launch` assembles the chain; these are the pieces it asks for: the
seccomp program as a descriptor bubblewrap loads, where the referee listens (which decides
whether the bot keeps any network at all), the rlimits, and the spec of the exec wrapper
(``confine.py``) that applies Landlock and seccomp where there is no bubblewrap. Each is
small, but apart from the chain they can be read, and checked, one at a time.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path

from arena.sandbox import chain, seccomp
from arena.sandbox.config import Layer, SandboxConfig
from arena.sandbox.probe import Capabilities, landlock_rules

_bpf_cache: dict[bool, bytes] = {}


def bpf(allow_inet: bool) -> bytes:
    """The seccomp filter as a BPF program (compiled once per referee process)."""
    if allow_inet not in _bpf_cache:
        compiled = seccomp.build(allow_inet=allow_inet)
        fd = os.memfd_create("arena-seccomp")
        try:
            compiled.export_bpf(fd)
            os.lseek(fd, 0, os.SEEK_SET)
            chunks = []
            while chunk := os.read(fd, 65536):
                chunks.append(chunk)
            _bpf_cache[allow_inet] = b"".join(chunks)
        finally:
            os.close(fd)
            compiled.close()
    return _bpf_cache[allow_inet]


def address(env: Mapping[str, str]) -> tuple[str | None, int | None]:
    """``(unix socket path, None)`` or ``(None, TCP port)`` of the referee's address."""
    value = env.get("ARENA_ADDRESS", "")
    if value.startswith("unix://"):
        return value.removeprefix("unix://"), None
    if value.startswith("unix:"):
        return value.removeprefix("unix:"), None
    with contextlib.suppress(ValueError):
        return None, int(value.rsplit(":", 1)[1])
    return None, None


def open_socket(path: str, *, through_bwrap: bool) -> None:
    """Let bot uids connect to the referee's socket: connecting needs write access to the
    socket; without bubblewrap (which mounts the socket itself) also search access to its
    directory. The token, not the path, is what admits a bot."""
    with contextlib.suppress(OSError):
        os.chmod(path, 0o666)
        if not through_bwrap:
            os.chmod(os.path.dirname(path), 0o711)


def rlimits(config: SandboxConfig, with_nproc: bool) -> chain.Rlimits:
    """A bot's rlimits: CPU seconds, memory, file size, open files; processes per uid
    only with a uid of its own (else the count would be the referee's)."""
    limits = config.limits
    return chain.rlimits(
        cpu=limits.cpu_seconds,
        data=limits.memory_bytes,
        fsize=limits.file_bytes,
        nofile=limits.open_files,
        nproc=limits.processes if with_nproc else None,
    )


def tcp_only(config: SandboxConfig, caps: Capabilities, tcp_port: int | None) -> dict[str, object]:
    """Inside bubblewrap with the host network shared for the referee's TCP port:
    Landlock (ABI 4+) limits TCP to connecting to that one port (empty where it cannot)."""
    if tcp_port is None or caps.landlock_abi < 4 or Layer.LANDLOCK in config.disable:
        return {}
    return {"landlock": {"rules": [], "write": [], "tcp": [tcp_port], "fs": False}}


def confine_spec(
    layers: frozenset[Layer], private: Path, bot_dir: Path, tcp_port: int | None
) -> dict[str, object]:
    """The exec wrapper's spec: Landlock and seccomp, where bubblewrap is not used."""
    confine: dict[str, object] = {}
    if Layer.LANDLOCK in layers:
        writable = [str(private / "home"), str(private / "tmp")] if Layer.WORKDIR in layers else []
        confine["landlock"] = landlock_rules(str(bot_dir), writable, tcp_port)
    if Layer.SECCOMP in layers:
        confine["seccomp"] = {"allow_inet": tcp_port is not None}
    return confine
