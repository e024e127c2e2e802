"""The login cookies' ticket exchange (dashboard/remember.py), through its real Starlette
routes in-process: only a fresh, unused ticket of this server sets the cookies, only with
the page's header; they are out of scripts' and other sites' reach, and over HTTPS they
carry the ``__Host-`` prefix that no other host can plant."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator

from starlette.applications import Starlette

from dashboard import remember

with warnings.catch_warnings():  # Starlette asks for a successor of httpx it does not need
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

PAGE = {remember.HEADER: remember.HEADER_VALUE}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _client(tickets: remember.Tickets, base_url: str = "http://testserver") -> TestClient:
    return TestClient(Starlette(routes=remember.routes(3600, tickets)), base_url=base_url)


def test_a_ticket_sets_an_httponly_strict_cookie_once() -> None:
    tickets = remember.Tickets()
    client = _client(tickets)
    ticket = tickets.issue("token-1")
    answer = client.post(remember.SESSION_PATH, content=ticket, headers=PAGE)
    assert answer.status_code == 204
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f"{remember.COOKIE}=token-1;")
    assert {"HttpOnly", "Max-Age=3600", "Path=/", "SameSite=strict"} <= {
        part.strip() for part in cookie.split(";")
    }
    assert "Secure" not in cookie  # plain HTTP (a browser would drop a Secure cookie)
    again = client.post(remember.SESSION_PATH, content=ticket, headers=PAGE)
    assert again.status_code == 403 and "set-cookie" not in again.headers


def test_over_https_the_cookies_are_secure_and_host_prefixed() -> None:
    tickets = remember.Tickets()
    answer = _client(tickets, "https://arena.example").post(
        remember.SESSION_PATH, content=tickets.issue("token-2", "device-2"), headers=PAGE
    )
    assert answer.status_code == 204
    cookies = answer.headers.get_list("set-cookie")
    assert [c.split("=", 1)[0] for c in cookies] == [
        f"__Host-{remember.COOKIE}",
        f"__Host-{remember.DEVICE_COOKIE}",
    ]
    for cookie in cookies:
        parts = {part.strip() for part in cookie.split(";")}
        assert {"Secure", "HttpOnly", "Path=/", "SameSite=strict"} <= parts
        assert not any(part.lower().startswith("domain") for part in parts)
    assert f"Max-Age={remember.DEVICE_SECONDS}" in cookies[1]


def test_the_pages_read_only_the_cookie_of_their_scheme() -> None:
    """A plain-named cookie on an HTTPS page (planted by a sibling host, or over HTTP) is
    not the login's: only the ``__Host-`` one counts there."""
    assert remember.cookie_name(remember.COOKIE, True) == "__Host-arena952_session"
    assert remember.cookie_name(remember.COOKIE, False) == "arena952_session"
    assert remember.is_secure_origin("https://arena.example")
    for origin in ("http://127.0.0.1:8501", None, "", "httpsx://a"):
        assert not remember.is_secure_origin(origin)


def test_forged_late_or_headerless_requests_set_nothing() -> None:
    clock = Clock()
    tickets = remember.Tickets(clock)
    client = _client(tickets)
    for body in ("guess", ""):
        answer = client.post(remember.SESSION_PATH, content=body, headers=PAGE)
        assert answer.status_code == 403 and "set-cookie" not in answer.headers

    # A long body is refused, declared or streamed (chunked, no length), before it is all
    # read; one at the limit is read (and its "ticket" refused as unknown).
    def chunks() -> Iterator[bytes]:
        yield from [b"x" * 64] * 1000

    for long_body in (b"x" * (remember.MAX_BODY + 1), chunks()):
        answer = client.post(remember.SESSION_PATH, content=long_body, headers=PAGE)
        assert answer.status_code == 413 and "set-cookie" not in answer.headers
    at_limit = client.post(remember.SESSION_PATH, content=b"x" * remember.MAX_BODY, headers=PAGE)
    assert at_limit.status_code == 403
    ticket = tickets.issue("token-3")
    # Another site's form cannot send the header: refused, and the ticket is not spent.
    bare = client.post(remember.SESSION_PATH, content=ticket)
    assert bare.status_code == 403 and "set-cookie" not in bare.headers
    assert client.post(remember.SESSION_PATH, content=ticket, headers=PAGE).status_code == 204
    late = tickets.issue("token-4")
    clock.now += remember.TICKET_SECONDS + 1
    answer = client.post(remember.SESSION_PATH, content=late, headers=PAGE)
    assert answer.status_code == 403 and "set-cookie" not in answer.headers
    # The control: a ticket redeemed in time works.
    assert tickets.redeem(tickets.issue("token-5")) == remember.Tokens("token-5")


def test_tickets_are_random_and_bounded() -> None:
    clock = Clock()
    tickets = remember.Tickets(clock)
    issued = [tickets.issue(f"t{i}") for i in range(remember.MAX_TICKETS + 5)]
    assert len(set(issued)) == len(issued) and all(len(t) >= 43 for t in issued)
    assert tickets.redeem(issued[0]) is None  # the oldest made room
    assert tickets.redeem(issued[-1]) == remember.Tokens(f"t{len(issued) - 1}")
    clock.now += remember.TICKET_SECONDS + 1
    tickets.issue("fresh")  # expired ones are dropped as new ones come
    assert len(tickets._tickets) == 1


def test_forget_clears_the_session_cookie_only_for_the_page() -> None:
    client = _client(remember.Tickets())
    assert client.post(remember.FORGET_PATH).status_code == 403
    answer = client.post(remember.FORGET_PATH, headers=PAGE)
    assert answer.status_code == 204
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f'{remember.COOKIE}="";') and "Max-Age=0" in cookie
    # The device cookie stays: logging out does not make the browser a stranger.
    assert len(answer.headers.get_list("set-cookie")) == 1


def test_the_script_posts_with_the_header_and_escapes_its_body() -> None:
    body = 'a"</script><script>alert(1)</script>&'
    script = remember.post_script(remember.SESSION_PATH, body)
    assert '"X-Requested-With": "arena952"' in script
    inner = script.removeprefix("<script>").removesuffix("</script>")
    assert "<" not in inner and ">" not in inner  # the element ends only where it should
    literal = inner[inner.index("body: ") + len("body: ") : -len("});")]
    assert json.loads(literal) == body  # and the body arrives unchanged
