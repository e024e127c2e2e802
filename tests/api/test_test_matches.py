"""``POST /api/v1/test-matches`` and ``GET /api/v1/test-matches/{id}``: a request is queued
by the CLI's and the dashboard's function and the queue runner is started; its quota is a
429 with ``Retry-After``; unknown opponents, bad JSON, another content type and invalid
fields are refused with their codes. Each with its control. On both backends."""

from __future__ import annotations

from arena.api.settings import ApiSettings
from arena.storage import test_matches
from arena.tournament.queue_starter import start_queue_runner
from tests.api.support import World, assert_error, make_cup

URL = "/api/v1/test-matches"


def test_a_test_match_is_queued_and_followed(world: World) -> None:
    make_cup(world)
    alice = world.auth("alice")
    with world.client() as client:
        body = {"bot": "alice_bot", "opponents": ["builtin:greedy"], "boards": 2}
        accepted = client.post(URL, headers=alice, json=body)
        assert accepted.status_code == 202, accepted.text
        queued = accepted.json()
        assert queued["state"] == "queued" and queued["url"] == f"{URL}/{queued['id']}"
        assert len(world.queue_starts.calls) == 1  # the queue runner was started
        shown = client.get(queued["url"], headers=alice).json()
    assert shown["bot"] == "alice_bot@1.0" and shown["state"] == "queued"
    assert shown["opponents"] == ["builtin:greedy", "builtin:random"]  # the third seat filled
    assert shown["queue_position"] == 1 and shown["boards"] == 2
    assert shown["games_stored"] == 0 and shown["games_total"] == 12
    assert shown["tournament"] is None and shown["finished_at"] is None
    assert len(world.queue_starts.calls) == 1


def test_the_quota_is_429_with_retry_after(world: World) -> None:
    make_cup(world)
    alice = world.auth("alice")
    with world.client() as client:
        body = {"bot": "alice_bot", "opponents": ["bob_bot"], "boards": 6}
        assert client.post(URL, headers=alice, json=body).status_code == 202  # the hour's six
        refused = client.post(URL, headers=alice, json={**body, "boards": 1})
        answer = assert_error(refused, 429, "quota_exceeded")
        assert "6 board(s) per hour" in answer["message"]
        assert 0 < answer["retry_after"] == int(refused.headers["retry-after"]) <= 3600
        # Control: bob's quota is his own.
        bob_body = {"bot": "bob_bot", "opponents": ["builtin:random"], "boards": 1}
        assert client.post(URL, headers=world.auth("bob"), json=bob_body).status_code == 202


def test_refused_requests_say_why(world: World) -> None:
    make_cup(world)
    alice = world.auth("alice")
    with world.client(ApiSettings(write_burst=50)) as client:
        unknown = {"bot": "alice_bot", "opponents": ["builtin:nobody"]}
        assert "no house bot" in assert_error(client.post(URL, headers=alice, json=unknown),
                                              422, "refused")["message"]  # fmt: skip
        twice = {"bot": "alice_bot", "opponents": ["bob_bot", "bob_bot"]}
        assert_error(client.post(URL, headers=alice, json=twice), 422, "refused")
        ruleset = {"bot": "alice_bot", "opponents": ["bob_bot"], "ruleset": "nonsense"}
        assert_error(client.post(URL, headers=alice, json=ruleset), 422, "refused")
        bad_json = client.post(
            URL, headers={**alice, "Content-Type": "application/json"}, content=b"{not json"
        )
        assert_error(bad_json, 400, "bad_request")
        as_form = client.post(URL, headers=alice, data={"bot": "alice_bot"})
        assert_error(as_form, 415, "unsupported_media_type")
        for invalid in (
            {"bot": "alice_bot", "opponents": []},
            {"bot": "alice_bot", "opponents": ["a", "b", "c"]},
            {"bot": "alice_bot", "opponents": ["bob_bot"], "boards": 0},
            {"bot": "alice_bot", "opponents": ["bob_bot"], "boards": 21},
            {"bot": "alice_bot", "opponents": ["bob_bot"], "surprise": 1},
            {"opponents": ["bob_bot"]},
        ):
            assert_error(client.post(URL, headers=alice, json=invalid), 422, "invalid_request")
        assert_error(client.get(f"{URL}/424242", headers=alice), 404, "not_found")
        assert_error(client.get(f"{URL}/zero", headers=alice), 400, "bad_request")
        # Control: the same request, well formed.
        good = {"bot": "alice_bot", "opponents": ["bob_bot"], "boards": 1, "version": "1.0"}
        assert client.post(URL, headers=alice, json=good).status_code == 202
    assert len(test_matches.list_test_matches(world.engine, world.actor("alice"))) == 1


def test_no_second_queue_runner_while_one_holds_the_queue(world: World) -> None:
    """The starter the API uses by default (and the dashboard) starts nothing while a
    runner holds the queue; the process start itself is the end-to-end test's."""
    with test_matches.queue_lock(world.engine):
        assert start_queue_runner(world.engine, world.url, world.data) is None
