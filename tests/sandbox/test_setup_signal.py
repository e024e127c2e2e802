"""Whose fault a failed start is, behind the sandbox's chain of helpers.

A sandboxed bot starts behind a chain (the cgroup join, setpriv, bubblewrap, prlimit,
the exec wrapper) whose last step writes one byte to a pipe only the referee reads, then
execs the bot's command without that pipe (:func:`arena.sandbox.chain.ready_step`). An
exit or a stall before that signal is the arena's failure, an ``ArenaFault`` naming the
step, never charged to the bot; after it, an exit before connecting stays the bot's.

Each failing step is forced for real (a bind source that does not exist, a cgroup file
that cannot be written, rlimits prlimit or the exec wrapper refuses, a step that hangs);
the hostile bots exit with the chain's own codes (125, 1) and hunt for the pipe on every
descriptor they hold. The controls show that without the signal check a failed step is
charged to the bot exactly like a bot that exits 125, and that a pipe left to the bot
would be found. Every sandbox profile this machine offers; the old behaviour with the
sandbox off.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena.game.policies import RandomPolicy
from arena.referee.errors import ArenaFault
from arena.referee.manifest import BotManifest
from arena.referee.match import MatchResult, PolicySeat, SeatSpec
from arena.referee.process import bot_environment
from arena.referee.timecontrol import TimeControl
from arena.sandbox import chain, launch, launch_layers
from arena.sandbox.config import Layer
from arena.sandbox.launch import Launch
from arena.sandbox.probe import probe, runtime_paths
from tests.referee.zoo_support import ZOO as REFEREE_ZOO
from tests.sandbox.sandbox_support import (
    FAST,
    OFF,
    PROFILES,
    Profile,
    config,
    leftovers,
    random_bot,
    require,
    run,
    zoo_bot,
)

STALL = replace(FAST, startup_ms=1500)
"""A startup limit the stalled chain runs into (the bots here never need to connect)."""
LEAKY_READY = 'unset PWD OLDPWD; printf R >&0 || exit 125; exec "$@"'
"""The control's ready step: it signals but leaves the pipe on the bot's stdin."""
FORGE = re.compile(r"ZOO-FORGE fd=(\d+) target=(\S+) wrote=(\S+)")
Layers = frozenset[Layer]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test with a ``profile`` runs under each sandbox profile."""
    if "profile" in metafunc.fixturenames:
        metafunc.parametrize("profile", PROFILES, ids=lambda p: p.name)


@pytest.fixture(autouse=True)
def _no_private_dir_left(private_dirs: list[Path]) -> None:
    """Every private directory a test's bots got is wiped, failed chains' too."""


def alone(bot: SeatSpec) -> list[SeatSpec]:
    """*bot* at seat 0, built-in policies at the others (one bot process to start)."""
    return [bot, PolicySeat(RandomPolicy(1)), PolicySeat(RandomPolicy(2))]


def early_exit(tmp_path: Path, code: int, *, forge: bool = False) -> BotManifest:
    """The zoo bot that exits with *code* before connecting (hunting the pipe first)."""
    bot = zoo_bot("early_exit", tmp_path)
    return replace(bot, run=("python", "bot.py", str(code), *(["--forge"] if forge else [])))


def startup_fault(result: MatchResult) -> dict[str, Any]:
    """Seat 0's one fault in the match's one game, a startup fault."""
    (record,) = result.records
    (fault,) = record["faults"]
    assert fault["seat"] == 0 and fault["kind"] == "startup", fault
    return dict(fault)


def arena_fault(tmp_path: Path, profile: Profile, time_control: TimeControl = FAST) -> str:
    """Play one game of a random bot; the ArenaFault it must end in, as its line."""
    with pytest.raises(ArenaFault) as caught:
        run(alone(random_bot(tmp_path)), config(profile, games=1, time_control=time_control))
    assert leftovers(tmp_path) == [], "a process of the failed chain survived"
    return str(caught.value)


