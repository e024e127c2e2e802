"""The bot's seccomp filter, compiled by libseccomp (Debian ``libseccomp2``) through ctypes.

The filter allows everything except what a card-playing bot never needs and an attacker
wants: sockets other than unix sockets (no TCP, UDP, raw or netlink), ptrace and reading
other processes' memory, mounting, new namespaces, io_uring (which would bypass the
socket rule), bpf, perf, keyrings, kernel modules, reboot, clock setting and the like.
A denied call fails with an errno (``EACCES`` for sockets, ``EPERM`` otherwise), so a
runtime that merely probes (gRPC checking for IPv6) goes on working.

It also closes the channels through kernel objects that two sandboxes share although
neither can write them (docs/security.md, "Channels between bots"): every kind of file
lock and lease (a lock on a read-only file of the shared runtime is visible to every
process), inotify/fanotify/dnotify watches (they see another process open a shared file),
System V IPC and POSIX message queues (shared where there is no IPC namespace), waking
another process's futex on a page of a shared file, changing the mode, owner, times or
extended attributes of a file (Landlock does not cover these, and a bot running as the
owner of the runtime's files could use them), asking whether a shared file's pages are
cached (``cachestat``, ``mincore``, RWF_NOWAIT reads), and setting what any process can
read of another by pid (scheduling attributes; limits, process group and session are
readable for the bot itself only), as there is no pid namespace without bubblewrap. Each
fails with the errno a kernel without the feature gives, so runtimes degrade as they
would there.

Where a rule compares an ``int`` argument it masks the upper 32 bits: the kernel
truncates them, so an unmasked equality could be dodged by setting them.

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


LOCK_COMMANDS = (5, 6, 7, 36, 37, 38)
"""fcntl commands of record locks: F_GETLK, F_SETLK, F_SETLKW and the open-file-description
ones, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW (a probe reveals another process's lock)."""
LEASE_NOTIFY_COMMANDS = (1024, 1025, 1026)
"""F_SETLEASE, F_GETLEASE, F_NOTIFY (dnotify)."""
NO_LOCKS = ("flock",)
NO_NOTIFY = (
    "inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark",
)  # fmt: skip
NO_IPC = (
    "shmget", "shmat", "shmdt", "shmctl", "semget", "semop", "semtimedop", "semctl",
    "msgget", "msgsnd", "msgrcv", "msgctl", "ipc", "mq_open", "mq_unlink", "mq_timedsend",
    "mq_timedreceive", "mq_notify", "mq_getsetattr",
    # futex2: futex_wake/futex_requeue take the private flag in a struct or an argument the
    # C libraries do not use yet; all of it is out of reach (futex() below is filtered)
    "futex_wake", "futex_wait", "futex_requeue", "futex_waitv",
)  # fmt: skip
NO_FILE_ATTRIBUTES = (
    "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat",
    "utime", "utimes", "futimesat", "utimensat", "setxattr", "lsetxattr", "fsetxattr",
    "setxattrat", "removexattr", "lremovexattr", "fremovexattr", "removexattrat",
)  # fmt: skip
FUTEX_SHARED_WAKES = (1, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13)
"""futex commands that wake, requeue or lock (FUTEX_WAKE, REQUEUE, CMP_REQUEUE, WAKE_OP,
the PI family, WAKE_BITSET): denied without FUTEX_PRIVATE_FLAG, so a bot cannot wake a
process waiting on a page of a shared file. Shared *waits* stay allowed: the C library's
``pthread_join`` waits on the thread id with one, and only the kernel wakes it."""
_FUTEX_PRIVATE, _FUTEX_COMMAND = 128, 0x7F  # the flag, and the bits of the command
NO_SCHEDULING = (
    "sched_setscheduler", "sched_setparam", "sched_setattr", "sched_setaffinity",
    "setpriority", "ioprio_set",
)  # fmt: skip
"""Setting a scheduling attribute (priority, policy, affinity, I/O priority), even of the
bot itself: any process can read those of any pid without a permission check (and
runtimes do, of their own threads: gRPC's abseil calls ``pthread_getschedparam``), so with
no pid namespace a value set is a value another bot reads. Denied as to a process without
CAP_SYS_NICE."""
NO_CACHE_PROBES = ("cachestat", "mincore")
"""Asking whether pages of a file are in the page cache: another bot's read of a shared
file would show. (``preadv2`` with RWF_NOWAIT, the third probe, is filtered by its flag.
The time a read takes stays a timing channel.)"""
_RWF_NOWAIT = 0x8
OWN_PROCESS_ONLY = ("prlimit64", "getpgid", "getsid")
"""Calls that read another process's attribute which the bot can set on itself (limits,
process group, session): allowed for pid 0 (itself) only."""
_INT = 0xFFFFFFFF

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
    cmps = [
        (0, _CMP_MASKED_EQ, _INT, family) for family in range(allowed[-1]) if family not in allowed
    ]
    cmps.append((0, _CMP_GT, allowed[-1], 0))
    return cmps


def build(*, allow_inet: bool = False) -> Filter:
    """The bot filter; *allow_inet* keeps TCP/IP sockets (a referee reached over TCP).

    :raises SeccompUnavailable: if libseccomp is missing or rejects a rule.
    """
    result = _kernel_surface_filter()
    try:
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
        _channel_rules(result)
    except BaseException:
        result.close()
        raise
    return result


def _kernel_surface_filter() -> Filter:
    """A new filter with the rules bots and builds share: the kernel's attack surface
    (:data:`DENIED`, ``clone`` with namespace flags, ``clone3``), a foreign architecture
    killing the process. The caller adds its socket rules and closes it on failure.

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
    except BaseException:
        result.close()
        raise
    return result


def _channel_rules(result: Filter) -> None:
    """The rules that close channels between sandboxes (see the module docstring)."""
    enolck, einval = _errno_action(errno.ENOLCK), _errno_action(errno.EINVAL)
    enosys, eperm = _errno_action(errno.ENOSYS), _errno_action(errno.EPERM)
    for name in NO_LOCKS:
        result._rule(enolck, name)  # what a filesystem without locking gives
    for command in LOCK_COMMANDS:
        result._rule(enolck, "fcntl", (1, _CMP_MASKED_EQ, _INT, command))
    for command in LEASE_NOTIFY_COMMANDS:
        result._rule(einval, "fcntl", (1, _CMP_MASKED_EQ, _INT, command))  # "no leases here"
    for name in (*NO_NOTIFY, *NO_IPC):
        result._rule(enosys, name)  # as a kernel built without inotify or System V IPC
    for name in NO_FILE_ATTRIBUTES:
        result._rule(eperm, name)
    for command in FUTEX_SHARED_WAKES:
        by_command = (1, _CMP_MASKED_EQ, _FUTEX_COMMAND | _FUTEX_PRIVATE, command)
        result._rule(einval, "futex", by_command)  # the command, without the private flag
    for name in NO_SCHEDULING:
        result._rule(eperm, name)
    for name in NO_CACHE_PROBES:
        result._rule(enosys, name)
    eopnotsupp = _errno_action(errno.EOPNOTSUPP)  # what a file without non-blocking reads gives
    for name in ("preadv2", "pwritev2"):
        result._rule(eopnotsupp, name, (5, _CMP_MASKED_EQ, _RWF_NOWAIT, _RWF_NOWAIT))
    esrch = _errno_action(errno.ESRCH)  # as for a process in another pid namespace
    for name in OWN_PROCESS_ONLY:
        result._rule(esrch, name, (0, _CMP_NE, 0, 0))


def available() -> str | None:
    """``None`` if a filter can be compiled here, else why not (one line)."""
    try:
        build().close()
    except SeccompUnavailable as exc:
        return str(exc)
    return None


def build_step(*, network: bool = False) -> Filter:
    """The filter of a bot's *build* step (``npm ci``, a compiler): the bot filter's
    kernel-surface rules (ptrace, mount, namespaces, io_uring, bpf, ... and ``clone`` with
    namespace flags), without its channel rules (locks, chmod, IPC, scheduling: package
    managers need them, and a build plays no game a channel could leak). Sockets: unix
    only; with *network* also TCP and UDP over IP (DNS), never raw or packet sockets.

    :raises SeccompUnavailable: if libseccomp is missing or rejects a rule.
    """
    result = _kernel_surface_filter()
    try:
        eacces = _errno_action(errno.EACCES)
        if network:
            for cmp in _families_denied((socket.AF_UNIX, socket.AF_INET, socket.AF_INET6)):
                result._rule(eacces, "socket", cmp)
            for family in (socket.AF_INET, socket.AF_INET6):
                for kind in _NON_STREAM_TYPES:
                    if kind != socket.SOCK_DGRAM:
                        by_type = (1, _CMP_MASKED_EQ, _SOCK_TYPE_MASK, kind)
                        result._rule(eacces, "socket", (0, _CMP_EQ, family, 0), by_type)
        else:
            result._rule(eacces, "socket", (0, _CMP_NE, socket.AF_UNIX, 0))
        result._rule(eacces, "socketpair", (0, _CMP_NE, socket.AF_UNIX, 0))
    except BaseException:
        result.close()
        raise
    return result
