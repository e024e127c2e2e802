"""The API tests' world: an arena database with users and tokens, the API served
in-process by Starlette's ``TestClient``, bot archives, and a small tournament whose games
are stored as the runner stores them (real records, no bot processes).

Users: ``alice`` and ``bob`` (participants), ``olga`` (an organiser). Tokens (secrets in
:attr:`World.tokens`): ``alice`` (read and submit), ``alice_read``, ``alice_submit``,
``bob`` and ``olga`` (read and submit).
"""

from __future__ import annotations

import hashlib
import io
import stat
import time
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from arena import storage
from arena.api.app import create_app
from arena.api.settings import ApiSettings
from arena.game.record import game_record
from arena.storage.database import open_database
from arena.storage.models import TABLE_DEALS
from arena.storage.tokens import create_token
from arena.storage.users import Actor, create_user
from arena.tournament.formats import ScheduledGame
from arena.tournament.runner import store_game
from tests.dashboard.seed import manifest, play, secret_deal_cup

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots"
TOKENS = {
    "alice": ("alice", "read submit"),
    "alice_read": ("alice", "read"),
    "alice_submit": ("alice", "submit"),
    "bob": ("bob", "read submit"),
    "olga": ("olga", "read submit"),
}
STDERR_MARK = "ALICE-PRIVATE-STDERR"


@dataclass
class QueueStarts:
    """A stand-in for the queue runner's start: counts the calls, starts nothing."""

    calls: list[str] = field(default_factory=list)

    def __call__(self, engine: Engine, url: str, data: Path) -> int | None:
        self.calls.append(url)
        return None


@dataclass
class World:
    url: str
    engine: Engine
    data: Path
    tokens: dict[str, str]
    token_ids: dict[str, int]
    queue_starts: QueueStarts

    def actor(self, name: str) -> Actor:
        return storage.actor(self.engine, name)

    def auth(self, token: str) -> dict[str, str]:
        """The header of token *token* (a key of :data:`TOKENS`)."""
        return {"Authorization": f"Bearer {self.tokens[token]}"}

    @contextmanager
    def client(
        self, settings: ApiSettings | None = None, wrap: Callable[[Any], Any] | None = None
    ) -> Iterator[TestClient]:
        """The API on this world, started (its lifespan runs) and stopped around the block;
        *wrap* wraps the application (an ASGI middleware of the test's)."""
        app: Any = create_app(
            self.engine, self.data, settings or ApiSettings(), queue_starter=self.queue_starts
        )
        with TestClient(wrap(app) if wrap else app, raise_server_exceptions=False) as client:
            yield client


def make_world(url: str, data: Path) -> World:
    engine = open_database(url)
    for name, role in (("alice", "participant"), ("bob", "participant"), ("olga", "organiser")):
        create_user(engine, name, role, None)
    tokens, ids = {}, {}
    for token, (owner, scopes) in TOKENS.items():
        secret, info = create_token(
            engine, storage.actor(engine, owner), owner=owner, name=token, scopes=scopes
        )
        tokens[token], ids[token] = secret, info.id
    return World(url, engine, data, tokens, ids, QueueStarts())


