"""A node's version cache (arena.tournament.version_cache), without Ray: versions travel as
deterministic tars, arrive verified, are built on the node in the build sandbox, and
concurrent installs on one node neither race nor leave half-made folders."""

from __future__ import annotations

import io
import shutil
import tarfile
import threading
from pathlib import Path

import pytest

from arena.sandbox.build.bot import STAMP_NAME
from arena.submission import checksum, verify_checksum
from arena.tournament.version_cache import NodeCache, NodeVersionError, pack_version

ROOT = Path(__file__).resolve().parents[2]


def _stored(tmp_path: Path, name: str = "random_bot") -> tuple[Path, str]:
    """A copy of a sample bot as a stored version would be; its folder and checksum."""
    target = tmp_path / "stored" / name
    shutil.copytree(ROOT / "sample_bots" / name, target)
    return target, checksum(target)


def _with_build(tmp_path: Path, script: str) -> tuple[Path, str]:
    """random_bot with a ``build`` step that runs *script* (Python) in the bot's folder."""
    target, _ = _stored(tmp_path)
    (target / "build.py").write_text(script)
    manifest = target / "bot.toml"
    manifest.write_text(manifest.read_text() + 'build = "python build.py"\n')
    return target, checksum(target)


def test_a_version_packs_to_the_same_bytes_and_installs_once(tmp_path: Path) -> None:
    stored, digest = _stored(tmp_path)
    packed = pack_version(stored, digest)
    (stored / "bot.py").touch()  # a new time changes nothing: times are not shipped
    assert pack_version(stored, digest) == packed
    cache = NodeCache(tmp_path / "cache")
    assert cache.ready(digest) is None
    path = cache.install(digest, "random_bot@1", packed)
    assert path == cache.ready(digest) == cache.path(digest)
    verify_checksum(path, digest)
    assert cache.install(digest, "random_bot@1", b"not used: it is there") == path
    assert [p.name for p in cache.root.iterdir() if not p.name.endswith(".lock")] == [path.name]


def test_a_changed_stored_version_is_not_shipped(tmp_path: Path) -> None:
    stored, digest = _stored(tmp_path)
    (stored / "bot.py").write_text("print('not what was submitted')\n")
    with pytest.raises(ValueError, match="files changed"):
        pack_version(stored, digest)


def test_a_version_damaged_in_transit_is_refused_and_leaves_nothing(tmp_path: Path) -> None:
    stored, digest = _stored(tmp_path)
    packed = pack_version(stored, digest)
    damaged = packed.replace(b"Uniformly random", b"Uniformly RANDOM")
    assert damaged != packed and len(damaged) == len(packed)
    cache = NodeCache(tmp_path / "cache")
    with pytest.raises(NodeVersionError, match="arrived damaged"):
        cache.install(digest, "random_bot@1", damaged)
    assert cache.ready(digest) is None
    assert [p.name for p in cache.root.iterdir() if not p.name.endswith(".lock")] == []
    # The control: the undamaged bytes install.
    assert cache.install(digest, "random_bot@1", packed) == cache.path(digest)


def test_a_tar_with_a_path_outside_the_version_is_refused(tmp_path: Path) -> None:
    _, digest = _stored(tmp_path)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        info = tarfile.TarInfo("../escaped.txt")
        info.size = 2
        archive.addfile(info, io.BytesIO(b"hi"))
    with pytest.raises(NodeVersionError, match="cannot unpack"):
        NodeCache(tmp_path / "cache").install(digest, "random_bot@1", buffer.getvalue())
    assert not (tmp_path / "escaped.txt").exists()


def test_a_checksum_cannot_name_a_folder_outside_the_cache(tmp_path: Path) -> None:
    cache = NodeCache(tmp_path / "cache")
    with pytest.raises(NodeVersionError, match="not a version checksum"):
        cache.path("v2:../../etc")
    assert cache.path("v2:" + "a" * 52).parent == cache.root


def test_the_build_runs_on_the_node_and_its_outputs_are_not_shipped(tmp_path: Path) -> None:
    stored, digest = _with_build(
        tmp_path,
        "import pathlib\npathlib.Path('.venv').mkdir()\npathlib.Path('.venv/built').write_text('here')\n",
    )
    (stored / ".venv").mkdir()
    (stored / ".venv" / "built").write_text("on the runner's machine")
    packed = pack_version(stored, digest)
    assert b"on the runner's machine" not in packed  # build outputs are made on each node
    path = NodeCache(tmp_path / "cache").install(digest, "built@1", packed)
    assert (path / ".venv" / "built").read_text() == "here"
    assert (path / STAMP_NAME).is_file()
    verify_checksum(path, digest)


def test_a_build_that_changes_checksummed_files_is_refused(tmp_path: Path) -> None:
    stored, digest = _with_build(
        tmp_path, "import pathlib\npathlib.Path('bot.py').write_text('# rebuilt\\n')\n"
    )
    cache = NodeCache(tmp_path / "cache")
    with pytest.raises(NodeVersionError, match="changed files its checksum covers"):
        cache.install(digest, "rebuilt@1", pack_version(stored, digest))
    assert cache.ready(digest) is None


def test_concurrent_installs_make_one_complete_folder(tmp_path: Path) -> None:
    """Slots of one node installing one version at once (the lock is per open file, so
    threads contend as processes do): one folder, verified, no staging left behind; a
    staging folder left by a killed install is removed by the next."""
    stored, digest = _stored(tmp_path)
    packed = pack_version(stored, digest)
    cache = NodeCache(tmp_path / "cache")
    cache.root.mkdir()
    stale = cache.root / f".{cache.path(digest).name[:16]}-killed"
    stale.mkdir()
    paths: list[Path] = []
    threads = [
        threading.Thread(target=lambda: paths.append(cache.install(digest, "r@1", packed)))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert paths == [cache.path(digest)] * 4
    verify_checksum(cache.path(digest), digest)
    assert sorted(p.name for p in cache.root.iterdir()) == sorted(
        [cache.path(digest).name, f".{cache.path(digest).name}.lock"]
    )
