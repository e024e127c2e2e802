"""Client keys and the limits on one visitor (arena/web/clients.py, arena/web/limits.py),
with a clock that the tests move by hand."""

from __future__ import annotations

import pytest

from arena.web.clients import UNKNOWN, client_key, forwarded_allow_ips, parse_trusted_proxies
from arena.web.limits import MAX_CLIENTS_TRACKED, SessionGate, VisitorLimits


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("198.51.100.7", "198.51.100.7"),
        ("::ffff:198.51.100.7", "198.51.100.7"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"),
        ("fe80::1%eth0", "fe80::/64"),
        (None, UNKNOWN),
        ("", UNKNOWN),
        ("testclient", UNKNOWN),
    ],
)
def test_a_client_key_is_an_address_or_its_ipv6_network(address: str | None, key: str) -> None:
    assert client_key(address) == key


def test_trusted_proxies_become_uvicorns_setting() -> None:
    assert forwarded_allow_ips(parse_trusted_proxies("")) == ""  # trusts nobody
    assert forwarded_allow_ips(parse_trusted_proxies(" 10.0.0.1 ,fd00::/8")) == (
        "10.0.0.1/32,fd00::/8"
    )


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


LIMITS = VisitorLimits(
    sessions_per_client=3, sessions=5, new_sessions_burst=4, new_sessions_per_minute=60
)


def test_one_client_gets_its_sessions_and_no_more() -> None:
    gate = SessionGate(LIMITS, Clock())
    assert [gate.admit("a") for _ in range(3)] == [None] * 3
    refused = gate.admit("a")
    assert refused is not None and "3 sessions are open from your address" in refused
    assert gate.admit("b") is None  # control: another client is not affected
    gate.release("a")
    assert gate.admit("a") is None  # a closed session frees its place


def test_new_sessions_from_one_client_are_paced_after_a_burst() -> None:
    clock = Clock()
    gate = SessionGate(LIMITS, clock)
    for _ in range(LIMITS.new_sessions_burst):  # open and close at once: a reload loop
        assert gate.admit("a") is None
        gate.release("a")
    refused = gate.admit("a")
    assert refused is not None and "too many new sessions" in refused
    assert gate.admit("b") is None  # control: another client
    clock.now += 60 / LIMITS.new_sessions_per_minute
    assert gate.admit("a") is None  # the steady rate


def test_the_whole_server_has_a_most() -> None:
    gate = SessionGate(LIMITS, Clock())
    for client in "abcde":
        assert gate.admit(client) is None
    refused = gate.admit("f")
    assert refused is not None and "the server has 5 sessions open" in refused
    assert gate.open_sessions == LIMITS.sessions


def test_a_clients_messages_wait_once_past_their_burst_and_others_do_not() -> None:
    clock = Clock()
    limits = VisitorLimits(messages_burst=3, messages_per_second=2, message_wait_s=1.0)
    gate = SessionGate(limits, clock)
    assert [gate.message_delay("a") for _ in range(3)] == [0, 0, 0]
    assert gate.message_delay("a") == pytest.approx(0.5)
    assert gate.message_delay("a") == pytest.approx(1.0)  # the waits queue up...
    assert gate.message_delay("a") is None  # ...up to a point: the session is to end
    assert gate.message_delay("a") is None  # and the refused ones were not counted
    assert gate.message_delay("b") == 0  # control: another client
    clock.now += 10
    assert gate.message_delay("a") == 0


def test_idle_clients_are_forgotten_so_many_addresses_cannot_grow_memory() -> None:
    clock = Clock()
    tracked = 300
    gate = SessionGate(LIMITS, clock, max_tracked=tracked)
    most = 0
    for n in range(3 * tracked):
        client = f"10.{n // 65536}.{n // 256 % 256}.{n % 256}"
        assert gate.admit(client) is None
        gate.release(client)
        most = max(most, gate.tracked_clients)
        clock.now += 1.0  # each client's bucket is full again by the time it is pruned
    assert tracked <= most <= tracked + 1
    assert 10 * tracked <= MAX_CLIENTS_TRACKED  # the server's own bound is far above


def test_limits_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_DASHBOARD_SESSIONS_PER_CLIENT", "2")
    assert VisitorLimits.from_environment().sessions_per_client == 2
    for bad in ("0", "-1", "two", "1e3"):
        monkeypatch.setenv("ARENA_DASHBOARD_MAX_SESSIONS", bad)
        with pytest.raises(ValueError, match="ARENA_DASHBOARD_MAX_SESSIONS must be a whole"):
            VisitorLimits.from_environment()
    monkeypatch.delenv("ARENA_DASHBOARD_MAX_SESSIONS")
    monkeypatch.setenv("ARENA_DASHBOARD_REFUSAL_DELAY_S", "0")
    assert VisitorLimits.from_environment().refusal_delay_s == 0


def test_a_flooders_refusals_are_held_back_up_to_a_limit() -> None:
    gate = SessionGate(VisitorLimits(held_refusals_per_client=2), Clock())
    assert [gate.hold("a"), gate.hold("a"), gate.hold("a")] == [True, True, False]
    assert gate.hold("b")  # control: another client's are held too
    gate.unhold("a")
    assert gate.hold("a")
