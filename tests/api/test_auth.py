"""Who may call what: 401 for a missing, malformed, unknown, revoked or expired token (with
``WWW-Authenticate``), 403 ``scope_required`` for a token without the route's scope, 403
``forbidden`` for another user's bot, submission or test match, and an organiser's token
that acts as a participant only. Each refusal has its control: the same request done right
succeeds. On SQLite and PostgreSQL: the checks are the storage functions'."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import update

from arena.storage import submissions
from arena.storage.database import write_session
from arena.storage.models import ApiToken, utcnow
from arena.storage.privacy import Viewer
from arena.storage.test_matches import request_test_match
from arena.storage.tokens import revoke_token
from arena.storage.workspace import check_may_read_bot
from tests.api.support import World, assert_error, make_cup

ME = "/api/v1/me"


def test_every_kind_of_bad_token_is_401_with_its_code(world: World) -> None:
    with world.client() as client:
        assert client.get(ME, headers=world.auth("alice")).status_code == 200  # control
        missing = client.get(ME)
        assert_error(missing, 401, "missing_token")
        assert missing.headers["www-authenticate"] == "Bearer"
        cases = {
            "Bearer not-a-token": "bad_token",
            "Bearer a952_" + "x" * 43: "bad_token",  # well-formed, unknown
            "Basic YWxpY2U6cGFzc3dvcmQ=": "bad_token",
            "Bearer": "bad_token",
            world.tokens["alice"]: "bad_token",  # the secret without "Bearer"
        }
        for header, code in cases.items():
            refused = client.get(ME, headers={"Authorization": header})
            assert_error(refused, 401, code)
            assert refused.headers["www-authenticate"].startswith("Bearer")

        revoke_token(world.engine, world.actor("alice"), "alice", "alice_read")
        assert_error(client.get(ME, headers=world.auth("alice_read")), 401, "revoked_token")
        with write_session(world.engine) as session:
            session.execute(
                update(ApiToken)
                .where(ApiToken.id == world.token_ids["bob"])  # type: ignore[arg-type]
                .values(expires_at=utcnow() - timedelta(minutes=1))
            )
            session.commit()
        assert_error(client.get(ME, headers=world.auth("bob")), 401, "expired_token")
        # Control: the other tokens still work, and say who they act for.
        me = client.get(ME, headers=world.auth("alice")).json()
        assert me["user"] == "alice" and me["token"]["name"] == "alice"
        assert me["token"]["scopes"] == ["read", "submit"]


def test_a_token_without_the_routes_scope_is_403_scope_required(world: World) -> None:
    with world.client() as client:
        body = {"bot": "alice_bot", "opponents": ["builtin:greedy"]}
        refused = client.post("/api/v1/test-matches", headers=world.auth("alice_read"), json=body)
        assert_error(refused, 403, "scope_required")
        refused = client.post(
            "/api/v1/bots", headers=world.auth("alice_read"), files={"archive": ("b.zip", b"x")}
        )
        assert_error(refused, 403, "scope_required")
        assert_error(client.get("/api/v1/bots", headers=world.auth("alice_submit")), 403,
                     "scope_required")  # fmt: skip
        # Controls: the same requests with the scope get past it (to the bot's absence, or
        # to the archive's check).
        assert_error(client.post("/api/v1/test-matches", headers=world.auth("alice"), json=body),
                     404, "not_found")  # fmt: skip
        assert_error(
            client.post(
                "/api/v1/bots", headers=world.auth("alice"), files={"archive": ("b.zip", b"x")}
            ),
            422,
            "archive_refused",
        )
        assert client.get("/api/v1/bots", headers=world.auth("alice_read")).status_code == 200
    assert submissions.user_submissions(world.engine, world.actor("alice").id) == []


def test_another_users_bot_submission_and_test_match_are_403(world: World) -> None:
    cup = make_cup(world)
    bob = world.actor("bob")
    bob_match = request_test_match(
        world.engine, by=bob, bot="bob_bot", opponents=["builtin:greedy"]
    )
    bob_submission = submissions.start_submission(
        world.engine, user_id=bob.id, bot_name="bob_bot", via="api"
    )
    alice = world.auth("alice")
    with world.client() as client:
        for url in (
            "/api/v1/bots/bob_bot",
            "/api/v1/bots/bob_bot/games",
            f"/api/v1/submissions/{bob_submission}",
            f"/api/v1/test-matches/{bob_match.id}",
        ):
            assert_error(client.get(url, headers=alice), 403, "forbidden")
            assert client.get(url, headers=world.auth("bob")).status_code == 200  # control
        body = {"bot": "bob_bot", "opponents": ["builtin:greedy"]}
        assert_error(client.post("/api/v1/test-matches", headers=alice, json=body), 403,
                     "forbidden")  # fmt: skip
        # A look-alike spelling of bob's bot is still bob's bot.
        assert_error(client.get("/api/v1/bots/Bob-Bot", headers=alice), 403, "forbidden")
        # Control: alice's own bot and test match.
        assert client.get("/api/v1/bots/alice_bot", headers=alice).json()["owner"] == "alice"
        mine = {"bot": "alice_bot", "opponents": ["builtin:greedy"]}
        assert client.post("/api/v1/test-matches", headers=alice, json=mine).status_code == 202
        assert_error(client.get("/api/v1/bots/no_such_bot", headers=alice), 404, "not_found")
    assert cup.game_ids


def test_an_organisers_token_does_not_carry_organiser_rights(world: World) -> None:
    """olga, an organiser, may read bob's bot and test it from the CLI and the dashboard;
    her token acts as a participant, so the API refuses both."""
    make_cup(world)
    olga = world.actor("olga")
    assert olga.is_organiser
    # Control: the functions the API calls allow the organiser herself.
    assert check_may_read_bot(world.engine, "bob_bot", Viewer.of(olga)).name == "bob_bot"
    match = request_test_match(world.engine, by=olga, bot="bob_bot", opponents=["builtin:greedy"])
    with world.client() as client:
        token = world.auth("olga")
        assert client.get("/api/v1/me", headers=token).json()["user"] == "olga"
        assert_error(client.get("/api/v1/bots/bob_bot", headers=token), 403, "forbidden")
        body = {"bot": "bob_bot", "opponents": ["builtin:greedy"]}
        assert_error(client.post("/api/v1/test-matches", headers=token, json=body), 403,
                     "forbidden")  # fmt: skip
        # Her own test match of bob's bot (made as an organiser, from the CLI) is hers.
        assert client.get(f"/api/v1/test-matches/{match.id}", headers=token).status_code == 200
        # A test match's private tournament: bob's is not hers to see through the API.
        bob_match = request_test_match(
            world.engine, by=world.actor("bob"), bot="bob_bot", opponents=["builtin:random"]
        )
        assert_error(client.get(f"/api/v1/test-matches/{bob_match.id}", headers=token), 403,
                     "forbidden")  # fmt: skip
