"""docker/: every Dockerfile passes hadolint, the compose file passes ``docker compose
config`` and keeps its hardened flags (neither needs a Docker engine), and the entrypoint
script does what it says, run with bash outside Docker against stub commands."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCKER = ROOT / "docker"
ENTRYPOINT = DOCKER / "entrypoint.sh"
BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    """A dev tool from the venv (or PATH); fail on CI, skip elsewhere, if missing."""
    found = shutil.which(name, path=f"{BIN}:{os.environ.get('PATH', '')}")
    if found is None:
        message = f"{name} is not installed (pip install -e '.[dev]')"
        if os.environ.get("CI") == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return found


@pytest.mark.parametrize("dockerfile", sorted(DOCKER.glob("*.Dockerfile")), ids=lambda p: p.name)
def test_hadolint(dockerfile: Path) -> None:
    done = subprocess.run([tool("hadolint"), str(dockerfile)], capture_output=True, text=True,
                          check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_there_are_both_images() -> None:
    assert {p.name for p in DOCKER.glob("*.Dockerfile")} == {
        "arena.Dockerfile",
        "dashboard.Dockerfile",
    }


def test_compose_config_is_valid_and_hardened() -> None:
    compose = tool("docker-compose")
    done = subprocess.run(
        [compose, "-f", str(DOCKER / "compose.yaml"), "config", "--format", "json"],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    services = json.loads(done.stdout)["services"]
    assert {"db", "arena", "dashboard", "api"} <= set(services)
    assert services["db"]["image"].startswith("postgres:")
    for name in ("arena", "dashboard", "api"):
        service = services[name]
        assert service["environment"]["ARENA_DB"].startswith("postgresql+psycopg://")
        assert service["depends_on"]["db"]["condition"] == "service_healthy"
        assert service["read_only"] is True
        assert service["cap_drop"] == ["ALL"]
        assert "no-new-privileges:true" in service["security_opt"]
        assert service["pids_limit"] > 0 and int(service["mem_limit"]) > 0 and service["cpus"] > 0
    assert set(services["arena"]["cap_add"]) == {"SETUID", "SETGID", "CHOWN", "KILL"}
    # The API builds and smoke-tests bots: the bot sandbox's capabilities, no more.
    assert set(services["api"]["cap_add"]) == set(services["arena"]["cap_add"])
    assert "cap_add" not in services["dashboard"]


def test_the_dashboard_is_reached_only_through_its_proxy_which_alone_it_trusts() -> None:
    compose = tool("docker-compose")
    done = subprocess.run(
        [compose, "-f", str(DOCKER / "compose.yaml"), "config", "--format", "json"],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    services = json.loads(done.stdout)["services"]
    assert set(services) == {"db", "arena", "dashboard", "api", "proxy"}
    dashboard, api, proxy = services["dashboard"], services["api"], services["proxy"]
    assert "ports" not in dashboard and "ports" not in api  # no way around the proxy
    assert [port["published"] for port in proxy["ports"]] == ["8501"]
    trusted = dashboard["environment"]["ARENA_TRUSTED_PROXIES"]
    assert trusted == proxy["networks"]["default"]["ipv4_address"]
    assert api["environment"]["ARENA_TRUSTED_PROXIES"] == trusted
    assert api["command"] == ["api", "--host", "0.0.0.0", "--port", "8000"]
    assert "/api/v1/health" in " ".join(api["healthcheck"]["test"])
    assert dashboard["environment"]["ARENA_PUBLIC_URL"].startswith("http")
    assert proxy["read_only"] is True and proxy["cap_drop"] == ["ALL"]
    assert any(v["target"] == "/etc/nginx/nginx.conf" for v in proxy["volumes"])


# ---------------------------------------------------------------------------------------
# The entrypoint, with stub commands
# ---------------------------------------------------------------------------------------


def stub(directory: Path, name: str, body: str) -> None:
    path = directory / name
    path.write_text("#!/usr/bin/env bash\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


@pytest.fixture
def stubs(tmp_path: Path) -> Path:
    """``arena`` logs its arguments; ``python`` fails the database check
    ``$DB_FAILURES`` times, then succeeds, and lists the tournaments in ``$PENDING``;
    ``sleep`` only counts."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls"
    stub(bin_dir, "arena", f'printf "arena %s\\n" "$*" >> {log}\n')
    stub(bin_dir, "sleep", f'printf "sleep %s\\n" "$*" >> {log}\n')
    stub(
        bin_dir,
        "python",
        f"""case "$2" in
  *create_engine*)
    n=$(cat {tmp_path}/db-tries 2>/dev/null || echo 0); echo $((n + 1)) > {tmp_path}/db-tries
    [ "$n" -ge "${{DB_FAILURES:-0}}" ] ;;
  *list_tournaments*) printf "%b" "${{PENDING:-}}" ;;
  *) exit 99 ;;
esac
""",
    )
    return tmp_path