def forged(fault: dict[str, Any]) -> dict[int, tuple[str, str]]:
    """What the forging bot found on each descriptor: ``fd -> (target, wrote)``."""
    return {int(fd): (target, wrote) for fd, target, wrote in FORGE.findall(fault["stderr_tail"])}


# ---------------------------------------------------------------------------------------
# A step of the chain fails or hangs: the arena's fault
# ---------------------------------------------------------------------------------------


def failed(step: str, code: int, line: str) -> str:
    """The part of an ArenaFault's line that names *step*, its exit status and its error."""
    return f"(in {step}): its chain exited with code {code} before the bot's command ran: {line}"


def break_cgroup_join(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, layers: Layers) -> str:
    """The cgroup join writes to a cgroup file that does not exist (it exits 125)."""
    del layers
    procs = str(tmp_path / "gone" / "cgroup.procs")
    step = ["/bin/sh", "-c", chain.JOIN_CGROUP, "arena-cgroup", procs, "--"]
    monkeypatch.setattr(chain, "join_cgroup", lambda cgroup: step)
    return failed("the cgroup join", 125, "arena-cgroup: 1: cannot create")


def break_rlimits(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, layers: Layers) -> str:
    """The rlimits step gets a soft limit over its hard limit (prlimit refuses it, or the
    exec wrapper where prlimit is missing)."""
    del tmp_path, layers
    refused = {"nofile": (512, 256)}
    monkeypatch.setattr(launch_layers, "rlimits", lambda config, with_nproc: refused)
    if probe().prlimit is not None:
        return failed("prlimit", 1, "prlimit: the soft limit NOFILE cannot exceed")
    return failed("the exec wrapper (confine.py)", 125, "arena sandbox: cannot confine")


def break_isolation(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, layers: Layers) -> str:
    """The profile's own isolation step fails: bubblewrap cannot find a bind source, or
    (without bubblewrap) the exec wrapper cannot apply its spec."""
    if Layer.BWRAP in layers:
        paths = [str(tmp_path / "no-such-directory"), *runtime_paths()]
        monkeypatch.setattr(launch, "runtime_paths", lambda: paths)
        return failed("bubblewrap", 1, "bwrap: Can't find source path")
    original = launch_layers.confine_spec

    def refused(*args: Any) -> dict[str, object]:
        return {**original(*args), "rlimits": {"nofile": (512, 256)}}

    monkeypatch.setattr(launch_layers, "confine_spec", refused)
    return failed("the exec wrapper (confine.py)", 125, "arena sandbox: cannot confine")


BREAKS: dict[str, Callable[[pytest.MonkeyPatch, Path, Layers], str]] = {
    "cgroup-join": break_cgroup_join,
    "rlimits": break_rlimits,
    "isolation": break_isolation,
}


