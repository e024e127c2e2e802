"""Build both container images of docker/ with podman, and check them without a runtime.

Machines without a Docker engine can still build the images: Debian's ``podman`` builds
with ``--isolation chroot`` (no OCI runtime, no daemon), from a stand-in for the real base
image ``python:3.11-slim-bookworm``, which these machines cannot pull. The stand-in is made
with Debian's ``mmdebstrap`` (minbase, plus python3.11, python3-pip and python3-venv) and
given this machine's CA certificates and pip configuration, so that the images' ``pip
install`` reaches the same package index as this machine does. It is kept in podman's
storage under a tag derived from a hash of everything it is made from, and remade only when
one of those changes.

``podman run`` needs an OCI runtime, which these machines refuse (a refused rlimit), so each
image is checked without one: a container is created (not started), its root filesystem is
mounted, and the image's entry point runs in a chroot of it, with the image's environment,
working directory and user: ``--version``, ``doctor`` and a short ``simulate`` in the arena
image; ``--version``, ``streamlit version`` and the dashboard served and answering its health
check in the dashboard image. What this cannot check (the real base image, compose
networking, the hardened run flags) is listed in docs/containers.md.

One line per step; a failed step ends the script with one line naming the step, its last
meaningful output and the full log (under build/images/). Needs root, ``podman`` and
``mmdebstrap`` (``.ci/run`` installs them). Standard library only.

Usage: ``python3 scripts/images/build.py [--only arena|dashboard] [--skip-checks]``
"""

from __future__ import annotations

import argparse
import ast
import configparser
import contextlib
import hashlib
import io
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
LOG_DIR: Final = ROOT / "build" / "images"

RECIPE_VERSION: Final = "1"
"""Bump to remake the stand-in when the way it is made changes beyond its inputs below."""
SUITE: Final = "bookworm"
MIRRORS: Final = (
    "deb http://deb.debian.org/debian bookworm main",
    "deb http://deb.debian.org/debian bookworm-updates main",
    "deb http://deb.debian.org/debian-security bookworm-security main",
)
"""The Debian sources of the real python:3.11-slim-bookworm image."""
PACKAGES: Final = ("python3.11", "python3-pip", "python3-venv", "ca-certificates")
BASE_REPOSITORY: Final = "localhost/arena952/python-standin"
IMAGES: Final = {
    "arena": ROOT / "docker" / "arena.Dockerfile",
    "dashboard": ROOT / "docker" / "dashboard.Dockerfile",
}
IMAGE_TAG: Final = "check"
CA_BUNDLE: Final = Path("/etc/ssl/certs/ca-certificates.crt")
LOCAL_CA_DIR: Final = Path("/usr/local/share/ca-certificates")
PIP_CONF_IN_IMAGE: Final = "/etc/pip.conf"
PIP_FILE_OPTIONS: Final = frozenset({"cert", "client-cert", "constraint", "requirement"})
"""pip options whose value is a file: copied into the stand-in at the same path."""
PIP_LOCATION_OPTIONS: Final = frozenset({"find-links", "index-url", "extra-index-url"})
"""pip options whose values may be local directories: bound into each build, read-only."""
PIP_REACH_OPTIONS: Final = frozenset({
    "index-url", "extra-index-url", "find-links", "no-index", "cert", "client-cert",
    "trusted-host", "proxy", "timeout", "default-timeout", "retries", "constraint",
})  # fmt: skip
"""The pip options the stand-in takes from this machine: where pip looks for packages,
what it trusts, how long it waits, and the versions it must keep to. Others (a required
virtualenv, ``user``, quietness) would change how the images' ``pip install`` behaves, and
would remake the stand-in on every change of this shell's PIP_* variables."""
DASHBOARD_START_S: Final = 120.0
"""How long the dashboard may take to answer in the check (it migrates a new database)."""


class StepFailed(Exception):
    """A step failed; the message is the one line the user sees."""


