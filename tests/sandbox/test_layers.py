"""Each sandbox layer on its own: what a bot process actually gets (uid, environment,
rlimits, seccomp, no_new_privs), the seccomp filter and Landlock applied by the exec
wrapper to a child, the bubblewrap command line, cgroups, the uid pool, strict mode, and
``arena doctor`` telling the truth."""

from __future__ import annotations

import ast
import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.cli import main
from arena.game.policies import RandomPolicy
from arena.referee.errors import ArenaFault
from arena.referee.manifest import load_manifest
from arena.referee.match import PolicySeat, SeatSpec
from arena.referee.process import BotProcess, LogCapture, bot_environment
from arena.sandbox import bwrap, cgroups, seccomp, uids
from arena.sandbox.config import Layer, SandboxConfig, SandboxError, SandboxMode
from arena.sandbox.probe import confine_prefix, landlock_rules, plan, probe
from tests.sandbox.sandbox_support import (
    LIMITS,
    NAMESPACES,
    PROFILES,
    Profile,
    config,
    leftovers,
    missing,
    random_bot,
    require,
    run,
)

INSPECT = """
import json, os, resource, socket
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
limits = {n: resource.getrlimit(getattr(resource, "RLIMIT_" + n.upper()))[0]
          for n in ("cpu", "data", "fsize", "nofile", "core", "nproc")}
try:
    socket.socket(socket.AF_INET).close()
    inet = "allowed"
except OSError as exc:
    inet = exc.errno
print(json.dumps({"uid": os.getuid(), "cwd": os.getcwd(), "env": dict(os.environ),
    "limits": limits, "nnp": status["NoNewPrivs"].strip(), "seccomp": status["Seccomp"].strip(),
    "caps": status["CapEff"].strip(), "inet": inet, "home": oct(os.stat(os.environ["HOME"]).st_mode),
    "hostname": socket.gethostname()}))
"""


def inspect(profile: Profile, tmp_path: Path) -> dict[str, object]:
    """Start a one-shot 'bot' under *profile* that reports what it got, and stop it."""
    bot = tmp_path / "inspector"
    bot.mkdir()
    (bot / "inspect.py").write_text(INSPECT)
    (bot / "bot.toml").write_text('name = "inspector"\nversion = "1"\nlanguage = "python"\n'
                                  'run = "python inspect.py"\n')  # fmt: skip
    manifest = load_manifest(bot)
    socket_dir = tmp_path / "socket"
    socket_dir.mkdir(mode=0o700)
    (socket_dir / "referee.sock").touch()
    env = bot_environment(f"unix://{socket_dir}/referee.sock", "token-123")

    async def go() -> str:
        logs = LogCapture()
        process = await BotProcess.start(manifest, env, logs, sandbox=profile.config)
        await process.wait_exit()
        await process.stop(0)
        return b"".join(d for s, d in logs.chunks if s == "stdout").decode() or str(logs.tail())

    out = asyncio.run(go())
    try:
        return dict(json.loads(out))
    except json.JSONDecodeError:
        raise AssertionError(out) from None


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
def test_a_bot_process_gets_exactly_its_sandbox(profile: Profile, tmp_path: Path) -> None:
    active = require(profile)
    got = inspect(profile, tmp_path)
    env = got["env"]
    assert isinstance(env, dict)
    assert set(env) == {"ARENA_ADDRESS", "ARENA_TOKEN", "PATH", "LANG", "PYTHONUNBUFFERED",
                        "PYTHONDONTWRITEBYTECODE", "HOME", "TMPDIR"}  # fmt: skip
    assert env["ARENA_TOKEN"] == "token-123"
    assert got["home"] == "0o40700", "a private HOME, mode 0700"
    assert got["nnp"] == "1", "no new privileges"
    assert got["caps"] == "0000000000000000", "no capabilities"
    assert got["limits"] == {
        "cpu": LIMITS.cpu_seconds,
        "data": LIMITS.memory_bytes,
        "fsize": LIMITS.file_bytes,
        "nofile": LIMITS.open_files,
        "core": 0,
        "nproc": LIMITS.processes if Layer.UID in active else got["limits"]["nproc"],  # type: ignore[index]
    }
    if Layer.UID in active:
        start, stop = SandboxConfig().uid_range
        assert start <= int(got["uid"]) < stop  # type: ignore[call-overload]
    if Layer.SECCOMP in active:
        assert got["seccomp"] == "2" and got["inet"] == 13, "filter mode, EACCES on TCP"
    if Layer.BWRAP in active:
        assert env["ARENA_ADDRESS"] == f"unix://{bwrap.SOCKET_INSIDE}"
        assert (env["HOME"], env["TMPDIR"]) == (bwrap.HOME_INSIDE, "/tmp")
        assert got["hostname"] == "arena-bot"
    assert got["cwd"] == str(tmp_path / "inspector")
    assert leftovers(tmp_path) == []


