"""How fast the HTTP API answers a standings read and accepts a submission (issue 30's
closing figures).

What it does, against a real ``arena api`` (a subprocess on a free port, uvicorn as
``arena api`` starts it) on a fresh SQLite database:

1. **Seed**: the dashboard tests' seeded database (tests/dashboard/seed.py: 4 bots and a
   finished, rated round robin ``main`` of ``--boards`` boards, 24 games a board, played
   in-process), and one participant with ``--tokens`` read+submit tokens.
2. **Standings**: ``--reads`` sequential ``GET /api/v1/tournaments/main/standings`` on one
   keep-alive connection, each timed from the request until its whole body is read. The
   requests take turns over the tokens, so that no token's bucket runs dry (reads: a burst
   of 60 a token, then 10 a second); the API's limits are the defaults, unchanged.
3. **Submission acceptance**: ``--submissions`` ``POST /api/v1/bots`` of a sample bot's
   archive (as ``arena remote submit`` packs it, padded with ``--pad-kib`` KiB of random
   bytes), each timed until the 202: the server's size check, the archive's checks and
   unpacking, the submission's row. The build and smoke game that follow run in the
   background and are not timed; the next upload waits until the previous submission is
   finished (one submission at a time per user, as the API allows), and takes the next
   token (submissions: a burst of 5 a token, then one every 10 s). The same files are sent
   each time, so after the first they are ``unchanged``: the acceptance's path is the same,
   and the wait between uploads short. The next upload follows the previous verdict at
   once, as a script's loop would: a 409 ``submission_running`` then is a server bug, and
   counted as refused.

Any answer but 200 (reads) or 202 (uploads) is counted and reported, never timed. Figures
are reported, not asserted. Run: ``python benchmarks/api_latency.py [--reads 1000]
[--submissions 30] [--pad-kib 0] [--boards 1] [--tokens 20] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from arena import __version__  # noqa: E402
from arena.bundle import bundle_bot  # noqa: E402
from arena.storage.tokens import create_token  # noqa: E402
from arena.storage.users import actor_of, create_user  # noqa: E402
from tests.dashboard.helpers import free_port  # noqa: E402
from tests.dashboard.seed import seed_database  # noqa: E402

SAMPLE = ROOT / "sample_bots" / "random_bot"
START_S = 120.0
BUILD_S = 600.0


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile (``share`` of 1) of *values*."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(share * len(ordered) + 0.5)))
    return ordered[rank - 1]


def summary(values: list[float]) -> dict[str, float]:
    """p50, p99, mean and max, in milliseconds."""
    if not values:
        return {}
    return {
        "n": len(values),
        "p50_ms": percentile(values, 0.50) * 1000,
        "p99_ms": percentile(values, 0.99) * 1000,
        "mean_ms": sum(values) / len(values) * 1000,
        "max_ms": max(values) * 1000,
    }


def start_api(folder: Path, database: str) -> tuple[subprocess.Popen[bytes], str, Path]:
    """``arena api`` on a free port; its URL once ``/api/v1/health`` answers."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = folder / "api.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "api", "--port", str(port),
             "--db", database, "--data", str(folder / "data")],
            stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, env=env,
        )  # fmt: skip
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(f"{url}/api/v1/health", timeout=5).status_code == 200:
                return process, url, log
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    process.kill()
    process.wait()
    raise SystemExit("arena api did not start:\n" + log.read_text(errors="replace")[-3000:])


def padded_bot(folder: Path, pad_kib: int) -> bytes:
    """The sample bot's archive, with *pad_kib* KiB of incompressible bytes in it."""
    bot = folder / "bench_bot"
    bot.mkdir()
    for name in ("bot.py", "bot.toml"):
        text = (SAMPLE / name).read_text()
        if name == "bot.toml":
            text = text.replace('name = "random_bot"', 'name = "bench_bot"')
        (bot / name).write_text(text)
    if pad_kib:
        (bot / "padding.bin").write_bytes(os.urandom(pad_kib * 1024))
    return bundle_bot(bot).data


def time_reads(client: httpx.Client, tokens: list[str], reads: int) -> dict[str, Any]:
    seconds: list[float] = []
    refused = 0
    response = None
    for n in range(reads):
        headers = {"Authorization": f"Bearer {tokens[n % len(tokens)]}"}
        start = time.perf_counter()
        response = client.get("/api/v1/tournaments/main/standings", headers=headers)
        elapsed = time.perf_counter() - start
        if response.status_code == 200:
            seconds.append(elapsed)
        else:
            refused += 1
    return {
        **summary(seconds),
        "refused": refused,
        "bytes": len(response.content) if response else 0,
    }


