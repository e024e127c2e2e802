"""Account: the logged-in user's own account: changing one's password, and personal tokens.

A new password keeps this session and ends every other one of the account (another
browser that still knows the old password is logged out), as
:func:`arena.accounts.logins.change_password` does.

Personal tokens (for the HTTP API and ``arena remote``) are created, listed and revoked
through :mod:`arena.storage.tokens`, the functions ``arena token`` calls, with the visitor
as the acting user and the owner. A new token's secret is shown in the run that created it
and kept nowhere else: not in the session state, not in a widget, so the next run (any
click, a page switch, a reload) no longer has it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Final

import pandas as pd
import streamlit as st

from arena.storage import Actor, StorageError
from arena.storage.models import utcnow
from arena.storage.tokens import SCOPES, TokenInfo, create_token, list_tokens, revoke_token
from dashboard import auth, cells, data
from dashboard.text import code, md

# (Comments, not docstrings: Streamlit's magic would show a bare string on the page.)
# The expiries the form offers, in days (None: never).
EXPIRIES: Final[tuple[int | None, ...]] = (None, 30, 90, 365)
# A notice for the next run (a token revoked): never a secret.
NOTICE_KEY: Final = "_account_token_notice"
SCOPE_HELP: Final = {
    "read": "Read your bots, submissions, games and test matches.",
    "submit": "Submit bots and queue test matches.",
}

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


def _when(moment: datetime | None, none: str = "never") -> str:
    return none if moment is None else f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


def _expiry_label(days: int | None) -> str:
    return "never" if days is None else f"in {days} days"


def _create_form(visitor: Actor) -> None:
    """The form for a new token; on success, its secret, shown in this run only."""
    with st.form("token_create", clear_on_submit=True):
        name = st.text_input(
            "Token name",
            key="token_name",
            max_chars=64,
            placeholder="laptop, ci, ...",
            help="Your own label, to tell your tokens apart.",
        )
        chosen = [
            scope
            for scope in SCOPES
            if st.checkbox(scope, value=True, key=f"token_scope_{scope}", help=SCOPE_HELP[scope])
        ]
        days = st.selectbox(
            "Expires", EXPIRIES, format_func=_expiry_label, key="token_expiry", index=2
        )
        submitted = st.form_submit_button("Create token", type="primary")
    if not submitted:
        return
    try:
        secret, token = create_token(
            data.engine(),
            visitor,
            owner=visitor.name,
            name=name.strip(),
            scopes=chosen,
            expires_in_days=days,
        )
    except StorageError as exc:
        st.error(md(str(exc)))
        return
    st.success(
        f"Token **{md(token.name)}** created ({', '.join(token.scopes)}; expires "
        f"{_when(token.expires_at)})."
    )
    st.warning(
        "Copy the token now: it is shown only this once (the arena keeps only its hash). "
        "Lost, it cannot be shown again: revoke it and create another."
    )
    st.code(secret, language=None)


def _revoke(visitor: Actor, token: TokenInfo) -> None:
    """Revoke *token* and rerun, with the outcome as the next run's notice."""
    try:
        revoke_token(data.engine(), visitor, visitor.name, str(token.id))
    except StorageError as exc:
        st.error(md(str(exc)))
        return
    st.session_state[NOTICE_KEY] = f"Token **{md(token.name)}** revoked."
    st.rerun()


def _token_list(visitor: Actor) -> None:
    """The visitor's tokens (never a secret), with a revoke button for each live one."""
    try:
        tokens = list_tokens(data.engine(), visitor, visitor.name)
    except StorageError as exc:
        st.error(md(str(exc)))
        return
    if not tokens:
        st.info("No token yet.")
        return
    now = utcnow()
    cells.table(
        pd.DataFrame(
            {
                "Name": [t.name for t in tokens],
                "Prefix": [t.prefix for t in tokens],
                "Scopes": [", ".join(t.scopes) for t in tokens],
                "Created": [_when(t.created_at) for t in tokens],
                "Expires": [_when(t.expires_at) for t in tokens],
                "Last used": [_when(t.last_used_at, none=cells.EMPTY) for t in tokens],
                "State": [t.state(now) for t in tokens],
            }
        ),
        hide_index=True,
        key="token_table",
    )
    for token in (t for t in tokens if t.state(now) == "active"):
        left, right = st.columns([4, 1], vertical_alignment="center")
        left.markdown(
            f"{code(token.prefix)} **{md(token.name)}** ({', '.join(token.scopes)}; expires "
            f"{_when(token.expires_at)})"
        )
        if right.button("Revoke", key=f"token_revoke_{token.id}", icon=":material/block:"):
            _revoke(visitor, token)


st.subheader("Personal tokens")
st.caption(
    "A token lets a script, a CI job or `arena remote` use the arena's HTTP API as you, "
    "within its scopes: **read** and **submit**. It never carries organiser rights, even "
    "an organiser's. Its secret is shown once, when it is made; the arena keeps only its "
    "SHA-256. The same as `arena token create|list|revoke` on the arena's host."
)
notice = st.session_state.pop(NOTICE_KEY, None)
if isinstance(notice, str):
    st.success(notice)
_create_form(visitor)
_token_list(visitor)
