"""A tiny duplicate tournament for the analysis tests: 4 bots, 1 board, real records.

``alpha`` (greedy) is ann's, ``bravo`` (random) ben's, ``charlie`` (greedy) and ``delta``
(random) the host's. Games are played in-process by the built-in policies and stored as
the runner stores them. Every game in which bravo sits has a fault of bravo's with a
stderr tail (:data:`BRAVO_STDERR`), which only ben and organisers may read.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from sqlalchemy.engine import Engine, make_url

from arena import storage
from arena.game.record import game_record
from arena.storage.models import TABLE_DEALS
from arena.tournament.formats import ScheduledGame
from arena.tournament.runner import store_game
from tests.dashboard.accounts_support import add_account
from tests.dashboard.seed import manifest, play, secret_deal_cup
from tests.migrated_sqlite import built_once, migrated_sqlite_url

BOTS: tuple[tuple[str, str], ...] = (
    ("alpha", "greedy"),
    ("bravo", "random"),
    ("charlie", "greedy"),
    ("delta", "random"),
)
OWNERS: Final = {"alpha": "ann", "bravo": "ben"}
BRAVO_STDERR: Final = "SECRET-bravo-stderr: my hand was AS KS"
BRAVO_DETAIL: Final = "SECRET-bravo-detail"


@dataclass
class Cup:
    engine: Engine
    tournament_id: int
    name: str
    schedule: list[ScheduledGame]
    ids: list[int]
    passwords: dict[str, str]
    records: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Schedule index -> stored record (complete, as the referee wrote it)."""
    game_ids: dict[int, int] = field(default_factory=dict)

    def store(self, index: int) -> None:
        game = self.schedule[index]
        seats = [self.ids[e] for e in game.entrants]
        state = play("classic", game.seed, game.first_dealer, [BOTS[e][1] for e in game.entrants])
        faults = [
            {
                "seat": seat,
                "hand": 1,
                "decision": "play",
                "kind": "illegal",
                "detail": BRAVO_DETAIL,
                "autopilot": False,
                "stderr_tail": BRAVO_STDERR,
            }
            for seat, e in enumerate(game.entrants)
            if BOTS[e][0] == "bravo"
        ]
        record = game_record(state, [f"{BOTS[e][0]}@1.0" for e in game.entrants], faults)
        store_game(self.engine, self.tournament_id, game, seats, record, 6)
        self.records[index] = record
        self.game_ids[index] = storage.tournament_game_ids(self.engine, self.tournament_id)[-1]


def make_cup(
    url: str,
    *,
    deal_scope: str = TABLE_DEALS,
    seed: int | None = None,
    stored: int | None = None,
    status: str = "finished",
    name: str = "cup",
) -> Cup:
    """The 4-bot, 1-board round robin *name* (24 games; the first *stored* stored), in the
    SQLite file of *url* (what :func:`cup_url` made there is replaced).

    Each test process builds one cup per set of options and hands out byte copies of it
    (with what was stored, copied too): a cup plays and stores up to 24 games, a second
    of CPU, and most of these tests want the same one. With ``seed=None`` the deals come
    from a secret of the process that no seed derives, as they do from a fresh one.
    """

    def build(template: Path) -> tuple[Engine, Cup]:
        made = _build_cup(migrated_sqlite_url(template), deal_scope, seed, stored, status, name)
        return made.engine, made

    path = Path(make_url(url).database or "")
    made = built_once(("analysis cup", deal_scope, seed, stored, status, name), build, path)
    return dataclasses.replace(
        made,
        engine=storage.open_database(url),
        schedule=list(made.schedule),
        ids=list(made.ids),
        passwords=dict(made.passwords),
        records=copy.deepcopy(made.records),
        game_ids=dict(made.game_ids),
    )


def _build_cup(
    url: str, deal_scope: str, seed: int | None, stored: int | None, status: str, name: str
) -> Cup:
    engine = storage.open_database(url)
    passwords = {user: add_account(engine, user, "participant") for user in OWNERS.values()}
    ids = []
    for bot, _ in BOTS:
        owner = OWNERS.get(bot)
        submitter = storage.actor(engine, owner) if owner else None
        digest = hashlib.sha256(bot.encode()).hexdigest()
        version, _ = storage.add_bot_version(
            engine, manifest(bot), digest, f"/bots/{bot}", submitter=submitter
        )
        ids.append(storage.row_id(version))
    tournament_id, schedule = secret_deal_cup(engine, name, ids, deal_scope=deal_scope, seed=seed)
    cup = Cup(engine, tournament_id, name, schedule, ids, passwords)
    for index in range(len(schedule) if stored is None else stored):
        cup.store(index)
    storage.set_status(engine, cup.tournament_id, status)
    return cup


def cup_url(tmp_path: Any) -> str:
    return migrated_sqlite_url(tmp_path / "arena.db")