def test_seccomp_filter_denies_what_a_bot_never_needs(tmp_path: Path) -> None:
    if seccomp.available() is not None:
        missing(f"seccomp: {seccomp.available()}")
    code = """
import ctypes, errno, os, socket, threading
libc = ctypes.CDLL(None, use_errno=True)
def denied(call):
    rc = call()
    return rc == -1 and ctypes.get_errno() in (errno.EPERM, errno.EACCES)
out = {}
kinds = {socket.AF_INET: socket.SOCK_STREAM, socket.AF_INET6: socket.SOCK_DGRAM,
         socket.AF_NETLINK: socket.SOCK_RAW, socket.AF_PACKET: socket.SOCK_RAW}
for family, kind in kinds.items():
    try:
        socket.socket(family, kind).close()
        out[int(family)] = "allowed"
    except OSError as exc:
        out[int(family)] = exc.errno
a, b = socket.socketpair(socket.AF_UNIX); a.close(); b.close()
out["ptrace"] = denied(lambda: libc.ptrace(0, 0, None, None))
out["unshare"] = denied(lambda: libc.unshare(0x10000000))
out["mount"] = denied(lambda: libc.mount(b"none", b"/tmp", b"tmpfs", 0, None))
t = threading.Thread(target=lambda: None); t.start(); t.join()
pid = os.fork()
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
print(sorted(out.items(), key=str))
"""
    spec = {"seccomp": {"allow_inet": False}}
    done = subprocess.run([*confine_prefix(spec), sys.executable, "-c", code],
                          capture_output=True, text=True, check=True)  # fmt: skip
    result = dict(ast.literal_eval(done.stdout))
    assert all(v == 13 for k, v in result.items() if isinstance(k, int)), result
    assert result["ptrace"] and result["unshare"] and result["mount"], result


def test_landlock_confines_files_and_tcp(tmp_path: Path) -> None:
    caps = probe()
    if not caps.layers[Layer.LANDLOCK].available:
        missing(f"landlock: {caps.layers[Layer.LANDLOCK].detail}")
    bot, private, outside = tmp_path / "bot", tmp_path / "private", tmp_path / "outside"
    for path in (bot, private, outside):
        path.mkdir()
    (outside / "secret").write_text("no")
    (bot / "mine").write_text("yes")
    code = f"""
import os, socket
def attempt(f):
    try:
        f(); return "ok"
    except OSError as exc:
        return exc.errno
print([attempt(lambda: open({str(bot / "mine")!r}).read()),
       attempt(lambda: open({str(outside / "secret")!r}).read()),
       attempt(lambda: open({str(private / "new")!r}, "w").write("x")),
       attempt(lambda: open({str(bot / "new")!r}, "w").write("x")),
       attempt(lambda: socket.create_connection(("127.0.0.1", 9), timeout=1))])
"""
    spec = {"landlock": landlock_rules(str(bot), [str(private)])}
    done = subprocess.run([*confine_prefix(spec), sys.executable, "-c", code],
                          capture_output=True, text=True, check=True)  # fmt: skip
    read_own, read_other, write_private, write_own, tcp = ast.literal_eval(done.stdout)
    assert (read_own, read_other, write_private, write_own) == ("ok", 13, "ok", 13)
    assert tcp == 13 if caps.landlock_abi >= 4 else tcp != "ok"