def time_submissions(
    client: httpx.Client, tokens: list[str], archive: bytes, count: int
) -> dict[str, Any]:
    seconds: list[float] = []
    refused, outcomes = 0, dict[str, int]()
    for n in range(count):
        headers = {"Authorization": f"Bearer {tokens[n % len(tokens)]}"}
        files = {"archive": ("bench_bot.zip", archive, "application/zip")}
        start = time.perf_counter()
        response = client.post("/api/v1/bots", headers=headers, files=files)
        elapsed = time.perf_counter() - start
        if response.status_code != 202:
            refused += 1
            print(f"upload {n}: HTTP {response.status_code} {response.text[:200]}", file=sys.stderr)
            continue
        seconds.append(elapsed)
        state = wait_finished(client, headers, response.json()["submission_id"])
        outcomes[state] = outcomes.get(state, 0) + 1
    return {
        **summary(seconds), "refused": refused,
        "archive_bytes": len(archive), **outcomes,
    }  # fmt: skip


def wait_finished(client: httpx.Client, headers: dict[str, str], submission_id: int) -> str:
    """Poll the submission until it is no longer running (untimed); its state."""
    deadline = time.monotonic() + BUILD_S
    while time.monotonic() < deadline:
        answer = client.get(f"/api/v1/submissions/{submission_id}", headers=headers)
        if answer.status_code == 200 and answer.json()["state"] != "running":
            return str(answer.json()["state"])
        time.sleep(0.25)
    return "still running"


def run(reads: int, submissions: int, pad_kib: int, boards: int, tokens: int) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="arena-api-latency-"))
    database = f"sqlite:///{folder / 'arena.db'}"
    seeded = seed_database(database, boards=boards)
    author = actor_of(create_user(seeded.engine, "bench", "participant", None))
    secrets = [
        create_token(seeded.engine, author, owner="bench", name=f"bench {n}", scopes="read,submit")[
            0
        ]
        for n in range(tokens)
    ]
    seeded.engine.dispose()
    archive = padded_bot(folder, pad_kib)
    process, url, log = start_api(folder, database)
    results: dict[str, Any] = {
        "arena": __version__, "python": platform.python_version(), "cpus": os.cpu_count(),
        "database": "sqlite", "boards": boards, "tokens": tokens, "folder": str(folder),
    }  # fmt: skip
    try:
        with httpx.Client(base_url=url, timeout=120) as client:
            for n in range(min(20, reads)):  # warm-up: imports, caches, the first connection
                client.get(
                    "/api/v1/tournaments/main/standings",
                    headers={"Authorization": f"Bearer {secrets[n % tokens]}"},
                )
            time.sleep(6.0)  # the warm-up's tokens refill
            results["standings"] = time_reads(client, secrets, reads)
            results["submission_acceptance"] = time_submissions(
                client, secrets, archive, submissions
            )
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    results["server_log_tail"] = log.read_text(errors="replace")[-1000:]
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=1000, help="standings requests timed")
    parser.add_argument("--submissions", type=int, default=30, help="uploads timed")
    parser.add_argument("--pad-kib", type=int, default=0, help="random KiB added to the bot")
    parser.add_argument("--boards", type=int, default=1, help="boards of the seeded round robin")
    parser.add_argument("--tokens", type=int, default=20, help="tokens taking turns (max 20)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    results = run(args.reads, args.submissions, args.pad_kib, args.boards, args.tokens)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"arena {results['arena']}, Python {results['python']}, {results['cpus']} CPUs, SQLite")
    for name, label in (
        ("standings", "standings read"),
        ("submission_acceptance", "submission accepted"),
    ):
        figures = results[name]
        if "p50_ms" not in figures:
            print(f"{label}: nothing timed ({figures})")
            continue
        print(
            f"{label}: p50 {figures['p50_ms']:.1f} ms, p99 {figures['p99_ms']:.1f} ms, "
            f"mean {figures['mean_ms']:.1f} ms, max {figures['max_ms']:.1f} ms "
            f"(n={figures['n']}, refused {figures['refused']}" + ")"
        )
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main())
