"""Replays: step through a stored game, all cards face up or as one seat sees it.

The game is drawn by the replay viewer (:mod:`arena.viewer`) in the browser from frames
computed once here, so a step costs no rerun; the held-back rule and the reader's rights
are decided here, before anything is built (docs/replays.md)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from arena.game.record import RecordError
from arena.replay.frames import frames_json
from arena.replay.steps import Replay
from arena.storage import GameRow, StorageError, TournamentInfo
from arena.storage.privacy import Viewer
from arena.viewer import viewer_html
from dashboard import auth, cells, data
from dashboard.text import md

st.title("Replays")
url = data.database_url()

# ---------------------------------------------------------------- choosing a game


# The largest id SQLite (and PostgreSQL's bigint) can hold: larger ones overflow the query.
# (A comment, not a docstring: Streamlit's magic would show a bare string on the page.)
MAX_ID = 2**63 - 1
_ID = re.compile(r"[0-9]{1,19}")


def query_id(raw: str | None) -> int | None:
    """An id from the URL: ASCII digits within the database's range, else ``None``.

    Anyone can type the URL: ``str.isdigit`` accepts ``²`` (which ``int`` refuses) and a
    number past the range makes the database driver raise, and either would show a
    traceback to the visitor.
    """
    if raw is None or _ID.fullmatch(raw) is None:
        return None
    number = int(raw)
    return number if number <= MAX_ID else None


# The most steps a game can have is far below this; a longer number is no step.
_STEP = re.compile(r"[0-9]{1,6}")
VIEWER_HEIGHT = 820


def query_step(raw: str | None) -> int | None:
    """A step from the URL (``?step=N``): a short run of ASCII digits, else ``None``; the
    viewer clamps it to the game's last step."""
    return None if raw is None or _STEP.fullmatch(raw) is None else int(raw)


def _linked_game() -> GameRow | None:
    """The game named by ``?game=ID``, if it exists."""
    game_id = query_id(st.query_params.get("game"))
    return None if game_id is None else data.game(url, game_id)


def _field(fault: Mapping[str, Any], key: str) -> str:
    """A field of a recorded fault as literal Markdown: the referee quotes bot output."""
    return md(str(fault.get(key)))


def _describe(game: GameRow) -> str:
    players = " · ".join(
        f"{name} {score:+d}{' (won)' if seat in game.winners else ''}"
        for seat, (name, score) in enumerate(zip(game.players, game.scores, strict=True))
    )
    faults = f" · {game.fault_count} fault(s)" if game.fault_count else ""
    return f"#{game.schedule_index} (id {game.id}): {players}{faults}"


linked = _linked_game()
tournament = data.pick_tournament(auth.visitor())
if tournament is None:
    st.stop()
if linked is not None and linked.tournament_id != tournament.id:
    linked = None  # the link was for another tournament than the one now picked

progress = data.progress(url, tournament.id)
if progress.status == "running":
    st.info(
        f"**{md(tournament.name)}** is running: a game can be replayed once it is over and "
        f"stored ({progress.stored} of {progress.total} so far)."
    )
filters = st.columns([2, 1, 3])
bot_options: list[int | None] = [None, *tournament.entrant_ids]
bot_labels = dict(zip(tournament.entrant_ids, tournament.entrants, strict=True))
bot = filters[0].selectbox(
    "Bot", bot_options, format_func=lambda b: "all bots" if b is None else bot_labels[b]
)
count = data.game_count(url, tournament.id, bot)
start = int(
    filters[1].number_input(
        "From game #", min_value=0, max_value=max(0, tournament.games_total - 1), value=0
    )
)
page = data.games(url, tournament.id, bot, start, 100)
if linked is not None and bot is not None and bot not in linked.seats:
    linked = None  # the bot filter excludes the linked game
if linked is not None and all(g.id != linked.id for g in page):
    page = [linked, *page]
if not page:
    st.info("No stored game matches." if count == 0 else f"No stored game from #{start} on.")
    st.stop()
ids = [g.id for g in page]
by_id = {g.id: g for g in page}
if st.session_state.get("replay_pick") not in ids:
    st.session_state["replay_pick"] = linked.id if linked is not None else ids[0]
game_id = filters[2].selectbox(
    f"Game ({count} stored{'' if bot is None else ' with this bot'})",
    ids,
    format_func=lambda i: _describe(by_id[i]),
    key="replay_pick",
)
game = by_id[game_id]
st.query_params["game"] = str(game_id)


def _held_back_notice(tournament: TournamentInfo, schedule_index: int) -> None:
    """Say why the picked game's cards are not shown; once its deal group is all stored,
    rerun the page to replay it (polled while the tournament runs)."""
    held = data.held_back(url, tournament, schedule_index)
    if held is None:
        st.rerun()
    else:
        st.info(held.notice())


