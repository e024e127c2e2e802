"""Rate limits: a flood from one token gets 429 with ``Retry-After`` while another token is
unaffected; submissions and test-match requests have a bucket of their own; requests
without a token (or with a refused one) count per client key; the limiter's memory is
bounded; the ``ARENA_API_*`` settings refuse nonsense in one line. SQLite only: the
database is not the subject."""

from __future__ import annotations

import threading

import pytest

from arena.api.limits import RateLimiter
from arena.api.settings import ApiSettings, Rate
from tests.api.support import World, assert_error

FLOOD = ApiSettings(read_burst=5, read_per_second=0.001, write_burst=2, write_per_second=0.001,
                    client_burst=3, client_per_second=0.001)  # fmt: skip
"""Buckets that hardly refill while a test runs: what is counted is what was sent."""


def test_a_flood_from_one_token_is_429_and_another_token_is_unaffected(
    sqlite_world: World,
) -> None:
    world = sqlite_world
    with world.client(FLOOD) as client:
        statuses = [client.get("/api/v1/bots", headers=world.auth("alice")).status_code
                    for _ in range(8)]  # fmt: skip
        assert statuses == [200] * 5 + [429] * 3
        refused = client.get("/api/v1/me", headers=world.auth("alice"))
        body = assert_error(refused, 429, "rate_limited")
        assert int(refused.headers["retry-after"]) >= 1
        assert body["retry_after"] == int(refused.headers["retry-after"])
        # Control: bob's token, and alice's other token, have buckets of their own.
        assert client.get("/api/v1/bots", headers=world.auth("bob")).status_code == 200
        assert client.get("/api/v1/bots", headers=world.auth("alice_read")).status_code == 200


def test_writes_have_a_bucket_of_their_own(sqlite_world: World) -> None:
    world = sqlite_world
    body = {"bot": "nobody", "opponents": ["builtin:greedy"]}
    with world.client(FLOOD) as client:
        answers = [client.post("/api/v1/test-matches", headers=world.auth("alice"), json=body)
                   for _ in range(3)]  # fmt: skip
        assert [a.status_code for a in answers] == [404, 404, 429]
        assert_error(answers[2], 429, "rate_limited")
        # The uploads share it: the token's writes are spent.
        refused = client.post(
            "/api/v1/bots", headers=world.auth("alice"), files={"archive": ("b.zip", b"x")}
        )
        assert_error(refused, 429, "rate_limited")
        # Control: reads of the same token are counted apart.
        assert client.get("/api/v1/bots", headers=world.auth("alice")).status_code == 200


def test_tokenless_and_refused_requests_count_per_client(sqlite_world: World) -> None:
    world = sqlite_world
    with world.client(FLOOD) as client:
        assert client.get("/api/v1/health").status_code == 200
        assert_error(client.get("/api/v1/me"), 401, "missing_token")
        bad = {"Authorization": "Bearer a952_" + "y" * 43}
        assert_error(client.get("/api/v1/me", headers=bad), 401, "bad_token")
        # The client's three are spent: health, standings, and guesses are all refused.
        assert_error(client.get("/api/v1/health"), 429, "rate_limited")
        assert_error(client.get("/api/v1/tournaments/x/standings"), 429, "rate_limited")
        assert_error(client.get("/api/v1/me", headers=bad), 429, "rate_limited")
        # Control: a good token is counted under itself, not the client.
        assert client.get("/api/v1/me", headers=world.auth("alice")).status_code == 200


def test_the_limiter_keeps_a_bounded_number_of_buckets() -> None:
    now = [0.0]
    limiter = RateLimiter(max_tracked=100, clock=lambda: now[0])
    rate = Rate(burst=2, per_second=1.0)
    for i in range(10_000):
        assert limiter.take(f"client:{i}", rate) == 0
    assert limiter.tracked == 100
    # The most recent callers are the ones kept: their buckets are as they left them.
    assert limiter.take("client:9999", rate) == 0
    assert limiter.take("client:9999", rate) == pytest.approx(1.0)
    # Control: a refill brings a caller back.
    now[0] += 1.0
    assert limiter.take("client:9999", rate) == 0


def test_the_limiter_counts_exactly_under_threads() -> None:
    limiter = RateLimiter(max_tracked=10, clock=lambda: 0.0)
    rate = Rate(burst=500, per_second=1.0)
    granted: list[int] = []

    def hammer() -> None:
        granted.append(sum(1 for _ in range(100) if limiter.take("token:1", rate) == 0))

    threads = [threading.Thread(target=hammer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(granted) == 500


@pytest.mark.parametrize(
    ("variable", "value"),
    [("ARENA_API_BUILDS", "0"), ("ARENA_API_READ_BURST", "ten"),
     ("ARENA_API_WRITE_PER_SECOND", "nan"), ("ARENA_API_MAX_BODY", "-5"),
     ("ARENA_API_CLIENT_PER_SECOND", "inf")],
)  # fmt: skip
def test_a_bad_setting_is_one_line_naming_its_variable(variable: str, value: str) -> None:
    with pytest.raises(ValueError, match=f"\\${variable} must be") as caught:
        ApiSettings.from_environment({variable: value})
    assert "\n" not in str(caught.value)


def test_settings_from_the_environment() -> None:
    settings = ApiSettings.from_environment(
        {"ARENA_API_BUILDS": "2", "ARENA_API_WRITE_PER_SECOND": "0.5",
         "ARENA_DASHBOARD_PRIVATE": "yes"}
    )  # fmt: skip
    assert settings.builds == 2 and settings.write_per_second == 0.5 and settings.private
    default = ApiSettings.from_environment({})
    assert default == ApiSettings() and not default.private
    assert default.rate("write") == Rate(5, 0.1) and default.rate("client") == Rate(30, 5.0)
    # A submission left running is abandoned once no live server can still be on it:
    # behind a full queue (4 builds ahead of it, one at a time) and its own build.
    assert default.abandoned_after_s == 5 * (600 + 600)