def test_bwrap_command_line_makes_parents_searchable_and_binds_the_socket() -> None:
    spec = bwrap.BwrapSpec(
        bot_dir="/tmp/somewhere/bots/b",
        readonly=["/opt/py/venv"],
        home="/var/private/home",
        socket="/tmp/arena-x/referee.sock",
        privileged=True,
        keep_setuid=True,
    )
    args = bwrap.build(spec, "bwrap")
    text = " ".join(args)
    assert "--unshare-net" in args and "--unshare-pid" in args and "--die-with-parent" in args
    assert "--perms 0755 --dir /opt --perms 0755 --dir /opt/py" in text
    assert "--perms 0755 --dir /tmp/somewhere --perms 0755 --dir /tmp/somewhere/bots" in text
    assert "--ro-bind /tmp/somewhere/bots/b /tmp/somewhere/bots/b" in text
    assert f"--ro-bind /tmp/arena-x/referee.sock {bwrap.SOCKET_INSIDE}" in text
    assert f"--bind /var/private/home {bwrap.HOME_INSIDE}" in text
    assert "--cap-add CAP_SETUID --cap-add CAP_SETGID" in text
    assert text.index("--tmpfs /tmp") < text.index("--dir /tmp/somewhere")
    assert args[-3:] == ["--chdir", "/tmp/somewhere/bots/b", "--"]
    shared = bwrap.build(bwrap.BwrapSpec(bot_dir="/b", readonly=[], share_net=True), "bwrap")
    assert "--unshare-net" not in shared
    assert f"--size {spec.tmp_bytes} --tmpfs /dev/shm" in text, "a sized /dev/shm"
    # Unprivileged (no host tmpfs to bind): HOME is bubblewrap's own sized tmpfs, which a
    # user namespace gives to the bot's uid.
    inside = bwrap.BwrapSpec(bot_dir="/b", readonly=[], privileged=False, home_bytes=1 << 20)
    text = " ".join(bwrap.build(inside, "bwrap"))
    assert f"--size {1 << 20} --perms 0700 --tmpfs {bwrap.HOME_INSIDE}" in text
    assert "--perms 0755 --dir /home " in text


def test_cgroup_kill_reaches_a_process_that_left_its_session() -> None:
    found = cgroups.hierarchy()
    if found is None:
        missing(f"cgroup: {cgroups.reason()}")
    assert found is not None
    group = cgroups.create(found, memory_bytes=64 << 20, processes=8, cpu_cores=0.5)
    assert group is not None
    join = 'for f in "$@"; do echo $$ > "$f"; done; exec setsid sleep 60'
    child = subprocess.Popen(["/bin/sh", "-c", join, "sh", *group.procs_files])
    try:
        for _ in range(100):
            if child.pid in group.pids():
                break
            time.sleep(0.01)
        assert group.pids() == [child.pid]
        assert group.remove()
        assert child.wait(timeout=5) == -9
    finally:
        child.kill()


def test_uid_leases_are_exclusive_and_sweep_their_processes() -> None:
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        missing("uid: needs root and setpriv")
    first = uids.acquire(61990, 61992)
    second = uids.acquire(61990, 61992)
    assert first.uid != second.uid
    with pytest.raises(OSError, match="in use"):
        uids.acquire(61990, 61992)
    sleeper = subprocess.Popen(["setpriv", f"--reuid={first.uid}", f"--regid={first.uid}",
                                "--clear-groups", "setsid", "sleep", "60"])  # fmt: skip
    for _ in range(500):
        if uids.processes_of(first.uid):
            break
        time.sleep(0.01)
    asyncio.run(first.release())
    assert sleeper.wait(timeout=5) == -9
    second.close()
    uids.acquire(61990, 61992).close()