def entrypoint(stubs: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {
        "PATH": f"{stubs / 'bin'}:/usr/bin:/bin",
        "ARENA_CGROUP_ROOT": str(stubs / "no-cgroup"),
        **env,
    }
    return subprocess.run(["bash", str(ENTRYPOINT), *args], capture_output=True, text=True,
                          env=environment, check=False, timeout=30)  # fmt: skip


def calls(stubs: Path) -> list[str]:
    log = stubs / "calls"
    return log.read_text().splitlines() if log.exists() else []


def test_worker_waits_for_postgres_then_runs_every_unfinished_tournament(stubs: Path) -> None:
    done = entrypoint(
        stubs,
        "worker",
        ARENA_DB="postgresql+psycopg://arena:pw@db/arena",
        DB_FAILURES="2",
        PENDING="alpha\\nbeta gamma\\n",
        ARENA_WORKER_ONCE="1",
    )
    assert done.returncode == 0, done.stderr
    assert calls(stubs) == [
        "sleep 1",
        "sleep 1",
        "arena doctor",
        "arena tournament run alpha",
        "arena tournament run beta gamma",
    ]
    assert "database ready after 2s" in done.stderr
    assert "cgroup: not delegable here" in done.stderr


def test_worker_polls_when_there_is_nothing_to_do(stubs: Path) -> None:
    # Without ARENA_WORKER_ONCE the worker sleeps and polls for ever; `sleep` failing the
    # second time ends the loop (set -e), which shows the poll interval.
    stub(stubs / "bin", "sleep", f'printf "sleep %s\\n" "$*" >> {stubs / "calls"}; exit 3\n')
    done = entrypoint(stubs, "worker", ARENA_POLL_S="7")
    assert done.returncode == 3
    assert calls(stubs) == ["arena doctor", "sleep 7"]


def test_gives_up_when_the_database_never_answers(stubs: Path) -> None:
    done = entrypoint(
        stubs, "doctor", ARENA_DB="postgresql://x@db/arena", DB_FAILURES="99", ARENA_DB_WAIT_S="3"
    )
    assert done.returncode == 1
    assert "did not accept connections within 3s" in done.stderr
    assert calls(stubs) == ["sleep 1"] * 3


def test_other_commands_go_to_arena_or_run_as_is(stubs: Path) -> None:
    assert entrypoint(stubs, "match", "a", "b", "c", ARENA_DB="sqlite:///x.db").returncode == 0
    assert entrypoint(stubs, "dashboard", ARENA_DASHBOARD_PORT="9000").returncode == 0
    assert calls(stubs) == ["arena match a b c", "arena dashboard --host 0.0.0.0 --port 9000"]
    done = entrypoint(stubs, "/bin/echo", "as", "is")
    assert done.stdout == "as is\n"


def test_worker_delegates_a_writable_cgroup_v2(stubs: Path) -> None:
    root = stubs / "cgroup"
    root.mkdir()
    (root / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (root / "cgroup.subtree_control").write_text("")
    (root / "cgroup.procs").write_text("1\n42\n")
    self_cgroup = stubs / "self-cgroup"
    self_cgroup.write_text("0::/\n")
    done = entrypoint(stubs, "worker", ARENA_CGROUP_ROOT=str(root),
                      ARENA_SELF_CGROUP=str(self_cgroup), ARENA_WORKER_ONCE="1")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (root / "init" / "cgroup.procs").read_text() == "42\n"  # every pid was moved
    assert (root / "cgroup.subtree_control").read_text() == "+memory +pids +cpu\n"
    assert "cgroup: bot cgroups get: +memory +pids +cpu" in done.stderr


def test_no_delegation_outside_the_root_of_a_cgroup_namespace(stubs: Path) -> None:
    root = stubs / "cgroup"
    root.mkdir()
    (root / "cgroup.controllers").write_text("memory pids\n")
    (root / "cgroup.subtree_control").write_text("")
    (root / "cgroup.procs").write_text("1\n")
    self_cgroup = stubs / "self-cgroup"
    self_cgroup.write_text("0::/system.slice/docker-1234.scope\n")  # the host's hierarchy
    done = entrypoint(stubs, "worker", ARENA_CGROUP_ROOT=str(root),
                      ARENA_SELF_CGROUP=str(self_cgroup), ARENA_WORKER_ONCE="1")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not (root / "init").exists()
    assert (root / "cgroup.subtree_control").read_text() == ""
