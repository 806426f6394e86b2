"""Command line: ``pdftui [FOLDER]`` opens the TUI; ``index``, ``search``, ``read``, ``docs``,
``mark``, ``clips`` and ``export`` serve scripts and benchmarks (``--json``).

Exit codes: 0 success, 1 runtime failure, 2 bad input (missing folder, unknown document,
unusable cache), 130 interrupted. The message of an error goes to stderr; a command asked
for JSON (``--json``, ``export --format json``) also prints it on stdout as one object,
``{"error": {"kind": "not_found", "message": "..."}}`` (kinds: usage, folder, cache,
not_found, ambiguous, query, indexing, user_data, io, interrupted, internal, ...).
"""

from __future__ import annotations

import os
import sqlite3
import sys

import click

from .citing import cited_by, refs, similar
from .indexing import index
from .options import cache_opt, data_opt, model_opt
from .output import BAD_INPUT, JSON_KEY, asks_json, fail, json_error, utf8_stream
from .reading import read
from .searching import search
from .triage import clips, docs, export, mark

_COMMANDS = {"index", "search", "read", "docs", "mark", "clips", "export", "tui"}


class _DefaultToTui(click.Group):
    """``pdftui FOLDER`` and bare ``pdftui`` mean ``pdftui tui ...``; a command asked for
    JSON (:func:`asks_json`) answers every error with one JSON object on stdout too."""

    def parse_args(self, ctx, args):
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h",
                                                                          "--version")):
            args = ["tui", *args]
        ctx.meta[JSON_KEY] = asks_json(args)
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        """Run the command; a usage error, a :class:`PdftuiError` or a damaged SQLite file
        it lets out ends as :func:`fail` does (one line on stderr, the JSON error object
        on stdout when asked); any other exception still prints its JSON object before its
        traceback."""
        from ..errors import PdftuiError

        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.Abort):
            raise   # --help, --version, a prompt given up: no error to report
        except click.ClickException as exc:
            json_error("usage", exc.format_message())
            raise
        except PdftuiError as exc:
            fail(str(exc), 2 if exc.kind in BAD_INPUT else 1, exc.kind)
        except sqlite3.Error as exc:
            from ..store.integrity import is_damage

            if is_damage(exc):   # met by a search or a read: say what to run
                fail(f"the cache is damaged ({exc}): run `pdftui index FOLDER` to move it"
                     " aside and rebuild the index", 2, "cache")
            fail(f"cannot use the cache: {exc}", 2, "cache")
        except KeyboardInterrupt:
            json_error("interrupted", "interrupted")
            raise
        except Exception as exc:   # a bug: the script still gets its object
            from ..errors import user_message

            json_error("internal", user_message(exc))
            raise


@click.group(cls=_DefaultToTui, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pdftui")
def main() -> None:
    """Search and read a folder of PDFs from the terminal.

    pdftui [FOLDER] opens the TUI on FOLDER (default: the current folder).
    """
    _safe_streams()


def _safe_streams() -> None:
    """Make stdout and stderr replace what their encoding cannot show (a Latin-1 or
    ASCII terminal) instead of raising UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="replace")
        except (AttributeError, ValueError, OSError):
            pass


def terminal_problem(env, stream) -> str:
    """Why the TUI cannot draw on this terminal ('' when it can): ``TERM=dumb`` (no
    cursor control), a locale that is not UTF-8 (the first of LC_ALL, LC_CTYPE, LANG that
    is set, e.g. ``C`` or ``en_US.ISO-8859-1``), or an output encoding that is not UTF-8."""
    if env.get("TERM", "") == "dumb":
        return "TERM=dumb"
    def utf8(value: str) -> bool:
        return "utf8" in value.lower().replace("-", "").replace("_", "")

    for var in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = env.get(var, "")
        if var == "LC_CTYPE" and value == "C.UTF-8" and env.get("LANG") \
                and not utf8(env["LANG"]):
            continue   # set by Python itself for a locale it could not load (PEP 538)
        if value:
            if not utf8(value):
                return f"{var}={value}"
            break
    if not utf8_stream(stream):
        return f"output encoding {getattr(stream, 'encoding', None) or 'unknown'}"
    return ""


def has_terminal() -> bool:
    """True when standard input and output are a terminal; redirected or piped, the TUI
    would draw into a file and wait for keys forever."""
    return sys.stdin.isatty() and sys.stdout.isatty()


@main.command()
@click.argument("folder", type=click.Path(), default=".")
@cache_opt
@data_opt
@model_opt
def tui(folder, cache_dir, data_dir, model):
    """Open the TUI on FOLDER (default: the current folder); marks, notes and the last
    session are kept in the user data folder (--data-dir)."""
    from ..corpus import FolderError, check_folder

    try:
        check_folder(folder)
    except FolderError as exc:
        fail(str(exc), 2, exc.kind)
    problem = terminal_problem(os.environ, sys.stdout)
    if problem:
        fail(f"the TUI needs a UTF-8 terminal ({problem}); use `pdftui search FOLDER QUERY`"
             " and `pdftui read FOLDER DOC` instead", 2, "terminal")
    if not has_terminal():
        fail("the TUI needs a terminal on standard input and output (over SSH: `ssh -t`);"
             " use `pdftui search FOLDER QUERY` and `pdftui read FOLDER DOC` in scripts",
             2, "terminal")
    from ..tui.app import PdftuiApp

    PdftuiApp(folder, cache_dir=cache_dir, model=model, data_dir=data_dir).run()


main.add_command(index)
main.add_command(search)
main.add_command(read)
main.add_command(docs)
main.add_command(mark)
main.add_command(clips)
main.add_command(export)
main.add_command(refs)
main.add_command(cited_by)
main.add_command(similar)
