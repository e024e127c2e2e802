"""``POST /api/v1/bots``: a real sample bot is built and smoke-tested in the background and
stored, on both backends; hostile archives (a zip bomb, path traversal, links) are refused
by the dashboard's own check with the dashboard's own words, before any row is stored;
another user's bot name is 403; a second submission while one builds is 409, a full
queue 503. Each with its control."""

from __future__ import annotations

import stat
import tarfile
import threading
import zipfile
from pathlib import Path
from typing import Any

import pytest

from arena.api import routes_submit
from arena.api.settings import ApiSettings
from arena.storage import submissions
from dashboard import actions
from tests.api.support import World, assert_error, bot_zip, poll, upload, wait_for_submission
from tests.dashboard.test_archive import (
    MANIFEST,
    MAX_EXTRACTED_BYTES,
    file_member,
    make_tar,
    make_zip,
)


def test_a_sample_bot_is_accepted_then_built_and_stored(world: World) -> None:
    alice = world.auth("alice")
    with world.client() as client:
        accepted = upload(client, alice, bot_zip("alice_api_bot"), "alice_api_bot.zip")
        assert accepted.status_code == 202, accepted.text
        body = accepted.json()
        assert body["state"] == "running"
        assert body["url"] == f"/api/v1/submissions/{body['submission_id']}"
        done = wait_for_submission(client, alice, body["submission_id"])
        assert done["state"] == "stored", done
        assert done["label"] == "alice_api_bot@1.0.0" and done["via"] == "api"
        assert done["bot"] == "alice_api_bot" and done["version"] == "1.0.0"
        assert "== smoke game: 0 fault(s)" in done["log"] and done["finished_at"]
        (bot,) = client.get("/api/v1/bots", headers=alice).json()["bots"]
        assert bot["name"] == "alice_api_bot" and bot["owner"] == "alice"
        (version,) = bot["versions"]
        assert version["via"] == "api" and version["label"] == "alice_api_bot@1.0.0"
        # The same files again: recognised, nothing built or stored.
        again = upload(client, alice, bot_zip("alice_api_bot"), "alice_api_bot.zip")
        same = wait_for_submission(client, alice, again.json()["submission_id"])
        assert same["state"] == "unchanged" and same["label"] == "alice_api_bot@1.0.0"
        # Its author's log is theirs: bob may not read the submission.
        assert_error(client.get(body["url"], headers=world.auth("bob")), 403, "forbidden")


HOSTILE = {
    "zip bomb": (
        "bomb.zip",
        lambda: make_zip({"bot.toml": MANIFEST, "zeros.bin": bytes(MAX_EXTRACTED_BYTES + 1)}),
    ),
    "path traversal": ("evil.zip", lambda: make_zip({"bot.toml": MANIFEST, "../evil.py": b"x"})),
    "symbolic link": (
        "link.zip",
        lambda: make_zip(
            {"bot.toml": MANIFEST, "link": b"/etc/passwd"}, {"link": stat.S_IFLNK | 0o777}
        ),
    ),
    "hard link in a tar": ("link.tar.gz", lambda: _tar_with_link(tarfile.LNKTYPE)),
    "absolute path in a tar": (
        "abs.tar.gz",
        lambda: make_tar(
            [file_member("bot.toml"), file_member("/etc/evil")],
            {"bot.toml": MANIFEST, "/etc/evil": b"x"},
        ),
    ),
}


def _tar_with_link(kind: bytes) -> bytes:
    link = tarfile.TarInfo("link")
    link.type, link.linkname = kind, "/etc/passwd"
    return make_tar([file_member("bot.toml"), link], {"bot.toml": MANIFEST})


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_archive_is_refused_as_the_dashboard_refuses_it(
    sqlite_world: World, tmp_path: Path, case: str
) -> None:
    world = sqlite_world
    filename, make = HOSTILE[case]
    data = make()
    with world.client() as client:
        refused = upload(client, world.auth("alice"), data, filename)
        body = assert_error(refused, 422, "archive_refused")
    # One code path: the dashboard's upload refuses it with the same words.
    with pytest.raises(actions.ActionError) as dashboard:
        actions.submit_archive(world.engine, data, filename, tmp_path, world.actor("alice"))
    assert str(dashboard.value) == body["message"]
    assert not list(tmp_path.parent.rglob("evil.py"))
    # Refused before a row: nothing was submitted (the dashboard stores none either).
    assert submissions.user_submissions(world.engine, world.actor("alice").id) == []


def test_control_a_well_formed_archive_of_the_same_shape_is_accepted(sqlite_world: World) -> None:
    world = sqlite_world
    broken_manifest = make_zip({"bot.toml": b"name = 'x'\n", "bot.py": b"x = 1\n"})
    with world.client() as client:
        accepted = upload(client, world.auth("alice"), broken_manifest, "fine.zip")
        assert accepted.status_code == 202, accepted.text
        done = wait_for_submission(client, world.auth("alice"), accepted.json()["submission_id"])
    # Accepted, then refused by `arena bot submit`'s own manifest check, in its row.
    assert done["state"] == "refused" and "bot.toml" in done["message"]
    assert done["bot"] == "fine.zip"