@dataclass
class PipSettings:
    """The pip configuration this machine's pip uses (its files and PIP_* variables),
    as one configuration file for the stand-in."""

    sections: dict[str, dict[str, str]] = field(default_factory=dict)

    def render(self) -> str:
        """The settings as a pip.conf (deterministic: sorted, so the hash is stable)."""
        parser = configparser.ConfigParser(interpolation=None)
        for section in sorted(self.sections):
            parser[section] = dict(sorted(self.sections[section].items()))
        text = io.StringIO()
        text.write("# This machine's pip configuration (scripts/images/build.py).\n")
        parser.write(text)
        return text.getvalue()

    def files(self) -> list[Path]:
        """The files the settings name (CA bundles, constraints): the stand-in needs them."""
        found = {
            Path(value)
            for options in self.sections.values()
            for option, value in options.items()
            if option in PIP_FILE_OPTIONS and value.startswith("/")
        }
        return sorted(found)

    def directories(self) -> list[Path]:
        """The local directories the settings name as indexes or wheel folders (``file://``
        URLs or absolute paths) that exist here: each build gets them read-only."""
        found: set[Path] = set()
        for options in self.sections.values():
            for option, value in options.items():
                if option not in PIP_LOCATION_OPTIONS:
                    continue
                for location in value.split():
                    path = Path(location.removeprefix("file://").rstrip("/"))
                    if not path.is_absolute() or not path.is_dir():
                        continue
                    # A PEP 503 index at <root>/simple links its files outside simple/.
                    found.add(path.parent if path.name == "simple" else path)
        return sorted(found)


def parse_pip_config_list(listing: str) -> PipSettings:
    """Parse ``pip config list`` (``section.option='value'`` lines; ``:env:.option`` for a
    PIP_* variable, which overrides the files' value as it does for pip), keeping only
    :data:`PIP_REACH_OPTIONS`."""
    settings = PipSettings()
    from_environment: dict[str, str] = {}
    for line in listing.splitlines():
        name, sep, quoted = line.partition("=")
        if not sep or "." not in name:
            continue
        section, _, option = name.rpartition(".")
        if option not in PIP_REACH_OPTIONS:
            continue
        try:
            value = str(ast.literal_eval(quoted.strip()))  # pip prints repr(value)
        except (ValueError, SyntaxError):
            value = quoted.strip()
        if section == ":env:":
            from_environment[option] = value
        else:
            settings.sections.setdefault(section, {})[option] = value
    settings.sections.setdefault("global", {}).update(from_environment)
    return settings


def host_pip_settings() -> PipSettings:
    """This machine's pip configuration, as its own pip reads it."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        return PipSettings()
    return parse_pip_config_list(done.stdout)


def local_ca_certificates() -> list[Path]:
    """This machine's own CA certificates (added to Debian's): kept in the stand-in at the
    same place, so that a rebuild of the bundle inside a build keeps them."""
    if not LOCAL_CA_DIR.is_dir():
        return []
    return sorted(path for path in LOCAL_CA_DIR.rglob("*.crt") if path.is_file())


def base_key(pip_conf: str, copied_files: Sequence[Path]) -> str:
    """A hash of everything the stand-in is made from: remade when any of it changes."""
    digest = hashlib.sha256()
    for part in (RECIPE_VERSION, SUITE, *MIRRORS, *PACKAGES, pip_conf):
        digest.update(part.encode() + b"\0")
    for path in copied_files:
        digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


# --- running commands -------------------------------------------------------------------


GENERIC_FAILURES: Final = (
    "building at step",  # podman: which step failed, not why
    "subprocess-exited-with-error",  # pip: a summary of the line above it
    "this error originates from a subprocess",
    "subprocess exited with status",
)


def last_meaningful_line(text: str) -> str:
    """The line that most likely says why a command failed: the last of pip's ``ERROR:``
    or apt's ``E:`` lines, else the last line that mentions an error and is not a generic
    summary, else the last non-empty line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith(("ERROR:", "E: ")):
            return line
    for line in reversed(lines):
        lowered = line.lower()
        if any(word in lowered for word in ("error", "failed", "cannot")) and not any(
            generic in lowered for generic in GENERIC_FAILURES
        ):
            return line
    return lines[-1] if lines else "(no output)"


