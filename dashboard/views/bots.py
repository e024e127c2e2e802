"""Bots: every bot and version, manifests, fault history; submit a new bot as an archive."""

from __future__ import annotations

import json
import logging

import pandas as pd
import streamlit as st

from arena.archive import MAX_ARCHIVE_BYTES, MAX_EXTRACTED_BYTES
from arena.storage import Actor
from arena.storage.privacy import Viewer
from dashboard import actions, auth, cells, data
from dashboard.text import md

LOGGER = logging.getLogger(__name__)

st.title("Bots")
url = data.database_url()
visitor = auth.visitor()
organiser = visitor is not None and visitor.is_organiser


def submit_section(visitor: Actor) -> None:
    """The upload form: a new bot becomes the visitor's; only its owner (or an organiser)
    adds versions, which :func:`dashboard.actions.submit_archive` checks again."""
    st.markdown(
        "Upload a **.zip** or **.tar.gz** of the bot's folder, with `bot.toml` at its top "
        "(or inside one top-level folder). It gets the same checks as `arena bot submit`: "
        "manifest, build, and a smoke game through the real referee. A new bot name "
        f"becomes **{md(visitor.name)}**'s; only its owner or an organiser adds versions."
    )
    with st.form("submit_bot", clear_on_submit=True):
        upload = st.file_uploader(
            "Bot archive",
            type=["zip", "gz", "tgz"],
            max_upload_size=MAX_ARCHIVE_BYTES // 2**20,
            help=f"At most {MAX_ARCHIVE_BYTES // 2**20} MB, "
            f"{MAX_EXTRACTED_BYTES // 2**20} MB unpacked; no links, no paths outside the folder.",
        )
        submitted = st.form_submit_button("Submit")
    if not submitted:
        return
    if upload is None:
        st.error("Choose an archive first.")
        return
    with st.spinner("Unpacking, building and smoke-testing the bot..."):
        try:
            label, created = actions.submit_archive(
                data.engine(), upload.getvalue(), upload.name, data.data_directory(), visitor
            )
        except actions.ActionError as exc:
            st.error(md(str(exc)))
        except Exception as exc:  # a visitor's upload must never crash the page
            LOGGER.exception("bot upload %r failed", upload.name)
            first = (str(exc).splitlines() or [""])[0][:200]
            st.error(f"submission failed: {type(exc).__name__}: {md(first)}")
        else:
            data.bots.clear()
            if created:
                st.success(f"Stored {md(label)}.")
            else:
                st.info(f"{md(label)} is already stored with exactly these files.")


if visitor is None:
    st.caption("Log in as a participant (in the sidebar) to submit bots.")
else:
    with st.expander("Submit a bot", expanded=False):
        submit_section(visitor)

bots = data.bots(url)
if not bots:
    st.info("No bot yet: submit one above or with `arena bot submit DIR`.")
    st.stop()

cells.table(
    pd.DataFrame(
        {
            "Bot": [b.name for b in bots],
            "Owner": [b.owner for b in bots],
            "Versions": [len(b.versions) for b in bots],
            "Latest": [b.versions[-1].label if b.versions else None for b in bots],
            "Language": [b.versions[-1].language if b.versions else None for b in bots],
            "Games": [b.games for b in bots],
            "Faulted games": [b.faulted_games for b in bots],
        }
    ),
    hide_index=True,
)

names = [b.name for b in bots]
wanted = st.query_params.get("bot")
name = st.selectbox("Bot", names, index=names.index(wanted) if wanted in names else 0)
bot = bots[names.index(name)]

st.subheader(f"{md(bot.name)}: versions")
st.caption(f"Owned by **{md(bot.owner)}**: only they or an organiser may submit new versions.")
cells.table(
    pd.DataFrame(
        {
            "Seq": [v.seq for v in bot.versions],
            "Label": [v.label for v in bot.versions],
            "Version": [v.version for v in bot.versions],
            "Language": [v.language for v in bot.versions],
            "Submitted": [v.submitted_at for v in bot.versions],
            "By": [v.submitted_by for v in bot.versions],
            "Via": [v.submitted_via for v in bot.versions],
            "Games": [v.games for v in bot.versions],
            "Faulted games": [v.faulted_games for v in bot.versions],
            "Tournaments": [", ".join(v.tournaments) for v in bot.versions],
            "Checksum": [v.checksum[:16] for v in bot.versions],
        }
    ),
    hide_index=True,
)
# Its duplicate analysis in each tournament it entered (the Analysis page).
for entered in dict.fromkeys(t for v in bot.versions for t in v.tournaments):
    st.page_link(
        "views/analysis.py",
        label=f"Analysis of {md(bot.name)} in {md(entered)}",
        icon=":material/analytics:",
        query_params={"tournament": entered, "bot": bot.name},
    )
labels = [v.label for v in bot.versions]
label = st.selectbox("Version", labels, index=len(labels) - 1)
version = bot.versions[labels.index(label)]
left, right = st.columns(2)
with left:
    st.markdown("**Manifest** (`bot.toml`)")
    try:
        st.json(json.loads(version.manifest))
    except ValueError:
        st.code(version.manifest)
with right:
    if organiser:  # the server's file system is none of a spectator's business
        st.markdown("**Stored copy**")
        st.code(version.path, language=None)
    st.markdown(f"checksum `{version.checksum}`")

st.subheader("Fault history")
# Detail and stderr only for the bot's owner and organisers (the cache is per viewer).
history = data.faults(url, None, tuple(v.id for v in bot.versions), 50, Viewer.of(visitor))
if not history:
    st.success(f"No fault recorded for {md(bot.name)}.")
else:
    st.caption(f"The latest {len(history)} fault(s) of any version, newest first.")
    by_name = {t.name: t for t in data.tournaments(url)}
    for fault in history:
        title = (
            f"{md(fault.bot)} · {md(fault.tournament)} game #{fault.schedule_index} "
            f"(id {fault.game_id}) · hand {fault.hand} · {md(fault.decision)}: {md(fault.kind)}"
        )
        # A fault's detail and the bot's stderr may name cards of deals still to be played.
        held = data.held_back(url, by_name[fault.tournament], fault.schedule_index)
        with st.expander(title):
            if held is not None:
                st.info(held.notice())
            else:
                st.markdown(f"**{md(fault.kind)}**: {md(fault.detail)}")
            if fault.autopilot:
                st.caption("The referee's autopilot played the seat for the rest of the game.")
            if fault.hidden:
                st.caption(
                    "Its detail and the bot's stderr are shown only to the bot's owner and to "
                    "organisers (on **My bots**)."
                )
            if fault.stderr_tail and held is None:
                st.markdown("stderr (last lines):")
                st.code(fault.stderr_tail, language=None)
            st.page_link(
                "views/replays.py",
                label="Replay this game",
                icon=":material/playing_cards:",
                query_params={"game": str(fault.game_id)},
            )
