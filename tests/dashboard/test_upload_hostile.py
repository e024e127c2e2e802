"""Hostile uploads on the Bots page under Streamlit's ``AppTest``: one clear line on the
page, no exception, nothing stored."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.storage.database import open_database
from tests.dashboard.accounts_support import add_account, log_in
from tests.dashboard.test_archive import MANIFEST, latin1_tar, zip_entries
from tests.migrated_sqlite import migrated_sqlite_url

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"


UPLOADS = {
    "x then x/y": (
        "bot.zip",
        zip_entries([("bot.toml", MANIFEST), ("x", b"1"), ("x/y", b"2")]),
        "'x' is both a file and a folder",
    ),
    "x then x/": (
        "bot.zip",
        zip_entries([("bot.toml", MANIFEST), ("x", b"1"), ("x/", b"")]),
        "'x' is both a file and a folder",
    ),
    "300-character name": (
        "bot.zip",
        zip_entries([("bot.toml", MANIFEST), ("n" * 300, b"1")]),
        "names longer than 255 bytes",
    ),
    "non-UTF-8 tar member": ("bot.tar.gz", latin1_tar(), "file names must be UTF-8"),
}


@pytest.mark.parametrize("case", list(UPLOADS))
def test_a_hostile_upload_is_one_line_on_the_page(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = migrated_sqlite_url(tmp_path / "arena.db")
    data = tmp_path / "data"
    monkeypatch.setenv("ARENA_DB", url)
    monkeypatch.setenv("ARENA_DATA", str(data))
    filename, content, message = UPLOADS[case]
    password = add_account(open_database(url), "uploader", "participant")
    app = AppTest.from_file(str(APP), default_timeout=60)
    app.run()
    log_in(app, "uploader", password)
    app.switch_page("views/bots.py").run()
    app.file_uploader[0].upload(filename, content)
    app.button(key="FormSubmitter:submit_bot-Submit").click().run()
    assert not app.exception, [e.value for e in app.exception]
    errors = [str(e.value) for e in app.error]
    assert len(errors) == 1 and "\n" not in errors[0], errors
    assert errors[0].startswith("archive refused: ") and message in errors[0], errors
    assert storage.list_bots(open_database(url)) == []
    assert not (data / "bots").exists()
