"""Passwords: generated once, shown once, stored only as argon2id hashes.

pwdlib's recommended hasher is argon2id with the parameters of RFC 9106's second
recommended option (64 MiB, 3 passes, 4 lanes); a hash carries its own parameters (a PHC
string), so raising them later still verifies old hashes, and :func:`verify` tells when one
should be re-hashed.
"""

from __future__ import annotations

import secrets
import threading
from functools import cache
from typing import Final

from pwdlib import PasswordHash
from pwdlib.exceptions import PwdlibError

PASSWORD_BYTES: Final = 18
"""Randomness of a generated password: 144 bits, 24 URL-safe characters."""
MAX_CONCURRENT_VERIFICATIONS: Final = 2
"""argon2 verifications running at once in this process; more wait their turn. Each takes
64 MiB and about a CPU-tenth of a second, so a flood of logins (every one from a
different address, which the throttle lets through) costs time, not memory or cores."""
_VERIFYING: Final = threading.BoundedSemaphore(MAX_CONCURRENT_VERIFICATIONS)


@cache
def _hasher() -> PasswordHash:
    return PasswordHash.recommended()


@cache
def _decoy() -> str:
    """A hash of nothing anyone knows, verified when the user has no hash, so that a wrong
    user name takes as long to refuse as a wrong password (no name probing by timing)."""
    return _hasher().hash(secrets.token_urlsafe(PASSWORD_BYTES))


def new_password() -> str:
    """A fresh random password (``secrets``, 144 bits)."""
    return secrets.token_urlsafe(PASSWORD_BYTES)


def hash_password(password: str) -> str:
    """The argon2id hash of *password*, as a PHC string."""
    return _hasher().hash(password)


def verify(password: str, password_hash: str | None) -> tuple[bool, str | None]:
    """Does *password* match *password_hash*? ``(ok, new_hash)``: *new_hash* is set when the
    stored hash uses weaker parameters than today's and should be replaced.

    A missing hash (no password set) still costs one verification, and never matches.
    """
    with _VERIFYING:
        if password_hash is None:
            _hasher().verify(password, _decoy())
            return False, None
        try:
            return _hasher().verify_and_update(password, password_hash)
        except PwdlibError:  # a malformed or unknown stored hash refuses, never crashes
            return False, None
