"""What the arena's web servers must hold against their visitors, apart from any framework.

* ``clients`` -- who a visitor is: its address as the server saw it, after the proxies
  the organiser trusts (``ARENA_TRUSTED_PROXIES``), and the key limits count it under;
* ``exposure`` -- where the dashboard is reached from: the one origin its pages, sessions
  and cookies belong to (``ARENA_PUBLIC_URL``, or the address it serves), and a report of
  how it is exposed (``arena dashboard --check``, ``arena doctor``);
* ``limits`` -- the cost one visitor may put on the server: sessions at once, new
  sessions and messages per second, and the size of what it sends.

Pure and thread-safe, standard library only: the dashboard's ASGI guard
(``dashboard/guard.py``) applies them, and the CLI reports them.
"""
