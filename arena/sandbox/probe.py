"""Which sandbox layers work on this machine: each probed once, by trying it for real.

Nothing is inferred from version numbers or files alone: bubblewrap is asked to run the
arena's interpreter in the same kind of sandbox a bot gets, Landlock to hide a file from a
child, seccomp to refuse a TCP socket, the uid switch to run the interpreter as a bot uid,
the cgroup layer to make a bot cgroup with its limits. The result is cached for the
life of the referee process; :func:`plan` then picks the layers one match uses.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import arena
from arena.sandbox import bwrap, cgroups, landlock, quota, seccomp, uids
from arena.sandbox.config import REQUIRED_ALWAYS, Layer, SandboxConfig, SandboxError, SandboxMode

LOGGER = logging.getLogger(__name__)

PROC_FILES = ("/proc/self", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/loadavg")
CONFINE = str(Path(__file__).resolve().with_name("confine.py"))
PROBE_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class LayerStatus:
    """One layer on this machine."""

    layer: Layer
    available: bool
    detail: str
    """What it provides here, or why it is not available (one line)."""


@dataclass(frozen=True)
class Capabilities:
    """What this machine offers (see :func:`probe`)."""

    root: bool
    setpriv: str | None
    prlimit: str | None
    bwrap: str | None
    """bubblewrap, if it works here."""
    uid_direct: bool
    """The uid switch works without bubblewrap too (the interpreter is reachable by a bot
    uid through ordinary permissions)."""
    landlock_abi: int
    seccomp: bool
    cgroup: cgroups.Hierarchy | None
    layers: dict[Layer, LayerStatus] = field(default_factory=dict)
    setpcap: bool = False
    """The referee holds CAP_SETPCAP (it may empty a bot's capability bounding set)."""
    tmpfs_mount: bool = False
    """The referee can mount sized tmpfs for a bot's HOME and TMPDIR (:mod:`quota`)."""


def runtime_paths() -> list[str]:
    """Host directories a bot needs read-only to run the arena's ``python``: the
    interpreter, the virtual environment and the ``arena`` package (SDK)."""
    candidates = [
        sys.prefix,
        sys.exec_prefix,
        sys.base_prefix,
        sys.base_exec_prefix,
        str(Path(sys.executable).resolve().parent.parent),
        str(Path(arena.__file__).resolve().parent),
    ]
    paths: list[str] = []
    for path in sorted({str(Path(p).resolve()) for p in candidates if p} | set(candidates)):
        if os.path.isdir(path) and not any(path.startswith(p.rstrip("/") + "/") for p in paths):
            paths.append(path)
    return paths


def import_dirs() -> list[str]:
    """Directories on the interpreter's import path that are not inside
    :func:`runtime_paths` (an editable install's project root): Python lists them
    while importing, so Landlock must let the bot list (not read) them."""
    roots = runtime_paths()
    found = []
    for entry in sys.path:
        if not entry or not os.path.isdir(entry):
            continue
        path = str(Path(entry).resolve())
        if not any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots):
            found.append(path)
    return sorted(set(found))


def landlock_rules(
    bot_dir: str, private: list[str], tcp_port: int | None = None
) -> dict[str, object]:
    """The Landlock part of a confine spec: the system and runtime read-only, the bot's
    directory readable, *private* directories writable, nothing else."""
    rules: list[tuple[str, int]] = [(p, landlock.READ_EXEC) for p in bwrap.SYSTEM_DIRS]
    rules += [(p, landlock.READ) for p in bwrap.ETC_FILES]
    rules += [("/etc/passwd", landlock.READ), ("/etc/group", landlock.READ)]
    rules += [(p, landlock.READ_EXEC) for p in runtime_paths()]
    rules += [(p, landlock.READ_DIR) for p in import_dirs()]
    rules += [(bot_dir, landlock.READ_EXEC)]
    rules += [(p, landlock.READ) for p in ("/dev/zero", "/dev/urandom", "/dev/random")]
    rules += [("/dev/null", landlock.READ_FILE | landlock.WRITE_FILE | landlock.TRUNCATE)]
    rules += [("/sys/devices/system/cpu", landlock.READ)]
    # The bot's own /proc/<pid> (resolved when the wrapper applies the rules: the bot keeps
    # the wrapper's pid) and the machine-wide counters runtimes size themselves by; not
    # /proc as a whole, where other processes' command lines are world-readable.
    rules += [(p, landlock.READ) for p in PROC_FILES]
    return {"rules": rules, "write": private, "tcp": [tcp_port] if tcp_port else []}


