"""The container images' build machinery, without building: docker/dependencies.py (the
requirements of the images' shared dependency layer), the shared first steps of both
Dockerfiles, .dockerignore, and scripts/images/build.py's pure parts (the pip settings it
gives the stand-in base image, the key that decides when the stand-in is remade, the line
a failed step is reported with).

The images themselves are built and checked by ``scripts/images/build.py``, a step of
``.ci/run`` (it needs root, podman and mmdebstrap, and minutes): docs/containers.md.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCKER = ROOT / "docker"


def load(path: Path) -> ModuleType:
    """A script (not a package module) imported by its path."""
    spec = importlib.util.spec_from_file_location(path.stem + "_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


dependencies = load(DOCKER / "dependencies.py")
build = load(ROOT / "scripts" / "images" / "build.py")

PROJECT = {
    "name": "arena952",
    "dependencies": ["click>=8.1", "rich>=13"],
    "optional-dependencies": {
        "ray": ["ray==2.60.*"],
        "dev": ["pytest>=8", "arena952[ray]"],
        "all": ["arena952[dev,ray]", "click>=8.1"],
    },
}


# --- docker/dependencies.py -------------------------------------------------------------


def test_no_extra_gives_the_dependencies_only() -> None:
    assert dependencies.requirements(PROJECT, []) == ["click>=8.1", "rich>=13"]
    assert dependencies.requirements(PROJECT, [""]) == ["click>=8.1", "rich>=13"]


def test_an_extra_adds_its_requirements() -> None:
    assert dependencies.requirements(PROJECT, ["ray"]) == ["click>=8.1", "rich>=13", "ray==2.60.*"]


def test_a_self_reference_is_expanded_never_left_for_an_index() -> None:
    found = dependencies.requirements(PROJECT, ["all"])
    assert found == ["click>=8.1", "rich>=13", "pytest>=8", "ray==2.60.*"]
    assert not any(line.startswith("arena952") for line in found)


def test_control_a_self_reference_of_another_name_is_kept() -> None:
    """Control: only the project's own name is expanded; another package's extra stays."""
    project = {**PROJECT, "dependencies": ["psycopg[binary]>=3.2"]}
    assert dependencies.requirements(project, []) == ["psycopg[binary]>=3.2"]


def test_an_unknown_extra_is_one_line_naming_the_known_ones() -> None:
    with pytest.raises(SystemExit) as refused:
        dependencies.requirements(PROJECT, ["rya"])
    assert str(refused.value) == "error: no extra 'rya' in pyproject.toml (known: all, dev, ray)"


def test_the_real_pyproject_gives_every_dependency_and_each_extra() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert dependencies.requirements(project, []) == project["dependencies"]
    ray = dependencies.requirements(project, ["ray"])
    assert ray[: len(project["dependencies"])] == project["dependencies"]
    assert set(project["optional-dependencies"]["ray"]) <= set(ray)


# --- the Dockerfiles ----------------------------------------------------------------------


def instructions(dockerfile: Path) -> list[str]:
    """The Dockerfile's instructions (continuation lines joined, comments dropped): what
    the build cache compares."""
    joined = re.sub(r"\\\n\s*", " ", dockerfile.read_text())
    lines = [line.strip() for line in joined.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def shared_prefix(first: list[str], second: list[str]) -> list[str]:
    prefix = []
    for one, other in zip(first, second, strict=False):
        if one != other:
            break
        prefix.append(one)
    return prefix


DEPENDENCY_LAYER = re.compile(r"^RUN python dependencies\.py .*pip install -r ")


def test_both_images_share_their_steps_up_to_the_dependency_layer() -> None:
    """Identical steps up to the dependencies' install: a build of both installs them once
    (the build cache reuses the layer), and a code change does not reinstall them."""
    arena = instructions(DOCKER / "arena.Dockerfile")
    dashboard = instructions(DOCKER / "dashboard.Dockerfile")
    prefix = shared_prefix(arena, dashboard)
    assert any(DEPENDENCY_LAYER.match(step) for step in prefix), prefix


def test_control_a_changed_step_before_the_dependency_layer_is_seen(tmp_path: Path) -> None:
    """Control: an ENV added to one image before its dependencies breaks the sharing, and
    the comparison above sees it."""
    changed = tmp_path / "dashboard.Dockerfile"
    text = (DOCKER / "dashboard.Dockerfile").read_text()
    changed.write_text(text.replace("ARG ARENA_EXTRAS", "ENV HOME=/tmp\nARG ARENA_EXTRAS", 1))
    prefix = shared_prefix(instructions(DOCKER / "arena.Dockerfile"), instructions(changed))
    assert not any(DEPENDENCY_LAYER.match(step) for step in prefix), prefix


def test_the_dependency_layer_copies_no_source_code() -> None:
    for name in ("arena.Dockerfile", "dashboard.Dockerfile"):
        steps = instructions(DOCKER / name)
        layer = next(i for i, step in enumerate(steps) if DEPENDENCY_LAYER.match(step))
        copied = [step for step in steps[:layer] if step.startswith("COPY")]
        assert copied == ["COPY pyproject.toml docker/dependencies.py ./"], (name, copied)


def ignored_patterns() -> list[str]:
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize(
    "pattern",
    [".venv", "**/__pycache__", "arena/game/_compiled", "arena-data", "**/node_modules"],
)
def test_the_build_context_leaves_out_this_machines_builds_and_data(pattern: str) -> None:
    """The images are built from the sources as a fresh clone has them: never from this
    checkout's virtual environment, bytecode, compiled engine (built for this machine's
    Python) or stored bots."""
    assert pattern in ignored_patterns()


def test_control_the_build_context_keeps_what_the_dockerfiles_copy() -> None:
    """Control: nothing the Dockerfiles COPY is ignored."""
    patterns = ignored_patterns()
    for name in ("arena.Dockerfile", "dashboard.Dockerfile"):
        for step in instructions(DOCKER / name):
            if step.startswith("COPY "):
                for source in step.split()[1:-1]:
                    assert source not in patterns, (name, source)


# --- scripts/images/build.py ------------------------------------------------------------

LISTING = """\
:env:.cert='/etc/ssl/certs/ca-certificates.crt'
:env:.default-timeout='180'
:env:.find-links='/opt/wheels'
global.cert='/etc/pip/old-bundle.crt'
global.constraint='/etc/xdg/pip/constraints.txt'
global.extra-index-url='file:///opt/pypi/simple https://mirror.example/simple'
install.timeout='60'
:env:.require-virtualenv='true'
install.no-compile='true'
"""


def test_the_machines_pip_settings_become_one_file_environment_first() -> None:
    """PIP_* variables override the files' values, as they do for pip itself."""
    settings = build.parse_pip_config_list(LISTING)
    assert settings.sections["global"]["cert"] == "/etc/ssl/certs/ca-certificates.crt"
    assert settings.sections["global"]["default-timeout"] == "180"
    assert settings.sections["install"] == {"timeout": "60"}
    rendered = settings.render()
    assert "[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n" in rendered
    assert "extra-index-url = file:///opt/pypi/simple https://mirror.example/simple" in rendered


