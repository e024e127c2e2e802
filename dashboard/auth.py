"""Who is using the dashboard: the login box, the session, and the "logged in as" line.

Viewing is open to everyone unless ``ARENA_DASHBOARD_PRIVATE`` is on. Uploading a bot needs
a participant's login, and creating, starting or stopping a tournament an organiser's; the
pages only hide what a visitor may not use, and :mod:`dashboard.actions` refuses it anyway
(with the same checks as the CLI), so a forged request gets nowhere.

Two ways to log in:

* **Built-in**: user name and password (``arena user add``), checked by
  :func:`arena.accounts.logins.log_in` with its failed-login rate limit.
* **Single sign-on**: when the organiser configures an OpenID Connect provider in
  ``.streamlit/secrets.toml`` (an ``[auth]`` section), a "Log in with ..." button runs
  Streamlit's ``st.login``; the provider's verified email address picks the arena account
  (``arena user add NAME --role ... --email ADDRESS``).

Either way the arena's own session (a random token in this browser tab's session state,
its hash in the database) decides what the visitor may do; it ends when idle or old, at
logout, and when the user is disabled or gets a new password. A built-in login is also
kept in an HttpOnly cookie (:mod:`dashboard.remember`), so a reload or a second tab finds
it again while the session lives; so is a provider login, which then also ends when the
provider no longer vouches for the same account (a logout there, another person's login).

A password session whose password an organiser set (``arena user add/reset``) sees
nothing but the form that replaces it: :func:`gate` shows it instead of whichever page was
asked for. The sidebar links to the Account page (password and personal tokens) and, when the arena
takes sign-ups, to the Sign up page.
"""

from __future__ import annotations

import logging
import os
from functools import cache
from typing import Final

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from arena.accounts import joining, logins
from arena.accounts import policy as policy_rules
from arena.storage import Actor, StorageError
from arena.web.clients import UNKNOWN
from dashboard import data, guard, remember

LOGGER = logging.getLogger(__name__)

SESSION_KEY: Final = "_arena_session"
NOTICE_KEY: Final = "_arena_login_notice"
REFUSED_KEY: Final = "_arena_refused_identity"
PRIVATE_VARIABLE: Final = "ARENA_DASHBOARD_PRIVATE"
COOKIE_SCRIPT_KEY: Final = "_arena_cookie_script"
"""A script to run once in the page: set the login cookie, or clear it."""
DEVICE_KEY: Final = "_arena_device"
"""The device token a login in this tab was given (kept server-side, for this tab's later
logins: the connection's cookies were read when it opened, before the device cookie)."""
SPENT_COOKIE_KEY: Final = "_arena_spent_cookie"
"""A cookie token this browser session found dead: not checked again on every rerun."""


@cache
def policy() -> logins.LoginPolicy:
    """The login rules (session lengths from the environment, see LoginPolicy)."""
    return logins.LoginPolicy.from_environment()


def private() -> bool:
    """Is the whole dashboard for logged-in users only (``ARENA_DASHBOARD_PRIVATE``)?"""
    return os.environ.get(PRIVATE_VARIABLE, "").strip().lower() in {"1", "true", "yes", "on"}


def single_sign_on() -> bool:
    """Has the organiser configured an identity provider for ``st.login``?"""
    try:
        return "auth" in st.secrets
    except Exception:  # no secrets file at all, or an unreadable one: not configured
        return False


def _facts() -> tuple[str | None, str | None]:
    """The visitor's client key and page origin, as :mod:`dashboard.guard` set them."""
    try:
        return guard.facts(st.context.headers)
    except Exception:  # outside a browser session (scripts, AppTest)
        return None, None


def client_address() -> str:
    """The visitor's client key (the throttle counts per client): its address as the server
    saw it after the trusted proxies, never a header the visitor chose."""
    return _facts()[0] or UNKNOWN


def page_origin() -> str | None:
    """The origin the page was served from (a login counts only there); ``None`` outside a
    guarded server."""
    return _facts()[1]