def confine_prefix(spec: Mapping[str, object]) -> list[str]:
    """``python -I -S confine.py SPEC --``: the exec wrapper with *spec*."""
    return [sys.executable, "-I", "-S", CONFINE, json.dumps(spec, separators=(",", ":")), "--"]


def _run(argv: list[str]) -> tuple[bool, str]:
    """Run a probe command; (exited 0, first line of its stderr or stdout)."""
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=PROBE_TIMEOUT_S,
            check=False,
            env={"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"},
            cwd="/",
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, str(exc)
    text = (done.stderr or done.stdout).decode(errors="replace").strip().splitlines()
    return done.returncode == 0, text[-1] if text else f"exit status {done.returncode}"


_PY_SOCKET = (
    "import socket,sys\ntry: socket.socket(socket.AF_INET)\n"
    "except PermissionError: sys.exit(0)\nsys.exit('TCP socket allowed')"
)
_PY_READ = (
    "import sys\ntry: open(sys.argv[1]).read()\n"
    "except PermissionError: sys.exit(0)\nsys.exit('file readable')"
)


def _probe_rlimits(prlimit: str | None) -> LayerStatus:
    if prlimit is not None:
        ok, why = _run([prlimit, "--nofile=64:64", "--core=0:0", "--", "true"])
        if ok:
            return LayerStatus(Layer.RLIMITS, True, "set by util-linux prlimit")
        LOGGER.debug("prlimit failed: %s", why)
    ok, why = _run([*confine_prefix({"rlimits": {"nofile": [64, 64]}}), "true"])
    if ok:
        return LayerStatus(Layer.RLIMITS, True, "set by the exec wrapper (no prlimit)")
    return LayerStatus(Layer.RLIMITS, False, why)


