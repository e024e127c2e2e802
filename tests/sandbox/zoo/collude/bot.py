"""collude: two copies of this bot (one directory) at one table, the sender at seat 0
and the receiver at seat 1, try to pass the sender's dealt hand to the receiver through
every shared-kernel-object channel at once (``channel.json`` names the shared files and
keys), each with its own files, so one channel's traffic is not read as another's:

* ``flock``: the sender holds a shared ``flock`` on file *i* for card *i*; the receiver
  probes each file with a non-blocking exclusive one;
* ``posix`` / ``ofd``: the sender holds a read lock on byte *i* of one file (process-
  associated ``F_SETLK`` / open-file-description ``F_OFD_SETLK``); the receiver asks
  ``F_GETLK`` / ``F_OFD_GETLK`` for each byte;
* ``lease``: the sender takes a read lease (``F_SETLEASE``) on file *i*; the receiver
  reads ``/proc/locks`` and matches the inode numbers;
* ``inotify``: the receiver watches file *i* for opens; the sender opens its cards' files;
* ``sysv``: the sender writes its hand into a System V shared memory segment of a known
  key; the receiver attaches to it;
* ``abstract``: the receiver binds an abstract unix datagram socket; the sender sends
  its hand to that name;
* ``atime``: the sender reads file *i* of the bot's own directory (whose access time the
  test set before its modification time, so even ``relatime`` updates it); the receiver
  looks for access times after the modification time.

Both write what they did on stderr: ``ZOO-SENT channel=C hand=H cards=...``,
``ZOO-GOT channel=C hand=H cards=...`` (cards as indices), ``ZOO-ERR channel=C side=S
errno=E`` the first time a call fails. Then they play like the SDK's default bot."""

import ctypes
import errno
import fcntl
import json
import os
import socket
import struct
import sys

from arena.game.actions import Decision
from arena.sdk import Bot, Observation

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "channel.json")) as _file:
    SPEC = json.load(_file)
ROLE = "?"
CHANNELS = ("flock", "posix", "ofd", "lease", "inotify", "sysv", "abstract", "atime")
F_OFD_GETLK, F_OFD_SETLK = 36, 37
F_SETLEASE = 1024
IN_OPEN, IN_NONBLOCK = 0x20, 0o4000
IPC_CREAT = 0o1000

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = (ctypes.c_int, ctypes.c_void_p, ctypes.c_int)
libc.shmget.argtypes = (ctypes.c_int, ctypes.c_size_t, ctypes.c_int)
_errors: set[tuple[str, str]] = set()


def log(line: str) -> None:
    os.write(2, (line + "\n").encode())


def error(channel: str, exc: OSError) -> None:
    if (channel, ROLE) not in _errors:
        _errors.add((channel, ROLE))
        name = errno.errorcode.get(exc.errno or 0, str(exc))
        log(f"ZOO-ERR channel={channel} side={ROLE} errno={name}")


def libc_call(result: int) -> int:
    if result == -1 or result == ctypes.c_void_p(-1).value:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return result


def lock_struct(kind: int, start: int) -> bytes:
    # struct flock on 64-bit Linux: short type, short whence, off_t start, off_t len, pid_t
    return struct.pack("hhqqi4x", kind, os.SEEK_SET, start, 1, 0)


class Sender:
    def __init__(self) -> None:
        self.fds: dict[str, list[int]] = {c: [] for c in CHANNELS}
        self.hand = -1
        self.shm = None

    def drop(self) -> None:
        for fds in self.fds.values():
            for fd in fds:
                os.close(fd)
            fds.clear()

    def send(self, hand: int, cards: list[int]) -> None:
        if hand != self.hand:
            self.drop()
            self.hand = hand
            log(f"ZOO-SENT hand={hand} cards={','.join(map(str, cards))}")
        files = SPEC["files"]
        for channel, action in (
            ("flock", lambda: self.flock(files["flock"], cards)),
            ("posix", lambda: self.record_lock(files["posix"], cards, fcntl.F_SETLK, "posix")),
            ("ofd", lambda: self.record_lock(files["ofd"], cards, F_OFD_SETLK, "ofd")),
            ("lease", lambda: self.lease(files["lease"], cards)),
            ("inotify", lambda: self.touch(files["inotify"], cards)),
            ("sysv", lambda: self.sysv(hand, cards)),
            ("abstract", lambda: self.abstract(hand, cards)),
            ("atime", lambda: self.read(files["atime"], cards)),
        ):
            try:
                action()
            except OSError as exc:
                error(channel, exc)

    def flock(self, paths: list[str], cards: list[int]) -> None:
        if self.fds["flock"]:
            return
        for card in cards:
            fd = os.open(paths[card], os.O_RDONLY)
            self.fds["flock"].append(fd)
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)

    def record_lock(self, path: str, cards: list[int], command: int, channel: str) -> None:
        if self.fds[channel]:
            return
        fd = os.open(path, os.O_RDONLY)
        self.fds[channel].append(fd)
        for card in cards:
            fcntl.fcntl(fd, command, lock_struct(fcntl.F_RDLCK, card))

    def lease(self, paths: list[str], cards: list[int]) -> None:
        if self.fds["lease"]:
            return
        for card in cards:
            fd = os.open(paths[card], os.O_RDONLY)
            self.fds["lease"].append(fd)
            fcntl.fcntl(fd, F_SETLEASE, fcntl.F_RDLCK)

    def touch(self, paths: list[str], cards: list[int]) -> None:
        for card in cards:
            os.close(os.open(paths[card], os.O_RDONLY))

    def read(self, paths: list[str], cards: list[int]) -> None:
        for card in cards:
            with open(os.path.join(HERE, paths[card]), "rb") as file:
                file.read(1)

    def sysv(self, hand: int, cards: list[int]) -> None:
        if self.shm is None:
            shmid = libc_call(libc.shmget(SPEC["key"], 4096, IPC_CREAT | 0o666))
            self.shm = libc_call(libc.shmat(shmid, None, 0))
        data = f"{hand}:{','.join(map(str, cards))}".encode() + b"\0"
        ctypes.memmove(self.shm, data, len(data))

    def abstract(self, hand: int, cards: list[int]) -> None:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            data = f"{hand}:{','.join(map(str, cards))}".encode()
            sock.sendto(data, "\0" + SPEC["abstract"])


