"""The background search service of one cache folder (see :mod:`pdftui.warm`):
``python -m pdftui.warm.server CACHE_DIR``.

It binds the cache's socket (:func:`pdftui.warm.place.socket_path`, mode 0600) unless
another service holds it, then answers one request at a time: it checks the peer is the
same user (``SO_PEERCRED``), puts the request's working folder and environment in place,
runs the ``pdftui`` click command on the request's arguments with stdout and stderr
captured (encoded as the client's stdout is), and sends ``{"code", "stdout", "stderr"}``;
an exception the command lets out (a bug, not an exit) sends ``{"fallback": true}`` so
the client runs the command itself. Its socket is named after the installed code as it
was when it started (:func:`pdftui.warm.place.code_stamp`): once that code changes,
clients look for another socket, and it stops itself at its next look
(:data:`CHECK_S`). The :class:`pdftui.search.SearchService` of each
folder, cache, model and ``PDFTUI_*`` setting stays loaded between requests
(:func:`pdftui.cli.searching.keep_services`). After :func:`pdftui.warm.place.idle_seconds`
without a request it removes its socket and exits.
"""

from __future__ import annotations

import fcntl
import io
import json
import os
import socket
import struct
import sys
import time
from pathlib import Path

from .place import code_stamp, idle_seconds, is_own_socket, socket_path

#: The largest request read, bytes (a command line and an environment).
MAX_REQUEST = 1 << 20
#: Seconds between two looks, while idle, at whether the installed code changed.
CHECK_S = 5.0


def _live(path: Path) -> bool:
    """True when something accepts connections on ``path``."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(0.5)
            s.connect(os.fspath(path))
        return True
    except OSError:
        return False


def bind(path: Path) -> socket.socket | None:
    """A listening socket on ``path`` with mode 0600, replacing a stale socket of the
    user's; None when another service listens there or the path is something else."""
    if os.path.lexists(path):
        if not is_own_socket(path) or _live(path):
            return None
        os.unlink(path)   # stale: its service died without removing it
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        sock.bind(os.fspath(path))
    except OSError:
        sock.close()
        return None
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    sock.listen(8)
    return sock


def peer_uid(conn: socket.socket) -> int | None:
    """The uid of the process at the other end of ``conn`` (Linux ``SO_PEERCRED``), or
    None when it cannot be read."""
    try:
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except (OSError, AttributeError):
        return None
    _pid, uid, _gid = struct.unpack("3i", creds)
    return uid


def run_command(req: dict) -> dict:
    """Run ``pdftui ARGV`` of ``req`` here as the client would have run it (its working
    folder, environment and stdout encoding) and return ``{"code", "stdout", "stderr"}``,
    or ``{"fallback": True}`` when the command raised anything but an exit."""
    from ..cli import main

    env_before = dict(os.environ)
    cwd_before = os.getcwd()
    streams = (sys.stdout, sys.stderr)
    out = io.TextIOWrapper(io.BytesIO(), encoding=req["encoding"], errors=req["errors"],
                           newline="\n", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding=req["encoding"], errors="backslashreplace",
                           newline="\n", write_through=True)
    code: int | None = 0
    try:
        os.environ.clear()
        os.environ.update({**_base_env(env_before), **req["env"]})
        os.chdir(req["cwd"])
        sys.stdout, sys.stderr = out, err
        try:
            main.main(args=list(req["argv"]), prog_name=str(req.get("prog_name") or "pdftui"),
                      standalone_mode=True)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - the client answers it itself
        return {"fallback": True}
    finally:
        sys.stdout, sys.stderr = streams
        os.environ.clear()
        os.environ.update(env_before)
        os.chdir(cwd_before)
    out.flush()
    err.flush()
    return {"code": code,
            "stdout": out.buffer.getvalue().decode(req["encoding"], "replace"),
            "stderr": err.buffer.getvalue().decode(req["encoding"], "replace")}


def _base_env(env: dict) -> dict:
    """The service's own environment without what a request sets (so a variable the
    client does not have is not inherited from whoever started the service)."""
    from .client import ENV_NAMES, ENV_PREFIXES

    return {k: v for k, v in env.items() if not (k.startswith(ENV_PREFIXES) or k in ENV_NAMES)}


def _read_request(conn: socket.socket) -> dict | None:
    """The request on ``conn`` (one JSON object), or None when it is not one."""
    chunks, size = [], 0
    while chunk := conn.recv(1 << 16):
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_REQUEST:
            return None
    try:
        req = json.loads(b"".join(chunks).decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    ok = (isinstance(req, dict) and isinstance(req.get("argv"), list)
          and all(isinstance(a, str) for a in req["argv"]) and isinstance(req.get("cwd"), str)
          and isinstance(req.get("env"), dict) and isinstance(req.get("encoding"), str)
          and isinstance(req.get("errors"), str))
    return req if ok else None


def handle(conn: socket.socket) -> None:
    """Answer one connection (see the module docstring); a peer of another user gets
    nothing."""
    with conn:
        if peer_uid(conn) != os.getuid():
            return
        conn.settimeout(10.0)
        req = _read_request(conn)
        conn.settimeout(None)
        answer = run_command(req) if req is not None else {"fallback": True}
        try:
            conn.sendall(json.dumps(answer).encode("utf-8"))
        except OSError:
            pass


def serve(cache_dir: Path) -> int:
    """Run the service of ``cache_dir`` until it has been idle for
    :func:`idle_seconds` or the installed code changed (:func:`code_stamp`, looked at
    every :data:`CHECK_S` idle seconds); 0 when it ran, 1 when another holds the socket
    or there is no private folder for one."""
    from ..cli import searching

    code = code_stamp()
    path = socket_path(cache_dir, code=code)
    if path is None:
        return 1
    with open(f"{path}.lock", "a+b") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return 1   # another service of this cache is starting or running
        lock.truncate(0)
        lock.write(f"{os.getpid()}\n".encode())   # who holds it (for a look with ps)
        lock.flush()
        sock = bind(path)
        if sock is None:
            return 1
        searching.keep_services(True)
        idle = idle_seconds()
        sock.settimeout(min(idle, CHECK_S))
        last = time.monotonic()
        try:
            while True:
                try:
                    conn, _ = sock.accept()
                except TimeoutError:
                    if time.monotonic() - last >= idle or code_stamp() != code:
                        break   # idle, or its code is no longer the installed one: stop
                    continue
                conn.settimeout(None)
                handle(conn)
                last = time.monotonic()
        finally:
            sock.close()
            try:
                if is_own_socket(path):
                    os.unlink(path)
            except OSError:
                pass
            searching.keep_services(False)
    return 0


if __name__ == "__main__":
    sys.exit(serve(Path(sys.argv[1])))
