"""The optional background search service (pdftui.warm): started by a first `pdftui search`,
it answers the next ones with the command's own output; it stops itself when idle; a
stale socket is replaced; a socket that is not the user's own is never talked to; a
service that fails in any way never costs the answer (the command runs in-process)."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pdftui.index import index_folder
from pdftui.warm import client, place

from .builders import make_pdf


def wait_for(check, timeout: float = 90.0, what: str = "") -> None:
    """Wait until ``check()`` is true (a state, polled), failing after ``timeout`` s."""
    end = time.monotonic() + timeout
    while not check():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what or check}")
        time.sleep(0.05)


@pytest.fixture
def world(tmp_path):
    """An indexed folder, its cache, a user-data folder and a private runtime folder:
    ``(folder, env)``; the service started in a test stops after 3 idle seconds."""
    import tempfile

    folder, cache, data = (tmp_path / n for n in ("pdfs", "cache", "data"))
    folder.mkdir()
    # a short runtime folder: the tests bind sockets of their own there (made 0700)
    run = Path(tempfile.mkdtemp(prefix="pdftui-test-run-", dir="/tmp"))
    make_pdf(folder / "alpha-transformers.pdf",
             ["Attention heads attend to tokens.", "Second page on attention heads."])
    make_pdf(folder / "beta-bitcoin.pdf", ["A peer to peer electronic cash system."])
    index_folder(folder, cache, embed=False)
    env = {**os.environ, "PDFTUI_CACHE_DIR": str(cache), "PDFTUI_DATA_DIR": str(data),
           "XDG_RUNTIME_DIR": str(run), "PDFTUI_SERVICE_IDLE_S": "60", "PDFTUI_SERVICE": "1"}
    yield folder, env
    path = place.socket_path(cache, env)
    if path is not None and _service_running(path):   # stop the one started here
        pid = int(Path(f"{path}.lock").read_text().split()[0])
        os.kill(pid, signal.SIGTERM)
        wait_for(lambda: not _service_running(path), 30, "the service to stop")
    shutil.rmtree(run, ignore_errors=True)


def _service_running(path: Path) -> bool:
    """True while a service holds the lock of ``path``."""
    lock = Path(f"{path}.lock")
    if not lock.exists():
        return False
    with open(lock, "a+b") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
    return False


def _pdftui(args: list[str], env: dict, cwd: Path | None = None
            ) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pdftui", *args], capture_output=True,
                          text=True, env=env, timeout=300, stdin=subprocess.DEVNULL, cwd=cwd)


def _same(out: str) -> list:
    """``search --json`` lines without elapsed_ms (a table as its lines without the
    head line, which holds the time)."""
    rows = []
    for line in out.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            if not line.rstrip().endswith(" ms"):
                rows.append(line)
            continue
        obj.pop("elapsed_ms", None)
        rows.append(obj)
    return rows


def _path(env: dict) -> Path:
    return place.socket_path(Path(env["PDFTUI_CACHE_DIR"]), env)


def _live(path: Path) -> bool:
    from pdftui.warm.server import _live as live

    return place.is_own_socket(path) and live(path)


SEARCHES = [["attention heads", "--mode", "keyword", "--json"],
            ["attention heads", "--json"],
            ["cash", "--mode", "keyword", "--granularity", "section", "--json"],
            ["attention", "--mode", "keyword", "--width", "100"],
            ["nosuchwordanywhere", "--mode", "keyword", "--json"]]


def test_read_docs_and_mark_answer_through_the_service_as_the_command_does(world):
    """``read``, ``docs``, ``mark``, ``export`` and ``clips`` (1.3-2.1 s, ~1 s, 0.6 s,
    0.35-0.55 s one-shot on the corpus) are answered by the service with the command's
    own output, and a mark made through it is the user's mark."""
    folder, env = world
    alone = {**env, "PDFTUI_SERVICE": "0"}
    assert _pdftui(["search", str(folder), *SEARCHES[0]], env).returncode == 0
    path = _path(env)
    wait_for(lambda: _live(path), what="the service to listen")
    for args in (["read", str(folder), "alpha", "--page", "2"], ["docs", str(folder)],
                 ["docs", str(folder), "--json"]):
        answer = client.ask(path, client.request(args, env))
        in_process = _pdftui(args, alone)
        assert answer is not None and answer["code"] == in_process.returncode == 0, args
        assert answer["stdout"] == in_process.stdout, args
    marked = client.ask(path, client.request(["mark", str(folder), "beta", "keep"], env))
    assert marked is not None and marked["code"] == 0, marked
    docs = json.loads(_pdftui(["docs", str(folder), "--json"], alone).stdout)
    rows = docs["documents"] if isinstance(docs, dict) else docs
    assert {d["doc"]: d.get("mark") for d in rows}["beta-bitcoin.pdf"] == "keep"
    # export and clips (0.35-0.55 s in-process): the command's output, and a file written
    # where the user asked, relative to the user's working folder, not the service's
    for args in (["export", str(folder), "--format", "bibtex"], ["clips", str(folder)]):
        answer = client.ask(path, client.request(args, env))
        in_process = _pdftui(args, alone)
        assert answer is not None and answer["code"] == in_process.returncode == 0, args
        assert answer["stdout"] == in_process.stdout, args
    here = folder.parent / "work-dir"
    here.mkdir()
    req = {**client.request(["export", str(folder), "-o", "list.md"], env), "cwd": str(here)}
    answer = client.ask(path, req)
    assert answer is not None and answer["code"] == 0, answer
    assert "beta-bitcoin.pdf" in (here / "list.md").read_text(encoding="utf-8")


