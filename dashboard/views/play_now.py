"""Play now: an unranked match of three chosen bots, played in the background; its replay
opens as soon as its first game is stored."""

from __future__ import annotations

import streamlit as st

from arena import storage
from arena.game.rules import PRESETS
from dashboard import actions, auth, data
from dashboard.text import md

st.title("Play now")
url = data.database_url()
# Session key: the tournament name of the match this session started and still waits for.
# (A comment: Streamlit's magic would show a bare string on the page.)
PENDING = "_play_now_pending"

st.caption(
    "One duplicate board (the same secret deals under all 6 seatings) of the latest versions "
    "of three bots, stored as its own tournament: unranked, since it moves no other "
    "tournament's standings. Its first game opens in **Replays** as soon as it is stored; "
    "its cards show once all 6 seatings are played (they share the deals)."
)
visitor = auth.visitor()
if visitor is None or not visitor.is_organiser:
    # dashboard.actions refuses it anyway: a match is a tournament, which organisers run.
    st.caption("Log in as an organiser (in the sidebar) to start a match.")
    st.stop()
bot_names = [b.name for b in data.bots(url) if b.versions]
if len(bot_names) < 3:
    st.info("Play now needs three submitted bots.")
    st.stop()
with st.form("play_now"):
    chosen = st.multiselect("Three bots", bot_names, default=bot_names[:3], max_selections=3)
    ruleset = st.selectbox("Rules", list(PRESETS), index=0)
    play = st.form_submit_button("Play now", type="primary")
if play:
    try:
        name = actions.start_play_now(
            data.engine(), url, data.data_directory(), chosen, visitor, ruleset=ruleset
        )
    except actions.ActionError as exc:
        st.error(md(str(exc)))
    else:
        data.tournaments.clear()
        st.session_state[PENDING] = name


@st.fragment(run_every=1)
def wait_for_the_first_game() -> None:
    """Open the replay of the match's first game once it is stored (polled every second)."""
    name = st.session_state.get(PENDING)
    if not isinstance(name, str):
        return
    engine = data.engine()
    tournament = storage.get_tournament(engine, name)
    ids = storage.tournament_game_ids(engine, storage.row_id(tournament))
    runner = actions.runner(name)
    if not ids:
        if runner is not None and runner.exit_code not in (None, 0):
            st.error(f"The match stopped with exit code {runner.exit_code}.")
            st.code(runner.log_tail(), language=None)
            del st.session_state[PENDING]
            return
        st.info(f"**{md(name)}** is being played; its replay opens when the first game ends.")
        return
    del st.session_state[PENDING]
    # The Replays page shows the remembered tournament: make it this one, then the game.
    st.session_state["_selected_tournament"] = name
    st.session_state.pop("tournament", None)
    st.switch_page("views/replays.py", query_params={"tournament": name, "game": str(ids[0])})


wait_for_the_first_game()
