"""A bot's build step (``npm ci``, ``pip install --target``, a compiler): the bot author's
code, run with no more rights than the bot has at play. Nothing on the play path imports
this package; submissions, ``arena match`` and the version cache do.

Modules, from the caller down: ``bot`` (build a bot once per manifest: its command, its
stamp, the sandbox or not), ``sandbox`` (the entry: choose the path, describe it for
``arena doctor``), ``settings`` (limits, the network switch, results), ``job`` (one build:
uid, cgroup, private directory, the run both paths share), ``bwrap`` and ``direct`` (the
two paths: with bubblewrap, or in a container without it), ``network`` (a build's own
network namespace behind slirp4netns), ``offline`` (package managers told there is no
network, and a failure that needed a registry recognised), ``streams`` (the bot in, the
result and output out) and ``runner`` (run by path inside the sandbox: unpack, seccomp,
build, pack).
"""
