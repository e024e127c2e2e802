"""My bots: a logged-in author's own bots, versions, submissions and games, with their logs.

What only a bot's owner and organisers may read (the bot's stderr and stdout, its faults
in full, its build and smoke-game log) is shown here, and nowhere to anyone else
(:mod:`arena.storage.privacy`). Every read goes through :mod:`arena.storage.workspace`
with the visitor as the viewer, and every record leaves redacted for them.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable, Sequence
from typing import Any, Final

import pandas as pd
import streamlit as st

from arena.referee.timecontrol import TimeControl
from arena.storage import Actor, StorageError
from arena.storage.ladder import withdraw_entry
from arena.storage.privacy import Viewer
from arena.storage.submissions import SubmissionInfo
from arena.storage.workspace import (
    AuthorBot,
    VersionGame,
    VersionState,
    author_bots,
    owners_with_bots,
    timing,
    unstored_submissions,
    version_game_count,
    version_games,
    version_records,
    viewable_record,
)
from arena.tournament.held_back import game_held_back
from dashboard import auth, cells, data
from dashboard.text import md

# (Comments, not docstrings: Streamlit's magic would show a bare string on the page.)
PAGE_SIZE: Final = 20  # games listed per page
# The most games one archive holds (the newest): records are large, and the archive is
# built in the dashboard's memory.
MAX_ARCHIVE_GAMES: Final = 500

st.title("My bots")
visitor = auth.visitor()
if visitor is None:
    st.info("Log in (in the sidebar) to see your bots, their games and their logs.")
    st.stop()
engine = data.engine()
viewer = Viewer.of(visitor)


def _owner(visitor: Actor) -> int:
    """Whose bots to show: the visitor's own; an organiser may choose any owner."""
    if not visitor.is_organiser:
        return visitor.id
    owners = dict(owners_with_bots(engine))
    owners.setdefault(visitor.id, visitor.name)
    ids = sorted(owners, key=lambda i: (i != visitor.id, owners[i]))
    return int(
        st.sidebar.selectbox(
            "Owner",
            ids,
            format_func=lambda i: owners[i],
            key="mybots_owner",
            help="Organisers read every author's workspace.",
        )
    )


def _limit_ms(time_control: str) -> int | None:
    try:
        return TimeControl.parse(time_control).decision_ms
    except ValueError:
        return None


def _percent(game: VersionGame) -> float | None:
    return game.timing.percent_of(_limit_ms(game.time_control))


def _submissions_table(rows: Sequence[SubmissionInfo]) -> None:
    cells.table(
        pd.DataFrame(
            {
                "When": [s.submitted_at for s in rows],
                "Bot": [s.bot_name for s in rows],
                "Version": [s.version or None for s in rows],
                "Via": [s.via for s in rows],
                "Outcome": [s.outcome for s in rows],
                "Message": [s.message for s in rows],
            }
        ),
        hide_index=True,
    )
    for row in rows:
        if row.log:
            with st.expander(f"Log of the {row.outcome} submission #{row.id}"):
                st.code(row.log, language=None)


def _versions(bot: AuthorBot) -> VersionState | None:
    cells.table(
        pd.DataFrame(
            {
                "Seq": [v.seq for v in bot.versions],
                "Label": [v.label for v in bot.versions],
                "State": [v.state for v in bot.versions],
                "Submitted": [v.submitted_at for v in bot.versions],
                "Via": [v.submitted_via for v in bot.versions],
                "Games": [v.games for v in bot.versions],
                "Faulted games": [v.faulted_games for v in bot.versions],
                "Tournaments": [", ".join(v.tournaments) for v in bot.versions],
            }
        ),
        hide_index=True,
    )
    if bot.failed:
        st.markdown("**Submissions that stored nothing**")
        _submissions_table(bot.failed)
    if not bot.versions:
        return None
    labels = [v.label for v in bot.versions]
    label = st.selectbox("Version", labels, index=len(labels) - 1, key=f"mybots_version_{bot.id}")
    return bot.versions[labels.index(label)]


