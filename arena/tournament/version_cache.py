"""Bot versions on the nodes of a cluster: shipped by content, kept once per node.

A node of a Ray cluster has no access to the runner's data directory. So the runner packs
each stored version a game needs into a deterministic tar of exactly the files its checksum
covers (:func:`pack_version`), once per run, and a node keeps one copy per checksum in its
cache (:class:`NodeCache`). The first game slot on a node that needs a version unpacks it
into a temporary folder beside the cache, verifies its checksum, runs the bot's build there
in the build sandbox if it has one (build outputs such as ``node_modules`` are not in the
checksum, so they are never shipped: they are made on the node), verifies the checksum
again, and renames the folder into place in one step. A file lock per checksum makes the
other slots of the node wait for that rather than repeat it, and a folder under its final
name is always complete: a node killed half-way leaves only a temporary folder, which the
next install of that version removes.

Nothing here imports Ray: the node side runs inside a Ray actor, but this is plain files.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import logging
import os
import re
import shutil
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from arena.referee.manifest import ManifestError, load_manifest
from arena.sandbox.build.bot import BuildError, build
from arena.submission import (
    CHECKSUM_PREFIX,
    ChecksumError,
    SubmitError,
    scan_bot,
    verify_checksum,
)

LOGGER = logging.getLogger(__name__)

CACHE_ENV: Final = "ARENA_NODE_CACHE"
"""Where a node keeps its versions (default: ``$XDG_CACHE_HOME/arena952/versions``, that is
``~/.cache/arena952/versions``)."""

_CHECKSUM_TEXT: Final = re.compile(r"[0-9a-z]{40,64}")
"""What a checksum is after its prefix (base32 for ``v2:``, hex for legacy ones): a folder
name that cannot climb out of the cache."""


class NodeVersionError(RuntimeError):
    """A version could not be made ready on this node (damaged in transit, a build that fails
    or changes its checksummed files here): the arena's fault, never the bot's, whose version
    passed its build and smoke game when it was submitted. The message is one line."""


def pack_version(directory: Path, checksum: str) -> bytes:
    """The stored version at *directory* as an uncompressed tar of the files its checksum
    covers, in checksum order, with fixed owners and times, so equal versions give equal
    bytes; its files are verified against *checksum* first.

    :raises ChecksumError: if the stored files are not those of *checksum*.
    """
    verify_checksum(directory, checksum)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        try:
            files = scan_bot(directory)
        except SubmitError as exc:
            raise ChecksumError(f"{directory}: {exc}") from None
        for file in files:
            info = tarfile.TarInfo(str(file.relative))
            info.size = file.size
            info.mode = 0o755 if file.executable else 0o644
            info.mtime = 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            with (directory / file.relative).open("rb") as source:
                archive.addfile(info, source)
    return buffer.getvalue()


def default_cache_root() -> Path:
    """This node's version cache: ``$ARENA_NODE_CACHE``, else the user's cache directory."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "arena952" / "versions"


class NodeCache:
    """The versions this node has unpacked, verified and built, one folder per checksum."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or default_cache_root()

    def path(self, checksum: str) -> Path:
        """Where the version of *checksum* lives on this node (whether or not it is there).

        :raises NodeVersionError: if *checksum* is not a checksum.
        """
        name = checksum.removeprefix(CHECKSUM_PREFIX)
        if not _CHECKSUM_TEXT.fullmatch(name):
            raise NodeVersionError(f"not a version checksum: {checksum[:70]!r}")
        return self.root / name

    def ready(self, checksum: str) -> Path | None:
        """The version's folder if this node has it ready, else ``None``."""
        path = self.path(checksum)
        return path if path.is_dir() else None

    def install(self, checksum: str, label: str, packed: bytes) -> Path:
        """Make the version of *checksum* (``name@version`` *label*, from :func:`pack_version`)
        ready on this node, once; its folder.

        :raises NodeVersionError: if it does not verify, or its build fails here.
        """
        final = self.path(checksum)
        try:
            self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise NodeVersionError(f"cannot create the version cache {self.root}: {exc}") from None
        with self._lock(final.name):
            if final.is_dir():  # another slot of this node made it while we waited
                return final
            prefix = f".{final.name[:16]}-"
            for stale in self.root.glob(f"{prefix}*"):  # left by a node killed mid-install
                shutil.rmtree(stale, ignore_errors=True)
            staging = Path(tempfile.mkdtemp(prefix=prefix, dir=self.root))
            try:
                self._prepare(staging, checksum, label, packed)
                staging.rename(final)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
        LOGGER.info("version %s ready on this node at %s", label, final)
        return final

    @contextlib.contextmanager
    def _lock(self, name: str) -> Iterator[None]:
        """One installer of *name* at a time across this node's processes (``flock``)."""
        with (self.root / f".{name}.lock").open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _prepare(self, staging: Path, checksum: str, label: str, packed: bytes) -> None:
        """Unpack, verify, build and verify again in *staging*."""
        try:
            with tarfile.open(fileobj=io.BytesIO(packed), mode="r:") as archive:
                archive.extractall(staging, filter="data")
        except (tarfile.TarError, OSError) as exc:
            raise NodeVersionError(f"bot version {label}: cannot unpack it here: {exc}") from None
        _verify(
            staging, checksum, f"bot version {label}: its files arrived damaged (checksum mismatch)"
        )
        try:
            manifest = load_manifest(staging)
        except ManifestError as exc:
            raise NodeVersionError(f"bot version {label}: {exc}") from None
        if manifest.build is None:
            return
        try:
            build(manifest)
        except BuildError as exc:
            raise NodeVersionError(f"bot version {label}: its build failed here: {exc}") from None
        _verify(
            staging,
            checksum,
            f"bot version {label}: its build changed files its checksum covers, so it "
            "cannot be rebuilt on another machine (a build may write only ignored "
            "folders such as node_modules or .venv)",
        )


def _verify(directory: Path, checksum: str, refusal: str) -> None:
    """Check *directory* against *checksum*; :class:`NodeVersionError` with *refusal* if
    its files differ."""
    try:
        verify_checksum(directory, checksum)
    except ChecksumError:
        raise NodeVersionError(refusal) from None