def login_origin() -> logins.Visitor:
    """Where a login from this browser session comes from: its client key, its origin,
    and its device token (from the device cookie, or from a login earlier in this tab,
    whose cookie this session's connection predates)."""
    client, origin = _facts()
    device = _cookie(remember.DEVICE_COOKIE) or st.session_state.get(DEVICE_KEY)
    return logins.Visitor(client or UNKNOWN, device if isinstance(device, str) else None, origin)


def _cookie(name: str) -> str | None:
    """The login cookie *name* of this browser, under the name it has over HTTPS
    (``__Host-``) or HTTP, whichever the page was served by (a cookie under the other
    name, planted from elsewhere, is ignored)."""
    full = remember.cookie_name(name, remember.is_secure_origin(page_origin()))
    try:
        value = st.context.cookies.get(full)
    except Exception:  # outside a browser session (scripts, tests)
        return None
    return value if isinstance(value, str) else None


def current() -> Actor | None:
    """The logged-in user of this browser session, or ``None`` for a spectator.

    A database that cannot be asked ends no login: the visitor is a spectator for this run
    only, and the token and the cookie stay for the next.
    """
    session = current_session()
    return session.actor if session is not None else None


def current_session() -> logins.Session | None:
    """The arena session of this browser session (:func:`current`), or ``None``."""
    token = st.session_state.get(SESSION_KEY)
    if isinstance(token, str):
        try:
            session = _alive(token)
        except StorageError:
            return None
        if session is not None:
            return session
        del st.session_state[SESSION_KEY]
        st.session_state[NOTICE_KEY] = "Your session ended; log in again."
        st.session_state[SPENT_COOKIE_KEY] = token
        _clear_cookie()
    try:
        remembered = _from_cookie()
    except StorageError:
        return None
    return remembered if remembered is not None else _from_identity_provider()


def _alive(token: str) -> logins.Session | None:
    """The arena session of *token* while it lives, and while the identity provider
    vouches for its user if single sign-on opened it (otherwise it is ended here).

    :raises StorageError: if the database could not be asked (logged here).
    """
    try:
        engine = data.engine()
        session = logins.current(engine, token, policy(), origin=page_origin())
        if session is not None and not logins.provider_vouches(engine, session, _provider_email()):
            logins.log_out(engine, token)
            return None
        return session
    except StorageError as exc:
        LOGGER.warning("session check failed: %s", exc)
        raise


def _from_cookie() -> logins.Session | None:
    """The login this browser kept in its cookie (a reload, another tab), if it lives.

    :raises StorageError: if the database could not be asked.
    """
    token = _cookie(remember.COOKIE)
    if token is None or token == st.session_state.get(SPENT_COOKIE_KEY):
        return None
    session = _alive(token)
    if session is None:
        st.session_state[SPENT_COOKIE_KEY] = token
        _clear_cookie()
        return None
    st.session_state[SESSION_KEY] = token
    return session


def begin(session: logins.Session) -> None:
    """Make *session*, just opened (a login, a sign-up), this browser session's login, and
    have the page keep it across reloads."""
    st.session_state[SESSION_KEY] = session.token
    _remember(session)


def _remember(session: logins.Session) -> None:
    """Have the page keep *session*'s token in the login cookie, and its device token in
    the device cookie (on the next run, see sidebar)."""
    ticket = remember.TICKETS.issue(session.token, session.device)
    if session.device is not None:
        st.session_state[DEVICE_KEY] = session.device
    st.session_state[COOKIE_SCRIPT_KEY] = remember.post_script(remember.SESSION_PATH, ticket)


def _clear_cookie() -> None:
    """Have the page clear the login cookie (on the next run, see sidebar)."""
    st.session_state[COOKIE_SCRIPT_KEY] = remember.post_script(remember.FORGET_PATH)


def _provider_email() -> str | None:
    """The address the identity provider has verified for this browser (``None``: single
    sign-on is off, nobody is logged in there, or it verified no address)."""
    if not single_sign_on() or not st.user.is_logged_in:
        return None
    email = st.user.get("email")
    if not isinstance(email, str) or st.user.get("email_verified") is False:
        return None
    return email


