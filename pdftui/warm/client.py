"""What ``pdftui search`` (and the other commands of :data:`SERVED`) does before anything else: ask the background search service of
its cache (:mod:`pdftui.warm`), print its answer and return its exit code, or return None
and let the command run in-process. Imports only the standard library (and platformdirs
for a default cache folder), so asking costs a few milliseconds."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

from .place import ENV_SWITCH, cache_dir_of, is_own_socket, socket_path

#: Seconds to connect to the socket; a live service accepts at once.
CONNECT_S = 0.5
#: Seconds to wait for an answer (a first semantic query loads the model in the service).
ANSWER_S = 120.0
#: The environment a request carries: what the command reads besides its arguments.
ENV_PREFIXES = ("PDFTUI_", "HF_", "ORT_")
#: The commands the service answers: the one-shot commands scripts loop over (reading
#: commands, ``mark`` and ``export``, whose writes are the same in either process, the
#: request's working folder in place; ``clips`` unless it deletes, which may ask first).
SERVED = frozenset({"search", "read", "docs", "mark", "refs", "cited-by", "similar",
                    "export", "clips"})
#: Set to "1" in a request whose stdout is a terminal (:func:`pdftui.cli.output.to_terminal`).
TTY_ENV = "PDFTUI_TTY"
ENV_NAMES = ("COLUMNS", "LINES", "HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "TERM",
             "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "LANG", "LC_ALL", "LC_CTYPE")


def wanted(argv: list[str], env=os.environ, stdout=None) -> bool:
    """True when the command line ``argv`` (the command's name first) may be answered by
    the service: a command of :data:`SERVED` (a ``search`` of one query: not ``-``,
    stdin; ``clips`` without ``--delete``), without ``--wait-embed`` or ``--help``, and the service not turned off
    (``PDFTUI_SERVICE=0``). At a terminal too: :func:`request` then says its size."""
    if env.get(ENV_SWITCH, "1") == "0" or not argv or argv[0] not in SERVED:
        return False
    opts = argv[:argv.index("--")] if "--" in argv else argv
    if argv[0] == "clips" and any(a == "--delete" or a.startswith("--delete=")
                                  for a in opts):
        return False   # its question is asked at the user's terminal
    return not (any(a in ("--help", "-h", "--wait-embed", "-") for a in opts)
                or "-" in argv[1:])


def request(argv: list[str], env=os.environ, stdout=None, prog_name: str = "pdftui") -> dict:
    """The request for ``argv``: the arguments, the working folder, the environment
    the command reads (:data:`ENV_PREFIXES`, :data:`ENV_NAMES`), how stdout encodes and
    the program's name (in usage messages). When stdout is a terminal, the environment
    also says so (:data:`TTY_ENV` = "1") and gives its size (``COLUMNS``, ``LINES``,
    unless set), so the service draws for it (without colours)."""
    stdout = stdout if stdout is not None else sys.stdout
    keep = {k: v for k, v in env.items() if k.startswith(ENV_PREFIXES) or k in ENV_NAMES}
    if _is_tty(stdout):
        size = shutil.get_terminal_size()
        keep = {"COLUMNS": str(size.columns), "LINES": str(size.lines), **keep, TTY_ENV: "1"}
    return {"argv": list(argv), "cwd": os.getcwd(), "env": keep, "prog_name": prog_name,
            "encoding": getattr(stdout, "encoding", None) or "utf-8",
            "errors": getattr(stdout, "errors", None) or "strict"}


def _is_tty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def ask(path: Path, req: dict, timeout: float = ANSWER_S) -> dict | None:
    """Send ``req`` to the service listening on ``path`` and return its answer
    (``{"code", "stdout", "stderr"}``), or None when the socket is not the user's own,
    nobody listens, the service fails or answers something else."""
    if not is_own_socket(path):
        return None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(CONNECT_S)
            s.connect(os.fspath(path))
            s.settimeout(timeout)
            s.sendall(json.dumps(req).encode("utf-8") + b"\n")
            s.shutdown(socket.SHUT_WR)
            chunks = []
            while chunk := s.recv(1 << 16):
                chunks.append(chunk)
        answer = json.loads(b"".join(chunks).decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(answer, dict) or answer.get("fallback") \
            or not isinstance(answer.get("code"), int) \
            or not all(isinstance(answer.get(k), str) for k in ("stdout", "stderr")):
        return None
    return answer


def start_service(cache_dir: Path, env=os.environ) -> None:
    """Start the service of ``cache_dir`` in the background (its own session, no
    terminal, the same interpreter and module path); it exits at once when another one
    is running or starting. Errors are ignored: the service is never required."""
    try:
        subprocess.Popen([sys.executable, "-m", "pdftui.warm.server", os.fspath(cache_dir)],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True,
                         cwd="/", env=dict(env))
    except OSError:
        pass


def answered(argv: list[str], prog_name: str = "pdftui") -> int | None:
    """Answer ``pdftui ARGV`` through the service when :func:`wanted`: print its stderr
    (the notes), then its stdout, and return its exit code. None: run the command in-process (no service,
    not the user's, not wanted, or any failure; a service is then started for the next
    call unless one is there)."""
    if not wanted(argv):
        return None
    try:
        cache_dir = cache_dir_of(argv)
        path = socket_path(cache_dir)
    except Exception:  # noqa: BLE001 - never required
        return None
    if path is None:
        return None
    answer = ask(path, request(argv, prog_name=prog_name))
    if answer is None:
        if not os.path.lexists(path) or is_own_socket(path):   # absent or stale: start one
            start_service(cache_dir)
        return None
    # the notes first, as the command prints them before its table: with both streams in
    # one pipe (`2>&1 | less`) a note never lands on or after the table's last line
    for stream, text in ((sys.stderr, answer["stderr"]), (sys.stdout, answer["stdout"])):
        try:   # as the command's own streams: what the encoding cannot show is replaced
            stream.reconfigure(errors="replace")
        except (AttributeError, ValueError, OSError):
            pass
        stream.write(text)
        stream.flush()
    return answer["code"]