def test_a_failing_build_is_build_failed_with_its_log(sqlite_world: World, tmp_path: Path) -> None:
    world = sqlite_world
    manifest = MANIFEST.replace(b'name = "x"', b'name = "alice_broken"') + (
        b"build = \"sh -c 'echo BUILD-FAILED-MARK; exit 2'\"\n"
    )
    with world.client() as client:
        accepted = upload(client, world.auth("alice"), make_zip({"bot.toml": manifest}), "b.zip")
        done = wait_for_submission(client, world.auth("alice"), accepted.json()["submission_id"])
        assert done["state"] == "build_failed" and "BUILD-FAILED-MARK" in done["log"]
        unstored = client.get("/api/v1/bots", headers=world.auth("alice")).json()
        assert [s["state"] for s in unstored["unstored_submissions"]] == ["build_failed"]


def test_another_users_bot_name_is_403_before_anything_is_stored(world: World) -> None:
    bob_zip = bot_zip("bobs_bot")
    with world.client() as client:
        first = upload(client, world.auth("bob"), bob_zip)
        assert (
            wait_for_submission(client, world.auth("bob"), first.json()["submission_id"])["state"]
            == "stored"
        )
        refused = upload(client, world.auth("alice"), bot_zip("bobs_bot", "2.0.0"))
        assert "belongs to bob" in assert_error(refused, 403, "forbidden")["message"]
        look_alike = upload(client, world.auth("alice"), bot_zip("Bobs-Bot", "2.0.0"))
        assert_error(look_alike, 403, "forbidden")
    assert submissions.user_submissions(world.engine, world.actor("alice").id) == []


def test_content_type_and_form_fields(sqlite_world: World) -> None:
    world = sqlite_world
    alice = world.auth("alice")
    with world.client(ApiSettings(write_burst=20)) as client:
        as_json = client.post("/api/v1/bots", headers=alice, json={"archive": "x"})
        assert_error(as_json, 415, "unsupported_media_type")
        wrong_field = client.post("/api/v1/bots", headers=alice, files={"file": ("b.zip", b"x")})
        assert_error(wrong_field, 422, "invalid_request")
        as_text = client.post("/api/v1/bots", headers=alice, files={"archive": (None, "text")})
        assert_error(as_text, 422, "invalid_request")
        as_form = client.post("/api/v1/bots", headers=alice, data={"archive": "not a file"})
        assert_error(as_form, 415, "unsupported_media_type")
        two = client.post(
            "/api/v1/bots",
            headers=alice,
            files=[("archive", ("a.zip", b"x")), ("archive", ("b.zip", b"y"))],
        )
        assert_error(two, 400, "bad_request")
        # Control: one file field named archive gets to the archive's check.
        assert_error(upload(client, alice, b"x", "b.zip"), 422, "archive_refused")


def test_one_build_per_user_and_a_bounded_queue(
    sqlite_world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Builds are held by a stand-in for submit_bot until the test lets them go."""
    world = sqlite_world
    release = threading.Event()
    started: list[int] = []

    def held_build(engine: Any, path: Path, data_dir: Path, **options: Any) -> None:
        started.append(options["submission_id"])
        assert release.wait(120)
        submissions.finish_submission(
            engine, options["submission_id"], outcome="refused", message="held, then let go"
        )

    monkeypatch.setattr(routes_submit, "submit_bot", held_build)
    settings = ApiSettings(builds=1, build_queue=1, write_burst=100)
    archive = bot_zip("queued_bot")
    with world.client(settings) as client:
        first = upload(client, world.auth("alice"), archive)
        assert first.status_code == 202
        poll(lambda: len(started) == 1)
        assert_error(upload(client, world.auth("alice"), archive), 409, "submission_running")
        assert upload(client, world.auth("bob"), bot_zip("bob_queued")).status_code == 202
        assert_error(upload(client, world.auth("olga"), bot_zip("olga_bot")), 503, "busy")
        release.set()
        for answer in (first,):
            done = wait_for_submission(client, world.auth("alice"), answer.json()["submission_id"])
            assert done["message"] == "held, then let go"
        poll(lambda: len(started) == 2)
        # Control: once its build is over, alice may submit again.
        poll(lambda: upload(client, world.auth("alice"), archive).status_code == 202)


def test_a_finished_verdict_frees_the_users_place_before_its_thread_returns(
    sqlite_world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A script that submits again as soon as it reads its verdict is not refused: the
    build's thread gives its place back only after it has finished the row."""
    world = sqlite_world
    go, finished, leave = threading.Event(), threading.Event(), threading.Event()

    def slow_to_return(engine: Any, path: Path, data_dir: Path, **options: Any) -> None:
        assert go.wait(120)
        submissions.finish_submission(
            engine, options["submission_id"], outcome="refused", message="the verdict"
        )
        finished.set()
        assert leave.wait(120)  # the thread is still busy after the verdict

    monkeypatch.setattr(routes_submit, "submit_bot", slow_to_return)
    settings = ApiSettings(builds=2, build_queue=2, write_burst=100)
    archive = bot_zip("eager_bot")
    alice = world.auth("alice")
    try:
        with world.client(settings) as client:
            assert upload(client, alice, archive).status_code == 202
            # Control: while the verdict is not in, the place is still taken.
            assert_error(upload(client, alice, archive), 409, "submission_running")
            go.set()
            assert finished.wait(120)
            assert upload(client, alice, archive).status_code == 202
    finally:
        go.set()
        leave.set()


def test_a_zip_file_declared_as_another_type_is_still_checked(sqlite_world: World) -> None:
    """The archive's kind comes from its bytes as well as its name (arena.archive)."""
    world = sqlite_world
    data = make_zip({"bot.toml": MANIFEST, "../escape.py": b"x"})
    assert zipfile.is_zipfile(__import__("io").BytesIO(data))
    with world.client() as client:
        assert_error(upload(client, world.auth("alice"), data, "bot.bin"), 422, "archive_refused")
