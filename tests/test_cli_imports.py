"""What a one-shot command loads: `pdftui docs`, `mark`, `read` and a keyword `search` run in
a fresh interpreter on an indexed folder and import no Textual, no model runtime
(onnxruntime, fastembed, tokenizers, onnx) and, where they do not need it, no numpy;
PyMuPDF loads without its layout analyser (three ONNX sessions built on import) and
extracts the same text and boxes as with it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pdftui.index import index_folder
from .builders import make_pdf

MODEL_RUNTIME = ("textual", "onnxruntime", "fastembed", "tokenizers", "onnx")


def _loaded_by(args: list[str], env_extra: dict[str, str], watch: tuple[str, ...]) -> dict:
    """Run ``pdftui ARGS`` in a fresh interpreter (stdin and stdout not a terminal) and
    return ``{"rc", "loaded": [names of ``watch`` in sys.modules at exit], "out"}``."""
    code = (
        "import atexit, json, sys\n"
        f"watch = {watch!r}\n"
        "def report():\n"
        "    sys.stderr.write('\\nLOADED ' + json.dumps([m for m in watch if m in sys.modules]))\n"
        "atexit.register(report)\n"
        "from pdftui.cli import main\n"
        f"main({args!r}, prog_name='pdftui')\n"
    )
    import os

    env = {**os.environ, **env_extra}
    env.pop("FORCE_COLOR", None)
    env.pop("TTY_COMPATIBLE", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env=env, stdin=subprocess.DEVNULL)
    tail = out.stderr.rsplit("LOADED ", 1)
    assert len(tail) == 2, out.stderr
    return {"rc": out.returncode, "loaded": json.loads(tail[1]), "out": out.stdout,
            "err": tail[0]}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """A folder of two PDFs, its text indexed (no embeddings), and a user-data folder."""
    base = tmp_path_factory.mktemp("cli-imports")
    folder, cache, data = base / "pdfs", base / "cache", base / "data"
    folder.mkdir()
    make_pdf(folder / "alpha-transformers.pdf",
                   ["Attention heads attend to tokens.", "Second page on attention."])
    make_pdf(folder / "beta-bitcoin.pdf", ["A peer to peer electronic cash system."])
    index_folder(folder, cache, embed=False)
    return folder, {"PDFTUI_CACHE_DIR": str(cache), "PDFTUI_DATA_DIR": str(data)}


@pytest.mark.parametrize("args, light", [
    (["docs", "{F}"], ("numpy", "rich.progress")),
    (["docs", "{F}", "--json"], ("numpy", "rich")),
    (["mark", "{F}", "alpha", "keep", "--note", "n"], ("numpy", "rich", "pymupdf")),
    (["read", "{F}", "alpha", "--page", "2"], ("numpy", "rich")),
    (["read", "{F}", "beta", "--sections", "--json"], ("numpy", "rich", "pymupdf")),
    (["search", "{F}", "attention", "--mode", "keyword", "--json"], ("rich", "pymupdf")),
    (["search", "{F}", "attention", "--mode", "keyword", "--granularity", "section"],
     ("pymupdf",)),
], ids=["docs", "docs-json", "mark", "read", "read-sections", "search-keyword-json",
        "search-keyword-section-table"])
def test_a_one_shot_command_loads_no_ui_no_model_and_nothing_it_does_not_use(indexed, args,
                                                                             light):
    folder, env = indexed
    args = [a.replace("{F}", str(folder)) for a in args]
    got = _loaded_by(args, env, MODEL_RUNTIME + light + ("pymupdf.layout", "pymupdf4llm"))
    assert got["rc"] == 0, got["err"]
    assert got["out"].strip()
    assert got["loaded"] == [], f"pdftui {' '.join(args[:1])} loaded {got['loaded']}"


def test_read_opens_the_pdf_without_the_layout_model(indexed):
    """`read` opens the PDF (its printed lines), through pdftui.mupdf: PyMuPDF without
    pymupdf.layout, whose import builds onnxruntime sessions."""
    folder, env = indexed
    got = _loaded_by(["read", str(folder), "alpha", "--page", "1"], env,
                     ("pymupdf", "pymupdf.layout", "onnxruntime"))
    assert got["rc"] == 0, got["err"]
    assert got["loaded"] == ["pymupdf"]


def test_pymupdf_without_its_layout_packages_extracts_the_same(tmp_path):
    """Extraction through pdftui.mupdf (layout analyser and pymupdf4llm not imported, their
    import-time options set) equals extraction after a plain `import pymupdf` (which
    imports both): text, blocks and their boxes, outline and metadata."""
    pdf = tmp_path / "doc.pdf"
    make_pdf(pdf, ["Heading One\n\nA first paragraph of words on the page.",
                         "def f(x):\n    return x + 1\n\nclosing words"])
    code = ("import sys, hashlib, pickle\n"
            "if sys.argv[1] == 'plain':\n"
            "    import pymupdf\n"
            "from pdftui.extract import extract_document\n"
            "e = extract_document(sys.argv[2])\n"
            "print(hashlib.sha256(repr(e).encode()).hexdigest(),"
            " 'pymupdf.layout' in sys.modules)\n")
    outs = {}
    for how in ("plain", "pdftui"):
        run = subprocess.run([sys.executable, "-c", code, how, str(pdf)], capture_output=True,
                             text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        outs[how] = run.stdout.split()
    assert outs["pdftui"][1] == "False"
    assert outs["plain"][0] == outs["pdftui"][0]


def test_the_stored_product_model_is_the_one_onnx_builds():
    """quantized.PRODUCT_MODEL (bytes, so a query does not import onnx) is the graph that
    onnx.helper builds: MatMulInteger(A uint8, B int8, za = 128) -> int32, opset 13."""
    from onnx import TensorProto, helper

    from pdftui.search.quantized import PRODUCT_MODEL

    node = helper.make_node("MatMulInteger", ["A", "B", "za"], ["C"])
    graph = helper.make_graph(
        [node], "unit_product",
        [helper.make_tensor_value_info("A", TensorProto.UINT8, [None, None]),
         helper.make_tensor_value_info("B", TensorProto.INT8, [None, 2])],
        [helper.make_tensor_value_info("C", TensorProto.INT32, [None, 2])],
        initializer=[helper.make_tensor("za", TensorProto.UINT8, [], [128])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    assert model.SerializeToString() == PRODUCT_MODEL


def test_the_int8_model_check_reads_the_installed_onnx_version_without_importing_it():
    """The int8 marker check names the same onnx version as onnx.__version__, and a
    process that only checks it never imports onnx."""
    code = ("import sys\n"
            "from pdftui.embed.quantize import _versions\n"
            "v = _versions()\n"
            "print(v['onnx'], 'onnx' in sys.modules)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    version, imported = run.stdout.split()
    import onnx

    assert version == onnx.__version__ and imported == "False"