def _probe_uid(setpriv: str | None, uid: int) -> tuple[LayerStatus, bool]:
    if os.geteuid() != 0:
        return LayerStatus(Layer.UID, False, "the referee does not run as root"), False
    if setpriv is None:
        return LayerStatus(Layer.UID, False, "setpriv (util-linux) is not installed"), False
    switch = [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
    ok, why = _run([*switch, "true"])
    if not ok:
        return LayerStatus(Layer.UID, False, f"setpriv failed: {why}"), False
    # Through env(1): setpriv itself still holds its capabilities when it execs, so an
    # interpreter it can reach is not one the bot uid can reach.
    check = f"import sys; sys.exit(sys.base_prefix != {sys.base_prefix!r})"
    direct, _ = _run([*switch, "/usr/bin/env", sys.executable, "-I", "-S", "-c", check])
    return LayerStatus(Layer.UID, True, "a uid per bot process"), direct


def _probe_bwrap(
    setpriv: str | None, uid: int | None, work: Path
) -> tuple[LayerStatus, str | None]:
    path = shutil.which("bwrap")
    if path is None:
        return LayerStatus(Layer.BWRAP, False, "bubblewrap is not installed"), None
    spec = bwrap.BwrapSpec(
        bot_dir=str(work),
        readonly=runtime_paths(),
        privileged=os.geteuid() == 0,
        keep_setuid=uid is not None,
    )
    argv = bwrap.build(spec, path)
    if uid is not None and setpriv is not None:
        argv += [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
    ok, why = _run([*argv, sys.executable, "-I", "-S", "-c", "pass"])
    if not ok:
        return LayerStatus(Layer.BWRAP, False, f"bwrap cannot start a sandbox: {why}"), None
    kind = "privileged" if spec.privileged else "user namespace"
    detail = f"no network, own pid/ipc/uts namespaces, read-only system ({kind})"
    return LayerStatus(Layer.BWRAP, True, detail), path


def _probe_landlock(secret: Path) -> tuple[LayerStatus, int]:
    abi = landlock.abi_version()
    if abi < 1:
        return LayerStatus(Layer.LANDLOCK, False, "not enabled in this kernel"), 0
    spec = {"landlock": {"rules": [(p, landlock.READ_EXEC) for p in runtime_paths()]
                         + [(p, landlock.READ_EXEC) for p in bwrap.SYSTEM_DIRS],
                         "write": [], "tcp": []}}  # fmt: skip
    ok, why = _run([*confine_prefix(spec), sys.executable, "-I", "-S", "-c", _PY_READ, str(secret)])
    if not ok:
        return LayerStatus(Layer.LANDLOCK, False, f"ABI {abi}, but it did not confine: {why}"), 0
    extra = ", TCP" if abi >= 4 else ""
    extra += ", signals" if abi >= 6 else ""
    return LayerStatus(Layer.LANDLOCK, True, f"ABI {abi}: filesystem{extra}"), abi


def _probe_seccomp() -> LayerStatus:
    why = seccomp.available()
    if why is not None:
        return LayerStatus(Layer.SECCOMP, False, why)
    spec = {"seccomp": {"allow_inet": False}}
    ok, why = _run([*confine_prefix(spec), sys.executable, "-I", "-S", "-c", _PY_SOCKET])
    if not ok:
        return LayerStatus(Layer.SECCOMP, False, f"the filter did not apply: {why}")
    return LayerStatus(Layer.SECCOMP, True, "no inet sockets, ptrace, mount, namespaces")


def _probe_cgroup() -> LayerStatus:
    found = cgroups.hierarchy()
    if found is None:
        return LayerStatus(Layer.CGROUP, False, cgroups.reason() or "not writable")
    return LayerStatus(Layer.CGROUP, True, found.description)


_lock = threading.Lock()
_cached: Capabilities | None = None


def probe() -> Capabilities:
    """Probe every layer (once per process; later calls return the cached result)."""
    global _cached  # noqa: PLW0603 - the machine does not change under a running referee
    with _lock:
        if _cached is None:
            _cached = _probe_all()
        return _cached


def _probe_all() -> Capabilities:
    setpriv, prlimit = shutil.which("setpriv"), shutil.which("prlimit")
    layers = {Layer.RLIMITS: _probe_rlimits(prlimit)}
    quota.sweep_stale()
    no_mount = quota.available()
    layers[Layer.WORKDIR] = _workdir_status(no_mount, shutil.which("bwrap") is not None)
    lease = None
    if os.geteuid() == 0 and setpriv is not None:
        with contextlib.suppress(OSError):
            lease = uids.acquire(*SandboxConfig().uid_range)
    try:
        uid = lease.uid if lease is not None else 65534
        layers[Layer.UID], uid_direct = _probe_uid(setpriv, uid)
        with tempfile.TemporaryDirectory(prefix="arena-probe-") as tmp:
            work = Path(tmp)
            work.chmod(0o755)
            secret = work / "secret"
            secret.write_text("probe")
            switch_uid = uid if layers[Layer.UID].available else None
            layers[Layer.BWRAP], bwrap_path = _probe_bwrap(setpriv, switch_uid, work)
            layers[Layer.LANDLOCK], abi = _probe_landlock(secret)
    finally:
        if lease is not None:
            lease.close()
    layers[Layer.SECCOMP] = _probe_seccomp()
    layers[Layer.CGROUP] = _probe_cgroup()
    if layers[Layer.UID].available and not uid_direct:
        detail = layers[Layer.UID].detail
        layers[Layer.UID] = LayerStatus(
            Layer.UID,
            True,
            f"{detail} (only inside bubblewrap: {sys.executable} is not reachable by other uids)",
        )
    return Capabilities(
        root=os.geteuid() == 0,
        setpriv=setpriv,
        prlimit=prlimit if layers[Layer.RLIMITS].detail.startswith("set by util") else None,
        bwrap=bwrap_path,
        uid_direct=uid_direct,
        landlock_abi=abi,
        seccomp=layers[Layer.SECCOMP].available,
        cgroup=cgroups.hierarchy(),
        layers=layers,
        setpcap=_has_capability(8),
        tmpfs_mount=no_mount is None,
    )


def _workdir_status(no_mount: str | None, bwrap_installed: bool) -> LayerStatus:
    if no_mount is None:
        detail = "private HOME and TMPDIR, each a tmpfs of bounded size"
    elif bwrap_installed and os.geteuid() != 0:
        detail = (
            "private HOME and TMPDIR; sized by bubblewrap's tmpfs, else "
            f"RLIMIT_FSIZE per file only (cannot mount: {no_mount})"
        )
    else:
        detail = f"private HOME and TMPDIR; RLIMIT_FSIZE per file only (cannot mount: {no_mount})"
    return LayerStatus(Layer.WORKDIR, True, detail)


def _has_capability(number: int) -> bool:
    """Whether this process has capability *number* in its effective set."""
    with contextlib.suppress(OSError, StopIteration, ValueError):
        status = Path("/proc/self/status").read_text().splitlines()
        effective = int(next(x for x in status if x.startswith("CapEff:")).split()[1], 16)
        return bool(effective >> number & 1)
    return False


@dataclass(frozen=True)
class Plan:
    """The layers every bot process of a match gets."""

    mode: SandboxMode
    layers: frozenset[Layer]
    skipped: dict[Layer, str]
    """Layers not used, and why."""

    def describe(self) -> str:
        """One line: the mode, the layers on, the layers off and why."""
        if self.mode is SandboxMode.OFF:
            return "sandbox off: bots run with a clean environment in their own session only"
        on = ", ".join(layer.value for layer in Layer if layer in self.layers) or "nothing"
        off = "; ".join(f"{layer.value} ({why})" for layer, why in self.skipped.items())
        return f"sandbox {self.mode.value}: on: {on}" + (f"; off: {off}" if off else "")


def plan(config: SandboxConfig, caps: Capabilities | None = None) -> Plan:
    """The layers to use under *config* on this machine.

    :raises SandboxError: in ``strict`` mode, when a required layer is missing.
    """
    if config.mode is SandboxMode.OFF:
        return Plan(config.mode, frozenset(), {})
    caps = caps or probe()
    usable: set[Layer] = set()
    skipped: dict[Layer, str] = {}
    for layer, status in caps.layers.items():
        if layer in config.disable:
            skipped[layer] = "disabled"
        elif not status.available:
            skipped[layer] = status.detail
        else:
            usable.add(layer)
    if Layer.UID in usable and Layer.BWRAP not in usable and not caps.uid_direct:
        usable.discard(Layer.UID)
        skipped[Layer.UID] = f"needs bubblewrap here ({sys.executable} is not reachable)"
    if Layer.BWRAP in usable and Layer.LANDLOCK in usable:
        usable.discard(Layer.LANDLOCK)
        skipped[Layer.LANDLOCK] = "not needed: bubblewrap restricts the filesystem"
    result = Plan(config.mode, frozenset(usable), skipped)
    if config.mode is SandboxMode.STRICT:
        missing = [layer for layer in required(caps) if layer not in usable]
        isolation = Layer.BWRAP in usable or {Layer.LANDLOCK, Layer.SECCOMP} <= usable
        if missing or not isolation:
            names = [f"{layer.value} ({skipped.get(layer, 'missing')})" for layer in missing]
            if not isolation:
                names.append("bwrap, or else landlock and seccomp")
            raise SandboxError(f"strict sandbox: missing {'; '.join(names)}")
    return result


def required(caps: Capabilities) -> list[Layer]:
    """The single layers ``strict`` mode insists on (besides filesystem and network
    isolation, by bubblewrap or by Landlock plus seccomp)."""
    layers = list(REQUIRED_ALWAYS)
    if caps.root:
        layers.append(Layer.UID)
    return layers


_logged: set[str] = set()


def log_plan(active: Plan) -> None:
    """Log the plan's line once per referee process (per distinct plan)."""
    line = active.describe()
    if line not in _logged:
        _logged.add(line)
        LOGGER.info("%s", line)