def _ladders(version: VersionState, visitor: Actor) -> None:
    for place in version.ladders:
        line = f"Ladder **{md(place.tournament)}**: {md(place.state)}"
        if place.left_at is not None:
            line += f" since {place.left_at:%Y-%m-%d %H:%M}"
        left, right = st.columns([4, 1])
        left.markdown(line)
        if place.left_because is None and right.button(
            "Withdraw from ladder", key=f"mybots_withdraw_{place.tournament_id}_{version.id}"
        ):
            try:
                withdraw_entry(engine, place.tournament_id, version.id, by=visitor)
            except StorageError as exc:
                st.error(md(str(exc)))
            else:
                st.success(f"Withdrawn from {md(place.tournament)}.")
                st.rerun()


def _archive(version: VersionState) -> Callable[[], bytes]:
    """The version's newest games as a zip of their records (redacted for the viewer),
    built when the button is pressed; games whose cards are held back are left out and
    named in ``HELD_BACK.txt``."""

    def build() -> bytes:
        buffer = io.BytesIO()
        held: list[str] = []
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for game, record in version_records(
                engine, version.id, viewer, limit=MAX_ARCHIVE_GAMES
            ):
                why = game_held_back(engine, game.game_id)
                if why is not None:
                    held.append(f"game {game.game_id}: {why.notice()}")
                    continue
                archive.writestr(f"game-{game.game_id}.json", json.dumps(record, indent=1) + "\n")
            if held:
                archive.writestr("HELD_BACK.txt", "\n".join(held) + "\n")
        return buffer.getvalue()

    return build


def _games(version: VersionState) -> None:
    total = version_game_count(engine, version.id, viewer)
    st.subheader(f"Games of {md(version.label)}")
    if total == 0:
        st.info("No stored game yet.")
        return
    pages = (total + PAGE_SIZE - 1) // PAGE_SIZE
    page = int(
        st.number_input(
            f"Page (of {pages}; {total} games, newest first)",
            min_value=1,
            max_value=pages,
            value=1,
            key=f"mybots_page_{version.id}",
        )
    )
    games = version_games(engine, version.id, viewer, start=(page - 1) * PAGE_SIZE, limit=PAGE_SIZE)
    cells.table(
        pd.DataFrame(
            {
                "Game": [g.game_id for g in games],
                "Tournament": [g.tournament + (" (private)" if g.private else "") for g in games],
                "#": [g.schedule_index for g in games],
                "Seats": [",".join(str(s) for s in g.seats) for g in games],
                "Faults": [g.faults for g in games],
                "Decisions": [g.timing.decisions for g in games],
                "Mean ms": [g.timing.mean_ms for g in games],
                "p99 ms": [g.timing.p99_ms for g in games],
                "Max ms": [g.timing.max_ms for g in games],
                "Max % of limit": [_percent(g) for g in games],
            }
        ),
        hide_index=True,
        column_config={
            **{
                c: st.column_config.NumberColumn(format="%.1f")
                for c in ("Mean ms", "p99 ms", "Max ms")
            },
            "Max % of limit": st.column_config.NumberColumn(
                format="%.0f%%",
                help="The slowest decision as a share of the per-decision limit; above 100% "
                "it drew on the game's bank.",
            ),
        },
    )
    cap = "" if total <= MAX_ARCHIVE_GAMES else f" (the newest {MAX_ARCHIVE_GAMES} of {total})"
    st.download_button(
        f"Download all games{cap} (zip of JSON records)",
        _archive(version),
        file_name=f"{version.label.replace('@', '-')}-games.zip",
        mime="application/zip",
        key=f"mybots_zip_{version.id}",
        on_click="ignore",
        icon=":material/folder_zip:",
    )
    by_id = {g.game_id: g for g in games}
    chosen = st.selectbox(
        "Game",
        list(by_id),
        key=f"mybots_game_{version.id}",
        format_func=lambda i: (
            f"{i}: {by_id[i].tournament} #{by_id[i].schedule_index}, {by_id[i].faults} fault(s)"
        ),
    )
    if chosen is not None:
        _game(by_id[chosen])