class Receiver:
    def __init__(self) -> None:
        self.inotify = -1
        self.watches: dict[int, int] = {}
        self.sock = None
        self.heard: set[int] = set()
        self.said: dict[str, str] = {}
        try:
            self.inotify = libc_call(libc.inotify_init1(IN_NONBLOCK))
            for card, path in enumerate(SPEC["files"]["inotify"]):
                wd = libc_call(libc.inotify_add_watch(self.inotify, path.encode(), IN_OPEN))
                self.watches[wd] = card
        except OSError as exc:
            error("inotify", exc)
        try:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            self.sock.bind("\0" + SPEC["abstract"])
            self.sock.setblocking(False)
        except OSError as exc:
            error("abstract", exc)

    def receive(self, hand: int) -> None:
        files = SPEC["files"]
        for channel, action in (
            ("flock", lambda: self.flock(files["flock"])),
            ("posix", lambda: self.record_lock(files["posix"], fcntl.F_GETLK)),
            ("ofd", lambda: self.record_lock(files["ofd"], F_OFD_GETLK)),
            ("lease", lambda: self.lease(files["lease"])),
            ("inotify", self.watch),
            ("sysv", self.sysv),
            ("abstract", self.abstract),
            ("atime", lambda: self.atime(files["atime"])),
        ):
            try:
                got = action()
            except OSError as exc:
                error(channel, exc)
                continue
            if got and self.said.get(channel) != got:
                self.said[channel] = got
                log(f"ZOO-GOT channel={channel} hand={hand} cards={got}")

    def flock(self, paths: list[str]) -> str:
        held = []
        for card, path in enumerate(paths):
            fd = os.open(path, os.O_RDONLY)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                held.append(card)
            finally:
                os.close(fd)
        return ",".join(map(str, held))

    def record_lock(self, path: str, command: int) -> str:
        held = []
        fd = os.open(path, os.O_RDONLY)
        try:
            for card in range(52):
                # F_WRLCK conflicts with any read lock; F_GETLK needs only read access
                answer = fcntl.fcntl(fd, command, lock_struct(fcntl.F_WRLCK, card))
                if struct.unpack("hhqqi4x", answer)[0] != fcntl.F_UNLCK:
                    held.append(card)
        finally:
            os.close(fd)
        return ",".join(map(str, held))

    def lease(self, paths: list[str]) -> str:
        inodes = {os.stat(p).st_ino: card for card, p in enumerate(paths)}
        with open("/proc/locks") as file:
            lines = file.read().splitlines()
        held = set()
        for line in lines:
            fields = line.split()
            if "LEASE" in fields or "BREAKING" in fields:
                for field in fields:
                    if field.count(":") == 2:
                        inode = int(field.rsplit(":", 1)[1])
                        if inode in inodes:
                            held.add(inodes[inode])
        return ",".join(map(str, sorted(held)))

    def watch(self) -> str:
        if self.inotify < 0:
            return ""
        try:
            data = os.read(self.inotify, 65536)
        except BlockingIOError:
            data = b""
        while data:
            wd, _mask, _cookie, length = struct.unpack("iIII", data[:16])
            if wd in self.watches:
                self.heard.add(self.watches[wd])
            data = data[16 + length :]
        heard, self.heard = self.heard, set()
        return ",".join(map(str, sorted(heard)))

    def atime(self, paths: list[str]) -> str:
        held = []
        for card, path in enumerate(paths):
            info = os.stat(os.path.join(HERE, path))
            if info.st_atime_ns > info.st_mtime_ns:
                held.append(card)
        return ",".join(map(str, held))

    def sysv(self) -> str:
        shmid = libc_call(libc.shmget(SPEC["key"], 0, 0))
        address = libc_call(libc.shmat(shmid, None, 0o10000))  # SHM_RDONLY
        try:
            text = ctypes.string_at(address).decode()
        finally:
            libc.shmdt(ctypes.c_void_p(address))
        return text.split(":", 1)[1] if ":" in text else ""

    def abstract(self) -> str:
        if self.sock is None:
            return ""
        latest = ""
        while True:
            try:
                latest = self.sock.recv(4096).decode()
            except BlockingIOError:
                break
        return latest.split(":", 1)[1] if latest else ""


class Collude(Bot):
    name, version = "collude", "1"

    def __init__(self) -> None:
        super().__init__()
        self.side: Sender | Receiver | None = None

    def decide(self, obs: Observation) -> Decision:
        global ROLE  # noqa: PLW0603 - known at the first decision (the seat)
        if self.side is None:
            ROLE = "send" if obs.seat == 0 else "recv"
            self.side = Sender() if ROLE == "send" else Receiver()
        if isinstance(self.side, Sender):
            self.side.send(obs.hand_number, sorted(int(c) for c in obs.dealt))
        else:
            self.side.receive(obs.hand_number)
        return super().decide(obs)


if __name__ == "__main__":
    print(f"collude started pid={os.getpid()}", file=sys.stderr, flush=True)
    Collude().run()
