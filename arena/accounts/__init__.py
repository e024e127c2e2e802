"""Accounts: who may do what in the arena, and how people prove who they are.

* ``passwords`` -- one-time passwords and their argon2id hashes (pwdlib);
* ``policy`` -- what a password a person chooses must be;
* ``admin`` -- ``arena user add/list/disable/enable/reset``, organisers only;
* ``logins`` -- the dashboard's logins: password checks, the failed-login rate limit,
  sessions that expire, identities vouched for by an OpenID Connect provider, and
  changing one's password (which an organiser's password requires);
* ``joining`` -- invitation codes and sign-up, as the organiser's join mode allows.

The rows live in :mod:`arena.storage.users`, which also holds :class:`Actor` and the role
checks, so every action is refused in the same function whether the CLI or the dashboard
asked for it.
"""
