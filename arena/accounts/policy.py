"""The password policy: what a password a person chooses must be.

Applied wherever a person types a password: signing up, changing one's own, and an
organiser's ``arena user add/reset --ask-password``. Generated passwords (24 random
characters) meet it by construction.

The rules follow NIST SP 800-63B section 5.1.1.2: a minimum length rather than
composition rules (no "one digit, one capital"), a maximum long enough for passphrases,
and no password that its context gives away:

* at least :data:`MIN_LENGTH` characters;
* at most :data:`MAX_LENGTH` (argon2 hashes any length, but the server need not take
  megabytes from a form);
* not the user name, nor containing it, compared case-insensitively and in the canonical
  look-alike form of :mod:`arena.storage.names` (``Alice-2024!`` and ``a.l.i.c.e-secret``
  both contain ``alice``); a name shorter than :data:`MIN_CONTAINED_NAME` is only
  refused as the whole password, since every password would contain ``jo`` somewhere;
* not one character repeated (``aaaaaaaaaa``).

Pure: no I/O.
"""

from __future__ import annotations

from typing import Final

from arena.storage.names import KEY_FIELDS, name_keys

MIN_LENGTH: Final = 10
MAX_LENGTH: Final = 256
MIN_CONTAINED_NAME: Final = 3
"""A user name's canonical key must be this long before a password is refused for merely
containing it."""


class PasswordRefused(ValueError):
    """The password does not meet the policy; the message says why, in one line."""


def check_password(password: str, user_name: str) -> None:
    """Refuse *password* for user *user_name* unless it meets the policy.

    :raises PasswordRefused: naming the first rule it breaks.
    """
    if len(password) < MIN_LENGTH:
        raise PasswordRefused(f"a password needs at least {MIN_LENGTH} characters")
    if len(password) > MAX_LENGTH:
        raise PasswordRefused(f"a password may have at most {MAX_LENGTH} characters")
    if len(set(password)) == 1:
        raise PasswordRefused("a password may not be one character repeated")
    if _holds_name(password, user_name):
        raise PasswordRefused("a password may not be or contain the user name")


def _holds_name(password: str, user_name: str) -> bool:
    """Is *password* the user name, or does it contain it, as a person would read them?"""
    name = user_name.strip()
    if not name:
        return False
    if password.casefold() == name.casefold():
        return True
    name_key = name_keys(name)
    password_key = name_keys(password)
    for field in KEY_FIELDS:
        wanted, held = getattr(name_key, field), getattr(password_key, field)
        if not wanted:
            continue
        if wanted == held:
            return True
        if len(wanted) >= MIN_CONTAINED_NAME and wanted in held:
            return True
    folded = name.casefold()
    return len(folded) >= MIN_CONTAINED_NAME and folded in password.casefold()