def _from_identity_provider() -> logins.Session | None:
    """Open an arena session for a visitor the identity provider has just logged in, and
    keep it in the login cookie like a built-in login: a reload finds it again (while the
    provider vouches for it, see :func:`_alive`) instead of opening another."""
    if not single_sign_on() or not st.user.is_logged_in:
        return None
    email = _provider_email()
    if email is None:
        st.session_state[NOTICE_KEY] = "The identity provider gave no verified email address."
        return None
    if st.session_state.get(REFUSED_KEY) == email:
        return None  # refused once in this browser session: not again on every rerun
    try:
        session = logins.log_in_identity(data.engine(), email, login_origin(), policy())
    except (logins.LoginRefused, StorageError) as exc:
        st.session_state[NOTICE_KEY] = str(exc)
        st.session_state[REFUSED_KEY] = email
        return None
    begin(session)
    return session


def sidebar(actor: Actor | None) -> None:
    """Who is logged in, with a way out; or the way in."""
    script = st.session_state.pop(COOKIE_SCRIPT_KEY, None)
    if isinstance(script, str):
        with st.sidebar:
            # st.iframe embeds an HTML string with the page's origin, as the deprecated
            # components.v1.html did (removal announced after 2026-06-01); 1 px is its least.
            st.iframe(script, height=1, alt="Keeps the login across page reloads")
    box = st.sidebar.container(border=True)
    notice = st.session_state.pop(NOTICE_KEY, None)
    if notice:
        box.warning(notice)
    done = st.session_state.pop(DONE_KEY, None)
    if done:
        box.success(done)
    if actor is not None:
        box.markdown(f"Logged in as **{actor.name}** ({actor.role})")
        box.page_link(ACCOUNT_PAGE, label="Account: password and tokens", icon=":material/key:")
        if box.button("Log out", key="logout", icon=":material/logout:"):
            if log_out():
                st.stop()  # a rerun now could overtake the browser's redirect to the provider
            st.rerun()
        return
    box.caption("Viewing as a spectator")
    login_form(box)
    if sign_up_offered():
        box.page_link(JOIN_PAGE, label="Sign up", icon=":material/person_add:")


def sign_up_offered() -> bool:
    """Does the arena take sign-ups (``arena settings set join invite`` or ``open``)? A
    database that cannot be asked offers none (the page would refuse anyway)."""
    try:
        return joining.join_mode(data.engine()) != "closed"
    except StorageError:
        return False


def sidebar_caption(actor: Actor | None) -> str:
    """The sidebar's footer line: the arena's name, and the database only for an organiser.

    The database location is a server path (SQLite) or PostgreSQL's host, user and database
    name: the organiser needs it to tell which arena this is, to anyone else it is a map of
    the server (spectators see the sidebar too).
    """
    if actor is not None and actor.is_organiser:
        return f"952 Arena · database `{data.shown_url()}`"
    return "952 Arena"


def login_form(where: DeltaGenerator) -> None:
    """The built-in login (and the identity provider's button when one is configured)."""
    if single_sign_on():
        if st.user.is_logged_in:
            if where.button("Log out of the identity provider", key="oidc_logout"):
                st.session_state.pop(REFUSED_KEY, None)
                st.logout()
        elif where.button("Log in with single sign-on", key="oidc_login"):
            st.login()
    with where.form("login", clear_on_submit=True, border=False):
        name = st.text_input("User name", key="login_name")
        password = st.text_input("Password", type="password", key="login_password")
        submitted = st.form_submit_button("Log in")
    if submitted:
        try:
            session = logins.log_in(data.engine(), name, password, login_origin(), policy())
        except logins.LoginRefused as exc:
            where.error(str(exc))
        except StorageError as exc:
            where.error(f"login failed: {exc}")
        else:
            begin(session)
            st.rerun()


