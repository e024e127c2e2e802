"""The dashboard's server: Streamlit's app (``app.py``) plus the routes that keep a login
across reloads (:mod:`dashboard.remember`).

``arena dashboard`` serves this file with ``streamlit run``, which finds the ``app`` below
and serves it as an ASGI application (Streamlit's ``st.App``, on Starlette and uvicorn).
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from dashboard import auth, remember  # noqa: E402  (needs the sys.path entry above)

app = st.App(
    Path(__file__).resolve().parent / "app.py",
    routes=remember.routes(int(auth.policy().lifetime.total_seconds())),
)
