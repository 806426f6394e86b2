"""Where the background search service of a cache listens, and whether a socket there is
one the user may talk to (see :mod:`pdftui.warm`).

The socket is ``$XDG_RUNTIME_DIR/pdftui/search-<key>.sock`` (else
``/tmp/pdftui-<uid>/search-<key>.sock``, also when the first is too long for a socket),
``<key>`` the first 16 hex digits of the
sha256 of the cache folder's real path and of the installed code (:func:`code_stamp`): one
service per cache and version of pdftui, so a client never asks a service still running
code it no longer has (the old service stops itself: :mod:`.server`). The folder holding it is
created with mode 0700 and used only when it belongs to the user and no one else may
enter it; the socket is bound with mode 0600 and a client talks only to a socket owned by
the user (the server also checks the peer's uid, ``SO_PEERCRED``).
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from pathlib import Path

#: Seconds without a request after which the service stops (``PDFTUI_SERVICE_IDLE_S``).
IDLE_S = 600.0

#: ``PDFTUI_SERVICE=0`` turns the service off (the command always runs in-process).
ENV_SWITCH = "PDFTUI_SERVICE"
ENV_IDLE = "PDFTUI_SERVICE_IDLE_S"


def idle_seconds(env=os.environ) -> float:
    """Seconds of idleness before the service stops: ``PDFTUI_SERVICE_IDLE_S`` when it is
    a positive number, else :data:`IDLE_S`."""
    try:
        value = float(env.get(ENV_IDLE, ""))
    except ValueError:
        return IDLE_S
    return value if value > 0 else IDLE_S


def cache_dir_of(argv: list[str], env=os.environ) -> Path:
    """The cache folder a command line uses, as the commands' ``--cache-dir`` option
    reads it: the option (``--cache-dir X`` or ``--cache-dir=X``, before a ``--``), else
    ``PDFTUI_CACHE_DIR``, else the platform's user cache folder."""
    opts = argv[:argv.index("--")] if "--" in argv else argv
    for i, arg in enumerate(opts):
        if arg == "--cache-dir" and i + 1 < len(opts):
            return Path(opts[i + 1]).expanduser()
        if arg.startswith("--cache-dir="):
            return Path(arg.split("=", 1)[1]).expanduser()
    if env.get("PDFTUI_CACHE_DIR"):
        return Path(env["PDFTUI_CACHE_DIR"]).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("pdftui", appauthor=False))


#: Longest socket path in bytes that ``bind`` takes everywhere (``sun_path`` holds 108
#: bytes on Linux, 104 on macOS and the BSDs, the final NUL included).
MAX_SOCKET_PATH = 103


def private_dir(env=os.environ, runtime: bool = True) -> Path | None:
    """The user's folder for the sockets (created 0700), or None when it cannot be made
    or is not private: owned by another user, or open to the group or others.
    ``runtime``: under ``XDG_RUNTIME_DIR`` when it is set, else under ``/tmp``."""
    folder = env.get("XDG_RUNTIME_DIR") if runtime else None
    base = Path(folder) / "pdftui" if folder and os.path.isdir(folder) \
        else Path("/tmp") / f"pdftui-{os.getuid()}"
    try:
        base.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(base)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        return None
    return base


def code_stamp(package: Path | None = None) -> str:
    """16 hex digits that change whenever the installed pdftui code does: the sha256 of
    the interpreter's path, the package folder's path and each of its ``.py`` files'
    name, size and modification time (ns). ``package``: the folder of the ``pdftui``
    package (default: this one's). About a millisecond (one stat per module); an
    unreadable file counts as changed, never raises."""
    root = package or Path(__file__).resolve().parent.parent
    h = hashlib.sha256(os.fsencode(sys.executable) + b"\0" + os.fsencode(root))
    for folder, dirs, files in os.walk(root, onerror=lambda _exc: None):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(f for f in files if f.endswith(".py")):
            path = os.path.join(folder, name)
            try:
                st = os.stat(path)
                h.update(os.fsencode(os.path.relpath(path, root))
                         + f"\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
            except OSError:
                h.update(b"?")
    return h.hexdigest()[:16]


def socket_path(cache_dir: Path, env=os.environ, code: str | None = None) -> Path | None:
    """The service socket of ``cache_dir`` for the code ``code`` (:func:`code_stamp`,
    default: the installed code's now; see the module docstring; under ``/tmp`` when the
    runtime folder's path is too long for a socket, more than :data:`MAX_SOCKET_PATH`
    bytes), or None when there is no private folder for it."""
    code = code_stamp() if code is None else code
    key = hashlib.sha256(os.fsencode(os.path.realpath(cache_dir)) + b"\0"
                         + code.encode()).hexdigest()[:16]
    for runtime in (True, False):
        base = private_dir(env, runtime)
        path = base / f"search-{key}.sock" if base is not None else None
        if path is not None and len(os.fsencode(path)) <= MAX_SOCKET_PATH:
            return path
    return None


def is_own_socket(path: Path) -> bool:
    """True when ``path`` is a socket owned by this user that only the user may use
    (mode without group or other bits); False when absent or anything else."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return (stat.S_ISSOCK(st.st_mode) and st.st_uid == os.getuid()
            and not st.st_mode & 0o077)
