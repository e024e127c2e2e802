"""Play: a logged-in person takes a seat against two bots (docs/play.md).

The game is played by its own runner process (:mod:`arena.play.runner`), refereed like any
other game; this page only shows the person's seat from the game's row and writes their
answer to the decision asked. Every choice is checked here against the options asked (a
refusal is one line and nothing is written) and again by the referee's engine.
"""

from __future__ import annotations

import json
import os
from typing import Any

import streamlit as st
import streamlit.components.v2 as components

from arena.analysis.difference import first_difference
from arena.game.record import RecordError
from arena.game.rules import PRESETS
from arena.play.choice import refusal
from arena.play.starter import PlayStartError, start_play_runner
from arena.replay.frames import frames_json
from arena.replay.steps import build_replay
from arena.storage import play_games
from arena.storage.database import StorageError
from arena.storage.models import PlayGame
from arena.storage.privacy import redact_seats
from arena.storage.users import Actor
from arena.viewer import viewer_html
from arena.viewer.play import play_css, play_js
from dashboard import actions, auth, data
from dashboard.text import md

# Seconds per decision for every game started here, instead of the form's minutes (tests
# and demos use it for a short time control). (Comments, not docstrings: Streamlit's magic
# would draw a bare string on the page.)
SECONDS_VARIABLE = "ARENA_PLAY_DECISION_SECONDS"
REFUSED_KEY = "_play_refused"
NO_HOUSE = "nobody"
TABLE = components.component("arena952_play_table", js=play_js(), css=play_css())

st.title("Play")
st.caption(
    "Take a seat against two bots (submitted bots or the house bots builtin:random, "
    "builtin:greedy, builtin:pimc). The referee runs the game exactly as a bot's: your seat "
    "sees only what it may, every choice is checked against the rules, and a decision not "
    "made in time is a timeout: the autopilot then plays your seat to the end of the game. "
    "Your games are unranked and never count in standings."
)
visitor = auth.visitor()
if visitor is None:
    st.caption("Log in (in the sidebar) to take a seat.")
    st.stop()
me: Actor = visitor


def _answer(game: PlayGame, choice: Any, view: dict[str, Any] | None) -> None:
    """Check the person's *choice* against the decision asked, then write it."""
    st.session_state.pop(REFUSED_KEY, None)
    pending = json.loads(game.pending) if game.pending else None
    if not isinstance(choice, dict) or pending is None or choice.get("no") != pending["no"]:
        return  # an answer to a decision no longer asked: nothing to do
    text = str(choice.get("text", ""))[:200]
    why = refusal(text, pending, (view or {}).get("hand", []))
    if why is not None:
        st.session_state[REFUSED_KEY] = f"Refused: {why}."
        return
    if not play_games.give_answer(data.engine(), game.id or 0, me, pending["no"], text):
        st.session_state[REFUSED_KEY] = "Refused: that decision is no longer asked."


def _replay(game: PlayGame, house: bool) -> None:
    """The finished game (or the house bot's on its deal) in the replay viewer, with the
    person's own seat's logs only (none of the house bot's game)."""
    text = game.house_record if house else game.record
    if text is None:
        st.error("No such game.")
        return
    record = redact_seats(json.loads(text), () if house else (game.seat,))
    name = f"play-{game.id}" + ("-house" if house else "")
    try:
        replay = build_replay(record, game=name)
    except RecordError as exc:
        st.error(f"This record does not replay: {md(str(exc))}")
        return
    st.iframe(viewer_html(frames_json(replay), title=name), height=720)


def _duplicate(game: PlayGame) -> None:
    """The person's result beside the house bot's on the same cards in the same seat."""
    if game.house_record is None:
        if game.house_message:
            st.caption(
                f"{md(game.house_bot or '')} could not play your cards: {md(game.house_message)}"
            )
        else:
            st.caption(
                f"{md(game.house_bot or '')} is now playing your cards in your seat against the "
                "same opponents (duplicate); its result appears here."
            )
        return
    assert game.record is not None
    mine, theirs = json.loads(game.record), json.loads(game.house_record)
    seat = game.seat
    st.markdown(
        f"**Duplicate:** on the same cards in your seat, you scored "
        f"{mine['result']['scores'][seat]:+d}; {md(game.house_bot or '')} scored "
        f"{theirs['result']['scores'][seat]:+d} "
        f"([its replay](/play?replay={game.id}&house=1))."
    )
    try:
        difference = first_difference(
            build_replay(redact_seats(mine, ())), build_replay(redact_seats(theirs, ()))
        )
    except RecordError:
        return
    if difference is None:
        st.caption("It played exactly as you did.")
    else:
        st.caption(
            f"The games first part at hand {difference.hand}: you: {md(difference.first)} · "
            f"{md(game.house_bot or '')}: {md(difference.second)}"
        )


