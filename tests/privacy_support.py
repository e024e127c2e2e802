"""A real arena whose bot prints a canary: the privacy tests' (and My bots tests') world.

``canary_bot`` is a real Python bot (through the SDK, in its own process, over gRPC) that
prints a unique canary on stdout and stderr when every game starts, and again just before
its first decision of each game, on which it then thinks for longer than the tournament's
time control allows: every one of its tournament games has a timeout fault whose
``stderr_tail`` holds the canary, and its ``bot_logs`` hold it on both streams. Its smoke
game (the default time control, a second per decision and a bank) passes, so it is
submitted the ordinary way, by its owner ``owner``.

The arena: users ``owner`` and ``other`` (participants) and ``olga`` (an organiser), with
known passwords; the host's ``random_bot`` and ``greedy_bot``; a finished 6-game round
robin ``cup`` between the three.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, inspect

from arena import storage
from arena.accounts import admin
from arena.cli import main
from arena.storage.database import open_database
from arena.submission import submit_bot
from tests.migrated_sqlite import built_folder, migrated_sqlite_url

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots"
TIME_CONTROL = "decision=400,bank=0,grace=100,startup=10000"
"""The cup's: 500 ms per decision in all, far below the canary bot's slow first one, and
far above what a sample bot needs even on a busy machine (at 150 ms, a sample bot's
decision on a loaded machine now and then timed out too, and its fault spoilt the
counts)."""
SLOW_S = 2.0
"""How long the canary bot thinks over its first decision of a game: inside the smoke
game's allowance (1 s a decision and a 10 s bank), far beyond the cup's 500 ms."""

_BOT = '''
"""canary_bot: prints a canary, then thinks too long over its first decision."""

import sys
import time

from arena.sdk import Bot, CallTrump, Discard, GameStart, Give, Observation, Play

CANARY = {canary!r}


class CanaryBot(Bot):
    name, version = "canary_bot", "1.0.0"

    def __init__(self) -> None:
        super().__init__()
        self.slow = True

    def on_game_start(self, start: GameStart) -> None:
        self.slow = True
        print(f"{{CANARY}} stdout seat {{start.seat}}", flush=True)
        print(f"{{CANARY}} stderr seat {{start.seat}}", file=sys.stderr, flush=True)

    def _think(self) -> None:
        if self.slow:
            self.slow = False
            print(f"{{CANARY}} thinking slowly", file=sys.stderr, flush=True)
            time.sleep({slow})

    def play(self, obs: Observation) -> Play:
        self._think()
        return Play(obs.request.cards[0])

    def trump(self, obs: Observation) -> CallTrump:
        self._think()
        return CallTrump(obs.request.trump_options[0])

    def discard(self, obs: Observation) -> Discard:
        self._think()
        return Discard(tuple(obs.request.cards[: obs.request.discard_count]))

    def give(self, obs: Observation) -> Give:
        self._think()
        counts = [count for _, count in obs.request.give_legs]
        legs, start = [], 0
        for count in counts:
            legs.append(tuple(obs.request.cards[start : start + count]))
            start += count
        return Give(tuple(legs))


if __name__ == "__main__":
    CanaryBot().run()
'''


@dataclass
class CanaryArena:
    """What was made, for the tests to look for the canary in."""

    url: str
    data: Path
    engine: Engine
    canary: str
    passwords: dict[str, str]
    tournament_id: int
    game_ids: list[int] = field(default_factory=list)
    """The cup's games, by schedule index."""
    canary_version: int = 0

    def db(self) -> list[str]:
        """The CLI's database options for this arena."""
        return ["--db", self.url, "--data", str(self.data)]

    def records(self) -> list[dict[str, Any]]:
        """The cup's stored records, complete."""
        return [record for _, record in storage.tournament_records(self.engine, self.tournament_id)]


