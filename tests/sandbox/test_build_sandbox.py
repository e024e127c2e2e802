"""A bot's build step gets no more rights than the bot at play.

One hostile build tries every attack (remount ``/`` read-write, write a host file, read
another uid's 0600 file, read the data directory, list ``/root``, connect to a listener
the test opens on 127.0.0.1) and writes what happened into its own directory. Through
the build sandbox every attack fails; through the old build prefix (kept below as
:func:`legacy_argv`, the control) every one succeeds. Fork bombs, disk and /tmp fillers
hit their limits; a normal build (the JS sample bot's ``npm ci`` with the network
allowed, a Python build without) still works; ``arena bot submit``'s function refuses a
build that steals a secret and stores nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from arena import storage
from arena.referee.manifest import BotManifest, load_manifest
from arena.sandbox.build.bot import BuildError, build
from arena.sandbox.build.sandbox import NETWORK_ENV, BuildLimits, network_allowed
from arena.sandbox.config import Layer, SandboxConfig, SandboxMode
from arena.sandbox.probe import probe
from arena.storage.database import open_database
from arena.submission import SubmitError, submit_bot
from tests.migrated_sqlite import migrated_sqlite_url
from tests.sandbox.sandbox_support import leftovers, missing

ROOT = Path(__file__).resolve().parents[2]
JS_BOT = ROOT / "sample_bots" / "js_random_bot"
SMALL = BuildLimits(processes=48, disk_bytes=8 << 20, tmp_bytes=8 << 20)

HOSTILE = r"""
import json, os, socket, subprocess, sys
secret, data, marker, port = sys.argv[1:5]
report = {}
def attempt(name, action):
    try:
        report[name] = ["ok", str(action())[:80]]
    except Exception as exc:
        report[name] = ["failed", f"{type(exc).__name__}: {exc}"[:120]]
def remount():
    done = subprocess.run(["mount", "-o", "remount,rw", "/"], capture_output=True, text=True)
    if done.returncode:
        raise OSError(done.stderr.strip())
    return "remounted"
def host_write():
    with open(marker, "w") as handle:
        handle.write("owned")
    return marker
def connect():
    with socket.create_connection(("127.0.0.1", int(port)), timeout=3) as s:
        return s.getpeername()
attempt("remount", remount)
attempt("host_write", host_write)
attempt("read_secret", lambda: open(secret).read())
attempt("read_data", lambda: open(os.path.join(data, "arena.db")).read())
attempt("list_root", lambda: [n for n in os.listdir("/root") if n != ".pyenv"] or 1 / 0)
attempt("loopback", connect)
attempt("capabilities", lambda: [l for l in open("/proc/self/status") if l.startswith("CapEff")][0].split()[1].strip("0") or 1 / 0)
attempt("uid0", lambda: os.getuid() == 0 or 1 / 0)
with open("report.json", "w") as handle:
    json.dump(report, handle)