def run_logged(step: str, command: Sequence[str], *, log_name: str, timeout: float = 900) -> str:
    """Run *command*, its output into build/images/*log_name* (each line stamped with the
    seconds since the start: where a slow build spends its time); its output, or StepFailed."""
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    log = LOG_DIR / log_name
    started = time.monotonic()
    lines: list[str] = []
    with log.open("w") as out:
        out.write("$ " + shlex.join(command) + "\n")
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            errors="replace", start_new_session=True,
        )  # fmt: skip
        timer = threading.Timer(timeout, os.killpg, (process.pid, signal.SIGKILL))
        timer.start()
        try:
            assert process.stdout is not None
            for line in process.stdout:
                lines.append(line)
                out.write(f"[{time.monotonic() - started:7.1f}] {line}")
                out.flush()
            returncode = process.wait()
        finally:
            timed_out = not timer.is_alive()
            timer.cancel()
            if process.poll() is None:  # interrupted: the command has a session of its own
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
    output = "".join(lines)
    if returncode != 0:
        if timed_out:
            raise StepFailed(f"{step}: no end after {timeout:.0f} s (log: {log})")
        reason = last_meaningful_line(output)
        raise StepFailed(f"{step}: {reason} (exit {returncode}; log: {log})")
    return output


def podman(*arguments: str) -> subprocess.CompletedProcess[str]:
    """A quick podman query (not logged)."""
    return subprocess.run(["podman", *arguments], capture_output=True, text=True, check=False)


@contextlib.contextmanager
def step(name: str) -> Iterator[None]:
    """Print ``==> name`` and, when it ends, ``ok`` with its duration."""
    print(f"==> {name} ...", flush=True)
    started = time.monotonic()
    yield
    print(f"    ok ({time.monotonic() - started:.1f} s)", flush=True)


# --- the stand-in base image ------------------------------------------------------------


def ensure_base() -> tuple[str, list[Path]]:
    """The stand-in's tag (made if missing) and the directories each build needs bound."""
    settings = host_pip_settings()
    pip_conf = settings.render()
    copied = [CA_BUNDLE, *local_ca_certificates(), *settings.files()]
    copied = [path for path in dict.fromkeys(copied) if path.is_file()]
    tag = f"{BASE_REPOSITORY}:3.11-{SUITE}-{base_key(pip_conf, copied)}"
    if podman("image", "exists", tag).returncode == 0:
        print(f"==> base image: reusing {tag}", flush=True)
        return tag, settings.directories()
    with step(f"base image: mmdebstrap {SUITE} + {', '.join(PACKAGES)} -> {tag}"):
        with tempfile.TemporaryDirectory(prefix="arena-standin-") as scratch:
            archive = Path(scratch) / "rootfs.tar"
            conf = Path(scratch) / "pip.conf"
            conf.write_text(pip_conf)
            hooks = [f'cp {shlex.quote(str(conf))} "$1{PIP_CONF_IN_IMAGE}"']
            for path in copied:
                target = shlex.quote(str(path))
                hooks.append(f'mkdir -p "$1"{shlex.quote(str(path.parent))}')
                hooks.append(f'cp {target} "$1"{target}')
            hooks += [
                'rm -f "$1"/usr/lib/python3*/EXTERNALLY-MANAGED',
                'ln -sf /usr/bin/python3 "$1"/usr/local/bin/python',
                'ln -sf /usr/bin/python3 "$1"/usr/local/bin/python3',
                'ln -sf /usr/bin/pip3 "$1"/usr/local/bin/pip',
                'ln -sf /usr/bin/pip3 "$1"/usr/local/bin/pip3',
            ]
            run_logged(
                "base image (mmdebstrap)",
                [
                    "mmdebstrap", "--variant=minbase", "--include=" + ",".join(PACKAGES),
                    *(f"--customize-hook={hook}" for hook in hooks),
                    SUITE, str(archive), *MIRRORS,
                ],
                log_name="base-mmdebstrap.log",
            )  # fmt: skip
            run_logged(
                "base image (podman import)",
                [
                    "podman", "import",
                    "--change", "ENV LANG=C.UTF-8",
                    "--change", "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                    "--change", 'CMD ["python3"]',
                    str(archive), tag,
                ],
                log_name="base-import.log",
            )  # fmt: skip
        stale = podman("images", "--format", "{{.Repository}}:{{.Tag}}", BASE_REPOSITORY)
        for old in stale.stdout.split():
            if old != tag:
                podman("rmi", old)
    return tag, settings.directories()


