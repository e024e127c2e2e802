"""The browser fixtures of tests/dashboard (Debian chromium through Playwright)."""

from tests.dashboard.conftest import browser, page

__all__ = ["browser", "page"]
