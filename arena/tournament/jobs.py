"""A game job: everything a worker needs to play one scheduled game, as plain JSON."""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass
from typing import Any

from arena.game.rules import RuleSet
from arena.referee.manifest import load_manifest
from arena.referee.match import MatchConfig, play_match
from arena.referee.timecontrol import TimeControl


@dataclass(frozen=True)
class GameJob:
    """One scheduled game, ready to be sent to any executor (local or, later, remote)."""

    schedule_index: int
    seed: int
    first_dealer: int
    rules: dict[str, Any]
    ruleset: str
    time_control: str
    bot_paths: tuple[str, str, str]
    """Per seat, the directory of the stored bot version."""
    game_id: str
    log_cap: int

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameJob:
        """The job from :meth:`to_json`."""
        data = dict(data)
        data["bot_paths"] = tuple(data["bot_paths"])
        return cls(**data)


def play_job(job: GameJob) -> dict[str, Any]:
    """Play the job's game with fresh bot processes; its record."""
    rules = RuleSet.from_json(job.rules, name=job.ruleset)
    seats = [load_manifest(path) for path in job.bot_paths]
    config = MatchConfig(
        rules=rules,
        games=1,
        seed=job.seed,
        time_control=TimeControl.parse(job.time_control),
        log_cap=job.log_cap,
        fresh_process_per_game=True,
        first_dealers=(job.first_dealer,),
        match_id=job.game_id,
    )
    result = asyncio.run(play_match(seats, config))
    return result.records[0]