def _game(game: VersionGame) -> None:
    try:
        record = viewable_record(engine, game.game_id, viewer)
    except StorageError as exc:
        st.error(md(str(exc)))
        return
    players = [str(p) for p in record.get("players") or []]
    st.markdown(
        f"**Game {game.game_id}** · {md(game.tournament)} #{game.schedule_index} · "
        + " / ".join(md(p) for p in players)
    )
    limit = _limit_ms(game.time_control)
    logs: list[Any] = record.get("bot_logs") or []
    for seat in game.seats:
        t = timing(record, [seat])
        share = t.percent_of(limit)
        closeness = "" if share is None else f", {share:.0f}% of the {limit} ms limit"
        st.markdown(
            f"**Seat {seat}**: {t.decisions} decisions, mean {t.mean_ms:.1f} ms, p99 "
            f"{t.p99_ms:.1f} ms, max {t.max_ms:.1f} ms{closeness}"
        )
        own = logs[seat] if seat < len(logs) and isinstance(logs[seat], dict) else {}
        st.markdown("stderr:")
        st.code(str(own.get("stderr") or "(empty)"), language=None)
        if own.get("stdout"):
            st.markdown("stdout:")
            st.code(str(own["stdout"]), language=None)
        if own.get("dropped_bytes"):
            st.caption(f"{int(own['dropped_bytes'])} more bytes of output were not kept.")
    faults = [f for f in record.get("faults") or [] if isinstance(f, dict)]
    for fault in (f for f in faults if f.get("seat") in game.seats):
        st.error(
            f"Fault: seat {md(str(fault.get('seat')))}, hand {md(str(fault.get('hand')))}, "
            f"{md(str(fault.get('decision')))}: **{md(str(fault.get('kind')))}**: "
            f"{md(str(fault.get('detail')))}"
            + (" (autopilot afterwards)" if fault.get("autopilot") else "")
        )
        if fault.get("stderr_tail"):
            st.code(str(fault["stderr_tail"]), language=None)
    held = game_held_back(engine, game.game_id)
    if held is not None:
        # The record holds every seat's cards, dealt again in games still to be played.
        st.info(held.notice() + " Its record can be downloaded then.")
        return
    st.download_button(
        "Download this game's record (JSON)",
        json.dumps(record, indent=1) + "\n",
        file_name=f"game-{game.game_id}.json",
        mime="application/json",
        key=f"mybots_record_{game.game_id}",
        on_click="ignore",
        icon=":material/download:",
    )
    st.page_link(
        "views/replays.py",
        label="Replay this game",
        icon=":material/playing_cards:",
        query_params={"game": str(game.game_id)},
    )


owner_id = _owner(visitor)
try:
    bots = author_bots(engine, owner_id, viewer)
    unstored = unstored_submissions(engine, owner_id, viewer)
except StorageError as exc:
    st.error(md(str(exc)))
    st.stop()
if unstored:
    with st.expander(f"Submissions under other names that stored nothing ({len(unstored)})"):
        _submissions_table(unstored)
if not bots:
    st.info(
        "No bot yet: submit one on the **Bots** page or with `arena bot submit DIR --user NAME`."
    )
    st.stop()
names = [b.name for b in bots]
name = st.selectbox("Bot", names, key="mybots_bot")
bot = bots[names.index(name)]
st.subheader(f"{md(bot.name)}: versions")
version = _versions(bot)
if version is not None:
    if version.submission is not None and version.submission.log:
        with st.expander("Build and smoke-game log of this version"):
            st.code(version.submission.log, language=None)
    _ladders(version, visitor)
    _games(version)