# --- the images ---------------------------------------------------------------------------


def image_tag(name: str) -> str:
    return f"localhost/arena952/{name}:{IMAGE_TAG}"


def build_image(name: str, base: str, bound: Sequence[Path]) -> None:
    """``podman build`` of docker/<name>.Dockerfile from the stand-in (layers cached)."""
    dockerfile = IMAGES[name]
    with step(f"build {name}: podman build --from {base} -f {os.path.relpath(dockerfile, ROOT)}"):
        run_logged(
            f"build {name}",
            [
                "podman", "build", "--isolation", "chroot", "--layers",
                "--from", base, "--file", str(dockerfile), "--tag", image_tag(name),
                *(f"--volume={path}:{path}:ro" for path in bound),
                str(ROOT),
            ],
            log_name=f"build-{name}.log",
        )  # fmt: skip
    subprocess.run(["podman", "image", "prune", "--force"], capture_output=True, check=False)


@dataclass(frozen=True)
class ImageConfig:
    """What ``docker run`` would take from the image: environment, directory, user, entry."""

    environment: dict[str, str]
    working_dir: str
    user: str
    entrypoint: list[str]


def image_config(tag: str) -> ImageConfig:
    done = podman("image", "inspect", "--format", "{{json .Config}}", tag)
    if done.returncode != 0:
        raise StepFailed(f"inspect {tag}: {last_meaningful_line(done.stderr)}")
    config = json.loads(done.stdout)
    environment = dict(item.split("=", 1) for item in config.get("Env") or [])
    return ImageConfig(
        environment=environment,
        working_dir=config.get("WorkingDir") or "/",
        user=config.get("User") or "0",
        entrypoint=list(config.get("Entrypoint") or []),
    )


@contextlib.contextmanager
def mounted_container(tag: str) -> Iterator[Path]:
    """A container of *tag*, created but never started, its root filesystem mounted
    (writable, as a running container's is); removed afterwards."""
    created = podman("create", "--network=none", tag)
    if created.returncode != 0:
        raise StepFailed(f"podman create {tag}: {last_meaningful_line(created.stderr)}")
    container = created.stdout.strip()
    try:
        mount = podman("mount", container)
        if mount.returncode != 0:
            raise StepFailed(f"podman mount {tag}: {last_meaningful_line(mount.stderr)}")
        yield Path(mount.stdout.strip())
    finally:
        podman("umount", container)
        podman("rm", "--force", "--volumes", container)


def chroot_command(root: Path, config: ImageConfig, arguments: Sequence[str]) -> list[str]:
    """The image's entry point with *arguments*, in a chroot of *root*: in a mount namespace
    of its own with /proc, /dev and /sys (gone when it ends), with the image's environment
    only, its working directory and its user."""
    user = config.user if ":" in config.user else f"{config.user}:0"
    environment = [f"{key}={value}" for key, value in sorted(config.environment.items())]
    inner = (
        'set -e; r="$1"; shift; mount -t proc proc "$r/proc"; '
        'mount --rbind /dev "$r/dev"; mount --rbind /sys "$r/sys"; exec "$@"'
    )
    return [
        "unshare", "--mount", "--propagation", "private", "--fork", "--",
        "sh", "-c", inner, "chroot-check", str(root),
        "chroot", f"--userspec={user}", str(root),
        "/usr/bin/env", "-i", *environment,
        "sh", "-c", 'cd "$0" && exec "$@"', config.working_dir,
        *config.entrypoint, *arguments,
    ]  # fmt: skip


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def check_cli(name: str, root: Path, config: ImageConfig) -> None:
    """What both images' entry point must do: ``--version``, ``doctor`` and a short
    ``simulate`` (as the image's user, with the image's environment)."""

    def run(label: str, *arguments: str) -> str:
        with step(f"check {name}: {label}"):
            return run_logged(
                f"check {name}: {label}",
                chroot_command(root, config, arguments),
                log_name=f"check-{name}-{arguments[0].lstrip('-')}.log", timeout=600,
            )  # fmt: skip

    print(f"    {last_meaningful_line(run('arena --version', '--version'))}")
    doctor = run("arena doctor", "doctor")
    for line in doctor.splitlines():
        if line.startswith("bots here:"):
            print(f"    {line.strip()}")
    out = "/tmp/image-check-simulate"
    run("arena simulate (3 games)", "simulate", "--games", "3", "--out", out)
    records = sorted(path.name for path in (root / out.lstrip("/")).glob("*.json"))
    if len(records) != 3:
        raise StepFailed(f"check {name}: simulate wrote {records}, expected 3 game records")
    print(f"    game records: {', '.join(records)}")


