"""Fixtures of the account tests.

Most of these tests verify dozens of passwords to reach a throttle's limits, and argon2id
with the arena's parameters (64 MiB, 3 passes, 4 lanes) costs a good part of a second each
on a busy machine. What they test is which attempts are checked and what happens then,
not the hash's cost, so they hash with the same algorithm at its least cost. The tests
that are about the stored hash itself ask for the real parameters
(``@pytest.mark.real_argon2``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

from arena.accounts import passwords


@pytest.fixture(autouse=True)
def cheap_argon2(request: pytest.FixtureRequest) -> Iterator[None]:
    if request.node.get_closest_marker("real_argon2") is not None:
        yield
        return
    cheap = PasswordHash((Argon2Hasher(time_cost=1, memory_cost=8, parallelism=1),))
    passwords._hasher.cache_clear()
    passwords._decoy.cache_clear()
    original = passwords._hasher
    passwords._hasher = lambda: cheap  # type: ignore[assignment]
    try:
        yield
    finally:
        passwords._hasher = original
        passwords._decoy.cache_clear()
