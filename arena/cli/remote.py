"""``arena remote``: submit, follow and test a bot on a hosted arena from one's own machine,
through its HTTP API with a personal token (docs/api.md).

Exit statuses follow ``arena bot submit``'s: 0 done (stored, unchanged, played), 1 refused
or failed (one line ``arena: error: ...``, with the end of the build's log first), 2 a
usage error (a bad flag, no ``--server``, no token, a bot folder that cannot be sent).
Everything the server sends that reaches the terminal (names, messages, logs) is shown
through :mod:`arena.cli.terminal`: it may quote a bot's output.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import click
import httpx
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from arena.bundle import BundleError, bundle_bot
from arena.cli.common import ROW_ID, prepare_out_dir
from arena.cli.remote_client import ApiClient, RemoteError, ServerUrl, clean_token, is_loopback
from arena.cli.remote_show import (
    field,
    print_bots,
    print_games,
    print_submission,
    test_match_line,
)
from arena.cli.terminal import safe_text

F = TypeVar("F", bound=Callable[..., Any])

RUNNING = "running"
TEST_FINISHED = ("played", "failed", "cancelled")
LOG_TAIL_LINES = 25
POLL_S = 1.0
MAX_GAMES = 100_000


def remote_options(function: F) -> F:
    """Add ``--server`` (or ``$ARENA_SERVER``) and ``--token`` (or ``$ARENA_TOKEN``)."""
    function = click.option(
        "--token", "token", envvar="ARENA_TOKEN", default=None, show_envvar=True,
        help="A personal token (arena token create). Prefer $ARENA_TOKEN: a token on the "
        "command line is visible to every user of this machine in `ps`.",
    )(function)  # fmt: skip
    return click.option(
        "--server", "server", envvar="ARENA_SERVER", type=ServerUrl(), default=None,
        show_envvar=True, help="The arena's address, e.g. https://arena.example.org.",
    )(function)  # fmt: skip


def _client(server: str | None, token: str | None) -> ApiClient:
    """The API client, or a usage error for a missing server or token."""
    if server is None:
        raise click.UsageError("no server: give --server URL (or set ARENA_SERVER)")
    if token is None:
        raise click.UsageError(
            "no token: set ARENA_TOKEN (create one on the dashboard's Account page or with "
            "`arena token create` on the arena's host)"
        )
    if server.startswith("http://") and not is_loopback(server):
        click.echo(
            f"arena: warning: {server} is plain http: the token crosses the network "
            "unencrypted; use https://",
            err=True,
        )
    return ApiClient(server, clean_token(token))


@click.group("remote")
def remote_group() -> None:
    """Submit, follow and test your bots on a hosted arena through its HTTP API.

    Every command needs the arena's address (--server or $ARENA_SERVER) and a personal
    token ($ARENA_TOKEN, or --token). See docs/api.md.
    """


# ------------------------------------------------------------------------------ submit


@remote_group.command("submit")
@click.argument("path", type=click.Path(exists=False))
@click.option("--no-wait", is_flag=True,
              help="Print the submission's id once the server accepted the archive, and "
              "exit; follow it with `arena remote status --submission ID`.")  # fmt: skip
@remote_options
def submit_command(path: str, no_wait: bool, server: str | None, token: str | None) -> None:
    """Pack the bot at PATH exactly as the server checks it, upload it, and wait while the
    server builds it and plays its smoke game. Exit 0 when stored (or unchanged), 1 when
    refused or failed, with the end of its log."""
    try:
        bundle = bundle_bot(path)
    except BundleError as exc:
        raise click.BadParameter(str(exc), param_hint="PATH") from None
    with _client(server, token) as api:
        accepted = api.post_archive("/bots", bundle.filename, bundle.data)
        submission_id = field(accepted, "submission_id", int)
        if no_wait:
            click.echo(submission_id)
            click.echo(
                f"submission {submission_id} of {safe_text(bundle.label)} accepted; follow it "
                f"with: arena remote status --submission {submission_id}",
                err=True,
            )
            return
        final = _follow_submission(api, submission_id, bundle.label)
        _report_submission(api, final)


def _follow_submission(api: ApiClient, submission_id: int, label: str) -> dict[str, Any]:
    """Poll the submission until it is no longer running, with a spinner on a terminal."""
    console = Console(stderr=True)
    shown = f"submission {submission_id} ({safe_text(label)})"
    if not console.is_terminal:
        click.echo(f"{shown}: building and playing its smoke game on the server", err=True)
    progress = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}", markup=False),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )
    started = time.monotonic()
    try:
        with progress:
            task = progress.add_task(f"{shown}: {RUNNING}", total=None)
            while True:
                submission = api.get(f"/submissions/{submission_id}")
                state = field(submission, "state", str)
                progress.update(task, description=f"{shown}: {safe_text(state)}")
                if state != RUNNING:
                    break
                time.sleep(POLL_S if time.monotonic() - started < 60 else 2 * POLL_S)
    except KeyboardInterrupt:
        click.echo(
            f"arena: the submission goes on on the server; follow it with: "
            f"arena remote status --submission {submission_id}",
            err=True,
        )
        raise click.exceptions.Abort() from None
    took = time.monotonic() - started
    click.echo(f"{shown}: {safe_text(state)} after {took:.0f} s", err=True)
    return dict(submission)


def _report_submission(api: ApiClient, submission: dict[str, Any]) -> None:
    """The last line of ``remote submit``, like ``arena bot submit``'s; an error (after
    the end of the log) for anything but a stored or unchanged version."""
    state = field(submission, "state", str)
    number = field(submission, "id", int)
    label = submission.get("label") or f"{submission.get('bot')}@{submission.get('version')}"
    if state == "stored":
        seq = _version_seq(api, str(submission.get("bot") or ""), str(label))
        version = f"version {seq}, " if seq is not None else ""
        click.echo(f"stored {safe_text(str(label))} ({version}submission {number})")
        return
    if state == "unchanged":
        click.echo(f"unchanged: {safe_text(str(label))} is already stored (submission {number})")
        return
    log = str(submission.get("log") or "")
    if log.strip():
        tail = "\n".join(log.rstrip().splitlines()[-LOG_TAIL_LINES:])
        click.echo(f"the end of submission {number}'s log:" + safe_text("\n" + tail), err=True)
    message = " ".join(str(submission.get("message") or "no message").split())
    raise RemoteError(f"{state}: {message}")


def _version_seq(api: ApiClient, bot: str, label: str) -> int | None:
    """The stored version's number among its bot's versions (as ``arena bot submit``
    prints it), or ``None`` if the server does not say."""
    if not bot:
        return None
    try:
        versions = field(api.get(f"/bots/{_path(bot)}"), "versions", list)
    except RemoteError:
        return None
    for version in versions:
        if isinstance(version, dict) and version.get("label") == label:
            seq = version.get("seq")
            return seq if isinstance(seq, int) else None
    return None


def _path(name: str) -> str:
    """*name* as one URL path segment."""
    return quote(name, safe="")


# ------------------------------------------------------------------------------ status


@remote_group.command("status")
@click.option("--submission", "submission_id", type=ROW_ID, default=None,
              help="One submission, with its log.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="The server's JSON, as it is.")
@remote_options
def status_command(
    submission_id: int | None, as_json: bool, server: str | None, token: str | None
) -> None:
    """Your bots with their latest versions' states, and the submissions that stored
    nothing; or, with --submission, one submission and its log."""
    with _client(server, token) as api:
        if submission_id is not None:
            submission = api.get(f"/submissions/{submission_id}")
            if as_json:
                click.echo(json.dumps(submission, indent=2))
            else:
                print_submission(submission)
            return
        bots = api.get("/bots")
    if as_json:
        click.echo(json.dumps(bots, indent=2))
    else:
        print_bots(bots)


# ------------------------------------------------------------------------------- games


@remote_group.command("games")
@click.argument("name")
@click.option("--after", type=ROW_ID, default=None, help="Only games older than game ID.")
@click.option("--limit", type=click.IntRange(min=1, max=MAX_GAMES), default=50,
              show_default=True, help="The most games listed (newest first).")  # fmt: skip
@click.option("--version", "version", default=None, help="Only this version's games.")
@click.option("--json", "as_json", is_flag=True, help="The games as JSON.")
@click.option("--download", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Save each listed game's record as DIR/game-ID.json.")  # fmt: skip
@remote_options
def games_command(
    name: str,
    after: int | None,
    limit: int,
    version: str | None,
    as_json: bool,
    download: Path | None,
    server: str | None,
    token: str | None,
) -> None:
    """The games of your bot NAME (every version's, or --version's), newest first; with
    --download, their records too (cards still held back in a running tournament are
    skipped and counted)."""
    if download is not None:
        prepare_out_dir(download, "--download")
    with _client(server, token) as api:
        games, more = _games(api, name, after, limit, version)
        if as_json:
            click.echo(json.dumps({"bot": name, "games": games, "next_after": more}, indent=2))
        else:
            print_games(name, games, more)
        if download is not None:
            _download(api, games, download)


def _games(
    api: ApiClient, name: str, after: int | None, limit: int, version: str | None
) -> tuple[list[dict[str, Any]], int | None]:
    """Up to *limit* games, page by page; and the ``--after`` that lists the next ones."""
    games: list[dict[str, Any]] = []
    cursor = after
    while len(games) < limit:
        page = api.get(
            f"/bots/{_path(name)}/games",
            {"after": cursor, "limit": min(200, limit - len(games)), "version": version},
        )
        games.extend(g for g in field(page, "games", list) if isinstance(g, dict))
        cursor = _next_after(page.get("next"))
        if cursor is None:
            return games, None
    return games, cursor


def _next_after(link: object) -> int | None:
    """The ``after`` of the server's ``next`` link (``None`` at the last page)."""
    if not isinstance(link, str):
        return None
    value = httpx.URL(link).params.get("after")
    return int(value) if value is not None and value.isdigit() else None


