"""``GET /api/v1/bots/{name}/games``: newest first, a page at a time by game id (``next``
links until the last page), every version or one, each game with the bot's seats, faults
and time per decision; a private tournament's games only for the user it is private to.
On both backends."""

from __future__ import annotations

import hashlib

from arena import storage
from tests.api.support import World, assert_error, make_cup, seat_of
from tests.dashboard.seed import manifest


def test_pages_follow_each_other_to_the_last(world: World) -> None:
    alice = world.actor("alice")
    public = make_cup(world)
    private = make_cup(world, name="test match #5", private_to=alice.id, versions=public.versions)
    every = sorted([*public.game_ids.values(), *private.game_ids.values()], reverse=True)
    seen: list[int] = []
    url: str | None = "/api/v1/bots/alice_bot/games?limit=5"
    pages = 0
    with world.client() as client:
        while url is not None:
            page = client.get(url, headers=world.auth("alice")).json()
            seen += [g["id"] for g in page["games"]]
            url = page["next"]
            pages += 1
        first = client.get("/api/v1/bots/alice_bot/games", headers=world.auth("alice")).json()
        # bob's bot sat in alice's private test match too: bob sees only the public games.
        bobs = client.get("/api/v1/bots/bob_bot/games", headers=world.auth("bob")).json()
    assert seen == every and pages == 3
    assert first["next"] is None and [g["id"] for g in first["games"]] == every
    by_id = {g["id"]: g for g in first["games"]}
    assert {by_id[i]["private"] for i in private.game_ids.values()} == {True}
    assert {by_id[i]["tournament"] for i in public.game_ids.values()} == {"cup"}
    game = by_id[public.game_ids[0]]
    record = storage.game_record(world.engine, game["id"])
    seat = seat_of(record, "alice_bot")
    times = [[1.0, 2.0, 3.0], [4.0], [5.0, 6.0]][seat]
    assert game["seats"] == [seat] and game["faults"] == 1 and game["version"] == "alice_bot@1.0"
    assert game["timing"]["decisions"] == len(times)
    assert game["timing"]["max_ms"] == max(times)
    assert sorted(g["id"] for g in bobs["games"]) == sorted(public.game_ids.values())


def test_one_versions_games(world: World) -> None:
    first = make_cup(world)
    digest = hashlib.sha256(b"alice_bot 2").hexdigest()
    fields = {**manifest("alice_bot"), "version": "2.0"}
    second, _ = storage.add_bot_version(
        world.engine, fields, digest, "/bots/alice_bot2", submitter=world.actor("alice")
    )
    versions = {**first.versions, "alice_bot": storage.row_id(second)}
    later = make_cup(world, name="later cup", versions=versions)
    alice = world.auth("alice")
    with world.client() as client:
        newer = client.get("/api/v1/bots/alice_bot/games?version=2.0", headers=alice).json()
        older = client.get("/api/v1/bots/alice_bot/games?version=1&limit=2", headers=alice).json()
        assert_error(
            client.get("/api/v1/bots/alice_bot/games?version=9.9", headers=alice), 404, "not_found"
        )
        assert_error(client.get("/api/v1/bots/alice_bot/games?after=x", headers=alice), 400,
                     "bad_request")  # fmt: skip
        assert_error(client.get("/api/v1/bots/alice_bot/games?limit=201", headers=alice), 400,
                     "bad_request")  # fmt: skip
    assert sorted(g["id"] for g in newer["games"]) == sorted(later.game_ids.values())
    assert {g["version"] for g in newer["games"]} == {"alice_bot@2.0"}
    assert {g["version"] for g in older["games"]} == {"alice_bot@1.0"}
    assert older["next"] is not None and "version=1" in older["next"]