"""
ATTACKS = ("remount", "host_write", "read_secret", "read_data", "list_root", "loopback",
           "capabilities", "uid0")  # fmt: skip


def require_bwrap_root() -> None:
    """These tests are about the arena as it runs: as root, with bubblewrap."""
    caps = probe()
    if os.geteuid() != 0:
        missing("the build sandbox's uid layer needs root")
    if caps.bwrap is None:
        missing(f"bwrap: {caps.layers[Layer.BWRAP].detail}")
    if not caps.layers[Layer.UID].available:
        missing(f"uid: {caps.layers[Layer.UID].detail}")


def legacy_argv(directory: Path, hide: Sequence[Path]) -> list[str]:
    """The build prefix the arena used before the build sandbox (the control): privileged bubblewrap, uid 0
    with every capability, the whole system visible, *hide* covered by empty tmpfs."""
    bwrap = shutil.which("bwrap")
    assert bwrap is not None
    argv = [bwrap, "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc",
            "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]  # fmt: skip
    for path in hide:
        argv += ["--tmpfs", str(path.resolve())]
    for runtime in sorted(
        {sys.prefix, sys.base_prefix, str(Path(sys.executable).resolve().parent)}
    ):
        argv += ["--ro-bind", runtime, runtime]
    target = str(directory.resolve())
    return [*argv, "--bind", target, target, "--chdir", target, "--"]


def run_legacy(manifest: BotManifest, hide: Sequence[Path]) -> subprocess.CompletedProcess[str]:
    """The build through main's old prefix. Its recursive ``--ro-bind / /`` copies every
    mount of the host, and bwrap fails when one vanishes meanwhile (a bot's sized tmpfs
    under /tmp, unmounted by a test running in parallel): that race is retried."""
    assert manifest.build is not None
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": "/tmp"}
    for _ in range(10):
        done = subprocess.run(
            [*legacy_argv(manifest.directory, hide), *manifest.build],
            cwd=manifest.directory, env=env, capture_output=True, text=True, timeout=60,
            check=False,
        )  # fmt: skip
        if "Unable to apply mount flags" not in done.stderr:
            break
    return done


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP listener on the host's loopback (the referee's port, a local database)."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.1)
    yield server
    server.close()


def make_bot(directory: Path, build_cmd: str, files: dict[str, str]) -> BotManifest:
    directory.mkdir(parents=True)
    (directory / "bot.toml").write_text(
        f'name = "{directory.name}"\nversion = "1"\nlanguage = "python"\n'
        f'run = "python bot.py"\nbuild = {json.dumps(build_cmd)}\n'
    )
    (directory / "bot.py").write_text("from arena.sdk import Bot\n\nBot().run()\n")
    for name, text in files.items():
        (directory / name).write_text(text)
    return load_manifest(directory)


@pytest.fixture
def scene() -> Iterator[dict[str, Path]]:
    """A data directory with a database file, another uid's 0600 secret, a host path to
    write: on the host's disk outside /tmp (the old prefix put a tmpfs on /tmp)."""
    place = Path(tempfile.mkdtemp(prefix="arena-build-test-", dir="/var/tmp"))
    data = place / "data"
    data.mkdir()
    (data / "arena.db").write_text("the database\n")
    secret = place / "secret.txt"
    secret.write_text("private\n")
    secret.chmod(0o600)
    os.chown(secret, 4242, 4242)
    yield {"data": data, "secret": secret, "marker": place / "owned.txt"}
    shutil.rmtree(place, ignore_errors=True)


def hostile(tmp_path: Path, scene: dict[str, Path], port: int, name: str) -> BotManifest:
    args = f"{scene['secret']} {scene['data']} {scene['marker']} {port}"
    return make_bot(tmp_path / name, f"python hostile.py {args}", {"hostile.py": HOSTILE})


def test_hostile_build_gets_nothing_of_the_host(
    tmp_path: Path, scene: dict[str, Path], listener: socket.socket
) -> None:
    require_bwrap_root()
    port = listener.getsockname()[1]
    manifest = hostile(tmp_path, scene, port, "hostile")
    build(manifest, hide=[scene["data"]], network=False, limits=SMALL)
    report = json.loads((manifest.directory / "report.json").read_text())
    assert {k: v[0] for k, v in report.items()} == dict.fromkeys(ATTACKS, "failed"), report
    assert not scene["marker"].exists()
    assert (manifest.directory / "report.json").stat().st_uid == 0  # copied back, ours


def test_control_the_old_build_prefix_owns_the_host(
    tmp_path: Path, scene: dict[str, Path], listener: socket.socket
) -> None:
    """CONTROL: the same build through main's old prefix succeeds at every attack."""
    require_bwrap_root()
    port = listener.getsockname()[1]
    manifest = hostile(tmp_path, scene, port, "hostile")
    done = run_legacy(manifest, [scene["data"]])
    assert done.returncode == 0, done.stderr
    report = json.loads((manifest.directory / "report.json").read_text())
    ok = {k for k, v in report.items() if v[0] == "ok"}
    # read_data: the old prefix did hide the data directory (the one thing it did).
    assert ok == set(ATTACKS) - {"read_data"}, report
    assert scene["marker"].read_text() == "owned"


def test_submit_refuses_a_build_that_steals_and_stores_nothing(
    tmp_path: Path, scene: dict[str, Path]
) -> None:
    """Through the submission function (``arena bot submit``, the dashboard upload)."""
    require_bwrap_root()
    engine = open_database(migrated_sqlite_url(tmp_path / "arena.db"))
    thief = make_bot(tmp_path / "thief", f"cp {scene['secret']} stolen.txt", {})
    with pytest.raises(SubmitError, match="No such file"):  # not even in sight
        submit_bot(engine, thief.directory, scene["data"])
    assert storage.latest_version(engine, "thief") is None
    assert not (thief.directory / "stolen.txt").exists()
    # CONTROL: the old prefix copies the secret.
    assert run_legacy(thief, [scene["data"]]).returncode == 0
    assert (thief.directory / "stolen.txt").read_text() == "private\n"