def _download(api: ApiClient, games: list[dict[str, Any]], folder: Path) -> None:
    """Save each game's record; held-back ones are counted, not an error."""
    saved, held = 0, 0
    for game in games:
        game_id = field(game, "id", int)
        try:
            record = api.get(f"/games/{game_id}")
        except RemoteError as exc:
            if str(exc.message).startswith("held_back:"):
                held += 1
                continue
            raise
        target = folder / f"game-{game_id}.json"
        partial = target.with_name(target.name + ".part")
        partial.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        os.replace(partial, target)
        saved += 1
    why = f"; {held} held back while their deals are still being played" if held else ""
    click.echo(f"saved {saved} record(s) to {folder}{why}", err=True)


# -------------------------------------------------------------------------------- test


@remote_group.command("test")
@click.argument("name")
@click.option("--opponents", required=True,
              help="One or two comma-separated opponents: bot names or the house bots "
              "builtin:random, builtin:greedy, builtin:pimc.")  # fmt: skip
@click.option("--boards", type=click.IntRange(min=1), default=1, show_default=True,
              help="Boards, each played under all 6 seatings.")  # fmt: skip
@click.option("--ruleset", default="classic", show_default=True)
@click.option("--version", "version", default=None,
              help="The version of NAME to test [default: its latest].")  # fmt: skip
