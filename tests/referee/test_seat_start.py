"""A game starts its three seats' bot processes at once: a new set of processes
is ready after its slowest start-up, not after the sum of three.

The ``rendezvous`` zoo bot connects only once all three processes of its match run, which
no one-after-another start allows; the control plays the same match with the seats started
one after another and sees the first two miss their startup limit.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena.referee.config import SeatSpec
from arena.referee.errors import BotError
from arena.referee.faults import fault_record
from arena.referee.gameloop import GameLoop
from arena.referee.manifest import load_manifest
from arena.referee.match import MatchConfig
from arena.referee.wire.doors import RefereeServer
from arena.sandbox.config import SandboxConfig, SandboxMode
from tests.referee.zoo_support import ZOO, config, run


def _seats(tmp_path: Path) -> tuple[list[SeatSpec], MatchConfig]:
    """Three rendezvous bots meeting in one directory (sandbox off: they share it)."""
    meet = tmp_path / "meet"
    meet.mkdir()
    seats: list[SeatSpec] = []
    for seat in range(3):
        target = tmp_path / f"bot{seat}"
        shutil.copytree(ZOO / "rendezvous", target)
        toml = target / "bot.toml"
        toml.write_text(
            toml.read_text().replace(
                'run = "python bot.py"', f'run = "python bot.py --meet {meet}"'
            )
        )
        seats.append(load_manifest(target))
    return seats, replace(config(games=1), sandbox=SandboxConfig(SandboxMode.OFF))


def test_the_three_seats_start_at_once(tmp_path: Path) -> None:
    seats, match_config = _seats(tmp_path)
    result = run(seats, match_config)
    (record,) = result.records
    assert record["faults"] == []
    assert all(len(seat) > 0 for seat in record["timings"]["decision_ms"])


async def _one_after_another(
    loop: GameLoop, server: RefereeServer, faults: list[dict[str, Any]], autopilot: list[bool]
) -> None:
    """The start as it was: each seat's Hello awaited before the next seat's process."""
    for runner in loop.runners:
        try:
            await runner.ensure_started(server, loop.welcome(runner.seat))
        except BotError as error:
            faults.append(fault_record(runner.seat, 0, "startup", error, runner.logs.tail()))
            autopilot[runner.seat] = True
            await runner.stop(kill=True)


def test_control_seats_started_one_after_another_miss_their_startup_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(GameLoop, "_start_bots", _one_after_another)
    seats, match_config = _seats(tmp_path)
    (record,) = run(seats, match_config).records
    assert [(f["seat"], f["kind"]) for f in record["faults"]] == [(0, "startup"), (1, "startup")]
