"""Import hygiene: the headless core never imports Textual, and importing it never loads the
embedding runtime (fastembed / onnxruntime), so `pdftui search --mode keyword` and scripts stay
light. Each module is imported in a fresh interpreter, so one module cannot hide another's
imports."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import pytest

import pdftui

HEAVY = ("textual", "fastembed", "onnxruntime", "tokenizers", "onnx")


def core_modules() -> list[str]:
    """Every module of the package outside ``pdftui.tui`` (walked, so new modules count)."""
    names = []
    for info in pkgutil.walk_packages(pdftui.__path__, prefix="pdftui."):
        if info.name.startswith(("pdftui.tui", "pdftui.cli.")) or info.name == "pdftui.cli":
            continue
        names.append(info.name)
    return sorted(names)


def test_the_walk_finds_the_core():
    names = core_modules()
    assert "pdftui.search.service" in names and "pdftui.index" in names
    assert not any(n.startswith("pdftui.tui") for n in names)


@pytest.mark.parametrize("module", core_modules())
def test_core_module_imports_no_ui_and_no_model_runtime(module):
    code = (
        "import sys, importlib\n"
        f"importlib.import_module({module!r})\n"
        f"bad = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"{module} imports {out.stdout.strip()} at import time"


def test_cli_imports_no_ui_until_the_tui_runs():
    code = ("import sys, pdftui.cli\n"
            "print('textual' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_the_tui_starts_without_the_indexer_the_search_engine_or_the_model():
    """The TUI's first paint imports no indexer (multiprocessing, the extractors), no search
    engine, no PDF library and no model runtime: they load with the first index run,
    search or page image. (numpy does load: textual-image's sixel encoder needs it, and
    its terminal query must run before Textual owns the terminal.)"""
    late = ("fastembed", "onnxruntime", "pymupdf", "fitz", "pdftui.index",
            "pdftui.search.service", "pdftui.extract")
    code = ("import sys, pdftui.tui.app\n"
            f"print(','.join(m for m in {late!r} if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"the TUI imports {out.stdout.strip()} at import time"