@click.option("--no-wait", is_flag=True, help="Print the test match's id once queued, and exit.")
@remote_options
def test_command(
    name: str,
    opponents: str,
    boards: int,
    ruleset: str,
    version: str | None,
    no_wait: bool,
    server: str | None,
    token: str | None,
) -> None:
    """Queue an unranked test match of your bot NAME on the server and follow it until
    it is played (exit 0), or failed or cancelled (exit 1). Its games form a private
    tournament only you and the organisers see."""
    asked = [o.strip() for o in opponents.split(",") if o.strip()]
    if not asked:
        raise click.BadParameter("name one or two opponents", param_hint="--opponents")
    with _client(server, token) as api:
        body = {"bot": name, "opponents": asked, "boards": boards, "ruleset": ruleset,
                "version": version}  # fmt: skip
        match_id = field(api.post_json("/test-matches", body), "id", int)
        if no_wait:
            click.echo(match_id)
            return
        click.echo(f"queued test match #{match_id} ({boards} board(s), {6 * boards} games)")
        final = _follow_test_match(api, match_id)
    state = field(final, "state", str)
    if state != "played":
        message = " ".join(str(final.get("message") or "").split())
        raise RemoteError(f"test match #{match_id} {state}" + (f": {message}" if message else ""))
    click.echo(
        f"test match #{match_id} played: {final.get('games_stored')} games in "
        f"{safe_text(repr(final.get('tournament')))}; `arena remote games "
        f"{safe_text(name)}` lists them"
    )


def _follow_test_match(api: ApiClient, match_id: int) -> dict[str, Any]:
    """Poll the test match until it is finished, printing its place or progress whenever
    it changes."""
    shown = ""
    try:
        while True:
            match = api.get(f"/test-matches/{match_id}")
            if field(match, "state", str) in TEST_FINISHED:
                return dict(match)
            line = test_match_line(match)
            if line != shown:
                click.echo(line)
                shown = line
            time.sleep(2 * POLL_S)
    except KeyboardInterrupt:
        click.echo(
            f"arena: test match #{match_id} stays queued on the server (cancel it on the "
            "dashboard's Test match page)",
            err=True,
        )
        raise click.exceptions.Abort() from None


# ------------------------------------------------------------------------------ whoami


@remote_group.command("whoami")
@remote_options
def whoami_command(server: str | None, token: str | None) -> None:
    """Who the token acts for on the server, with its scopes and expiry."""
    with _client(server, token) as api:
        me = api.get("/me")
        health = api.get("/health")
    grant = field(me, "token", dict)
    scopes = ", ".join(str(s) for s in grant.get("scopes") or []) or "none"
    expires = grant.get("expires_at") or "never"
    click.echo(
        f"{safe_text(str(me.get('user')))} on {api.server} (arena "
        f"{safe_text(str(health.get('version')))}): token {safe_text(repr(grant.get('name')))}"
        f", scopes {safe_text(scopes)}, expires {safe_text(str(expires))}"
    )