def test_a_first_search_starts_the_service_which_answers_as_the_command_does(world):
    folder, env = world
    alone = {**env, "PDFTUI_SERVICE": "0"}
    first = _pdftui(["search", str(folder), *SEARCHES[0]], env)
    assert first.returncode == 0, first.stderr
    path = _path(env)
    wait_for(lambda: _live(path), what="the service to listen")
    assert os.stat(path).st_mode & 0o777 == 0o600
    for args in SEARCHES:
        in_process = _pdftui(["search", str(folder), *args], alone)
        req = client.request(["search", str(folder), *args], env)
        req["encoding"], req["errors"] = "utf-8", "strict"
        answer = client.ask(path, req)
        assert answer is not None, args
        assert answer["code"] == in_process.returncode == 0
        assert _same(answer["stdout"]) == _same(in_process.stdout), args
    # an error answers as the command does too: exit code 2 and its JSON object
    bad = ["search", str(folder), "x", "--doc", "nosuchdoc", "--json"]
    req = client.request(bad, env)
    answer = client.ask(path, req)
    in_process = _pdftui(bad, alone)
    assert answer is not None and answer["code"] == in_process.returncode == 2
    assert json.loads(answer["stdout"]) == json.loads(in_process.stdout)
    # the command itself answers through it (same output)
    via = _pdftui(["search", str(folder), *SEARCHES[1]], env)
    assert _same(via.stdout) == _same(_pdftui(["search", str(folder), *SEARCHES[1]],
                                              alone).stdout)


def test_the_service_stops_itself_when_idle_and_removes_its_socket(world):
    folder, env = world
    env["PDFTUI_SERVICE_IDLE_S"] = "2"
    assert _pdftui(["search", str(folder), *SEARCHES[0]], env).returncode == 0
    path = _path(env)
    # it started (its lock file stays; its socket may already be gone again under load:
    # two idle seconds are a short window to see it listen in)
    wait_for(lambda: os.path.exists(f"{path}.lock"), what="the service to start")
    wait_for(lambda: not _service_running(path) and not os.path.lexists(path), 60,
             "the idle service to stop")


def test_a_stale_socket_is_not_an_answer_and_a_new_service_replaces_it(world):
    folder, env = world
    path = _path(env)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(os.fspath(path))   # bound, never listening, closed: left on disk
    dead.close()
    os.chmod(path, 0o600)
    req = client.request(["search", str(folder), *SEARCHES[0]], env)
    assert client.ask(path, req) is None
    got = _pdftui(["search", str(folder), *SEARCHES[0]], env)
    assert got.returncode == 0 and json.loads(got.stdout)["hits"]
    wait_for(lambda: _live(path), what="a new service on the stale socket's path")
    answer = client.ask(path, req)
    assert answer is not None and answer["code"] == 0
    assert _same(answer["stdout"]) == _same(got.stdout)


class FakeService:
    """A listener on ``path`` that answers every connection with ``reply`` bytes."""

    def __init__(self, path: Path, reply: bytes):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(os.fspath(path))
        os.chmod(path, 0o600)
        self.sock.listen(4)
        self.reply = reply
        self.asked = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                self.asked += 1
                try:
                    while conn.recv(1 << 16):   # the request, to its end
                        pass
                    conn.sendall(self.reply)
                except OSError:
                    pass

    def close(self) -> None:
        self.sock.close()