def bot_zip(name: str, version: str = "1.0.0", source: Path = SAMPLES / "random_bot") -> bytes:
    """The sample bot *source* renamed *name*, as a zip (bot.toml at its top)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(source.rglob("*")):
            if path.is_dir() or "__pycache__" in path.parts:
                continue
            data = path.read_bytes()
            if path.name == "bot.toml":
                text = data.decode()
                old_name = text.split('name = "', 1)[1].split('"', 1)[0]
                text = text.replace(f'name = "{old_name}"', f'name = "{name}"', 1)
                text = text.replace('version = "1.0.0"', f'version = "{version}"', 1)
                data = text.encode()
            info = zipfile.ZipInfo(str(path.relative_to(source)))
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def upload(
    client: TestClient, headers: dict[str, str], data: bytes, filename: str = "bot.zip"
) -> Any:
    """``POST /api/v1/bots`` with *data* as the archive."""
    return client.post(
        "/api/v1/bots", headers=headers, files={"archive": (filename, data, "application/zip")}
    )


def wait_for_submission(
    client: TestClient, headers: dict[str, str], submission_id: int, timeout_s: float = 300
) -> dict[str, Any]:
    """Poll the submission until it is no longer running; its last answer."""
    deadline = time.monotonic() + timeout_s
    while True:
        answer = client.get(f"/api/v1/submissions/{submission_id}", headers=headers)
        assert answer.status_code == 200, answer.text
        body: dict[str, Any] = answer.json()
        if body["state"] != "running":
            return body
        assert time.monotonic() < deadline, body
        time.sleep(0.2)


def assert_error(answer: Any, status: int, code: str) -> dict[str, Any]:
    """*answer* is the error *status* with *code*, as every error is: ``{code, message}``."""
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = answer.json()
    assert body["code"] == code, body
    assert isinstance(body["message"], str) and body["message"] and "\n" not in body["message"]
    assert set(body) <= {"code", "message", "retry_after"}
    return body


# ----------------------------------------------------------------------------- a cup


@dataclass
class Cup:
    """A 3-bot, 1-board round robin with secret deals (6 games): ``alice_bot`` (alice's),
    ``bob_bot`` (bob's) and ``house_bot`` (the host's). Its status is *status* and the
    games of *stored* schedule indexes are stored."""

    tournament_id: int
    name: str
    schedule: list[ScheduledGame]
    versions: dict[str, int]
    game_ids: dict[int, int]
    """Schedule index -> stored game id."""


def make_cup(
    world: World,
    *,
    name: str = "cup",
    stored: range = range(6),
    status: str = "finished",
    private_to: int | None = None,
    versions: dict[str, int] | None = None,
) -> Cup:
    engine = world.engine
    if versions is None:
        versions = {}
        for bot, owner in (("alice_bot", "alice"), ("bob_bot", "bob"), ("house_bot", "local")):
            digest = hashlib.sha256(bot.encode()).hexdigest()
            version, _ = storage.add_bot_version(
                engine, manifest(bot), digest, f"/bots/{bot}", submitter=world.actor(owner)
            )
            versions[bot] = storage.row_id(version)
    ids = list(versions.values())
    tournament_id, schedule = secret_deal_cup(
        engine, name, ids, deal_scope=TABLE_DEALS, private_to=private_to
    )
    cup = Cup(tournament_id, name, schedule, versions, {})
    labels = [f"{bot}@1.0" for bot in versions]
    for index in stored:
        game = schedule[index]
        seats = [ids[e] for e in game.entrants]
        state = play("classic", game.seed, game.first_dealer, ["greedy"] * 3)
        players = [labels[e] for e in game.entrants]
        logs = [
            {"stdout": "", "stderr": f"{STDERR_MARK} seat {s}", "dropped_bytes": 0}
            for s in range(3)
        ]
        faults = [
            {"seat": s, "hand": 1, "decision": "play", "kind": "timeout", "detail": STDERR_MARK,
             "autopilot": True, "stderr_tail": STDERR_MARK}
            for s in range(3)
        ]  # fmt: skip
        timings = {"decision_ms": [[1.0, 2.0, 3.0], [4.0], [5.0, 6.0]]}
        record = game_record(state, players, faults, {"bot_logs": logs, "timings": timings})
        store_game(engine, cup.tournament_id, game, seats, record, 6)
        cup.game_ids[index] = storage.tournament_game_ids(engine, cup.tournament_id)[-1]
    storage.set_status(engine, cup.tournament_id, status)
    return cup


def seat_of(record: dict[str, Any], bot: str) -> int:
    return [p.split("@")[0] for p in record["players"]].index(bot)


def poll(check: Callable[[], bool], timeout_s: float = 60) -> None:
    """Wait until *check* holds (a generous deadline, never a fixed sleep)."""
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)
