"""Which requests belong to the dashboard (arena/web/exposure.py): its own origin only, on
the hosts it is served under; and what ``--check`` says about it."""

from __future__ import annotations

import pytest

from arena.web.clients import parse_trusted_proxies
from arena.web.exposure import Exposure, origin_of

LOCAL = Exposure("127.0.0.1", 8501)
PUBLIC = Exposure(
    "0.0.0.0",
    8501,
    public_origin="https://arena.example.org",
    trusted_proxies=parse_trusted_proxies("172.30.0.0/24"),
)
EVERYWHERE = Exposure("0.0.0.0", 8501)


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("https://Arena.Example.org/", "https://arena.example.org"),
        ("https://arena.example.org:443", "https://arena.example.org"),
        ("http://arena.example.org:80/path?q", "http://arena.example.org"),
        ("http://127.0.0.1:8501", "http://127.0.0.1:8501"),
        ("http://[::1]:8501", "http://[::1]:8501"),
    ],
)
def test_an_origin_is_written_as_browsers_write_it(url: str, origin: str) -> None:
    assert origin_of(url) == origin


@pytest.mark.parametrize("url", ["ftp://x", "arena.example.org", "https://", "http://x:99999"])
def test_a_malformed_public_url_is_refused(url: str) -> None:
    with pytest.raises(ValueError, match="http"):
        origin_of(url)


ALLOWED = [
    (LOCAL, "http://127.0.0.1:8501", "127.0.0.1:8501", "ws"),
    (LOCAL, "http://localhost:8501", "localhost:8501", "ws"),
    (LOCAL, None, "127.0.0.1:8501", "http"),
    (PUBLIC, "https://arena.example.org", "arena.example.org", "wss"),
    (PUBLIC, "https://arena.example.org", "127.0.0.1:8501", "ws"),
    (EVERYWHERE, "http://203.0.113.5:8501", "203.0.113.5:8501", "ws"),
    (EVERYWHERE, "https://arena.example.org", "arena.example.org", "wss"),
]
REFUSED = [
    # another port of the same host: the finding
    (LOCAL, "http://127.0.0.1:9999", "127.0.0.1:8501", "ws", "origin"),
    (LOCAL, "http://localhost:9999", "127.0.0.1:8501", "ws", "origin"),
    # DNS rebinding: a hostile name that resolves to 127.0.0.1
    (LOCAL, "http://evil.example:8501", "evil.example:8501", "ws", "host"),
    (LOCAL, None, "evil.example:8501", "http", "host"),
    (LOCAL, "http://127.0.0.1:8501", None, "ws", "host"),
    (LOCAL, "null", "127.0.0.1:8501", "ws", "origin"),
    (LOCAL, "http://127.0.0.1:8501/", "127.0.0.1:8501", "ws", "origin"),
    (LOCAL, "HTTP://127.0.0.1:8501", "127.0.0.1:8501", "ws", "origin"),
    (LOCAL, "https://127.0.0.1:8501", "127.0.0.1:8501", "ws", "origin"),
    (LOCAL, "http://127.0.0.1:8501.evil.example", "127.0.0.1:8501", "ws", "origin"),
    (LOCAL, "http://user@127.0.0.1:8501", "127.0.0.1:8501", "ws", "origin"),
    (LOCAL, "http://127.0.0.1:8501", "user@127.0.0.1:8501", "ws", "host"),
    (PUBLIC, "http://arena.example.org", "arena.example.org", "ws", "origin"),
    (PUBLIC, "https://evil.example", "arena.example.org", "wss", "origin"),
    (PUBLIC, "https://arena.example.org", "evil.example", "wss", "host"),
    (EVERYWHERE, "http://127.0.0.1:9999", "127.0.0.1:8501", "ws", "origin"),
    (EVERYWHERE, "http://evil.example", "arena.example.org", "ws", "origin"),
]


@pytest.mark.parametrize(("exposure", "origin", "host", "scheme"), ALLOWED)
def test_the_dashboards_own_origin_is_accepted(
    exposure: Exposure, origin: str | None, host: str | None, scheme: str
) -> None:
    assert exposure.refusal(origin, host, scheme) is None


@pytest.mark.parametrize(("exposure", "origin", "host", "scheme", "what"), REFUSED)
def test_any_other_origin_or_host_is_refused(
    exposure: Exposure, origin: str | None, host: str | None, scheme: str, what: str
) -> None:
    reason = exposure.refusal(origin, host, scheme)
    assert reason is not None and reason.startswith(what)


def test_the_report_warns_where_an_organiser_must_act() -> None:
    def warnings(exposure: Exposure) -> list[str]:
        return [f.text for f in exposure.report() if f.level == "warning"]

    assert warnings(LOCAL) == []
    assert warnings(PUBLIC) == []
    assert any("ARENA_PUBLIC_URL" in w and "DNS rebinding" in w for w in warnings(EVERYWHERE))
    assert any("plain HTTP" in w for w in warnings(EVERYWHERE))
    bare = Exposure("0.0.0.0", 8501, public_origin="https://arena.example.org")
    assert any("ARENA_TRUSTED_PROXIES" in w for w in warnings(bare))
    assert PUBLIC.secure_cookies() and not LOCAL.secure_cookies()


def test_settings_come_from_the_environment_and_bad_ones_are_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARENA_PUBLIC_URL", "https://Arena.Example.org/")
    monkeypatch.setenv("ARENA_TRUSTED_PROXIES", "10.0.0.0/8, 192.0.2.1")
    exposure = Exposure.from_environment("0.0.0.0", 8501)
    assert exposure.public_origin == "https://arena.example.org"
    assert [str(n) for n in exposure.trusted_proxies] == ["10.0.0.0/8", "192.0.2.1/32"]
    for variable, value in (("ARENA_PUBLIC_URL", "arena.example.org"),
                            ("ARENA_TRUSTED_PROXIES", "10.0.0.0/8,proxy.local"),
                            ("ARENA_TRUSTED_PROXIES", "0.0.0.0/0"),
                            ("ARENA_TRUSTED_PROXIES", "::/0")):  # fmt: skip
        monkeypatch.setenv(variable, value)
        with pytest.raises(ValueError, match=variable) as refused:
            Exposure.from_environment("0.0.0.0", 8501)
        assert "\n" not in str(refused.value)
        monkeypatch.delenv(variable)