# The other seatings of a board are dealt the same cards: until they are all stored, this
# game's cards (and its record: hands, steps, faults, seed) would show them in advance.
if data.held_back(url, tournament, game.schedule_index) is not None:
    st.markdown(f"**{md(tournament.name)}** game #{game.schedule_index} · secret deals")
    poll = 2 if progress.status == "running" else None
    st.fragment(_held_back_notice, run_every=poll)(tournament, game.schedule_index)
    st.stop()

try:
    # A bot's stderr and fault details are its owner's and the organisers' only: the
    # replay is built from the copy of the record this visitor may read.
    readable = data.readable_seats(url, game_id, Viewer.of(auth.visitor()))
    replay: Replay = data.replay(url, game_id, readable)
except (RecordError, StorageError) as exc:
    st.error(f"This record does not replay: {md(str(exc))}")
    st.stop()

# ---------------------------------------------------------------- the viewer

result = ", ".join(f"seat {w} ({md(game.players[w])})" for w in game.winners)
# A board's key would let a viewer deal the hands its other seatings have still to play:
# it is shown once the tournament is over (or when the deals were predictable anyway). A
# game's cards give its deals away as well: they are held back above until every game
# dealt alike is stored (dashboard.data.held_back).
seed_shown = (
    f"seed {replay.record.get('seed')}"
    if tournament.status == "finished" or tournament.predictable
    else "secret deals"
)
st.markdown(
    f"**{md(tournament.name)}** game #{game.schedule_index} · {md(seed_shown)} · "
    f"{game.hands_played} hands · won by {result} ({md(game.reason)}) · final scores "
    + " / ".join(f"{s:+d}" for s in game.scores)
)
st.caption(" · ".join(f"seat {seat}: {md(name)}" for seat, name in enumerate(game.players)))


@st.cache_data(ttl=600, max_entries=32, show_spinner=False)
def _frames(url: str, game_id: int, readable: tuple[int, ...]) -> str:
    """The game's frames for the viewer (arena.replay.frames), computed once per game and
    set of readable seats: every step from every perspective, as the observer draws it."""
    return frames_json(data.replay(url, game_id, readable))


# The whole game goes to the browser once; stepping, autoplay and the seat views run there
# without a rerun (arena.viewer, docs/replays.md). ?step=N opens it at step N.
linked_step = query_step(st.query_params.get("step")) if linked is not None else None
if linked is None or linked.id != game_id:
    linked_step = None
    st.query_params.pop("step", None)  # a step of another game
st.iframe(
    viewer_html(
        _frames(url, game_id, readable),
        start_step=linked_step or 0,
        title=f"{tournament.name} game #{game.schedule_index}",
        sync_parent_url=True,
    ),
    height=VIEWER_HEIGHT,
)

# ---------------------------------------------------------------- summaries

st.subheader("Hands")
faults = [f for f in replay.record.get("faults") or [] if isinstance(f, dict)]
hands = replay.record["hands"]
cells.table(
    pd.DataFrame(
        {
            "Hand": [h["number"] for h in hands],
            "Dealer": [h["dealer"] for h in hands],
            "Contracts": ["/".join(str(c) for c in h["contracts"]) for h in hands],
            "Trump": [h["trump"] for h in hands],
            "Exchange": [
                ", ".join(f"{x['giver']}→{x['receiver']} x{len(x['given'])}" for x in h["exchange"])
                or cells.EMPTY
                for h in hands
            ],
            "Tricks": ["/".join(str(t) for t in h["tricks_won"]) for h in hands],
            "Deltas": ["/".join(f"{d:+d}" for d in h["deltas"]) for h in hands],
            "Scores": ["/".join(f"{s:+d}" for s in h["scores"]) for h in hands],
            "Faults": [sum(1 for f in faults if f.get("hand") == h["number"]) for h in hands],
        }
    ),
    hide_index=True,
)
if faults:
    st.subheader("Faults")
    for fault in faults:
        st.markdown(
            f"**seat {_field(fault, 'seat')}** ({md(replay.players[fault['seat']])}) · hand "
            f"{_field(fault, 'hand')} · {_field(fault, 'decision')} · "
            f"**{_field(fault, 'kind')}**: {_field(fault, 'detail')}"
            + (" · autopilot afterwards" if fault.get("autopilot") else "")
        )
        if fault.get("stderr_tail"):
            st.code(str(fault["stderr_tail"]), language=None)
    if any(f.get("hidden") for f in faults):
        st.caption(
            "A fault's detail and the bot's stderr are shown only to the bot's owner and "
            "to organisers; its owner reads them on **My bots**."
        )
