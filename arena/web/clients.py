"""Who a web visitor is: an address the server saw, never one the visitor claims.

A proxy in front of the dashboard makes every visitor arrive from the proxy's address, so
the proxy tells the real one in ``X-Forwarded-For``. Anyone can send that header, so it
is honoured only from the proxies the organiser names in ``ARENA_TRUSTED_PROXIES`` (the
way uvicorn's ``forwarded_allow_ips`` and Werkzeug's ``ProxyFix`` do), and the walk
through it stops at the first address that is not one of them. The dashboard's server
hands the list to uvicorn's own proxy-headers middleware (:func:`forwarded_allow_ips`);
:mod:`dashboard.server` refuses to serve when uvicorn was started with another list.

Limits count a visitor under its **client key** (:func:`client_key`): its IPv4 address,
or the /64 network of its IPv6 address, since one IPv6 subscriber is routinely given a
whole /64 and could otherwise change address at every request.
"""

from __future__ import annotations

import ipaddress
import os
from typing import Final

TRUSTED_PROXIES_VARIABLE: Final = "ARENA_TRUSTED_PROXIES"
"""Comma-separated addresses or networks (``10.0.0.0/8``) of the proxies in front of the
dashboard whose ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are honoured. Unset or
empty: none, the peer's address is the visitor's."""
UVICORN_VARIABLE: Final = "FORWARDED_ALLOW_IPS"
"""uvicorn's own setting for the same list (it trusts loopback when it is unset)."""
UNKNOWN: Final = "unknown"
"""The key of a visitor whose address the server does not know (a test, a unix socket)."""
IPV6_PREFIX: Final = 64

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_trusted_proxies(text: str) -> tuple[Network, ...]:
    """The networks of an ``ARENA_TRUSTED_PROXIES`` value.

    :raises ValueError: one line naming the entry that is not an address or a network, or
        a network that would trust the whole internet (``0.0.0.0/0``, ``::/0``, ``*``).
    """
    networks: list[Network] = []
    for entry in (part.strip() for part in text.split(",")):
        if not entry:
            continue
        try:
            network = ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise ValueError(
                f"${TRUSTED_PROXIES_VARIABLE}: {entry[:60]!r} is not an address or a network "
                "(for example 127.0.0.1 or 10.0.0.0/8)"
            ) from None
        if network.prefixlen == 0:
            raise ValueError(
                f"${TRUSTED_PROXIES_VARIABLE}: {entry!r} would trust every address on the "
                "internet to say who it is; name the proxies' own addresses"
            )
        networks.append(network)
    return tuple(networks)


def trusted_proxies_from_environment() -> tuple[Network, ...]:
    """The proxies ``ARENA_TRUSTED_PROXIES`` names (none when unset).

    :raises ValueError: as :func:`parse_trusted_proxies`.
    """
    return parse_trusted_proxies(os.environ.get(TRUSTED_PROXIES_VARIABLE, ""))


def forwarded_allow_ips(networks: tuple[Network, ...]) -> str:
    """uvicorn's ``FORWARDED_ALLOW_IPS`` for *networks*: an empty string trusts nobody."""
    return ",".join(str(network) for network in networks)


def client_key(address: str | None) -> str:
    """The key limits count a visitor under: its IPv4 address (an IPv4-mapped IPv6
    address counts as the IPv4 one), the /64 network of an IPv6 address, or
    :data:`UNKNOWN`."""
    if not address:
        return UNKNOWN
    try:
        parsed = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return UNKNOWN
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.ip_network(f"{parsed}/{IPV6_PREFIX}", strict=False))
    return str(parsed)