def test_settings_that_change_how_pip_installs_are_left_out() -> None:
    """A machine's PIP_REQUIRE_VIRTUALENV would make the images' ``pip install`` fail."""
    rendered = build.parse_pip_config_list(LISTING).render()
    assert "require-virtualenv" not in rendered
    assert "no-compile" not in rendered


def test_control_without_the_variable_the_files_value_stands() -> None:
    listing = "\n".join(line for line in LISTING.splitlines() if ":env:.cert" not in line)
    settings = build.parse_pip_config_list(listing)
    assert settings.sections["global"]["cert"] == "/etc/pip/old-bundle.crt"


def test_files_the_settings_name_go_into_the_stand_in() -> None:
    settings = build.parse_pip_config_list(LISTING)
    assert settings.files() == [
        Path("/etc/ssl/certs/ca-certificates.crt"),
        Path("/etc/xdg/pip/constraints.txt"),
    ]


def test_local_indexes_are_bound_whole_remote_ones_not(tmp_path: Path) -> None:
    """A PEP 503 index at <root>/simple links its files in <root>/files: the build gets the
    root; a URL, a missing directory and a relative path get nothing."""
    (tmp_path / "pypi" / "simple").mkdir(parents=True)
    (tmp_path / "wheels").mkdir()
    settings = build.PipSettings(
        {
            "global": {
                "extra-index-url": f"file://{tmp_path}/pypi/simple https://x.example/simple",
                "find-links": f"{tmp_path}/wheels {tmp_path}/missing relative/dir",
                "cert": f"{tmp_path}/wheels",  # a file option: never bound
            }
        }
    )
    assert settings.directories() == [tmp_path / "pypi", tmp_path / "wheels"]


