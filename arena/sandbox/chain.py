"""The exec-chain steps a bot's process and a bot's build share.

Both run their command behind a chain of small programs, each of which applies one layer
and execs the next (:mod:`arena.sandbox.launch`, :mod:`arena.sandbox.build.sandbox`).
The steps they have in common are written once here, so a build cannot drift to weaker
words than a bot gets at play: joining the cgroup, dying with the arena, dropping the uid
and capabilities, rlimits, the two-line ``/etc/passwd`` and ``/etc/group``, and removing
what a bot uid left where the arena may not enter. The last step of a bot's chain, which
tells the referee that the arena's part worked (:func:`ready_step`), and the names the
steps give their errors (:func:`failed_step`) are here too.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from arena.sandbox import cgroups
from arena.sandbox.probe import Capabilities

JOIN_CGROUP = (
    'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; '
    'unset PWD OLDPWD; exec "$@"'  # the shell exports PWD: keep the environment clean
)

READY_SCRIPT = (
    "unset PWD OLDPWD; "  # the shell exports PWD (as bubblewrap does): keep it clean
    'case "$1" in */*) ;; *) command -v "$1" >/dev/null || '
    '{ echo "arena-ready: no program $1 on the sandbox\'s PATH" >&2; exit 125; } ;; esac; '
    "exec 3>&0 0</dev/null; printf R >&3 || exit 125; exec 3>&-; "
    'exec "$@"'
)
READY_BYTE = b"R"
"""What the chain's last step writes on the ready pipe just before it execs the bot."""

STEPS = {
    "arena-cgroup": "the cgroup join",
    "setpriv": "setpriv",
    "bwrap": "bubblewrap",
    "prlimit": "prlimit",
    "arena sandbox": "the exec wrapper (confine.py)",
    "arena-ready": "the ready step",
}
"""How each step of a chain starts its error lines, and its name in an arena fault."""

Rlimits = dict[str, tuple[int, int]]
"""prlimit's resource names (``data``, ``nofile``, ...) and their (soft, hard) values."""


def join_cgroup(cgroup: cgroups.BotCgroup | None) -> list[str]:
    """``sh -c 'echo $$ > CGROUP/cgroup.procs; exec "$@"'``: the chain enters the cgroup
    before anything of the bot runs, so nothing escapes its limits (nothing without one)."""
    if cgroup is None:
        return []
    return ["/bin/sh", "-c", JOIN_CGROUP, "arena-cgroup", *cgroup.procs_files, "--"]


def switch_uid(uid: int) -> list[str]:
    """setpriv's options that make the process *uid*, without groups or inheritable
    capabilities."""
    return [f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all"]


def die_with_parent(caps: Capabilities, uid: int | None, *, switch: bool) -> list[str]:
    """``setpriv --pdeathsig KILL --`` (the kernel kills the chain with the arena), with
    the uid switch when *switch* (no bubblewrap to do it inside)."""
    if caps.setpriv is None:
        return []
    argv = [caps.setpriv, "--pdeathsig", "KILL"]
    if switch:
        if uid is not None:
            argv += [*switch_uid(uid), "--no-new-privs"]
        elif caps.root:
            # Root without a uid switch: at least without capabilities (emptying the
            # bounding set needs CAP_SETPCAP, which a hardened container drops).
            argv += ["--inh-caps=-all", "--no-new-privs"]
            if caps.setpcap:
                argv.append("--bounding-set=-all")
    return [*argv, "--"]


def rlimits(
    *, data: int, fsize: int, nofile: int, cpu: int | None = None, nproc: int | None = None
) -> Rlimits:
    """The rlimits of a chain, in prlimit's order (no core files, ever)."""
    values: Rlimits = {} if cpu is None else {"cpu": (cpu, cpu + 1)}
    values |= {"data": (data, data), "fsize": (fsize, fsize), "nofile": (nofile, nofile)}
    values["core"] = (0, 0)
    if nproc is not None:
        values["nproc"] = (nproc, nproc)
    return values


def rlimit_step(caps: Capabilities, values: Rlimits, confine: dict[str, object]) -> list[str]:
    """``prlimit --data=S:H ... --``; without prlimit the exec wrapper sets them (they go
    into its *confine* spec and nothing is returned)."""
    if caps.prlimit is None:
        confine["rlimits"] = values
        return []
    return [caps.prlimit, *(f"--{k}={s}:{h}" for k, (s, h) in values.items()), "--"]


def ready_step() -> list[str]:
    """``sh -c '...; exec "$@"'``: the last step of a bot's chain, which tells the referee
    that everything of the arena's before the bot has worked.

    The chain's stdin is the write end of a pipe only the referee reads
    (:meth:`arena.sandbox.launch.Launch.setup_finished`). This step opens ``/dev/null``
    as stdin for the bot, writes :data:`READY_BYTE` to the pipe, closes its last copy
    and execs the bot's command: nothing of the arena's that can fail comes after the
    signal, and the bot never holds the pipe, so a chain that ends without the signal
    failed in the arena's hands (a bot that exits early cannot pass for one: the signal
    came before it ran). A command whose program is a bare name (``python``, ``node``)
    names a runtime the arena provides on the sandbox's ``PATH``, so one that is not
    there fails this step, before the signal: the arena's fault, never the bot's (the
    bot ran when it was submitted, and runs wherever the runtime is). A program given
    by a path (``./engine``) is the bot's own file, and a missing one stays its fault.
    The pipe is stdin because dash, the usual ``/bin/sh``, can only name descriptors 0-9
    and the referee cannot choose the number a passed descriptor gets without running
    Python between fork and exec.
    """
    return ["/bin/sh", "-c", READY_SCRIPT, "arena-ready"]


def failed_step(stderr: str) -> str | None:
    """The step of a chain named by the last error line in *stderr* that names one."""
    for line in reversed(stderr.splitlines()):
        step = STEPS.get(line.split(":", 1)[0].strip())
        if step is not None:
            return step
    return None


def identity(etc: Path, name: str, uid: int, home: str) -> list[tuple[str, str]]:
    """Write a two-line ``passwd`` and ``group`` (root and *name* with *uid*) into *etc*;
    ``(host file, path inside)`` for bubblewrap. The host's files name its users."""
    (etc / "passwd").write_text(
        f"root:x:0:0:root:/root:/usr/sbin/nologin\n"
        f"{name}:x:{uid}:{uid}:arena {name}:{home}:/usr/sbin/nologin\n"
    )
    (etc / "group").write_text(f"root:x:0:\n{name}:x:{uid}:\n")
    return [(str(etc / "passwd"), "/etc/passwd"), (str(etc / "group"), "/etc/group")]


def remove_as(uid: int, *paths: Path) -> None:
    """``rm -rf`` *paths* as *uid*: what a bot uid made in its mode-0700 directories, which
    the arena may not enter without CAP_DAC_OVERRIDE (a hardened container)."""
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return
    subprocess.run(
        [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--",
         "rm", "-rf", "--", *map(str, paths)],
        check=False, stdin=subprocess.DEVNULL, capture_output=True,
    )  # fmt: skip