FAKE = json.dumps({"code": 0, "stdout": "FAKE ANSWER\n", "stderr": ""}).encode()


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to give a socket to another user")
def test_a_socket_of_another_user_is_never_asked(world):
    folder, env = world
    path = _path(env)
    fake = FakeService(path, FAKE)
    try:
        req = client.request(["search", str(folder), *SEARCHES[0]], env)
        assert client.ask(path, req)["stdout"] == "FAKE ANSWER\n"   # our own: asked
        asked = fake.asked
        os.chown(path, 65534, 65534)
        assert client.ask(path, req) is None
        got = _pdftui(["search", str(folder), *SEARCHES[0]], env)
        assert got.returncode == 0 and "FAKE" not in got.stdout
        assert json.loads(got.stdout)["hits"] and fake.asked == asked
    finally:
        fake.close()


def test_a_socket_others_may_use_is_never_asked(world):
    folder, env = world
    path = _path(env)
    fake = FakeService(path, FAKE)
    try:
        os.chmod(path, 0o666)
        req = client.request(["search", str(folder), *SEARCHES[0]], env)
        assert client.ask(path, req) is None and fake.asked == 0
    finally:
        fake.close()


@pytest.mark.parametrize("reply", [b"", b"not json", b'{"fallback": true}',
                                   b'{"code": "0", "stdout": 1}'],
                         ids=["closed", "garbage", "fallback", "wrong-types"])
def test_a_broken_service_never_costs_the_answer(world, reply):
    folder, env = world
    path = _path(env)
    fake = FakeService(path, reply)
    try:
        got = _pdftui(["search", str(folder), *SEARCHES[0]], env)
        alone = _pdftui(["search", str(folder), *SEARCHES[0]],
                        {**env, "PDFTUI_SERVICE": "0"})
        assert fake.asked >= 1
        assert got.returncode == 0 and _same(got.stdout) == _same(alone.stdout)
    finally:
        fake.close()


class _Tty:
    def __init__(self, tty: bool):
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("argv, env, tty, want", [
    (["search", "F", "q", "--json"], {}, False, True),
    (["search", "F", "q"], {}, True, True),               # a terminal too (its size sent)
    (["search", "F", "-"], {}, False, False),             # queries on stdin
    (["search", "F", "q", "--wait-embed"], {}, False, False),
    (["search", "--help"], {}, False, False),
    (["search", "F", "q"], {"PDFTUI_SERVICE": "0"}, False, False),
    (["read", "F", "d"], {}, False, True),                # the one-shot commands
    (["docs", "F", "--json"], {}, False, True),
    (["mark", "F", "d", "keep"], {}, False, True),
    (["index", "F"], {}, False, False),                   # not these
    (["export", "F"], {}, False, True),                   # its writes: the same process
    (["clips", "F"], {}, False, True),
    (["clips", "F", "d", "--delete", "1"], {}, False, False),   # it may ask first
    (["clips", "F", "d", "--delete=1", "--yes"], {}, False, False),
    (["search", "F", "--", "-q"], {}, False, True),       # a query starting with '-'
])
def test_which_command_lines_the_service_answers(argv, env, tty, want):
    assert client.wanted(argv, env, _Tty(tty)) is want


def test_a_terminal_is_served_with_its_size(world, monkeypatch):
    """Trial finding: at a terminal every one-shot command ran in-process (search 2.7-3.1
    s, read 1.15 s warm) because only piped output went to the service. A request from a
    terminal carries its size and PDFTUI_TTY=1, and the service's answer is what the
    command prints for a terminal of that size (``read`` wraps to it; ``docs`` keeps to
    it)."""
    folder, env = world
    monkeypatch.setenv("COLUMNS", "72")
    monkeypatch.setenv("LINES", "30")
    req = client.request(["read", str(folder), "alpha", "--page", "2"], env, _Tty(True))
    assert req["env"]["PDFTUI_TTY"] == "1"
    assert "PDFTUI_TTY" not in client.request(["docs", str(folder)], env, _Tty(False))["env"]
    assert _pdftui(["search", str(folder), *SEARCHES[0]], env).returncode == 0
    path = _path(env)
    wait_for(lambda: _live(path), what="the service to listen")
    at_terminal = {**env, "PDFTUI_SERVICE": "0", "PDFTUI_TTY": "1", "COLUMNS": "72",
                   "LINES": "30"}
    for args in (["read", str(folder), "alpha", "--page", "2"], ["docs", str(folder)]):
        req = client.request(args, {**env, "COLUMNS": "72", "LINES": "30"}, _Tty(True))
        answer = client.ask(path, req)
        in_process = _pdftui(args, at_terminal)
        assert answer is not None and answer["code"] == in_process.returncode == 0, args
        assert answer["stdout"] == in_process.stdout, args
        assert max(map(len, answer["stdout"].splitlines())) <= 72, args