@pytest.mark.parametrize("step", sorted(BREAKS))
def test_a_failing_chain_step_is_an_arena_fault(
    profile: Profile, step: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each step fails before the bot's command runs: an ArenaFault naming the step,
    with the chain's own error line, and no fault charged to the bot."""
    expected = BREAKS[step](monkeypatch, tmp_path, require(profile))
    message = arena_fault(tmp_path, profile)
    assert message.startswith("the sandbox could not start random_bot@"), message
    assert expected in message, message


def test_a_stall_before_the_signal_is_an_arena_fault(
    profile: Profile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A step that hangs until the startup limit: an ArenaFault, and the stalled chain
    is killed."""
    require(profile)
    hang = ["/bin/sh", "-c", 'sleep 30; exec "$@"', "arena-stall"]
    monkeypatch.setattr(chain, "join_cgroup", lambda cgroup: hang)
    message = arena_fault(tmp_path, profile, STALL)
    assert message.endswith("its chain did not reach the bot's command within 1500 ms"), message


def test_control_a_bot_that_never_connects_is_still_charged(
    profile: Profile, tmp_path: Path
) -> None:
    """Control of the stall: after the signal, not connecting in time is the bot's."""
    require(profile)
    bot = zoo_bot("never_connects", tmp_path, zoo=REFEREE_ZOO)
    fault = startup_fault(run(alone(bot), config(profile, games=1, time_control=STALL)))
    assert fault["detail"] == "did not connect within 1500 ms"


def test_control_without_the_signal_check_a_failed_step_is_charged_to_the_bot(
    profile: Profile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Control: with the referee blind to the signal (the old classification), the
    failed cgroup join is the bot's startup fault, worded exactly as a bot's own exit
    with status 125: exit codes alone cannot tell the two apart."""
    layers = require(profile)
    hostile = startup_fault(run(alone(early_exit(tmp_path, 125)), config(profile, games=1)))
    break_cgroup_join(monkeypatch, tmp_path, layers)
    monkeypatch.setattr(Launch, "setup_finished", lambda self: True)
    charged = startup_fault(run(alone(random_bot(tmp_path)), config(profile, games=1)))
    assert charged["detail"] == hostile["detail"] == "exited with code 125 before connecting"
    assert "arena-cgroup" in charged["stderr_tail"]


# ---------------------------------------------------------------------------------------
# A runtime the sandbox lacks: the arena's fault; a file of the bot's own: the bot's
# ---------------------------------------------------------------------------------------

OLD_READY = (
    'unset PWD OLDPWD; exec 3>&0 0</dev/null; printf R >&3 || exit 125; exec 3>&-; exec "$@"'
)
"""The control's ready step: the one before the runtime check (it signals, then execs)."""


def missing_runtime(tmp_path: Path) -> BotManifest:
    """random_bot with its command's runtime (``python``) named as one no machine has."""
    bot = random_bot(tmp_path)
    return replace(bot, run=("arena-no-such-runtime", *bot.run[1:]))


def test_a_runtime_missing_from_the_sandbox_is_an_arena_fault(
    profile: Profile, tmp_path: Path
) -> None:
    """A bare program name is a runtime the arena provides on the sandbox's PATH: when it
    is not there, the ready step fails before its signal, an ArenaFault naming the
    program, and nothing is charged to the bot."""
    require(profile)
    with pytest.raises(ArenaFault) as caught:
        run(alone(missing_runtime(tmp_path)), config(profile, games=1))
    message = str(caught.value)
    assert failed("the ready step", 125, "arena-ready: no program arena-no-such-runtime") in message
    assert leftovers(tmp_path) == [], "a process of the failed chain survived"


def test_control_without_the_runtime_check_a_missing_runtime_is_charged(
    profile: Profile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Control: with the ready step from before the check, the shell's exec fails after
    the signal, and the missing runtime is the bot's startup fault."""
    require(profile)
    monkeypatch.setattr(chain, "READY_SCRIPT", OLD_READY)
    fault = startup_fault(run(alone(missing_runtime(tmp_path)), config(profile, games=1)))
    assert fault["detail"] == "exited with code 127 before connecting"


def test_a_missing_file_of_the_bots_own_is_still_charged(profile: Profile, tmp_path: Path) -> None:
    """A program given by a path is the bot's own file: missing, it is the bot's startup
    fault, as before."""
    require(profile)
    bot = replace(random_bot(tmp_path), run=("./no-such-engine",))
    fault = startup_fault(run(alone(bot), config(profile, games=1)))
    assert fault["detail"] == "exited with code 127 before connecting"


def test_without_a_sandbox_a_missing_runtime_is_an_arena_fault(tmp_path: Path) -> None:
    """Sandbox off: the spawn itself fails. A bare program name not on the arena's PATH is
    the arena's fault; a missing file of the bot's own stays the bot's (control)."""
    with pytest.raises(ArenaFault) as caught:
        run(alone(missing_runtime(tmp_path)), config(OFF, games=1))
    assert str(caught.value).endswith("no program arena-no-such-runtime on its PATH")
    bot = replace(random_bot(tmp_path, "own_file"), run=("./no-such-engine",))
    fault = startup_fault(run(alone(bot), config(OFF, games=1)))
    assert "no-such-engine: No such file" in fault["detail"] + fault.get("stderr_tail", "")


# ---------------------------------------------------------------------------------------
# Hostile bots: their own failures stay theirs
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("code", [125, 1])
def test_a_bot_exiting_with_the_chains_codes_is_charged(
    profile: Profile, code: int, tmp_path: Path
) -> None:
    """A bot that exits before connecting with the cgroup join's and the exec wrapper's
    code (125) or bubblewrap's (1) gets a startup fault, not an arena fault. Its
    environment is the documented one (the chain's shells and bubblewrap export PWD)."""
    require(profile)
    fault = startup_fault(run(alone(early_exit(tmp_path, code)), config(profile, games=1)))
    assert fault["detail"] == f"exited with code {code} before connecting"
    names = re.findall(r"ZOO-EARLY-EXIT code=\d+ env=(\S+)", fault["stderr_tail"])
    assert names and set(names[0].split(",")) == {*bot_environment("a", "t"), "HOME", "TMPDIR"}


def test_a_bot_cannot_find_the_ready_pipe(profile: Profile, tmp_path: Path) -> None:
    """The bot writes to every descriptor it holds and exits 125: no pipe but its stdout
    and stderr reached it, and the exit is its own startup fault."""
    require(profile)
    bot = early_exit(tmp_path, 125, forge=True)
    fault = startup_fault(run(alone(bot), config(profile, games=1)))
    assert fault["detail"] == "exited with code 125 before connecting"
    found = forged(fault)
    assert found[0][0] == "/dev/null", found
    assert sorted(fd for fd, (target, _) in found.items() if target.startswith("pipe:")) == [1, 2]


def test_control_a_pipe_left_to_the_bot_is_found(
    profile: Profile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Control: a ready step that leaves the pipe on the bot's stdin. The forging bot
    finds it and writes to it; its exit still counts as its own (the signal was in the
    pipe before it ran, and writing cannot take it back)."""
    require(profile)
    monkeypatch.setattr(chain, "READY_SCRIPT", LEAKY_READY)
    bot = early_exit(tmp_path, 125, forge=True)
    fault = startup_fault(run(alone(bot), config(profile, games=1)))
    assert fault["detail"] == "exited with code 125 before connecting"
    target, wrote = forged(fault)[0]
    assert target.startswith("pipe:") and wrote == "8", (target, wrote)


def test_without_a_sandbox_an_early_exit_stays_the_bots(tmp_path: Path) -> None:
    """Sandbox off: no chain, no signal; an exit before connecting is the bot's, as
    before."""
    fault = startup_fault(run(alone(early_exit(tmp_path, 125)), config(OFF, games=1)))
    assert fault["detail"] == "exited with code 125 before connecting"


@pytest.mark.parametrize(
    ("stderr", "step"),
    [
        ("bwrap: Can't mount proc on /newroot/proc: Operation not permitted", "bubblewrap"),
        ("bwrap: Unable to apply mount flags: remount /newroot/usr: Invalid argument", "bubblewrap"),
        ("arena-cgroup: 1: cannot create /sys/fs/cgroup/x/cgroup.procs: Permission denied",
         "the cgroup join"),
        ("Traceback (most recent call last):\narena sandbox: cannot confine the bot: x",
         "the exec wrapper (confine.py)"),
        ("prlimit: the soft limit NOFILE cannot exceed the hard limit\n", "prlimit"),
        ("setpriv: setresuid failed: Operation not permitted", "setpriv"),
        ("something else: entirely", None),
        ("", None),
    ],
)  # fmt: skip
def test_the_failed_step_is_named_by_its_error_line(stderr: str, step: str | None) -> None:
    """Each step's own error prefix names it; anything else names no step."""
    assert chain.failed_step(stderr) == step
