# The dashboard image: `arena dashboard` (Streamlit) on the arena's database. Its Bots
# page checks uploaded bots by playing them, under the sandbox: the image has the same
# sandbox tools as the arena's, and runs as an unprivileged user with no capabilities at
# all (so no uid switch: Landlock, seccomp, rlimits and private directories).
#
# Build from the repository root:  docker build -f docker/dashboard.Dockerfile -t arena952/dashboard .
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    ARENA_DATA=/var/lib/arena

# The steps up to the dependencies' layer are the arena image's, word for word, so that a
# build of both builds that layer once (docker/arena.Dockerfile says what each is for).
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap util-linux libseccomp2 nodejs \
    && rm -rf /var/lib/apt/lists/*

# The data volume is shared by both images: the arena's referee (uid 0, no
# CAP_DAC_OVERRIDE) writes through group 0, the dashboard (uid 10001) as owner; the
# entrypoint's umask 002 keeps new files group-writable.
RUN mkdir -p /var/lib/arena && chown 10001:0 /var/lib/arena && chmod 2775 /var/lib/arena

# ARENA_EXTRAS: as the arena image's (none by default; the dashboard needs none).
ARG ARENA_EXTRAS=""
WORKDIR /opt/arena
COPY pyproject.toml docker/dependencies.py ./
RUN python dependencies.py "$ARENA_EXTRAS" >/tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm dependencies.py /tmp/requirements.txt
COPY README.md ./
COPY arena ./arena
COPY dashboard ./dashboard
# The dashboard is served from the source tree (arena/cli/dashboard.py finds
# dashboard/server.py beside the package), so the install is editable.
RUN pip install -e .
COPY docker/entrypoint.sh /usr/local/bin/arena-entrypoint

ENV STREAMLIT_BROWSER_GATHER_USAGE_STATS=false \
    HOME=/tmp
RUN useradd --system --uid 10001 --home-dir /nonexistent --shell /usr/sbin/nologin dashboard
USER 10001
EXPOSE 8501
ENTRYPOINT ["/usr/local/bin/arena-entrypoint"]
CMD ["dashboard"]
