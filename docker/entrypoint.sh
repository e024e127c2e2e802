#!/usr/bin/env bash
# Entry point of both images (docker/arena.Dockerfile, docker/dashboard.Dockerfile).
#
#   entrypoint.sh worker        play every unfinished tournament, then look for new ones
#                               every ARENA_POLL_S seconds (30); ARENA_WORKER_ONCE=1: one pass
#   entrypoint.sh dashboard     the Streamlit dashboard on 0.0.0.0:${ARENA_DASHBOARD_PORT:-8501}
#   entrypoint.sh ARGS...       `arena ARGS...` (doctor, match, tournament create, ...)
#   entrypoint.sh /path ARGS... a program, as is (a shell for debugging)
#
# First it waits until the database (ARENA_DB, a SQLAlchemy URL) accepts connections, for
# up to ARENA_DB_WAIT_S seconds (60). The worker also delegates the container's cgroup to
# the bot sandbox where the container may (a private, writable cgroup v2 namespace), and
# logs the sandbox layers (`arena doctor`). Tested outside Docker with stub commands:
# tests/sandbox/test_docker.py.
set -euo pipefail
umask 002 # the data volume is shared by two images through its group (see the Dockerfiles)

log() { printf 'entrypoint: %s\n' "$*" >&2; }

# Wait until ARENA_DB accepts connections (no URL, or SQLite: nothing to wait for).
wait_for_database() {
    local url=${ARENA_DB:-} limit=${ARENA_DB_WAIT_S:-60} waited=0
    case $url in
        postgres*) ;;
        *) return 0 ;;
    esac
    until python -c 'import os, sqlalchemy
sqlalchemy.create_engine(os.environ["ARENA_DB"]).connect().close()' 2>/dev/null; do
        if ((waited >= limit)); then
            log "the database did not accept connections within ${limit}s"
            return 1
        fi
        sleep 1
        waited=$((waited + 1))
    done
    log "database ready after ${waited}s"
}

# cgroup v2 refuses to give controllers to child cgroups while the parent holds processes
# (the no-internal-processes rule): move this container's processes into a leaf, /init,
# and enable memory, pids and cpu for the bot cgroups the referee creates beside it.
delegate_cgroup() {
    local root=${ARENA_CGROUP_ROOT:-/sys/fs/cgroup}
    local self=${ARENA_SELF_CGROUP:-/proc/self/cgroup}
    if [[ ${ARENA_CGROUP_DELEGATE:-1} != 1 ]]; then
        return 0
    fi
    if [[ ! -f $root/cgroup.controllers || ! -w $root/cgroup.subtree_control ]] \
        || ! grep -qx '0::/' "$self" 2>/dev/null; then
        log "cgroup: not delegable here; the container's own limits bound all bots together"
        return 0
    fi
    mkdir -p "$root/init"
    local pid controller wanted=()
    while read -r pid; do
        echo "$pid" >"$root/init/cgroup.procs" 2>/dev/null || true
    done <"$root/cgroup.procs"
    for controller in memory pids cpu; do
        if grep -qw "$controller" "$root/cgroup.controllers"; then
            wanted+=("+$controller")
        fi
    done
    if echo "${wanted[*]}" >"$root/cgroup.subtree_control" 2>/dev/null; then
        log "cgroup: bot cgroups get: $(cat "$root/cgroup.subtree_control")"
    else
        log "cgroup: cannot enable ${wanted[*]}"
    fi
}

# Names of the tournaments not finished yet, one per line.
pending_tournaments() {
    python -c 'from arena.storage import service
from arena.storage.database import open_database
for t in service.list_tournaments(open_database(None)):
    if t.status != "finished":
        print(t.name)'
}

worker() {
    delegate_cgroup
    arena doctor || log "arena doctor failed"
    while true; do
        local name
        while IFS= read -r name; do
            [[ -n $name ]] || continue
            log "tournament $name"
            arena tournament run "$name" || log "tournament $name stopped (exit $?); resuming later"
        done < <(pending_tournaments)
        if [[ ${ARENA_WORKER_ONCE:-0} == 1 ]]; then
            return 0
        fi
        sleep "${ARENA_POLL_S:-30}"
    done
}

main() {
    if (($# == 0)); then
        set -- worker
    fi
    case $1 in
        /*) exec "$@" ;;
    esac
    wait_for_database
    case $1 in
        worker) worker ;;
        dashboard) exec arena dashboard --host 0.0.0.0 --port "${ARENA_DASHBOARD_PORT:-8501}" ;;
        *) exec arena "$@" ;;
    esac
}

main "$@"