def test_the_stand_ins_key_changes_with_each_input(tmp_path: Path) -> None:
    bundle = tmp_path / "ca.crt"
    bundle.write_text("one")
    key = build.base_key("[global]\n", [bundle])
    assert build.base_key("[global]\n", [bundle]) == key  # control: same inputs, same key
    assert build.base_key("[global]\ncert = x\n", [bundle]) != key
    bundle.write_text("two")
    assert build.base_key("[global]\n", [bundle]) != key


PIP_FAILURE = """\
STEP 9/14: RUN pip install "."
  Installing build dependencies: finished with status 'error'
  error: subprocess-exited-with-error
      Processing /opt/pypi/files/pathspec-1.1.1-py3-none-any.whl
      ERROR: Could not install packages due to an OSError: [Errno 2] No such file or directory
  note: This error originates from a subprocess, and is likely not a problem with pip.
error: subprocess-exited-with-error
subprocess exited with status 1
Error: building at STEP "RUN pip install ".": exit status 1
"""


@pytest.mark.parametrize(
    ("output", "line"),
    [
        (
            PIP_FAILURE,
            "ERROR: Could not install packages due to an OSError: [Errno 2] No such file or directory",
        ),
        (
            "E: Unable to locate package nodejs\nError: building at STEP x\n",
            "E: Unable to locate package nodejs",
        ),
        ("gpg: cannot open keyring\nError: building at STEP x\n", "gpg: cannot open keyring"),
        (
            "step 1\nERROR: No matching distribution for x\nmore\n",
            "ERROR: No matching distribution for x",
        ),
        ("a\nb\n\n", "b"),
        ("", "(no output)"),
    ],
)
def test_a_failure_is_reported_with_its_most_telling_line(output: str, line: str) -> None:
    assert build.last_meaningful_line(output) == line


def test_the_chroot_check_runs_the_entry_point_as_the_images_user() -> None:
    config = build.ImageConfig(
        environment={"PATH": "/usr/bin", "HOME": "/tmp"},
        working_dir="/opt/arena",
        user="10001",
        entrypoint=["/usr/local/bin/arena-entrypoint"],
    )
    command = build.chroot_command(Path("/mnt/root"), config, ["--version"])
    assert command[0] == "unshare"
    assert "--userspec=10001:0" in command
    assert command[-2:] == ["/usr/local/bin/arena-entrypoint", "--version"]
    environment = command[command.index("-i") + 1 : command.index("-i") + 3]
    assert environment == ["HOME=/tmp", "PATH=/usr/bin"]


def test_ci_builds_and_checks_both_images_after_the_tests() -> None:
    """CI installs the image step's tools and runs it once `make test` has passed."""
    ci = (ROOT / ".ci" / "run").read_text()
    packages = ci[ci.index("APT_PACKAGES=(") : ci.index("\n)", ci.index("APT_PACKAGES=("))]
    assert re.search(r"^\s*podman\s", packages, re.MULTILINE)
    assert re.search(r"^\s*mmdebstrap\s", packages, re.MULTILINE)
    steps = [line.strip() for line in ci.splitlines() if not line.lstrip().startswith("#")]
    make_test = steps.index("make test")
    image_step = next(i for i, line in enumerate(steps) if "scripts/images/build.py" in line)
    assert image_step > make_test