def test_the_socket_folder_must_be_private(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "pdftui").mkdir(mode=0o755)
    os.chmod(run / "pdftui", 0o755)
    assert place.private_dir({"XDG_RUNTIME_DIR": str(run)}) is None
    os.chmod(run / "pdftui", 0o700)
    assert place.private_dir({"XDG_RUNTIME_DIR": str(run)}) == run / "pdftui"
    assert place.cache_dir_of(["search", "--cache-dir=/x/y", "F", "q"], {}) == Path("/x/y")
    assert place.cache_dir_of(["search", "F", "q", "--cache-dir", "/a"], {}) == Path("/a")
    assert place.cache_dir_of(["search", "F", "--", "--cache-dir"],
                              {"PDFTUI_CACHE_DIR": "/c"}) == Path("/c")


def test_a_runtime_folder_too_long_for_a_socket_falls_back_to_tmp(tmp_path):
    """A socket path longer than bind takes (XDG_RUNTIME_DIR deep in a tree) is not
    used: the service's socket goes under /tmp/pdftui-UID instead."""
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    got = place.socket_path(tmp_path / "cache", {"XDG_RUNTIME_DIR": str(deep)})
    assert got is not None and got.parent == Path("/tmp") / f"pdftui-{os.getuid()}"
    assert len(os.fsencode(got)) <= place.MAX_SOCKET_PATH


def _stop(path: Path) -> None:
    """Stop the service holding ``path``'s lock, if one does."""
    if _service_running(path):
        os.kill(int(Path(f"{path}.lock").read_text().split()[0]), signal.SIGTERM)
        wait_for(lambda: not _service_running(path), 30, "the service to stop")


def test_a_service_of_older_code_is_never_asked_and_stops(world, tmp_path):
    """Fresh-user risk: after pdftui is updated, a service started by the old code kept
    answering with it. The socket is named after the installed code (place.code_stamp):
    once a module changes, the command answers from the new code (in-process, then
    through a new service) and the old service stops at its next look."""
    from pdftui.warm import server

    folder, env = world
    code = tmp_path / "code"
    shutil.copytree(Path(place.__file__).resolve().parent.parent, code / "pdftui",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = {**env, "PYTHONPATH": str(code)}

    def pdftui(args):   # the copy's code (not the checkout the tests run from)
        return _pdftui(args, env, cwd=tmp_path)

    args = ["search", str(folder), "attention", "--mode", "keyword", "--width", "100"]
    cache = Path(env["PDFTUI_CACHE_DIR"])
    old = place.socket_path(cache, env, place.code_stamp(code / "pdftui"))
    new = None
    try:
        assert "searched 2 of 2" in pdftui(args).stdout
        wait_for(lambda: _live(old), what="the service of the old code")
        assert "searched 2 of 2" in pdftui(args).stdout   # answered by it
        render = code / "pdftui" / "tui" / "render.py"
        render.write_text(render.read_text().replace('f"searched {searched} of {total}"',
                                                     'f"looked in {searched} of {total}"'))
        new = place.socket_path(cache, env, place.code_stamp(code / "pdftui"))
        assert new != old
        first = pdftui(args)
        assert "looked in 2 of 2" in first.stdout, first.stdout   # never the old answer
        wait_for(lambda: _live(new), what="a service of the new code")
        assert "looked in 2 of 2" in pdftui(args).stdout
        wait_for(lambda: not _service_running(old) and not os.path.lexists(old),
                 server.CHECK_S * 6, "the old code's service to stop")
    finally:
        for path in (old, new):
            if path is not None:
                _stop(path)


def test_the_service_answers_notes_before_the_table_in_one_pipe(world):
    """Fresh-user finding: the "index in progress" note printed on the table's bottom
    border. Through the service, with stdout and stderr in one pipe (``2>&1 | less``),
    the note comes on a line of its own before the table, as in-process."""
    folder, env = world
    table = "┏━━┓\n┃ # ┃\n└──┘\n"
    note = "pdftui: an index of this folder is in progress\n"
    fake = FakeService(_path(env), json.dumps(
        {"code": 0, "stdout": table, "stderr": note}).encode())
    try:
        got = subprocess.run([sys.executable, "-m", "pdftui", "search", str(folder), "q"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=env, timeout=300, stdin=subprocess.DEVNULL)
        assert fake.asked == 1
        assert got.stdout == note + table
    finally:
        fake.close()