def log_out() -> bool:
    """End this browser session's arena session (and the provider's, if it made it);
    whether the browser is now sent to the provider's logout (the page must then end
    without a rerun, or the redirect can be lost on a slow machine)."""
    token = st.session_state.pop(SESSION_KEY, None)
    if isinstance(token, str):
        try:
            logins.log_out(data.engine(), token)
        except StorageError as exc:
            LOGGER.warning("logout failed: %s", exc)
        st.session_state[SPENT_COOKIE_KEY] = token
        _clear_cookie()
    st.session_state.pop(REFUSED_KEY, None)
    if single_sign_on() and st.user.is_logged_in:
        st.logout()
        return True
    return False


ACTOR_KEY: Final = "_arena_actor"
DONE_KEY: Final = "_arena_done_notice"
"""A success to show once in the sidebar on the next run (a password changed)."""
JOIN_PAGE: Final = "views/join.py"
OPEN_WHEN_PRIVATE: Final = frozenset({"join"})
"""URL paths of the pages a spectator of a private arena may open: signing up is the way
into a private arena that takes sign-ups."""
ACCOUNT_PAGE: Final = "views/account.py"


def visitor() -> Actor | None:
    """The visitor the router found at the start of this run (``None``: a spectator)."""
    found = st.session_state.get(ACTOR_KEY)
    return found if isinstance(found, Actor) else None


def gate(url_path: str = "") -> Actor | None:
    """The router's step for the page at *url_path*: find the visitor, show the login box,
    stop a spectator's page run when the dashboard is private (except the Sign up page,
    which shows nothing of the arena), and stop every page run of a session that must
    replace an organiser's password, showing it the form to do so instead (whichever page
    its URL names)."""
    session = current_session()
    actor = session.actor if session is not None else None
    st.session_state[ACTOR_KEY] = actor
    sidebar(actor)
    if session is not None and _must_replace_password(session):
        st.title("Choose your own password")
        st.info(
            "An organiser set the password you logged in with, so someone else knows it: "
            "replace it to go on."
        )
        change_password_form()
        st.stop()
    if actor is None and private() and url_path not in OPEN_WHEN_PRIVATE:
        st.title("952 Arena")
        st.info("This arena is private: log in (in the sidebar) to see it.")
        st.stop()
    return actor


def _must_replace_password(session: logins.Session) -> bool:
    """Must *session* replace its password before seeing any page? A database that cannot
    be asked says yes for this run (the form then reports the failure): a page must not
    open for a session that may not see it."""
    try:
        return logins.must_replace_password(data.engine(), session)
    except StorageError as exc:
        LOGGER.warning("password-change check failed: %s", exc)
        return True


def password_rules() -> str:
    """The password policy in one line, for the forms that take a new password."""
    return (
        f"At least {policy_rules.MIN_LENGTH} and at most {policy_rules.MAX_LENGTH} "
        "characters, not your user name nor containing it, not one character repeated. "
        "A passphrase of a few words is easy to remember and hard to guess."
    )


def change_password_form() -> None:
    """The form that replaces the logged-in user's password (the Account page, and the
    forced change after an organiser's password). The session goes on; the user's other
    sessions end."""
    with st.form("change_password", clear_on_submit=True):
        old = st.text_input("Current password", type="password", key="password_current")
        new = st.text_input(
            "New password", type="password", key="password_new", help=password_rules()
        )
        again = st.text_input("New password again", type="password", key="password_again")
        submitted = st.form_submit_button("Change password", type="primary")
    if not submitted:
        return
    token = st.session_state.get(SESSION_KEY)
    if not isinstance(token, str):
        st.error("Your session ended; log in again.")
        return
    try:
        logins.change_password(data.engine(), token, old, new, again, login_origin(), policy())
    except logins.LoginRefused as exc:
        st.error(str(exc))
    except StorageError as exc:
        st.error(f"the password was not changed: {exc}")
    else:
        st.session_state[DONE_KEY] = "Your password is changed; your other sessions ended."
        st.rerun()
