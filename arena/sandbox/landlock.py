"""Landlock (Linux LSM, kernel 5.13+): an allow-list of paths, no TCP, no signals out.

Used where namespaces are not available (inside Docker, on hardened laptops), from the
exec wrapper right before it execs the bot. Best-effort by ABI version, as the kernel's
own ``samples/landlock/sandboxer.c``: what the running kernel does not know is not
handled (ABI 1: files; 2: reparenting; 3: truncate; 4: TCP bind/connect; 5: device
ioctl; 6: signals and abstract unix sockets scoped to the bot).

Written against the three system calls directly (stdlib ctypes) because the PyPI
binding (``landlock`` 1.0.0.dev5) covers only filesystem rights (ABI 1-3 style
``handled_access_fs``), not the TCP and scope rights this sandbox relies on.
Stdlib-only: the exec wrapper imports it in a fresh interpreter.
"""

from __future__ import annotations

import ctypes
import os
import stat
from collections.abc import Iterable

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REFER = 1 << 13
TRUNCATE = 1 << 14
IOCTL_DEV = 1 << 15
_FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
_NET_BIND_TCP, _NET_CONNECT_TCP = 1, 2
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1, 2

READ = READ_FILE | READ_DIR
READ_EXEC = READ | EXECUTE


class LandlockUnavailable(OSError):
    """The kernel has no Landlock, or refused the ruleset."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    )


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


class _NetPortAttr(ctypes.Structure):
    _fields_ = (("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64))


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _syscall(number: int, *args: object) -> int:
    result = int(_libc.syscall(ctypes.c_long(number), *args))
    if result < 0:
        code = ctypes.get_errno()
        raise LandlockUnavailable(code, os.strerror(code))
    return result


def abi_version() -> int:
    """The Landlock ABI of the running kernel; 0 when Landlock is missing or disabled."""
    try:
        return _syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION)
    except LandlockUnavailable:
        return 0


def _fs_rights(abi: int) -> int:
    rights = (1 << 13) - 1  # ABI 1: execute ... make_sym
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def restrict(
    rules: Iterable[tuple[str, int]],
    *,
    write: Iterable[str] = (),
    tcp_connect: Iterable[int] = (),
    filesystem: bool = True,
) -> int:
    """Confine the calling process (and everything it execs or forks) for good.

    *rules* are ``(path, rights)`` (rights from :data:`READ`, :data:`READ_EXEC`,
    :data:`READ_DIR`, ...); *write* paths get every right beneath them; missing paths are
    skipped. TCP is denied except connecting to *tcp_connect* ports (ABI 4+), and signals
    and abstract unix sockets cannot leave the sandbox (ABI 6+). Without *filesystem*, only
    TCP and the scopes are restricted (inside bubblewrap, which owns the filesystem view).
    Returns the ABI used.

    :raises LandlockUnavailable: without Landlock, or if the kernel refuses the ruleset.
    """
    abi = abi_version()
    if abi < 1:
        raise LandlockUnavailable("Landlock is not available in this kernel")
    if not filesystem and abi < 4:
        raise LandlockUnavailable(f"ABI {abi} cannot restrict TCP")
    handled_fs = _fs_rights(abi) if filesystem else 0
    attr = _RulesetAttr(handled_fs, 0, 0)
    size = 8
    if abi >= 4:
        attr.handled_access_net = _NET_BIND_TCP | _NET_CONNECT_TCP
        size = 16
    if abi >= 6:
        attr.scoped = _SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL
        size = 24
    ruleset = _syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    try:
        entries = [(path, rights & handled_fs) for path, rights in rules if handled_fs]
        entries += [(path, handled_fs) for path in write if handled_fs]
        for path, rights in entries:
            _add_path(ruleset, path, rights)
        if abi >= 4:
            for port in tcp_connect:
                net = _NetPortAttr(_NET_CONNECT_TCP, port)
                _syscall(_SYS_ADD_RULE, ruleset, _RULE_NET_PORT, ctypes.byref(net), 0)
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            code = ctypes.get_errno()
            raise LandlockUnavailable(code, f"no_new_privs: {os.strerror(code)}")
        _syscall(_SYS_RESTRICT_SELF, ruleset, 0)
    finally:
        os.close(ruleset)
    return abi


def _add_path(ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path this machine does not have
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            rights &= _FILE_RIGHTS
        if rights:
            beneath = _PathBeneathAttr(rights, fd)
            _syscall(_SYS_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(beneath), 0)
    finally:
        os.close(fd)