def check_arena(root: Path, config: ImageConfig) -> None:
    check_cli("arena", root, config)


def check_dashboard(root: Path, config: ImageConfig) -> None:
    check_cli("dashboard", root, config)
    plain = ImageConfig(config.environment, config.working_dir, config.user, [])
    with step("check dashboard: streamlit version"):
        streamlit = run_logged(
            "check dashboard: streamlit version",
            chroot_command(root, plain, ["streamlit", "version"]),
            log_name="check-dashboard-streamlit.log", timeout=600,
        )  # fmt: skip
    print(f"    {last_meaningful_line(streamlit)}")
    with step("check dashboard: its entry point serves, and answers /_stcore/health"):
        serve_dashboard(root, config)


def serve_dashboard(root: Path, config: ImageConfig) -> None:
    """Start the image's ``dashboard`` command (on a free port of this machine's network:
    a chroot shares it), wait for its health check, then stop it."""
    port = free_port()
    environment = {**config.environment, "ARENA_DASHBOARD_PORT": str(port)}
    command = chroot_command(root, ImageConfig(environment, config.working_dir, config.user,
                                               config.entrypoint), ["dashboard"])  # fmt: skip
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    log = LOG_DIR / "check-dashboard-serve.log"
    with log.open("w") as out:
        out.write("$ " + shlex.join(command) + "\n")
        out.flush()
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                  start_new_session=True)  # fmt: skip
        try:
            answer = wait_for_health(port, server)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, 15)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, 9)
                server.wait()
    if answer is None:
        reason = last_meaningful_line(log.read_text(errors="replace"))
        raise StepFailed(f"check dashboard: no answer on port {port}: {reason} (log: {log})")
    print(f"    http://127.0.0.1:{port}/_stcore/health answered {answer!r}")


def wait_for_health(port: int, server: subprocess.Popen[bytes]) -> str | None:
    """The health check's answer once the dashboard gives one; None if it ends first or
    does not answer within DASHBOARD_START_S."""
    import urllib.error  # noqa: PLC0415 (only this check needs it)
    import urllib.request  # noqa: PLC0415

    deadline = time.monotonic() + DASHBOARD_START_S
    while time.monotonic() < deadline and server.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                return str(r.read().decode().strip())
        except (urllib.error.URLError, OSError):
            time.sleep(0.5)
    return None


CHECKS: Final = {"arena": check_arena, "dashboard": check_dashboard}


def check_image(name: str) -> None:
    config = image_config(image_tag(name))
    with mounted_container(image_tag(name)) as root:
        CHECKS[name](root, config)


# --- main ---------------------------------------------------------------------------------


def preflight() -> None:
    """Fail with one line if this machine cannot build: tools missing, not root."""
    missing = [
        tool for tool in ("podman", "mmdebstrap", "unshare", "chroot") if not shutil.which(tool)
    ]
    if missing:
        raise StepFailed(
            f"missing {', '.join(missing)}: apt-get install podman mmdebstrap (.ci/run does)"
        )
    if os.geteuid() != 0:
        raise StepFailed("needs root (podman's storage, mmdebstrap and chroot): run with sudo")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(IMAGES), action="append",
                        help="build (and check) only this image; repeatable")  # fmt: skip
    parser.add_argument("--skip-checks", action="store_true",
                        help="build only; no chroot checks")  # fmt: skip
    options = parser.parse_args(argv)
    names = options.only or sorted(IMAGES)
    started = time.monotonic()
    try:
        preflight()
        base, bound = ensure_base()
        for name in names:
            build_image(name, base, bound)
            if not options.skip_checks:
                check_image(name)
    except StepFailed as failure:
        print(f"error: {failure}", file=sys.stderr, flush=True)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    done = "built" if options.skip_checks else "built and checked"
    print(f"==> images {done}: {', '.join(names)} ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
