"""One Play page game, played to its end in a process of its own:
``python -m arena.play.runner ID`` (``ARENA_DB``, ``ARENA_DATA`` in the environment).

The two opponents are stored bot versions (a house bot ``builtin:NAME`` stored on first
use, :mod:`arena.tournament.house`), run as sandboxed processes by the ordinary referee
(:func:`arena.referee.match.play_match`) under the arena's default time control; the
person's seat is a :class:`~arena.referee.human_seat.HumanSeat` on the game's row
(:class:`arena.play.desk.DatabaseDesk`) with minutes per decision. Whatever happens (the
game ends, the person's time runs out and the autopilot finishes the game, the process is
told to stop) the match's own shutdown stops every bot before the process exits.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import secrets
import signal
import sys
from pathlib import Path
from typing import Any, Final

from sqlalchemy.engine import Engine

from arena import storage
from arena.game.rules import get_ruleset
from arena.play.desk import DatabaseDesk
from arena.protocol.grpc_env import configure_grpc
from arena.referee.config import MatchConfig, SeatSpec
from arena.referee.errors import ArenaFault
from arena.referee.human_seat import HUMAN_PREFIX, HumanSeat
from arena.referee.manifest import BotManifest, ManifestError, load_manifest
from arena.referee.match import play_match
from arena.referee.timecontrol import TimeControl
from arena.storage import play_games
from arena.storage.database import StorageError, open_database, read_session
from arena.storage.models import BotVersion, PlayGame, User
from arena.storage.test_matches import HOUSE_BOTS
from arena.submission.files import ChecksumError, verify_checksum
from arena.tournament.house import HouseBotError, house_version
from arena.tournament.setup import DEFAULT_TIME_CONTROL

LOGGER = logging.getLogger(__name__)

PERSON_GRACE_MS: Final = 2000
"""Added to a person's deadline for the page's round trip, never charged."""


class PlayError(RuntimeError):
    """The game cannot be played (an opponent gone, its files changed); one line."""


def person_time_control(decision_seconds: int) -> TimeControl:
    """A person's limits: *decision_seconds* a decision, no bank (docs/play.md)."""
    return TimeControl(decision_ms=decision_seconds * 1000, bank_ms=0, grace_ms=PERSON_GRACE_MS)


def _opponent_version(engine: Engine, name: str, data_dir: Path) -> BotVersion:
    if name in HOUSE_BOTS:
        return house_version(engine, name, data_dir)
    version = storage.latest_version(engine, name, exact=True)
    if version is None:
        raise PlayError(f"opponent {name!r} no longer exists")
    return version


def _manifest(engine: Engine, name: str, data_dir: Path) -> BotManifest:
    """The manifest of bot *name*'s latest stored version (a house bot stored if needed),
    its files checked.

    :raises PlayError: if it is gone or its files changed.
    :raises HouseBotError: if a house bot cannot be stored.
    """
    version = _opponent_version(engine, name, data_dir)
    try:
        verify_checksum(Path(version.path), version.checksum)
        return load_manifest(version.path)
    except (ChecksumError, ManifestError) as exc:
        raise PlayError(f"{version.label} cannot be played: {exc}") from None


def _seats(
    engine: Engine, game: PlayGame, data_dir: Path
) -> tuple[list[SeatSpec], list[str], list[BotManifest]]:
    """The three seats in order, their labels, and the two opponents."""
    with read_session(engine) as session:
        user = session.get(User, game.user_id)
    if user is None:
        raise PlayError("the person's account no longer exists")
    bots = [_manifest(engine, name, data_dir) for name in json.loads(game.opponents)]
    game_id = storage.row_id(game)
    players = [bot.label for bot in bots]
    players.insert(game.seat, HUMAN_PREFIX + user.name)
    desk = DatabaseDesk(engine, game_id, players)
    person = HumanSeat(user.name, desk, person_time_control(game.decision_seconds))
    seats: list[SeatSpec] = list(bots)
    seats.insert(game.seat, person)
    return seats, players, bots


def _ending(record: dict[str, Any], seat: int) -> str:
    """One line: how the game ended for the person."""
    faults = [f for f in record.get("faults") or [] if f.get("seat") == seat]
    result = record["result"]
    winners = result["winners"]
    outcome = (
        "you drew"
        if seat in winners and len(winners) > 1
        else "you won"
        if seat in winners
        else "you lost"
    )
    scores = "/".join(str(s) for s in result["scores"])
    line = f"{outcome} ({scores})"
    if faults:
        line += f"; {faults[0]['kind']}: {faults[0]['detail']} (the autopilot played your seat on)"
    return line