FORK_BOMB = r"""
import os, time
count = 0
try:
    while count < 600:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        count += 1
except OSError as exc:
    print("stopped after", count, exc)
open("forks.txt", "w").write(str(count))
"""


def test_fork_bomb_is_bounded(tmp_path: Path) -> None:
    require_bwrap_root()
    manifest = make_bot(tmp_path / "bomb", "python bomb.py", {"bomb.py": FORK_BOMB})
    build(manifest, network=False, limits=SMALL)
    forks = int((manifest.directory / "forks.txt").read_text())
    assert forks < SMALL.processes
    # CONTROL: without the limit the same build forks far more.
    done = run_legacy(manifest, [])
    assert done.returncode == 0 and int((manifest.directory / "forks.txt").read_text()) == 600


@pytest.mark.parametrize("where", ["big.bin", "/tmp/big.bin"])
def test_disk_fillers_hit_the_limit(tmp_path: Path, where: str) -> None:
    """The bot's directory and /tmp are bounded (8 MiB here); 32 MiB does not fit."""
    require_bwrap_root()
    fill = f"dd if=/dev/zero of={where} bs=1M count=32"
    manifest = make_bot(tmp_path / "filler", fill, {})
    with pytest.raises(BuildError, match=r"No space left|File too large|failed with exit code"):
        build(manifest, network=False, limits=SMALL)
    assert not (manifest.directory / "big.bin").exists()
    if where == "big.bin":  # CONTROL: the old prefix writes all of it to the host's disk
        assert run_legacy(manifest, []).returncode == 0
        assert (manifest.directory / "big.bin").stat().st_size == 32 << 20


CONNECT = r"""
import json, socket, sys
report = {}
for host, port in json.loads(sys.argv[1]):
    try:
        with socket.create_connection((host, port), timeout=3) as s:
            report[f"{host}:{port}"] = "connected"
    except OSError as exc:
        report[f"{host}:{port}"] = type(exc).__name__
open("net.json", "w").write(json.dumps(report))
"""