def write_canary_bot(directory: Path, canary: str) -> Path:
    """The canary bot's folder, made in *directory*."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "bot.toml").write_text(
        'name = "canary_bot"\nversion = "1.0.0"\nlanguage = "python"\n'
        'description = "Prints a canary; slow on its first decision."\nrun = "python bot.py"\n'
    )
    (directory / "bot.py").write_text(_BOT.format(canary=canary, slow=SLOW_S))
    return directory


def make_canary_arena(root: Path) -> CanaryArena:
    """Build the arena described in the module docstring under *root* (about a minute:
    four smoke games and six tournament games with real bot processes)."""
    canary = f"CANARY-{uuid.uuid4().hex}"
    url = migrated_sqlite_url(root / "arena.db")
    data = root / "data"
    engine = open_database(url)
    local = storage.actor(engine)
    passwords = {
        name: admin.add_user(engine, local, name, role, must_change_password=False)
        for name, role in (
            ("owner", "participant"),
            ("other", "participant"),
            ("olga", "organiser"),
        )
    }
    owner = storage.actor(engine, "owner")
    version, created = submit_bot(
        engine, write_canary_bot(root / "canary_bot", canary), data, submitter=owner
    )
    assert created
    for bot in ("random_bot", "greedy_bot"):
        submit_bot(engine, SAMPLES / bot, data)
    db = ["--db", url, "--data", str(data)]
    assert main(["tournament", "create", "cup", "--bots", "canary_bot,random_bot,greedy_bot",
                 "--boards", "1", "--time-control", TIME_CONTROL, *db]) == 0  # fmt: skip
    assert main(["tournament", "run", "cup", "--parallel", "1", *db]) == 0
    tournament_id = storage.row_id(storage.get_tournament(engine, "cup"))
    arena = CanaryArena(
        url, data, engine, canary, passwords, tournament_id, canary_version=storage.row_id(version)
    )
    arena.game_ids = storage.tournament_game_ids(engine, tournament_id)
    records = arena.records()
    assert len(records) == 6
    # The premise of every privacy test: the canary is in the stored records, in the bot's
    # logs and in its faults' stderr tails, in every game.
    for record in records:
        seat = [p.split("@")[0] for p in record["players"]].index("canary_bot")
        assert canary in record["bot_logs"][seat]["stderr"], json.dumps(record)[:2000]
        assert canary in record["bot_logs"][seat]["stdout"]
        faults = [f for f in record["faults"] if f["seat"] == seat]
        assert faults and canary in faults[0]["stderr_tail"]
    return arena


def copied_canary_arena(root: Path) -> CanaryArena:
    """A copy under *root* of the canary arena (:func:`make_canary_arena`), built once per
    test process.

    Building it submits the canary bot and two sample bots (a smoke game each) and plays
    its six-game cup with real bot processes: over ten seconds of a busy machine's time,
    and three modules (this one, My bots and My bots in a browser) each used to pay it
    for the same arena. A copy is its folder (database, data, the bot's source) copied,
    with the paths stored in the database moved to the copy, so a module may change its
    copy as it likes (submit bots, create tournaments) without touching another's. The
    canary is the same in every copy of one process: it is still unique to the arena.
    """
    template, made = built_folder("canary arena", _build_canary_arena)
    shutil.copytree(template, root, dirs_exist_ok=True)
    url = f"sqlite:///{root / 'arena.db'}"
    engine = open_database(url)
    _move_stored_paths(engine, str(template), str(root))
    return dataclasses.replace(
        made,
        url=url,
        data=root / "data",
        engine=engine,
        passwords=dict(made.passwords),
        game_ids=list(made.game_ids),
    )


def _build_canary_arena(folder: Path) -> tuple[Engine, CanaryArena]:
    made = make_canary_arena(folder)
    return made.engine, made


def _move_stored_paths(engine: Engine, old: str, new: str) -> None:
    """Every text value in the database naming a path under *old* names it under *new*
    (bot versions' folders, and whatever else holds an absolute path)."""
    with engine.begin() as connection:
        for table in inspect(connection).get_table_names():
            for column in inspect(connection).get_columns(table):
                name = column["name"]
                connection.exec_driver_sql(
                    f'UPDATE "{table}" SET "{name}" = replace("{name}", ?, ?) '
                    f'WHERE typeof("{name}") = \'text\' AND instr("{name}", ?) > 0',
                    (old, new, old),
                )
