"""Every command that builds takes ``--build-network``, and an offline build that needed a
registry says so (issue 34, item 4). No process is started here: the builds themselves
are in tests/sandbox/test_build_offline.py.

The words: :func:`~arena.sandbox.build.offline.needs_registry` recognises npm's, pip's,
cargo's, go's and yarn's "the registry is out of reach" (controls: a compile error, a test
failure that mentions the network); :func:`~arena.sandbox.build.offline.meaningful_tail`
drops npm's pointer to a log inside the build's throwaway ``/tmp``. The flag: each of
``arena match``, ``arena bot check`` and ``arena bot submit`` passes the flag, else
``$ARENA_BUILD_NETWORK``, else off, down to the build (a stand-in build records it).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.sandbox.build import bot as build_bot
from arena.sandbox.build.job import environment
from arena.sandbox.build.offline import (
    OFFLINE_ENV,
    REGISTRY_HINT,
    meaningful_tail,
    needs_registry,
)

ROOT = Path(__file__).resolve().parents[1]

NPM_OFFLINE = """\
npm error code ENOTCACHED
npm error request to https://registry.npmjs.org/yargs-parser failed: cache mode is \
'only-if-cached' but no cached response is available.
npm error A complete log of this run can be found in: /tmp/.npm/_logs/2026-11-28T11_16_45_935Z-debug-0.log
"""
NPM_RETRIED = """\
npm error code EAI_AGAIN
npm error syscall getaddrinfo
npm error errno EAI_AGAIN
npm error request to https://registry.npmjs.org/yargs-parser failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org
npm error A complete log of this run can be found in: /tmp/.npm/_logs/x-debug-0.log
"""
PIP_OFFLINE = """\
ERROR: Could not find a version that satisfies the requirement six (from versions: none)
ERROR: No matching distribution found for six
"""
CARGO_OFFLINE = (
    "error: failed to download `serde v1.0.0`\n"
    "Caused by: attempting to make an HTTP request, but --offline was specified\n"
)
GO_OFFLINE = "go: github.com/x/y@v1.2.3: module lookup disabled by GOPROXY=off\n"
CURL_OFFLINE = "curl: (6) Could not resolve host: example.org\n"

COMPILE_ERROR = """\
bot.c: In function 'main':
bot.c:3:5: error: expected ';' before 'return'
make: *** [Makefile:2: bot] Error 1
"""
TEST_FAILURE = "FAILED test_network.py::test_reconnect - the network layer retried 3 times\n"


@pytest.mark.parametrize(
    "output", [NPM_OFFLINE, NPM_RETRIED, PIP_OFFLINE, CARGO_OFFLINE, GO_OFFLINE, CURL_OFFLINE]
)
def test_the_package_managers_words_for_an_unreachable_registry_are_recognised(
    output: str,
) -> None:
    assert needs_registry(output)


@pytest.mark.parametrize("output", [COMPILE_ERROR, TEST_FAILURE, "", "npm error code E404\n"])
def test_control_a_build_failing_for_its_own_reasons_is_not_taken_for_one(output: str) -> None:
    assert not needs_registry(output)


def test_the_tail_keeps_what_failed_and_drops_the_log_in_the_throwaway_tmp() -> None:
    tail = meaningful_tail(NPM_OFFLINE)
    assert tail[0] == "npm error code ENOTCACHED"
    assert any("yargs-parser" in line for line in tail)
    assert not any("complete log" in line or "/tmp/.npm" in line for line in tail)
    # Control: the same output with another last line keeps that line.
    assert meaningful_tail(NPM_OFFLINE + "npm error the end\n")[-1] == "npm error the end"


def test_the_tail_drops_blank_lines_and_colour_codes_and_keeps_the_last_lines() -> None:
    output = "\x1b[31mfirst\x1b[0m\n\n   \n" + "".join(f"line {i}\n" for i in range(20))
    assert meaningful_tail(output, 3) == ["line 17", "line 18", "line 19"]
    assert meaningful_tail("\x1b[31mred\x1b[0m\n\n") == ["red"]
    assert meaningful_tail("") == []


def test_the_one_line_says_what_to_do_only_for_an_offline_build_that_needed_a_registry() -> None:
    offline = build_bot._failure("js", "npm ci", 1, NPM_OFFLINE, network=False)
    assert offline == f"js: build 'npm ci' failed with exit code 1: {REGISTRY_HINT}"
    assert REGISTRY_HINT == (
        "this build needs a package registry: rerun with --build-network "
        "(or ARENA_BUILD_NETWORK=on)"
    )
    # Controls: with the network the hint would be wrong; an own failure keeps its line,
    # never npm's pointer to a log that is gone.
    online = build_bot._failure("js", "npm ci", 1, NPM_RETRIED, network=True)
    assert REGISTRY_HINT not in online
    assert online.endswith("reason: getaddrinfo EAI_AGAIN registry.npmjs.org")
    own = build_bot._failure("c", "make", 2, COMPILE_ERROR, network=False)
    assert own.endswith(": make: *** [Makefile:2: bot] Error 1")
    assert build_bot._failure("c", "make", 2, "\n", network=False).endswith("printed nothing")


def test_an_offline_build_tells_package_managers_not_to_wait_for_a_registry() -> None:
    offline = environment(home="/tmp", tmp="/tmp", offline=True)
    assert offline["npm_config_offline"] == "true"
    assert offline["PIP_RETRIES"] == "0"
    assert offline["GOPROXY"] == "off"
    assert offline["HOME"] == "/tmp"
    # Control: a build with the network gets none of it.
    online = environment(home="/tmp", tmp="/tmp")
    assert not set(OFFLINE_ENV) & set(online)


# ------------------------------------------------------------------- the flag


class _Recorded(Exception):
    pass


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[bool | None]:
    """The *network* every build is asked for; the build then fails (nothing runs)."""
    seen: list[bool | None] = []

    def fake_build(*args: Any, network: bool | None = None, **kwargs: Any) -> str:
        del args, kwargs
        seen.append(network)
        raise build_bot.BuildError("stand-in build: " + REGISTRY_HINT, "npm error code X\n")

    monkeypatch.setattr("arena.cli.match.build", fake_build)
    # `arena match` probes the sandbox first (processes); the stand-in needs none.
    monkeypatch.setattr("arena.cli.match.plan", lambda config: None)
    monkeypatch.setattr("arena.submission.build", fake_build)
    monkeypatch.delenv("ARENA_BUILD_NETWORK", raising=False)
    return seen


@pytest.fixture
def built_bot(tmp_path: Path) -> Path:
    """A copy of the Python sample bot with a build step (never run here)."""
    bot = tmp_path / "bot"
    shutil.copytree(ROOT / "sample_bots" / "random_bot", bot)
    manifest = bot / "bot.toml"
    manifest.write_text(manifest.read_text() + 'build = "true"\n')
    return bot


def _commands(bot: Path, data: Path) -> dict[str, list[str]]:
    return {
        "match": ["match", str(bot), "builtin:random", "builtin:random", "--games", "1"],
        "check": ["bot", "check", str(bot), "--games", "1"],
        "submit": ["bot", "submit", str(bot), "--data", str(data)],
    }


@pytest.mark.parametrize("command", ["match", "check", "submit"])
def test_every_command_that_builds_takes_the_flag_and_the_setting(
    command: str,
    built_bot: Path,
    tmp_path: Path,
    recorded: list[bool | None],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = _commands(built_bot, tmp_path / "data")[command]
    assert main([*argv, "--build-network"]) == 1
    err = capsys.readouterr().err
    assert REGISTRY_HINT in err and "npm error code X" in err  # the tail, then the line
    assert "Traceback" not in err
    assert main(argv) == 1
    monkeypatch.setenv("ARENA_BUILD_NETWORK", "on")
    assert main(argv) == 1
    assert main([*argv, "--no-build-network"]) == 1
    # The flag, off by default, the setting, the flag over the setting.
    assert recorded == [True, False, True, False]


def test_control_a_wrong_setting_is_refused_by_match_and_check_before_any_build(
    built_bot: Path,
    tmp_path: Path,
    recorded: list[bool | None],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ARENA_BUILD_NETWORK", "maybe")
    commands = _commands(built_bot, tmp_path / "data")
    for command in ("match", "check"):
        assert main(commands[command]) == 2
        assert "ARENA_BUILD_NETWORK" in capsys.readouterr().err
    assert recorded == []
