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
    with pytest.raises(SandboxError):
        run(seats, config(profile, games=1))
    assert leftovers(tmp_path) == []


def test_strict_mode_plays_where_every_layer_works(tmp_path: Path) -> None:
    require(NAMESPACES, Layer.UID)
    strict = Profile("strict", SandboxConfig(SandboxMode.STRICT, LIMITS), frozenset())
    seats: list[SeatSpec] = [random_bot(tmp_path), PolicySeat(RandomPolicy(1)),
                             PolicySeat(RandomPolicy(2))]  # fmt: skip
    result = run(seats, config(strict, games=1))
    assert result.records[0]["faults"] == []


def test_doctor_reports_what_really_works(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    caps = probe()
    for layer, status in caps.layers.items():
        state = "available" if status.available else "MISSING"
        assert any(line.split()[:2] == [layer.value, state] for line in out.splitlines()), out
    assert "bots here: sandbox best-effort: on:" in out
    # Truthful: bubblewrap is reported available exactly when it really runs a sandbox.
    real = shutil.which("bwrap") is not None and subprocess.run(
        ["bwrap", "--unshare-net", "--unshare-pid", "--ro-bind", "/", "/", "true"],
        capture_output=True, check=False,
    ).returncode == 0  # fmt: skip
    assert caps.layers[Layer.BWRAP].available == real
    assert (
        main(["doctor", "--sandbox", "strict", "--disable", "bwrap", "--disable", "landlock"]) == 1
    )
    assert "refused" in capsys.readouterr().out


def test_match_cli_takes_a_sandbox_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bot = str(random_bot(tmp_path).directory)
    assert main(["match", bot, "builtin:random", "builtin:greedy", "--games", "1",
                 "--sandbox", "off"]) == 0  # fmt: skip
    assert main(["match", bot, "builtin:random", "builtin:greedy", "--games", "1"]) == 0
    assert main(["match", bot, bot, bot, "--sandbox", "paranoid"]) == 2
    capsys.readouterr()
