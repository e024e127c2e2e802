"""Sign up: make an account without an organiser, as the arena's join mode allows
(``arena settings set join closed|invite|open``), and be logged in at once.

The rules (invitation codes, the per-client limits, the password policy) are all in
:func:`arena.accounts.joining.sign_up`; this page only collects the form.
"""

from __future__ import annotations

import streamlit as st

from arena.accounts import joining
from arena.storage import StorageError
from dashboard import auth, data
from dashboard.text import md

# Session key: the name of the account this browser session has just made.
WELCOME = "_join_welcome"

st.title("Sign up")
visitor = auth.visitor()
if visitor is not None:
    welcome = st.session_state.pop(WELCOME, None)
    if welcome == visitor.name:
        st.success(f"Welcome, **{md(visitor.name)}**: your account is made and you are logged in.")
    else:
        st.info(f"You are logged in as **{md(visitor.name)}**.")
    st.page_link(
        "views/bots.py", label="Submit a bot on the Bots page", icon=":material/smart_toy:"
    )
    st.stop()
try:
    mode = joining.join_mode(data.engine())
except StorageError as exc:
    st.error(md(f"cannot read how this arena takes members: {exc}"))
    st.stop()
if mode == "closed":
    st.info("This arena takes no sign-ups: ask an organiser for an account.")
    st.stop()
if mode == "invite":
    st.caption("Joining needs an invitation code from an organiser (`arena user invite`).")
else:
    st.caption(
        f"Anyone may join, as a participant: at most {joining.ACCOUNTS_PER_CLIENT_PER_DAY} "
        "accounts from one address a day."
    )
with st.form("sign_up"):
    name = st.text_input(
        "User name",
        key="signup_name",
        max_chars=64,
        help="1-64 letters, digits, '_', '.' or '-', starting with a letter or digit; "
        "it must not look like another user's name.",
    )
    password = st.text_input(
        "Password", type="password", key="signup_password", help=auth.password_rules()
    )
    confirmation = st.text_input("Password again", type="password", key="signup_confirmation")
    code = st.text_input("Invitation code", key="signup_code") if mode == "invite" else ""
    submitted = st.form_submit_button("Sign up", type="primary")
if submitted:
    form = joining.SignUp(name, password, confirmation, code)
    try:
        session = joining.sign_up(data.engine(), form, auth.login_origin(), auth.policy())
    except joining.SignUpRefused as exc:
        st.error(md(str(exc)))
    except StorageError as exc:
        st.error(md(f"sign-up failed: {exc}"))
    else:
        auth.begin(session)
        st.session_state[WELCOME] = session.actor.name
        st.rerun()
