"""The bot's seccomp filter, compiled by libseccomp (Debian ``libseccomp2``) through ctypes.

The filter allows everything except what a card-playing bot never needs and an attacker
wants: sockets other than unix sockets (no TCP, UDP, raw or netlink), ptrace and reading
other processes' memory, mounting, new namespaces, io_uring (which would bypass the
socket rule), bpf, perf, keyrings, kernel modules, reboot, clock setting and the like.
A denied call fails with an errno (``EACCES`` for sockets, ``EPERM`` otherwise), so a
runtime that merely probes (gRPC checking for IPv6) goes on working.

libseccomp generates and checks the BPF (architecture checks included); this module only
lists rules. It is stdlib-only, because the exec wrapper (:mod:`arena.sandbox.confine`)
imports it in a fresh interpreter. The same filter is either exported as BPF for
``bwrap --seccomp FD`` or loaded by the wrapper right before it execs the bot.
"""

from __future__ import annotations

import ctypes
import errno
import os
import socket
from collections.abc import Iterable
from typing import Any

_LIBRARY = "libseccomp.so.2"
_ACT_ALLOW = 0x7FFF0000
_ACT_KILL_PROCESS = 0x80000000
_ATTR_ACT_BADARCH = 2
_CMP_NE, _CMP_EQ, _CMP_GT, _CMP_MASKED_EQ = 1, 4, 6, 7

DENIED = (
    # other processes: tracing, reading or writing their memory
    "ptrace", "process_vm_readv", "process_vm_writev",
    # the mount table
    "mount", "umount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree",
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    # new namespaces (clone with namespace flags is handled below)
    "unshare", "setns",
    # kernel attack surface a bot has no use for
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "keyctl", "add_key", "request_key", "open_by_handle_at",
    "name_to_handle_at", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "reboot", "swapon", "swapoff", "acct", "quotactl", "quotactl_fd",
    "syslog", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname",
    "setdomainname", "iopl", "ioperm", "lookup_dcookie", "vhangup", "uselib",
)  # fmt: skip

_CLONE_NAMESPACES = (
    0x00020000,  # CLONE_NEWNS
    0x02000000,  # CLONE_NEWCGROUP
    0x04000000,  # CLONE_NEWUTS
    0x08000000,  # CLONE_NEWIPC
    0x10000000,  # CLONE_NEWUSER
    0x20000000,  # CLONE_NEWPID
    0x40000000,  # CLONE_NEWNET
)


_SOCK_TYPE_MASK = 0xF  # the type argument also carries SOCK_NONBLOCK and SOCK_CLOEXEC
_NON_STREAM_TYPES = (2, 3, 4, 5, 6, 10)  # DGRAM, RAW, RDM, SEQPACKET, DCCP, PACKET


class SeccompUnavailable(OSError):
    """libseccomp cannot be loaded, or the kernel refuses the filter."""


class _ArgCmp(ctypes.Structure):
    _fields_ = (
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    )


