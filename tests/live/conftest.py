"""The live tests' Chromium: the dashboard tests' ``browser`` and ``page`` fixtures (they
mark a test as a browser test themselves)."""

from tests.dashboard.conftest import browser, page

__all__ = ["browser", "page"]