def _public_address() -> str | None:
    """This host's address on its default route (not loopback), if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe_socket:
        try:
            probe_socket.connect(("192.0.2.123", 9))
            address = str(probe_socket.getsockname()[0])
        except OSError:
            return None
    return None if address.startswith("127.") else address


@pytest.mark.parametrize("network", [False, True])
def test_host_loopback_is_unreachable_with_or_without_network(
    tmp_path: Path, listener: socket.socket, network: bool
) -> None:
    """The referee's port, a local database, the dashboard: on 127.0.0.1, never reachable
    from a build (nor through slirp's host alias 10.0.2.2). With the network allowed, a
    listener on the host's own address is reachable on port 80 (a registry's port) and
    not on another port."""
    require_bwrap_root()
    if network and shutil.which("slirp4netns") is None:
        missing("slirp4netns is not installed (build network)")
    port = listener.getsockname()[1]
    targets: list[tuple[str, int]] = [("127.0.0.1", port), ("10.0.2.2", port)]
    public = _public_address()
    servers = []
    with contextlib.suppress(OSError):  # a registry's port on loopback: slirp's own block
        servers.append(socket.create_server(("127.0.0.1", 80)))
        targets += [("127.0.0.1", 80), ("10.0.2.2", 80)]
    if public is not None:
        other = socket.create_server((public, 0))
        servers.append(other)
        targets.append((public, other.getsockname()[1]))
        public_port = other.getsockname()[1]
        try:
            servers.append(socket.create_server((public, 80)))
            targets.append((public, 80))
        except OSError:
            pass  # port 80 taken here: the positive check is left out
    try:
        manifest = make_bot(
            tmp_path / "net", f"python connect.py '{json.dumps(targets)}'", {"connect.py": CONNECT}
        )
        build(manifest, network=network, limits=SMALL)
        report = json.loads((manifest.directory / "net.json").read_text())
    finally:
        for server in servers:
            server.close()
    for host, target_port in targets:
        if host in ("127.0.0.1", "10.0.2.2"):
            assert report[f"{host}:{target_port}"] != "connected", report
    if public is not None:
        assert report[f"{public}:{public_port}"] != "connected"  # not a registry port
        if f"{public}:80" in report:
            assert report[f"{public}:80"] == ("connected" if network else "PermissionError")


def test_network_setting_is_read_and_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(NETWORK_ENV, raising=False)
    assert network_allowed() is False  # default off
    monkeypatch.setenv(NETWORK_ENV, "on")
    assert network_allowed() is True
    with pytest.raises(ValueError, match=NETWORK_ENV):
        network_allowed("maybe")


def test_js_sample_bot_builds_with_the_network_allowed(tmp_path: Path) -> None:
    """A normal build still works: ``npm ci`` from the registry, in the sandbox."""
    require_bwrap_root()
    if shutil.which("npm") is None or shutil.which("slirp4netns") is None:
        missing("npm and slirp4netns are needed for the JavaScript sample bot's build")
    try:
        socket.getaddrinfo("registry.npmjs.org", 443)
    except OSError:
        missing("the npm registry is not reachable from this machine")
    target = tmp_path / "js_random_bot"
    shutil.copytree(JS_BOT, target, ignore=shutil.ignore_patterns("node_modules", ".arena-*"))
    manifest = load_manifest(target)
    build(manifest, timeout_s=300, network=True)
    assert (target / "node_modules" / "@grpc" / "grpc-js" / "package.json").is_file()
    # Offline (the default), the same build fails: the registry is out of reach.
    shutil.rmtree(target / "node_modules")
    with pytest.raises(BuildError, match=r"failed with exit code|took longer"):
        build(manifest, timeout_s=8, network=False)


def test_without_bubblewrap_a_build_gets_landlock_seccomp_and_limits(
    tmp_path: Path, scene: dict[str, Path], listener: socket.socket
) -> None:
    """In a container (no bubblewrap): Landlock lets the build write only its private
    copy and TMPDIR, seccomp takes inet sockets and mount, rlimits and the disk watchdog
    bound it. It may still run as root there (without capabilities) when the interpreter
    is not reachable by a bot uid, so the uid checks are left out."""
    caps = probe()
    for layer in (Layer.LANDLOCK, Layer.SECCOMP):
        if not caps.layers[layer].available:
            missing(f"{layer.value}: {caps.layers[layer].detail}")
    config = SandboxConfig(disable=frozenset({Layer.BWRAP}))
    port = listener.getsockname()[1]
    manifest = hostile(tmp_path, scene, port, "hostile")
    build(manifest, network=False, limits=SMALL, sandbox=config)
    report = json.loads((manifest.directory / "report.json").read_text())
    contained = ("remount", "host_write", "read_secret", "read_data", "list_root", "loopback")
    assert {k: report[k][0] for k in contained} == dict.fromkeys(contained, "failed"), report
    assert not scene["marker"].exists()
    filler = make_bot(tmp_path / "filler", "dd if=/dev/zero of=big.bin bs=1M count=64", {})
    with pytest.raises(BuildError, match=r"wrote more than|File too large|exit code"):
        build(filler, network=False, limits=SMALL, sandbox=config)
    assert not (filler.directory / "big.bin").exists()
    # The network allowed without bubblewrap: the host's, TCP to registry ports only
    # (Landlock), so the referee's port on loopback stays out of reach; strict refuses,
    # and so does best-effort without Landlock's TCP rules.
    targets = json.dumps([["127.0.0.1", port]])
    net = make_bot(tmp_path / "net", f"python connect.py '{targets}'", {"connect.py": CONNECT})
    build(net, network=True, limits=SMALL, sandbox=config)
    assert json.loads((net.directory / "net.json").read_text()) == {
        f"127.0.0.1:{port}": "PermissionError"
    }
    for refusing in (
        SandboxConfig(SandboxMode.STRICT, disable=frozenset({Layer.BWRAP})),
        SandboxConfig(disable=frozenset({Layer.BWRAP, Layer.LANDLOCK})),  # no port rules
    ):
        with pytest.raises(BuildError, match=r"strict sandbox|cannot be kept off the host"):
            build(net, network=True, limits=SMALL, sandbox=refusing)


def test_time_and_memory_are_bounded(tmp_path: Path) -> None:
    """A build that sleeps past its time is killed with everything it started; one that
    allocates past its memory fails (RLIMIT_DATA, and the cgroup where there is one)."""
    require_bwrap_root()
    sleeper = make_bot(tmp_path / "sleeper", "sh -c 'sleep 300 & sleep 300'", {})
    with pytest.raises(BuildError, match="took longer than 2 s"):
        build(sleeper, timeout_s=2, network=False, limits=SMALL)
    assert leftovers(sleeper.directory) == []
    hog = make_bot(tmp_path / "hog", "python -c 'x = bytearray(1 << 30)'", {})
    with pytest.raises(BuildError, match="MemoryError"):
        build(hog, network=False, limits=replace(SMALL, memory_bytes=256 << 20))
    # CONTROL: the old prefix has no memory limit.
    assert run_legacy(hog, []).returncode == 0