def _errno_action(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


def _library() -> ctypes.CDLL:
    try:
        lib = ctypes.CDLL(_LIBRARY, use_errno=True)
    except OSError as exc:
        raise SeccompUnavailable(f"cannot load {_LIBRARY}: {exc}") from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = (ctypes.c_uint32,)
    lib.seccomp_release.argtypes = (ctypes.c_void_p,)
    lib.seccomp_attr_set.argtypes = (ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32)
    lib.seccomp_syscall_resolve_name.argtypes = (ctypes.c_char_p,)
    lib.seccomp_rule_add_array.argtypes = (
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    )
    lib.seccomp_load.argtypes = (ctypes.c_void_p,)
    lib.seccomp_export_bpf.argtypes = (ctypes.c_void_p, ctypes.c_int)
    return lib


class Filter:
    """A compiled filter (a libseccomp context); :meth:`load` or :meth:`export_bpf` it."""

    def __init__(self, lib: ctypes.CDLL, ctx: int) -> None:
        self._lib = lib
        self._ctx: Any = ctx

    def _rule(self, action: int, name: str, *cmps: tuple[int, int, int, int]) -> None:
        number = self._lib.seccomp_syscall_resolve_name(name.encode())
        if number < 0:
            return  # not a system call on this architecture (e.g. iopl on arm64)
        array = (_ArgCmp * max(1, len(cmps)))(*(_ArgCmp(*c) for c in cmps))
        rc = self._lib.seccomp_rule_add_array(self._ctx, action, number, len(cmps), array)
        if rc < 0:
            raise SeccompUnavailable(f"seccomp rule for {name}: {os.strerror(-rc)}")

    def load(self) -> None:
        """Install the filter on the calling thread (it sets no_new_privs first).

        :raises SeccompUnavailable: if the kernel refuses it.
        """
        rc = self._lib.seccomp_load(self._ctx)
        if rc < 0:
            raise SeccompUnavailable(f"seccomp_load: {os.strerror(-rc)}")

    def export_bpf(self, fd: int) -> None:
        """Write the filter as a BPF program to *fd* (for ``bwrap --seccomp FD``).

        :raises SeccompUnavailable: if libseccomp cannot export it.
        """
        rc = self._lib.seccomp_export_bpf(self._ctx, fd)
        if rc < 0:
            raise SeccompUnavailable(f"seccomp_export_bpf: {os.strerror(-rc)}")

    def close(self) -> None:
        """Free the libseccomp context."""
        if self._ctx:
            self._lib.seccomp_release(self._ctx)
            self._ctx = None


def _families_denied(allowed: Iterable[int]) -> list[tuple[int, int, int, int]]:
    """Comparisons on argument 0 that together match every family not in *allowed*
    (libseccomp allows one comparison per argument in a rule, so one rule each)."""
    allowed = sorted(set(allowed))
    cmps = [(0, _CMP_EQ, family, 0) for family in range(allowed[-1]) if family not in allowed]
    cmps.append((0, _CMP_GT, allowed[-1], 0))
    return cmps


def build(*, allow_inet: bool = False) -> Filter:
    """The bot filter; *allow_inet* keeps TCP/IP sockets (a referee reached over TCP).

    :raises SeccompUnavailable: if libseccomp is missing or rejects a rule.
    """
    lib = _library()
    ctx = lib.seccomp_init(_ACT_ALLOW)
    if not ctx:
        raise SeccompUnavailable("seccomp_init failed")
    result = Filter(lib, ctx)
    try:
        lib.seccomp_attr_set(ctx, _ATTR_ACT_BADARCH, _ACT_KILL_PROCESS)
        eperm = _errno_action(errno.EPERM)
        for name in DENIED:
            result._rule(eperm, name)
        for flag in _CLONE_NAMESPACES:
            result._rule(eperm, "clone", (0, _CMP_MASKED_EQ, flag, flag))
        # clone3 passes its flags in memory, out of a filter's reach: "not implemented"
        # makes the C library fall back to clone, whose flags are checked above.
        result._rule(_errno_action(errno.ENOSYS), "clone3")
        eacces = _errno_action(errno.EACCES)
        if allow_inet:
            # The referee is on TCP: TCP/IP stream sockets only (Landlock, where present,
            # then limits TCP to the referee's port); no UDP, raw or packet sockets.
            families = (socket.AF_UNIX, socket.AF_INET, socket.AF_INET6)
            for cmp in _families_denied(families):
                result._rule(eacces, "socket", cmp)
            for family in (socket.AF_INET, socket.AF_INET6):
                for kind in _NON_STREAM_TYPES:
                    by_type = (1, _CMP_MASKED_EQ, _SOCK_TYPE_MASK, kind)
                    result._rule(eacces, "socket", (0, _CMP_EQ, family, 0), by_type)
        else:
            result._rule(eacces, "socket", (0, _CMP_NE, socket.AF_UNIX, 0))
        result._rule(eacces, "socketpair", (0, _CMP_NE, socket.AF_UNIX, 0))
    except BaseException:
        result.close()
        raise
    return result


def available() -> str | None:
    """``None`` if a filter can be compiled here, else why not (one line)."""
    try:
        build().close()
    except SeccompUnavailable as exc:
        return str(exc)
    return None
