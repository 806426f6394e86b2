#!/usr/bin/env python
"""Regenerate the README's SVG screenshots of the TUI into ``screenshots/``.

    python scripts/screenshots.py                 # 4 corpus PDFs, fresh temporary cache
    python scripts/screenshots.py --folder ~/papers --cache-dir ~/.cache/pdftui
    python scripts/screenshots.py --text          # also print each screen as plain text

Each shot drives the app with Textual's Pilot (``App.run_test``) and saves it with
``App.save_screenshot``. Timings are hidden so the pictures do not change from run to run.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SHARED = Path(os.environ.get("PDFTUI_SHARED", REPO.parent / "shared"))
DOCS = [
    "arxiv-1706.03762v5-attention-is-all-you-need.pdf",
    "arxiv-0908.0054-ultralight-bosonic-dark-matter-cmb.pdf",
    "arxiv-1512.03385-resnet.pdf",
    "texlive-euler.pdf",
]
QUERY = "multi-head attention"


def as_text(app) -> str:
    """The current screen as plain text (for a quick look in a terminal)."""
    from rich.console import Console

    w, h = app.size
    console = Console(width=w, height=h, file=io.StringIO(), record=True,
                      force_terminal=True, color_system="truecolor", legacy_windows=False)
    console.print(app.screen._compositor.render_update(
        full=True, screen_stack=app._background_screens))
    return console.export_text()


async def until(pilot, cond, timeout: float = 60.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise TimeoutError("the app did not reach the expected state")
        await pilot.pause(0.05)


async def shoot(folder, cache_dir, out: Path, name: str, size, steps, text: bool) -> None:
    from pdftui.tui.app import PdftuiApp

    app = PdftuiApp(folder, cache_dir=cache_dir, watch=False, show_timings=False)
    async with app.run_test(size=size) as pilot:
        folder = app.main_screen.folder
        await until(pilot, lambda: folder.documents and not folder.indexing)
        await steps(pilot)
        await pilot.pause(0.2)
        app.save_screenshot(f"{name}.svg", str(out))
        print(f"wrote {out / (name + '.svg')}")
        if text:
            print(as_text(app))


async def typed(pilot) -> None:
    app = pilot.app
    await pilot.press(*QUERY, "enter")
    await until(pilot, lambda: app.main_screen.shown_key == app.main_screen.search_key())


async def reader(pilot) -> None:
    from pdftui.tui.reader_pane import ReaderPane

    await typed(pilot)
    await pilot.press("enter")
    pane = pilot.app.query_one(ReaderPane)
    await until(pilot, lambda: pane.view is not None)


async def section(pilot) -> None:
    from pdftui.tui.reader_pane import ReaderPane

    await reader(pilot)
    await pilot.press("v")
    pane = pilot.app.query_one(ReaderPane)
    await until(pilot, lambda: pane.view.request.kind == "section")


async def compare(pilot) -> None:
    from pdftui.tui.compare_view import CompareScreen

    await typed(pilot)
    await pilot.press("c")
    await until(pilot, lambda: isinstance(pilot.app.screen, CompareScreen)
                and len(pilot.app.screen.results) == 3)


async def corpus(pilot) -> None:
    await typed(pilot)
    await pilot.press("shift+tab")


async def help_(pilot) -> None:
    await pilot.press("escape", "question_mark")


SHOTS = [
    ("results-80x24", (80, 24), typed),
    ("reader-80x24", (80, 24), reader),
    ("section-80x24", (80, 24), section),
    ("corpus-80x24", (80, 24), corpus),
    ("help-80x24", (80, 24), help_),
    ("overview-160x48", (160, 48), reader),
    ("compare-160x48", (160, 48), compare),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folder", help="folder of PDFs (default: 4 corpus PDFs in a temp folder)")
    ap.add_argument("--cache-dir", help="cache folder (default: a temporary one)")
    ap.add_argument("--out", default=str(REPO / "screenshots"))
    ap.add_argument("--text", action="store_true", help="also print each screen as text")
    ap.add_argument("--only", nargs="*", help="names of the shots to take")
    args = ap.parse_args()

    from pdftui.index import index_folder

    tmp = tempfile.TemporaryDirectory(prefix="pdftui-shots-")
    folder = args.folder
    if folder is None:
        folder = Path(tmp.name) / "papers"
        folder.mkdir()
        for name in DOCS:
            (folder / name).symlink_to(SHARED / "corpus" / name)
    cache_dir = args.cache_dir or str(Path(tmp.name) / "cache")
    print("indexing", folder, file=sys.stderr)
    index_folder(folder, cache_dir, None, embed=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, size, steps in SHOTS:
        if args.only and name not in args.only:
            continue
        asyncio.run(shoot(folder, cache_dir, out, name, size, steps, args.text))
    tmp.cleanup()


if __name__ == "__main__":
    main()
