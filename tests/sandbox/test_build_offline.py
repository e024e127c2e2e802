"""Real builds without the network (issue 34, item 4): the JavaScript sample bot's
``npm ci`` and a ``pip install`` fail at once, show what they printed and say what to do.

Offline, npm used to retry the registry for about 76 s (measured: 71.8 s on this machine)
and end on a pointer to a log in the build's throwaway ``/tmp``. Now npm runs from its
(empty) cache: it fails with ``ENOTCACHED`` instead of retrying with ``EAI_AGAIN``, which
is what these tests check (never the clock). Controls: a build that needs nothing from a
registry (npm with no dependencies) still succeeds offline; a build that fails for its
own reason keeps its own last line and gets no registry hint.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from arena.cli import main
from arena.referee.manifest import load_manifest
from arena.sandbox.build.bot import REGISTRY_HINT, BuildError, build
from arena.sandbox.build.settings import STAMP_NAME
from tests.sandbox.sandbox_support import missing

ROOT = Path(__file__).resolve().parents[2]
JS_BOT = ROOT / "sample_bots" / "js_random_bot"


def _js_copy(tmp_path: Path) -> Path:
    if shutil.which("npm") is None:
        missing("npm is needed for the JavaScript sample bot's build")
    target = tmp_path / "js_random_bot"
    shutil.copytree(JS_BOT, target, ignore=shutil.ignore_patterns("node_modules", ".arena-*"))
    return target


def _bot(tmp_path: Path, name: str, build_command: str, files: dict[str, str]) -> Path:
    directory = tmp_path / name
    directory.mkdir()
    (directory / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1.0.0"\nlanguage = "other"\nrun = "./bot"\n'
        f"build = {json.dumps(build_command)}\n"
    )
    for relative, text in files.items():
        (directory / relative).write_text(text)
    return directory


@pytest.mark.parametrize("command", ["match", "check"])
def test_the_js_sample_bot_offline_fails_at_once_with_its_lines_and_the_hint(
    command: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ARENA_BUILD_NETWORK", raising=False)
    bot = str(_js_copy(tmp_path))
    argv = {
        "match": ["match", bot, "builtin:random", "builtin:random", "--games", "1"],
        "check": ["bot", "check", bot, "--games", "1"],
    }[command]
    assert main(argv) == 1
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines[-1] == (
        "arena: error: js_random_bot: build 'npm ci --no-audit --no-fund --ignore-scripts' "
        f"failed with exit code 1: {REGISTRY_HINT}"
    )
    # npm did not retry the registry (EAI_AGAIN, about 76 s): it asked its cache only.
    assert "the build's last lines:" in err
    assert "  npm error code ENOTCACHED" in lines
    assert "EAI_AGAIN" not in err
    # No pointer to a log that died with the build's /tmp.
    assert "complete log" not in err and "_logs" not in err
    assert not (Path(bot) / STAMP_NAME).exists()


def test_submit_says_the_same_and_stores_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARENA_BUILD_NETWORK", raising=False)
    data = tmp_path / "data"
    assert main(["bot", "submit", str(_js_copy(tmp_path)), "--data", str(data)]) == 1
    err = capsys.readouterr().err
    assert err.splitlines()[-1].endswith(REGISTRY_HINT)
    assert "  npm error code ENOTCACHED" in err.splitlines()
    assert "complete log" not in err
    assert not list(data.glob("bots/js_random_bot/*"))


def test_a_pip_install_offline_gets_the_hint_too(tmp_path: Path) -> None:
    bot = _bot(tmp_path, "pip_bot", "python -m pip install --target deps six", {"bot": ""})
    with pytest.raises(BuildError) as failed:
        build(load_manifest(bot), network=False)
    assert str(failed.value).endswith(REGISTRY_HINT)
    assert any("from versions: none" in line for line in failed.value.tail)
    assert "Retrying" not in failed.value.output  # PIP_RETRIES=0: no retries to wait for


def test_control_a_build_that_needs_no_registry_still_succeeds_offline(tmp_path: Path) -> None:
    if shutil.which("npm") is None:
        missing("npm is needed for an npm build")
    package = {"name": "nodeps_bot", "version": "1.0.0", "private": True}
    lock = {
        "name": "nodeps_bot",
        "version": "1.0.0",
        "lockfileVersion": 3,
        "requires": True,
        "packages": {"": {"name": "nodeps_bot", "version": "1.0.0"}},
    }
    bot = _bot(
        tmp_path,
        "nodeps_bot",
        "npm ci --no-audit --no-fund",
        {"package.json": json.dumps(package), "package-lock.json": json.dumps(lock), "bot": ""},
    )
    build(load_manifest(bot), network=False)
    assert (bot / STAMP_NAME).is_file()


def test_control_a_build_failing_for_its_own_reason_keeps_its_line_and_no_hint(
    tmp_path: Path,
) -> None:
    script = "echo compiling; echo 'bot.c:3: error: expected ;' >&2; exit 2"
    bot = _bot(tmp_path, "c_bot", f"sh -c {json.dumps(script)}", {"bot": ""})
    with pytest.raises(BuildError) as failed:
        build(load_manifest(bot), network=False)
    message = str(failed.value)
    assert REGISTRY_HINT not in message
    assert message.endswith("failed with exit code 2: bot.c:3: error: expected ;")
    assert failed.value.tail == ["compiling", "bot.c:3: error: expected ;"]
