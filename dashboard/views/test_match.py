"""Test match: a participant's bot against one or two chosen opponents, unranked and
private, queued and played by the queue runner (never in the dashboard's process); the
list of one's test matches, their place in the queue, and their replays."""

from __future__ import annotations

import streamlit as st

from arena import storage
from arena.game.rules import PRESETS
from arena.storage import test_matches
from dashboard import actions, auth, data
from dashboard.text import md

st.title("Test match")
url = data.database_url()
visitor = auth.visitor()

st.caption(
    "Your bot's latest version against one or two opponents (any active bot's latest "
    "version, or a house bot: builtin:random, builtin:greedy, builtin:pimc), over every "
    "seating of each board's secret deals (6 games a board). With one opponent the third "
    "seat goes to builtin:random (builtin:greedy if builtin:random is the opponent). The "
    "match is queued and played by the arena's queue runner; its games form a private "
    "tournament that only you and organisers see, and it moves no standings."
)
if visitor is None:
    # dashboard.actions refuses it anyway.
    st.caption("Log in as a participant (in the sidebar) to start a test match.")
    st.stop()
me = visitor  # not Optional: the fragment below reads it

every_bot = [b for b in data.bots(url) if b.versions]
house_names = set(test_matches.HOUSE_BOTS.values())
mine = [b.name for b in every_bot if me.is_organiser or b.owner == me.name]
opponents = list(actions.HOUSE_BOTS) + [b.name for b in every_bot if b.name not in house_names]
if not mine:
    st.info("Submit a bot first (on the **Bots** page): you test your own bots.")
else:
    with st.form("test_match"):
        bot = st.selectbox("Your bot (its latest version)", mine)
        chosen = st.multiselect(
            "Opponents (one or two)", opponents, default=["builtin:greedy"], max_selections=2
        )
        left, right = st.columns(2)
        boards = left.number_input(
            "Boards (6 games each)", min_value=1, max_value=test_matches.MAX_TEST_BOARDS, value=1
        )
        ruleset = right.selectbox("Rules", list(PRESETS), index=0)
        request = st.form_submit_button("Queue the test match", type="primary")
    if request and bot is not None:
        try:
            match_id = actions.request_test_match(
                data.engine(),
                url,
                data.data_directory(),
                bot=bot,
                opponents=chosen,
                boards=int(boards),
                ruleset=ruleset,
                by=me,
            )
        except actions.ActionError as exc:
            st.error(md(str(exc)))
        else:
            st.success(f"Queued test match #{match_id}.")


def _open_replay(name: str) -> None:
    """Open the Replays page on the first game of private tournament *name*."""
    engine = data.engine()
    tournament = storage.get_tournament(engine, name)
    ids = storage.tournament_game_ids(engine, storage.row_id(tournament))
    data.tournaments.clear()
    # The Replays page shows the remembered tournament: make it this one, then the game.
    st.session_state["_selected_tournament"] = name
    st.session_state.pop("tournament", None)
    params = {"tournament": name, **({"game": str(ids[0])} if ids else {})}
    st.switch_page("views/replays.py", query_params=params)


@st.fragment(run_every=2)
def my_test_matches() -> None:
    """The visitor's test matches (an organiser's: everyone's), refreshed every 2 s."""
    rows = test_matches.list_test_matches(data.engine(), me, limit=50)
    st.subheader("Everyone's test matches" if me.is_organiser else "My test matches")
    if not rows:
        st.caption("None yet.")
        return

    for row in rows:
        if row.queue_position is not None:
            state = f"position {row.queue_position} in the queue"
        else:
            state = row.message
        by = "" if row.requested_by == me.name else f" · by {md(row.requested_by)}"
        st.markdown(
            f"**#{row.id}** {md(row.bot)} vs {md(', '.join(row.opponents))} · "
            f"{row.boards} board(s) · {md(row.ruleset)}{by} · "
            f"{data.status_badge(row.status)} {md(state)}"
        )
        if row.tournament is not None and row.status in ("played", "running"):
            if st.button(f"Replays of test match #{row.id}", key=f"replay_{row.id}"):
                _open_replay(row.tournament)
        elif row.status == "queued" and st.button(
            f"Cancel test match #{row.id}", key=f"cancel_{row.id}"
        ):
            try:
                actions.cancel_test_match(data.engine(), row.id, me)
            except actions.ActionError as exc:
                st.error(md(str(exc)))


my_test_matches()