def test_strict_mode_refuses_to_start_bots_without_isolation(tmp_path: Path) -> None:
    if probe().root is False:
        pytest.skip("as non-root, strict needs no uid: nothing to refuse predictably")
    strict = SandboxConfig(SandboxMode.STRICT, LIMITS, disable=frozenset({Layer.UID}))
    with pytest.raises(SandboxError, match="uid"):
        plan(strict)
    profile = Profile("strict-without-uid", strict, frozenset())
    seats: list[SeatSpec] = [random_bot(tmp_path), PolicySeat(RandomPolicy(1)),
                             PolicySeat(RandomPolicy(2))]  # fmt: skip
    # The referee reports a sandbox it cannot set up as the arena's fault (never the bot's).
    with pytest.raises((SandboxError, ArenaFault), match="strict sandbox"):
        run(seats, config(profile, games=1))
    assert leftovers(tmp_path) == []


def test_strict_mode_plays_where_every_layer_works(tmp_path: Path) -> None:
    require(NAMESPACES, Layer.UID)
    strict = Profile("strict", SandboxConfig(SandboxMode.STRICT, LIMITS), frozenset())
    seats: list[SeatSpec] = [random_bot(tmp_path), PolicySeat(RandomPolicy(1)),
                             PolicySeat(RandomPolicy(2))]  # fmt: skip
    result = run(seats, config(strict, games=1))
    assert result.records[0]["faults"] == []