@st.fragment(run_every=0.5)
def table(game_id: int) -> None:
    """The person's seat, redrawn from the game's row twice a second."""
    game = play_games.get_play_game(data.engine(), game_id)
    if game is None:
        return
    view = json.loads(game.view) if game.view else None
    asked = game.pending is not None and game.answer_no != game.request_no
    pending = json.loads(game.pending) if asked and game.pending else None
    result = TABLE(
        data={"view": view, "pending": pending, "refused": st.session_state.get(REFUSED_KEY)},
        key=f"play_table_{game_id}",
        on_choice_change=lambda: None,
    )
    choice = getattr(result, "choice", None)
    if choice is not None:
        _answer(game, choice, view)
        st.rerun(scope="fragment")
    if game.status == "starting":
        st.caption("Starting the bots...")
    if game.status in ("finished", "failed"):
        st.markdown(f"**Game #{game_id} {md(game.status)}:** {md(game.message)}")
        if game.record is not None:
            st.markdown(f"[Open the replay of game #{game_id}](/play?replay={game_id})")
            if game.house_bot:
                _duplicate(game)
            else:
                st.caption(
                    "Duplicate: this deal was dealt for you alone and no house bot was asked "
                    "to play it after you, so there is nothing to compare (docs/play.md)."
                )
        if st.button("Back to the Play page", key="play_done"):
            st.rerun()


engine = data.engine()
replay_id = st.query_params.get("replay")
if replay_id is not None and replay_id.isdigit():
    shown = play_games.get_play_game(engine, int(replay_id))
    of_house = st.query_params.get("house") == "1"
    if shown is None or shown.user_id != me.id or shown.record is None:
        st.error("No finished game of yours with that number.")
    else:
        whose = f"{shown.house_bot} on the cards of game #{replay_id}" if of_house else ""
        st.subheader(f"Replay of {md(whose) if of_house else f'game #{replay_id}'}")
        _replay(shown, of_house)
    st.stop()

games = play_games.list_play_games(engine, me.id)
current = next(
    (g for g in games if g.status in play_games.OPEN and not play_games.is_stale(g)), None
)
if current is None and "_play_watch" in st.session_state:
    watched = play_games.get_play_game(engine, st.session_state["_play_watch"])
    if watched is not None and watched.user_id == me.id:
        current = watched
if current is not None and current.id is not None:
    st.session_state["_play_watch"] = current.id
    table(current.id)
    if current.status in play_games.OPEN:
        st.stop()
    st.session_state.pop("_play_watch", None)

house = list(actions.HOUSE_BOTS)
bots = [b.name for b in data.bots(data.database_url()) if b.versions]
choices = house + [name for name in bots if name not in house]
with st.form("play"):
    left, right = st.columns(2)
    first = left.selectbox("First opponent", choices, index=choices.index("builtin:pimc"))
    second = right.selectbox("Second opponent", choices, index=choices.index("builtin:greedy"))
    left, middle, right = st.columns(3)
    ruleset = left.selectbox("Rules", list(PRESETS), index=0)
    seat = middle.selectbox("Your seat", [0, 1, 2], index=0)
    minutes = right.number_input("Minutes per decision", min_value=1, max_value=30, value=5)
    house_choice = st.selectbox(
        "Afterwards, a house bot plays your cards in your seat (duplicate)",
        [*house[::-1], NO_HOUSE],
        help="The same deals against the same opponents: your result beside the bot's.",
    )
    sit = st.form_submit_button("Take the seat", type="primary")
if sit:
    seconds = int(minutes) * 60
    override = os.environ.get(SECONDS_VARIABLE, "")
    if override.isdigit() and int(override) > 0:
        seconds = int(override)
    try:
        game_id = play_games.create_play_game(
            engine,
            me,
            opponents=[str(first), str(second)],
            ruleset=str(ruleset),
            seat=int(seat),
            decision_seconds=seconds,
            house_bot=None if house_choice == NO_HOUSE else str(house_choice),
        )
        start_play_runner(engine, data.database_url(), data.data_directory(), game_id)
    except (StorageError, PlayStartError) as exc:
        st.error(md(str(exc).splitlines()[0]))
    else:
        st.session_state["_play_watch"] = game_id
        st.rerun()

done = [g for g in games if g.record is not None]
if done:
    st.subheader("Your games")
    for game in done:
        players = " · ".join(json.loads(game.players or "[]"))
        st.markdown(
            f"**#{game.id}** {md(players)} · {md(game.message)} · [replay](/play?replay={game.id})"
        )
