"""Opening a PDF at a page in the user's own viewer.

Which viewer, in order:

1. ``$PDFTUI_VIEWER``: a command template such as ``zathura -P {page} {path}`` or
   ``okular -p {page} {path}``. It is split like a shell would split it (``shlex``) but
   never run by a shell; ``{path}`` and ``{page}`` are replaced inside the split
   arguments, so a file name is always exactly one argument. Without ``{path}`` the path
   is appended.
2. The first viewer on ``PATH`` that takes a page: zathura ``-P N``, sioyek ``--page N``,
   evince ``-i N``, okular ``-p N``, mupdf (page as the argument after the file).
3. ``xdg-open`` (``open`` on macOS) without a page.

With no display (no ``DISPLAY`` nor ``WAYLAND_DISPLAY`` on Linux, e.g. an SSH session)
nothing is started: :func:`open_at_page` says so and gives ``path#page=N`` for the caller to
copy to the clipboard (the TUI uses Textual's OSC 52 ``copy_to_clipboard``); the text has no
control characters, so it cannot smuggle terminal sequences.

Starting is non-blocking (``subprocess.Popen`` in its own session, stdin/stdout detached);
:meth:`Launch.error` waits briefly in a worker thread for a viewer that fails at once and
returns its message.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..text import strip_control
from ..errors import ViewerError

#: Viewers that open at a page: (program, argument list template).
PAGE_VIEWERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("zathura", ("-P", "{page}", "{path}")),
    ("sioyek", ("--page", "{page}", "{path}")),
    ("evince", ("-i", "{page}", "{path}")),
    ("okular", ("-p", "{page}", "{path}")),
    ("mupdf", ("{path}", "{page}")),
)
#: Seconds :meth:`Launch.error` waits for a viewer that fails at once.
EARLY_EXIT_S = 1.0

_FIELD_RE = re.compile(r"\{(path|page)\}")


@dataclass(frozen=True, slots=True)
class ViewerCommand:
    """An argument list to start (``argv[0]`` the program), whether it opens at the page,
    and where it came from ("PDFTUI_VIEWER", a viewer's name, or "xdg-open" / "open")."""

    argv: tuple[str, ...]
    at_page: bool
    source: str


@dataclass(slots=True)
class Launch:
    """The outcome of :func:`open_at_page`.

    ``started`` is True when a viewer process was started (it may still fail: see
    :meth:`error`). ``message`` is one line for the status bar. ``clipboard`` is the
    ``path#page=N`` text to copy when there is no display ('' otherwise).
    """

    started: bool
    message: str
    clipboard: str = ""
    command: ViewerCommand | None = None
    process: subprocess.Popen | None = field(default=None, repr=False)
    _stderr: object = field(default=None, repr=False)

    def error(self, wait_s: float = EARLY_EXIT_S) -> str | None:
        """Wait up to ``wait_s`` seconds (blocking: call from a worker) for the viewer to
        fail at once; its error as one line (the last line it printed, else its exit
        status), or None when it is still running or exited cleanly."""
        if self.process is None:
            return None
        try:
            code = self.process.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            return None
        finally:
            text = self._read_stderr()
        if code == 0:
            return None
        name = os.path.basename(self.command.argv[0]) if self.command else "viewer"
        last = [ln for ln in text.splitlines() if ln.strip()]
        why = strip_control(last[-1], keep_newlines=False, keep_tabs=False) if last else \
            f"exit status {code}"
        return f"{name} failed: {why[:200]}"

    def _read_stderr(self) -> str:
        f = self._stderr
        if f is None:
            return ""
        try:
            f.seek(0)  # type: ignore[attr-defined]
            return f.read(65536).decode("utf-8", "replace")  # type: ignore[attr-defined]
        except (OSError, ValueError):
            return ""


def has_display(env: Mapping[str, str] | None = None, platform: str = sys.platform) -> bool:
    """True when a graphical viewer can show a window: always on macOS and Windows, else
    when ``DISPLAY`` or ``WAYLAND_DISPLAY`` is set (X forwarding over SSH counts)."""
    env = os.environ if env is None else env
    if platform == "darwin" or platform.startswith("win"):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


def clipboard_text(path: str | os.PathLike, page: int) -> str:
    """``/abs/path.pdf#page=N`` with every control character removed (newlines and tabs
    too), safe to send through OSC 52."""
    p = os.path.abspath(os.fspath(path))
    return strip_control(f"{p}#page={int(page)}", keep_newlines=False, keep_tabs=False)


def _fill(args: list[str] | tuple[str, ...], path: str, page: int) -> list[str]:
    """Replace ``{path}`` and ``{page}`` inside each argument (one pass: a path that
    itself holds ``{page}`` stays as it is)."""
    values = {"path": path, "page": str(page)}
    return [_FIELD_RE.sub(lambda m: values[m.group(1)], a) for a in args]


def viewer_command(path: str | os.PathLike, page: int,
                   env: Mapping[str, str] | None = None,
                   which: Callable[[str], str | None] | None = None,
                   platform: str = sys.platform) -> ViewerCommand | None:
    """The command that opens ``path`` at 1-based ``page``, or None when no viewer is
    found. ``path`` is made absolute, so a file named ``-x.pdf`` is never read as an
    option. ``which`` finds a program (default: ``shutil.which`` on ``env``'s ``PATH``).
    Raises :class:`ViewerError` for a ``$PDFTUI_VIEWER`` that cannot be split."""
    env = os.environ if env is None else env
    if which is None:
        def which(name: str) -> str | None:
            return shutil.which(name, path=env.get("PATH"))
    p = os.path.abspath(os.fspath(path))
    page = max(1, int(page))
    template = (env.get("PDFTUI_VIEWER") or "").strip()
    if template:
        try:
            args = shlex.split(template)
        except ValueError as exc:
            raise ViewerError(f"PDFTUI_VIEWER cannot be split into arguments: {exc}") from None
        if not args:
            raise ViewerError("PDFTUI_VIEWER is empty")
        if not any("{path}" in a for a in args):
            args.append("{path}")
        at_page = any("{page}" in a for a in args)
        return ViewerCommand(tuple(_fill(args, p, page)), at_page, "PDFTUI_VIEWER")
    for name, args in PAGE_VIEWERS:
        exe = which(name)
        if exe:
            return ViewerCommand((exe, *_fill(args, p, page)), True, name)
    opener = "open" if platform == "darwin" else "xdg-open"
    exe = which(opener)
    if exe:
        return ViewerCommand((exe, p), False, opener)
    return None


def open_at_page(path: str | os.PathLike, page: int,
                 env: Mapping[str, str] | None = None) -> Launch:
    """Open ``path`` at 1-based ``page`` in the user's viewer without waiting for it.

    Returns a :class:`Launch`: started (check :meth:`Launch.error` from a worker for a
    viewer that fails at once), or not started with the reason (no display: ``clipboard``
    holds ``path#page=N``; no viewer found; the program could not be run). Never raises
    for a bad file name or a missing viewer.
    """
    env = os.environ if env is None else env
    shown = clipboard_text(path, page)
    if not has_display(env):
        return Launch(False, f"no display (SSH?): copied {shown}", clipboard=shown)
    try:
        cmd = viewer_command(path, page, env)
    except ViewerError as exc:
        return Launch(False, str(exc))
    if cmd is None:
        return Launch(False, "no PDF viewer found (set PDFTUI_VIEWER, e.g. "
                             "'zathura -P {page} {path}')", clipboard=shown)
    err = tempfile.TemporaryFile()
    try:
        proc = subprocess.Popen(list(cmd.argv), stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err,
                                start_new_session=True, close_fds=True, env=dict(env))
    except OSError as exc:
        err.close()
        name = strip_control(cmd.argv[0], keep_newlines=False, keep_tabs=False)
        return Launch(False, f"cannot start {name}: {exc.strerror or exc}", command=cmd)
    name = os.path.basename(cmd.argv[0])
    msg = f"opened in {name} at page {page}" if cmd.at_page else \
        f"opened in {name} (it cannot be told the page: go to page {page})"
    return Launch(True, strip_control(msg, keep_newlines=False, keep_tabs=False),
                  command=cmd, process=proc, _stderr=err)