def _bwrap_runs() -> bool:
    """Whether a plain bubblewrap sandbox starts. Its ``--ro-bind / /`` copies every mount
    of the host and fails when one vanishes meanwhile (a bot's sized tmpfs, unmounted by a
    test running in parallel): that race is retried, not taken as an answer."""
    for _ in range(10):
        done = subprocess.run(
            ["bwrap", "--unshare-net", "--unshare-pid", "--ro-bind", "/", "/", "true"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if "Unable to apply mount flags" not in done.stderr:
            break
    return done.returncode == 0


def test_doctor_reports_what_really_works(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    caps = probe()
    for layer, status in caps.layers.items():
        state = "available" if status.available else "MISSING"
        assert any(line.split()[:2] == [layer.value, state] for line in out.splitlines()), out
    assert "bots here: sandbox best-effort: on:" in out
    # Truthful: bubblewrap is reported available exactly when it really runs a sandbox.
    real = shutil.which("bwrap") is not None and _bwrap_runs()
    assert caps.layers[Layer.BWRAP].available == real
    assert (
        main(["doctor", "--sandbox", "strict", "--disable", "bwrap", "--disable", "landlock"]) == 1
    )
    assert "refused" in capsys.readouterr().out


def test_doctor_reports_channels_and_write_limits(capsys: pytest.CaptureFixture[str]) -> None:
    """Per channel between bots and per writable place, the layer that closes or bounds it;
    with those layers left out, the same lines say OPEN and UNBOUNDED."""
    caps = probe()
    if not caps.seccomp:
        missing("seccomp: the channel report needs it")
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    lines = {line.split("  ")[1].strip(): line for line in out.splitlines() if "  " in line}
    assert (
        "closed  seccomp: flock and fcntl/OFD locks fail (ENOLCK)" in lines["file locks and leases"]
    )
    assert " closed " in lines["inotify, fanotify, dnotify"]
    assert " closed " in lines["System V IPC, POSIX queues"]
    assert "OPEN" in lines["CPU, memory, timing"]
    if caps.tmpfs_mount:
        assert "bounded    a tmpfs of 64 MiB" in lines["HOME"]
    everything = ["--disable", "bwrap", "--disable", "landlock", "--disable", "seccomp"]
    assert main(["doctor", *everything, "--disable", "uid"]) == 0
    out = capsys.readouterr().out
    lines = {line.split("  ")[1].strip(): line for line in out.splitlines() if "  " in line}
    for name in (
        "file locks and leases",
        "System V IPC, POSIX queues",
        "process ids (the pid counter)",
    ):
        assert " OPEN " in lines[name], out
    assert "UNBOUNDED" in lines["everything else"]


def test_match_cli_takes_a_sandbox_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bot = str(random_bot(tmp_path).directory)
    assert main(["match", bot, "builtin:random", "builtin:greedy", "--games", "1",
                 "--sandbox", "off"]) == 0  # fmt: skip
    assert main(["match", bot, "builtin:random", "builtin:greedy", "--games", "1"]) == 0
    assert main(["match", bot, bot, bot, "--sandbox", "paranoid"]) == 2
    capsys.readouterr()


CHANNEL_CALLS = """
import ctypes, errno, fcntl, os, signal, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
NR = {"fcntl": 72, "flock": 73, "futex": 202, "fanotify_init": 300, "mq_open": 240,
      "futex_waitv": 449, "prlimit64": 302, "getpgid": 121, "cachestat": 451,
      "mincore": 27, "preadv2": 327}  # x86_64
def call(name, *args):
    rc = libc.syscall(ctypes.c_long(NR[name]), *[ctypes.c_long(a) for a in args])
    return errno.errorcode.get(ctypes.get_errno(), "?") if rc == -1 else "ok"
def os_call(action):
    try:
        action()
        return "ok"
    except OSError as exc:
        return errno.errorcode.get(exc.errno, "?")
signal.signal(signal.SIGIO, signal.SIG_IGN)  # dnotify and lease breaks signal (control)
path = sys.argv[1]
fd = os.open(path, os.O_RDONLY)
lock = struct.pack("hhqqi4x", fcntl.F_RDLCK, 0, 0, 1, 0)
out = {
    "flock": os_call(lambda: fcntl.flock(fd, fcntl.LOCK_SH)),
    "F_SETLK": os_call(lambda: fcntl.fcntl(fd, fcntl.F_SETLK, lock)),
    "F_SETLK high bits": call("fcntl", fd, (1 << 32) | fcntl.F_SETLK, 0),
    "F_GETLK": os_call(lambda: fcntl.fcntl(fd, fcntl.F_GETLK, lock)),
    "F_OFD_SETLKW": os_call(lambda: fcntl.fcntl(fd, 38, lock)),
    "F_SETLEASE": os_call(lambda: fcntl.fcntl(fd, 1024, fcntl.F_RDLCK)),
    "F_NOTIFY": os_call(lambda: fcntl.fcntl(os.open(os.path.dirname(path), os.O_RDONLY), 1026, 1)),
    "F_GETFL": os_call(lambda: fcntl.fcntl(fd, fcntl.F_GETFL)),
    "fanotify_init": call("fanotify_init", 0, 0),
    "inotify_init1": "ok" if libc.inotify_init1(0) >= 0 else errno.errorcode[ctypes.get_errno()],
    "shmget": "ok" if libc.shmget(0, 4096, 0o1600) >= 0 else errno.errorcode[ctypes.get_errno()],
    "msgget": "ok" if libc.msgget(0, 0o1600) >= 0 else errno.errorcode[ctypes.get_errno()],
    "mq_open": call("mq_open", 0, 0, 0, 0),
    "futex shared wake": call("futex", 0, 1, 1, 0, 0, 0),
    "futex private wake": call("futex", 0, 1 | 128, 1, 0, 0, 0),
    "futex_waitv": call("futex_waitv", 0, 0, 0, 0, 0),
    "chmod": os_call(lambda: os.chmod(path, 0o644)),
    "utime": os_call(lambda: os.utime(path)),
    "setxattr": os_call(lambda: os.setxattr(path, "user.arena", b"1")),
    "setpriority": os_call(lambda: os.setpriority(os.PRIO_PROCESS, 0, 5)),
    "sched_setaffinity": os_call(lambda: os.sched_setaffinity(0, {0})),
    "prlimit64 other": call("prlimit64", 1, 7, 0, 0),
    "prlimit64 self": call("prlimit64", 0, 7, 0, ctypes.addressof(ctypes.create_string_buffer(16))),
    "getpgid other": call("getpgid", 1),
    "getpgid self": call("getpgid", 0),
    "cachestat": call("cachestat", fd, 0, 0, 0),
    "mincore": call("mincore", 0, 4096, 0),
    "preadv2 nowait": os_call(lambda: os.preadv(fd, [bytearray(1)], 0, os.RWF_NOWAIT)),
    "preadv2": os_call(lambda: os.preadv(fd, [bytearray(1)], 0, 0)),
}
print(out)
"""


def test_seccomp_filter_closes_channels_between_bots(tmp_path: Path) -> None:
    """Every call that would set or read a kernel object another sandbox shares fails
    with the errno a kernel without the feature gives (high bits on the command do not
    dodge the rule); what runtimes need (other fcntl commands, private futexes, their own
    limits and process group) still works. Control: the same script without the filter."""
    if seccomp.available() is not None:
        missing(f"seccomp: {seccomp.available()}")
    if os.uname().machine != "x86_64":
        pytest.skip("the script uses x86_64 system call numbers")
    target = tmp_path / "shared.txt"
    target.write_text("shared")
    expected = {
        "flock": "ENOLCK", "F_SETLK": "ENOLCK", "F_SETLK high bits": "ENOLCK",
        "F_GETLK": "ENOLCK", "F_OFD_SETLKW": "ENOLCK", "F_SETLEASE": "EINVAL",
        "F_NOTIFY": "EINVAL", "F_GETFL": "ok", "fanotify_init": "ENOSYS",
        "inotify_init1": "ENOSYS", "shmget": "ENOSYS", "msgget": "ENOSYS", "mq_open": "ENOSYS",
        "futex shared wake": "EINVAL", "futex private wake": "ok", "futex_waitv": "ENOSYS",
        "chmod": "EPERM", "utime": "EPERM", "setxattr": "EPERM", "setpriority": "EPERM",
        "sched_setaffinity": "EPERM", "prlimit64 other": "ESRCH", "prlimit64 self": "ok",
        "getpgid other": "ESRCH", "getpgid self": "ok", "cachestat": "ENOSYS",
        "mincore": "ENOSYS", "preadv2 nowait": "ENOTSUP", "preadv2": "ok",
    }  # fmt: skip
    spec = {"seccomp": {"allow_inet": False}}
    script = [sys.executable, "-c", CHANNEL_CALLS, str(target)]
    done = subprocess.run([*confine_prefix(spec), *script], capture_output=True, text=True,
                          check=True)  # fmt: skip
    assert ast.literal_eval(done.stdout) == expected
    control = ast.literal_eval(subprocess.run(script, capture_output=True, text=True,
                                              check=True).stdout)  # fmt: skip
    assert [k for k, v in expected.items() if v != "ok" and control[k] == v] == [], control


HOLDER = """
import sys, time
from arena.sandbox import quota, workdirs
private = workdirs.make(None)
quota.hold(private)
quota.mount(private / "home", 1 << 20, None)
print(private, flush=True)
time.sleep(60)
"""


def test_sized_private_dirs_of_a_killed_referee_are_swept(tmp_path: Path) -> None:
    """A referee killed with SIGKILL leaves its bots' tmpfs mounts behind; the next one
    (its probe) unmounts and removes them, and leaves a live referee's alone."""
    from arena.sandbox import quota, workdirs  # noqa: PLC0415 - the modules under test

    if (why := quota.available()) is not None:
        missing(f"sized tmpfs: {why}")
    root = Path(__file__).resolve().parents[2]
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER], stdout=subprocess.PIPE, text=True, cwd=root
    )
    assert holder.stdout is not None
    dead = Path(holder.stdout.readline().strip())
    live = workdirs.make(None)
    fd = quota.hold(live)
    quota.mount(live / "home", 1 << 20, None)
    try:
        holder.kill()
        holder.wait()
        assert os.path.ismount(dead / "home"), "the killed referee left its mount"
        swept = quota.sweep_stale()
        assert dead in swept and live not in swept
        assert not dead.exists()
        assert os.path.ismount(live / "home")
    finally:
        workdirs.wipe(live)
        os.close(fd)
    assert not live.exists()
