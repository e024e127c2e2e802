"""Account: the logged-in user's own account; here, changing one's password.

A new password keeps this session and ends every other one of the account (another
browser that still knows the old password is logged out), as
:func:`arena.accounts.logins.change_password` does.
"""

from __future__ import annotations

import streamlit as st

from dashboard import auth
from dashboard.text import md

st.title("Account")
visitor = auth.visitor()
if visitor is None:
    st.info("Log in (in the sidebar) to change your password.")
    st.stop()
st.markdown(f"Logged in as **{md(visitor.name)}** ({visitor.role}).")
st.subheader("Change your password")
st.caption(
    "Your other sessions end, in every other browser; this one goes on. " + auth.password_rules()
)
auth.change_password_form()
