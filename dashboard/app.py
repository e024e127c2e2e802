"""952 Arena dashboard: the router (``st.navigation``); each page is a small file in views/.

Served by ``arena dashboard`` (through ``dashboard/server.py``, which adds the login
cookie's routes), which passes the database as ``ARENA_DB``. Run by hand with
``ARENA_DB=... streamlit run dashboard/server.py`` from the repository root (``app.py``
alone runs too, without keeping logins across reloads).
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

# The dashboard package sits beside arena/ and is not part of the wheel; Streamlit puts only
# this file's folder on sys.path, so add the repository root for ``import dashboard.*``.
# (The pages live in views/, not pages/: a pages/ folder would switch Streamlit to its
# older file-based navigation, which runs a page without this router.)
_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from dashboard import auth, data  # noqa: E402  (needs the sys.path entry above)

st.set_page_config(page_title="952 Arena", page_icon=":material/playing_cards:", layout="wide")

PAGES = [
    st.Page("views/standings.py", title="Standings", icon=":material/leaderboard:", default=True),
    st.Page("views/rating_history.py", title="Rating history", icon=":material/show_chart:"),
    st.Page("views/statistics.py", title="Statistics", icon=":material/query_stats:"),
    st.Page("views/analysis.py", title="Analysis", icon=":material/analytics:"),
    st.Page("views/replays.py", title="Replays", icon=":material/playing_cards:"),
    st.Page("views/live.py", title="Live", icon=":material/live_tv:"),
    st.Page("views/bots.py", title="Bots", icon=":material/smart_toy:"),
    # A logged-in author's own bots and logs (a spectator is asked to log in). Listed for
    # everyone: the router runs before the login of the same run is known.
    st.Page("views/my_bots.py", title="My bots", icon=":material/folder_shared:"),
    st.Page("views/tournaments.py", title="Tournaments", icon=":material/trophy:"),
    st.Page("views/ladder.py", title="Ladder", icon=":material/stairs:"),
    st.Page("views/version_tests.py", title="Version tests", icon=":material/compare_arrows:"),
    st.Page("views/test_match.py", title="Test match", icon=":material/play_arrow:"),
    st.Page("views/play.py", title="Play", icon=":material/sports_esports:"),
    # Reached from the sidebar's links (and by URL): not in the page list.
    st.Page("views/join.py", title="Sign up", icon=":material/person_add:", visibility="hidden"),
    st.Page("views/account.py", title="Account", icon=":material/key:", visibility="hidden"),
]

page = st.navigation(PAGES)
try:
    visitor = auth.gate(page.url_path)  # who is logged in (or stop here: a private arena, ...)
    st.sidebar.caption(auth.sidebar_caption(visitor))
    page.run()
except Exception as exc:  # a database outage: say so and come back by itself (data.py)
    if not data.show_if_unavailable(exc):
        raise