async def play_game(engine: Engine, game_id: int, data_dir: Path) -> str:
    """Play game *game_id* of the Play page to its end; its final status."""
    game = play_games.get_play_game(engine, game_id)
    if game is None or game.status != "starting":
        return "gone"
    try:
        seats, players, bots = _seats(engine, game, data_dir)
        rules = get_ruleset(game.ruleset)
        config = MatchConfig(
            rules=rules,
            games=1,
            seed=0,
            time_control=TimeControl.parse(DEFAULT_TIME_CONTROL),
            match_id=f"play-{game_id}",
            secret=secrets.token_bytes(32),
        )
        play_games.set_players(engine, game_id, players)
        result = await play_match(seats, config)
    except (PlayError, HouseBotError, StorageError, ArenaFault, ValueError) as exc:
        play_games.finish_play_game(engine, game_id, "failed", str(exc).splitlines()[0])
        return "failed"
    except asyncio.CancelledError:
        play_games.finish_play_game(engine, game_id, "failed", "the game was stopped")
        return "failed"
    record = result.records[0]
    play_games.finish_play_game(
        engine, game_id, "finished", _ending(record, game.seat), json.dumps(record)
    )
    if game.house_bot:
        await _house_game(engine, game, bots, config, data_dir)
    return "finished"


async def _house_game(
    engine: Engine, game: PlayGame, bots: list[BotManifest], config: MatchConfig, data_dir: Path
) -> None:
    """Duplicate for people: the house bot plays the same deals in the person's seat against
    the same opponents (the same secret, so the same cards), once the person's game is over
    (nothing of it can reach the person's game)."""
    game_id = storage.row_id(game)
    assert game.house_bot is not None
    try:
        seats: list[SeatSpec] = list(bots)
        seats.insert(game.seat, _manifest(engine, game.house_bot, data_dir))
        same_cards = dataclasses.replace(config, match_id=f"play-{game_id}-house")
        result = await play_match(seats, same_cards)
    except (PlayError, HouseBotError, StorageError, ArenaFault, ValueError) as exc:
        play_games.set_house_game(engine, game_id, None, str(exc).splitlines()[0])
        return
    except asyncio.CancelledError:  # told to stop: the person's game is stored already
        play_games.set_house_game(engine, game_id, None, "the house bot's game was stopped")
        return
    play_games.set_house_game(engine, game_id, json.dumps(result.records[0]))


def store_house_bots(engine: Engine, game_id: int, data_dir: Path) -> bool:
    """Store every house bot game *game_id* names (opponents and the duplicate's), before
    the game's event loop starts: storing one builds it and plays its smoke game with an
    event loop of its own, which cannot run inside another. ``False`` (and the game
    failed, with the reason) if one cannot be stored."""
    game = play_games.get_play_game(engine, game_id)
    if game is None or game.status != "starting":
        return True  # nothing to prepare: play_game says what became of it
    names = [*json.loads(game.opponents), *([game.house_bot] if game.house_bot else [])]
    try:
        for name in dict.fromkeys(names):
            if name in HOUSE_BOTS:
                house_version(engine, name, data_dir)
    except (HouseBotError, StorageError) as exc:
        play_games.finish_play_game(engine, game_id, "failed", str(exc).splitlines()[0])
        return False
    return True


async def _main(engine: Engine, game_id: int, data_dir: Path) -> str:
    task = asyncio.ensure_future(play_game(engine, game_id, data_dir))
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, task.cancel)
    return await task


def main(argv: list[str] | None = None) -> int:
    """``python -m arena.play.runner ID``; 0 once the game is over, 1 if it failed."""
    args = sys.argv[1:] if argv is None else argv
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    if len(args) != 1 or not args[0].isdigit():
        print("usage: python -m arena.play.runner GAME_ID", file=sys.stderr)
        return 2
    configure_grpc(os.environ)
    try:
        engine = open_database(os.environ.get("ARENA_DB"))
    except StorageError as exc:
        print(f"play runner: {exc}", file=sys.stderr)
        return 1
    data_dir = Path(os.environ.get("ARENA_DATA", "arena-data"))
    game_id = int(args[0])
    if not store_house_bots(engine, game_id, data_dir):
        return 1
    try:
        status = asyncio.run(_main(engine, game_id, data_dir))
    except Exception as exc:  # the arena failed, not the person: say so on the page
        LOGGER.exception("game %s on the Play page: the arena failed", game_id)
        play_games.finish_play_game(
            engine, game_id, "failed", f"the arena failed: {str(exc).splitlines()[0][:200]}"
        )
        return 1
    LOGGER.info("game %s on the Play page: %s", args[0], status)
    return 0 if status in ("finished", "gone") else 1


if __name__ == "__main__":
    sys.exit(main())
