# The arena image: referee, tournament runner and the `arena` CLI.
#
# Bots run inside the container under the sandbox layers that work there (see
# docs/security.md; `docker run --rm IMAGE doctor` lists them). Under Docker's default
# profile that is: a uid per bot, Landlock, seccomp, rlimits and private directories;
# bubblewrap only where the runtime allows user or mount namespaces.
#
# Build from the repository root:  docker build -f docker/arena.Dockerfile -t arena952/arena .
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    ARENA_DATA=/var/lib/arena

# bubblewrap: the namespace layer, where the runtime permits it; util-linux: setpriv and
# prlimit (uid switch, parent-death signal, rlimits); libseccomp2: the seccomp layer;
# nodejs: bots written in JavaScript. Debian's stable versions, security updates included.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap util-linux libseccomp2 nodejs \
    && rm -rf /var/lib/apt/lists/*

# The data volume is shared by both images: the arena's referee (uid 0, no
# CAP_DAC_OVERRIDE) writes through group 0, the dashboard (uid 10001) as owner; the
# entrypoint's umask 002 keeps new files group-writable.
RUN mkdir -p /var/lib/arena && chown 10001:0 /var/lib/arena && chmod 2775 /var/lib/arena

# ARENA_EXTRAS: optional extras to install, e.g. `ray` for the Ray head and worker nodes
# of docker/compose.yaml's `ray` profile (docs/scaling.md); none by default.
ARG ARENA_EXTRAS=""
WORKDIR /opt/arena
# The dependencies first, in a layer of their own that the dashboard image shares (its
# steps up to here are the same): a change to the code rebuilds only the layers below.
COPY pyproject.toml docker/dependencies.py ./
RUN python dependencies.py "$ARENA_EXTRAS" >/tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm dependencies.py /tmp/requirements.txt
COPY README.md ./
COPY arena ./arena
# The project itself from its own pyproject.toml (its versions are pinned there), not a
# package from an index: DL3013's "pin versions" does not apply.
# hadolint ignore=DL3013
RUN pip install ".${ARENA_EXTRAS:+[$ARENA_EXTRAS]}"
COPY sample_bots ./sample_bots
COPY docker/entrypoint.sh /usr/local/bin/arena-entrypoint

# The referee runs as root inside the container only to hand each bot a uid of its own
# (61000-61999); run it with every capability dropped but SETUID, SETGID, CHOWN and KILL.
VOLUME ["/var/lib/arena"]
ENTRYPOINT ["/usr/local/bin/arena-entrypoint"]
CMD ["worker"]
