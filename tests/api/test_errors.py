"""Every error is JSON ``{code, message}``: an unknown route or method, an arena bug (500
``internal``, saying nothing of the inside) and a database that cannot be reached (503
``unavailable``, the health route included). Each with its control."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import SQLAlchemyError

from arena.api import routes_bots
from arena.api.app import create_app
from arena.api.settings import ApiSettings
from arena.storage import submissions
from arena.storage.bot_games import bot_games, bot_version_labels
from arena.storage.database import StorageError, make_engine
from arena.storage.models import utcnow
from arena.storage.privacy import SPECTATOR
from arena.tournament.held_back import game_held_back
from tests.api.support import World, assert_error


def test_unknown_routes_and_methods(sqlite_world: World) -> None:
    world = sqlite_world
    with world.client() as client:
        assert_error(client.get("/api/v1/nothing"), 404, "not_found")
        assert_error(client.get("/"), 404, "not_found")
        assert_error(client.put("/api/v1/bots", headers=world.auth("alice")), 405,
                     "method_not_allowed")  # fmt: skip
        assert client.get("/api/v1/bots", headers=world.auth("alice")).status_code == 200


def test_an_arena_bug_is_500_internal_and_says_nothing_inside(
    sqlite_world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = sqlite_world

    def broken(*_args: object) -> None:
        raise RuntimeError("SECRET-INSIDE /var/lib/arena/whatever")

    with world.client() as client:
        assert client.get("/api/v1/bots", headers=world.auth("alice")).status_code == 200
        monkeypatch.setattr(routes_bots, "author_bots", broken)
        answer = client.get("/api/v1/bots", headers=world.auth("alice"))
    body = assert_error(answer, 500, "internal")
    assert "SECRET" not in answer.text and "arena failed" in body["message"]


def test_a_database_that_cannot_be_reached_is_503_unavailable(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'no' / 'such' / 'folder' / 'arena.db'}")
    app = create_app(engine, tmp_path, ApiSettings())
    token = {"Authorization": "Bearer a952_" + "z" * 43}
    with TestClient(app, raise_server_exceptions=False) as client:
        assert_error(client.get("/api/v1/health"), 503, "unavailable")
        assert_error(client.get("/api/v1/me", headers=token), 503, "unavailable")
        assert_error(client.get("/api/v1/games/1"), 503, "unavailable")
        assert_error(client.get("/api/v1/tournaments/cup/standings"), 503, "unavailable")
    engine.dispose()
    # Control: the folder made, the same server is healthy.
    (tmp_path / "no" / "such" / "folder").mkdir(parents=True)
    from arena.storage.database import open_database  # noqa: PLC0415

    engine = open_database(f"sqlite:///{tmp_path / 'no' / 'such' / 'folder' / 'arena.db'}")
    with TestClient(create_app(engine, tmp_path, ApiSettings())) as client:
        assert client.get("/api/v1/health").json()["database"] == "ok"
        assert_error(client.get("/api/v1/me", headers=token), 401, "bad_token")
    engine.dispose()


STORAGE_CALLS = {
    "bot_games": lambda e: bot_games(e, [1], SPECTATOR, {1: "x@1"}),
    "bot_version_labels": lambda e: bot_version_labels(e, 1),
    "get_submission": lambda e: submissions.get_submission(e, 1),
    "interrupt_stale_submissions": lambda e: submissions.interrupt_stale_submissions(
        e, via="api", started_before=utcnow()
    ),
    "game_held_back": lambda e: game_held_back(e, 1),
}


@pytest.mark.parametrize("name", sorted(STORAGE_CALLS))
def test_the_new_reads_fail_as_one_storage_error(name: str, tmp_path: Path) -> None:
    """As tests/storage/test_errors.py asks of every storage function: a database without
    tables makes a one-line StorageError, never a driver exception."""
    tableless = make_engine(f"sqlite:///{tmp_path / 'empty.db'}")
    with pytest.raises(StorageError) as caught:
        STORAGE_CALLS[name](tableless)
    assert "database error" in str(caught.value) and "\n" not in str(caught.value)
    assert isinstance(caught.value.__cause__, SQLAlchemyError)
    tableless.dispose()
