"""The public routes: a game's record as each caller may read it (the owner's seats only
for a token, nothing private for a spectator), held back while games dealt alike are
unplayed, a private tournament unknown to others; standings exactly ``arena standings
--json``'s; and a private arena that wants a token for them. On both backends."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from arena.cli import main
from tests.api.support import STDERR_MARK, World, assert_error, make_cup, seat_of


def test_a_games_record_as_each_caller_may_read_it(world: World) -> None:
    cup = make_cup(world)
    game = cup.game_ids[0]
    with world.client() as client:
        mine = client.get(f"/api/v1/games/{game}", headers=world.auth("alice")).json()
        spectator = client.get(f"/api/v1/games/{game}").json()
        organiser = client.get(f"/api/v1/games/{game}", headers=world.auth("olga")).json()
    assert mine["format"] == "arena952.game/1" and mine["result"] is not None
    seat = seat_of(mine, "alice_bot")
    others = [s for s in range(3) if s != seat]
    assert STDERR_MARK in mine["bot_logs"][seat]["stderr"]
    assert all(mine["bot_logs"][s]["hidden"] for s in others)
    assert [f["detail"] == STDERR_MARK for f in mine["faults"]] == [s == seat for s in range(3)]
    # A spectator, and an organiser's token (a participant's rights), read no one's logs.
    for view in (spectator, organiser):
        assert STDERR_MARK not in json.dumps(view)
        assert view["hands"] == mine["hands"] and view["result"] == mine["result"]


def test_cards_are_held_back_while_games_dealt_alike_are_unplayed(world: World) -> None:
    cup = make_cup(world, stored=range(3), status="running")
    game = cup.game_ids[0]
    with world.client() as client:
        for headers in ({}, world.auth("alice"), world.auth("olga")):
            held = client.get(f"/api/v1/games/{game}", headers=headers)
            assert "3 of 6 stored" in assert_error(held, 409, "held_back")["message"]
        assert_error(client.get("/api/v1/games/999999"), 404, "not_found")
        # Control: once the tournament is over, its cards are shown.
        from arena import storage  # noqa: PLC0415

        storage.set_status(world.engine, cup.tournament_id, "finished")
        assert client.get(f"/api/v1/games/{game}").status_code == 200


PRIVATE_STANDINGS = f"/api/v1/tournaments/{quote('test match #77', safe='')}/standings"
"""A test match's name holds '#': percent-encoded, or it would start the URL's fragment."""


def test_a_private_tournament_is_unknown_to_others(world: World) -> None:
    alice = world.actor("alice")
    public = make_cup(world)
    private = make_cup(world, name="test match #77", private_to=alice.id, versions=public.versions)
    game = private.game_ids[0]
    with world.client() as client:
        for headers in ({}, world.auth("bob"), world.auth("olga")):
            assert_error(client.get(f"/api/v1/games/{game}", headers=headers), 404, "not_found")
            refused = client.get(PRIVATE_STANDINGS, headers=headers)
            assert_error(refused, 404, "not_found")
        # Control: its requester sees both.
        assert client.get(f"/api/v1/games/{game}", headers=world.auth("alice")).status_code == 200
        standings = client.get(PRIVATE_STANDINGS, headers=world.auth("alice"))
        assert standings.status_code == 200 and standings.json()["tournament"] == "test match #77"


def test_standings_are_exactly_the_clis_json(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    make_cup(world, name="club cup")
    assert (
        main(["standings", "club cup", "--json", "--db", world.url, "--data", str(world.data)]) == 0
    )
    expected = json.loads(capsys.readouterr().out)
    assert len(expected["standings"]) == 3 and expected["games_stored"] == 6
    with world.client() as client:
        answer = client.get("/api/v1/tournaments/club%20cup/standings")
        assert answer.status_code == 200
        assert answer.json() == expected
        with_token = client.get("/api/v1/tournaments/club cup/standings", headers=world.auth("bob"))
        assert with_token.json() == expected
        assert_error(client.get("/api/v1/tournaments/no such cup/standings"), 404, "not_found")


def test_a_private_arena_wants_a_read_token_on_public_routes(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    cup = make_cup(world)
    monkeypatch.setenv("ARENA_DASHBOARD_PRIVATE", "1")
    from arena.api.settings import ApiSettings  # noqa: PLC0415

    private = ApiSettings.from_environment()
    assert private.private
    game = f"/api/v1/games/{cup.game_ids[0]}"
    standings = "/api/v1/tournaments/cup/standings"
    with world.client(private) as client:
        for url in (game, standings):
            assert_error(client.get(url), 401, "missing_token")
            assert_error(client.get(url, headers=world.auth("alice_submit")), 403, "scope_required")
            assert client.get(url, headers=world.auth("alice_read")).status_code == 200  # control
        # The health route stays open (a load balancer has no token).
        assert client.get("/api/v1/health").json()["status"] == "ok"
    # Control: the same arena, public, answers a spectator.
    with world.client() as client:
        assert client.get(game).status_code == 200 and client.get(standings).status_code == 200
