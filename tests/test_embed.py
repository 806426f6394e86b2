"""Tests for pdftui.embed (the embedder and the model files) with the real offline model (no mocks of the model)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import pdftui.embed.model as embed_model
from pdftui.embed import (
    DEFAULT_MODEL,
    DEFAULT_WEIGHTS_SHA256,
    Embedder,
    EmbedderUnavailable,
    resolve_model_name,
)

REPO = pathlib.Path(__file__).resolve().parents[1]
from .conftest import CORPUS  # noqa: E402
ATTENTION_PDF = CORPUS / "arxiv-1706.03762v7-attention-is-all-you-need.pdf"

TRANSFORMER_PARAGRAPH = (
    "Multi-head attention allows the model to jointly attend to information from different "
    "representation subspaces at different positions. We employ h = 8 parallel attention "
    "layers, or heads; for each of these we use queries, keys and values of dimension 64, "
    "and the outputs of the heads are concatenated and projected."
)
BITCOIN_PARAGRAPH = (
    "A purely peer-to-peer version of electronic cash would allow online payments to be sent "
    "directly from one party to another without going through a financial institution. "
    "Digital signatures provide part of the solution, and the network timestamps transactions "
    "by hashing them into an ongoing chain of hash-based proof-of-work."
)


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    emb = Embedder(None, tmp_path_factory.mktemp("cache"))
    emb.load()
    return emb


@pytest.fixture(scope="module")
def counter():
    """A plain tokenizer (no truncation) to count tokens the way the model sees them."""
    from tokenizers import Tokenizer

    path = REPO / "pdftui" / "models" / "all-MiniLM-L6-v2" / "tokenizer.json"
    tok = Tokenizer.from_file(str(path))
    tok.no_truncation()
    tok.no_padding()
    return lambda text: len(tok.encode(text).ids)  # special tokens included


@pytest.fixture(scope="module")
def long_text() -> str:
    pymupdf = pytest.importorskip("pymupdf")
    if not ATTENTION_PDF.exists():
        pytest.skip("corpus PDF not available")
    with pymupdf.open(ATTENTION_PDF) as doc:
        return "\n".join(doc[i].get_text() for i in range(1, 4))


def test_resolve_model_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PDFTUI_EMBED_MODEL", raising=False)
    assert resolve_model_name(None) == DEFAULT_MODEL
    monkeypatch.setenv("PDFTUI_EMBED_MODEL", "BAAI/bge-small-en-v1.5")
    assert resolve_model_name(None) == "BAAI/bge-small-en-v1.5"
    assert resolve_model_name("intfloat/multilingual-e5-large") == "intfloat/multilingual-e5-large"
    assert resolve_model_name("Sentence-Transformers/All-MiniLM-L6-v2") == DEFAULT_MODEL


def test_import_does_not_load_fastembed_or_onnxruntime() -> None:
    code = (
        "import sys, pdftui.embed\n"
        "bad = [m for m in ('fastembed', 'onnxruntime') if m in sys.modules]\n"
        "assert not bad, bad\n"
        "import os; assert os.environ['ORT_DISABLE_TELEMETRY'] == '1'\n"
    )
    env = dict(os.environ)
    env.pop("ORT_DISABLE_TELEMETRY", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_default_attributes_need_no_model(tmp_path: pathlib.Path) -> None:
    emb = Embedder(None, tmp_path, int8=False)
    assert emb.model_id == DEFAULT_MODEL
    assert emb.weights_hash == DEFAULT_WEIGHTS_SHA256
    assert Embedder(None, tmp_path, int8=True).known_weights_hash() is None  # int8 copy not built yet
    assert emb.dim == 384
    assert emb.max_tokens == 256
    assert emb.units("hello world") == ["hello world"]
    assert not emb.loaded
    assert not (tmp_path / "models").exists()


def test_short_text_is_one_unit(embedder: Embedder) -> None:
    text = "  Attention Is All You Need.\nThe dominant sequence transduction models...  "
    assert embedder.units(text) == [text]
    assert embedder.units("") == []
    assert embedder.units(" \n\t  ") == []


def test_long_text_gives_overlapping_windows(embedder: Embedder, counter, long_text: str) -> None:
    units = embedder.units(long_text)
    assert len(units) >= 3
    positions = []
    start = 0
    for unit in units:
        assert counter(unit) <= embedder.max_tokens
        pos = long_text.find(unit, start)
        assert pos >= 0, "every unit is a substring of the text"
        positions.append(pos)
        start = pos + 1
    # windows start at word boundaries and overlap their predecessor
    for (p0, u0), p1 in zip(zip(positions, units), positions[1:]):
        assert p0 < p1 < p0 + len(u0)
        assert p1 == 0 or long_text[p1 - 1].isspace()
    assert positions[0] == long_text.find(units[0][:20])
    # the text's end is covered by the last unit
    last_words = long_text.split()[-5:]
    assert " ".join(units[-1].split()[-5:]) == " ".join(last_words)
    assert long_text.rstrip().endswith(units[-1])
    # windows are close to full: most of them use at least 3/4 of the budget
    assert all(counter(u) > embedder.max_tokens * 3 // 4 for u in units[:-1])


def test_units_never_raise_on_odd_text(embedder: Embedder, counter) -> None:
    odd = [
        "\x00\x01\x02 control \x07\x1b[0m" * 200,
        "漢字かな混じり文" * 800,
        "a" * 100_000,
        "word " * 3 + "z" * 100_000 + " end",
        "lone \ud800 surrogate " * 300,
        "🙂" * 3000,
    ]
    for text in odd:
        units = embedder.units(text)
        assert units, repr(text[:20])
        for unit in units:
            assert unit in text
            assert counter(unit.replace("\ud800", "\ufffd")) <= embedder.max_tokens
    cjk_units = embedder.units(odd[1])
    assert len(cjk_units) > 1


def test_embed_shapes_and_norms(embedder: Embedder) -> None:
    vectors = embedder.embed([TRANSFORMER_PARAGRAPH, BITCOIN_PARAGRAPH, "x"], batch_size=2)
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    empty = embedder.embed([])
    assert empty.shape == (0, 384) and empty.dtype == np.float32
    query = embedder.embed_query("attention heads in transformers")
    assert query.shape == (384,) and query.dtype == np.float32
    assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-5


def test_query_is_closer_to_the_matching_paragraph(embedder: Embedder) -> None:
    passages = embedder.embed([TRANSFORMER_PARAGRAPH, BITCOIN_PARAGRAPH])
    query = embedder.embed_query("attention heads in transformers")
    transformer, bitcoin = passages @ query
    assert transformer > bitcoin + 0.1
    # a query embeds like the same text as a passage (no prefixes for this model)
    again = embedder.embed(["attention heads in transformers"])[0]
    assert float(again @ query) > 0.999


def test_embed_and_query_from_two_threads(embedder: Embedder) -> None:
    import threading

    results: dict[str, np.ndarray] = {}
    worker = threading.Thread(
        target=lambda: results.update(p=embedder.embed([TRANSFORMER_PARAGRAPH] * 8, 4))
    )
    worker.start()
    q = embedder.embed_query("bitcoin")
    worker.join()
    assert results["p"].shape == (8, 384) and q.shape == (384,)


def test_model_folder_assembled_once(tmp_path: pathlib.Path, monkeypatch) -> None:
    first = Embedder(None, tmp_path)
    first.load()
    folder = tmp_path / "models" / "all-MiniLM-L6-v2"
    names = {p.name for p in folder.iterdir()}
    assert {"model.onnx", "tokenizer.json", "tokenizer_config.json", "config.json",
            "special_tokens_map.json", "LICENSE"} <= names
    marker = json.loads((folder / ".pdftui-verified.json").read_text())
    assert marker["sha256"] == DEFAULT_WEIGHTS_SHA256
    assert (tmp_path / "fastembed").is_dir()  # fastembed's cache_dir stays inside ours

    def no_rehash(*args, **kwargs):
        raise AssertionError("the weights were hashed again")

    monkeypatch.setattr(embed_model, "_sha256_file", no_rehash)
    second = Embedder(None, tmp_path)
    second.load()
    np.testing.assert_allclose(
        first.embed_query("reuse"), second.embed_query("reuse"), atol=1e-6
    )


def test_damaged_folder_is_repaired(tmp_path: pathlib.Path) -> None:
    folder = embed_model.assemble_default_model(tmp_path)
    onnx = folder / "model.onnx"
    onnx.unlink()
    onnx.write_bytes(b"not a model")  # stat changes, so the marker no longer matches
    (folder / "tokenizer.json").write_text("{}")
    assert embed_model.assemble_default_model(tmp_path) == folder
    assert embed_model._sha256_file(onnx) == DEFAULT_WEIGHTS_SHA256
    assert (folder / "tokenizer.json").stat().st_size > 100_000


def test_unknown_model_gives_clear_error(tmp_path: pathlib.Path) -> None:
    emb = Embedder("no-such-org/no-such-model", tmp_path)
    with pytest.raises(EmbedderUnavailable, match="no-such-org/no-such-model"):
        emb.embed_query("hello")


def test_plan_2_tiles_the_text_in_equal_windows(embedder: Embedder, counter,
                                                long_text: str) -> None:
    from pdftui.embed import PLAN_2

    units = embedder.units(long_text, PLAN_2)
    overlapping = embedder.units(long_text)
    assert 2 <= len(units) < len(overlapping)
    # no overlap, no gap: each window starts where the previous one ended (at whitespace)
    pos = 0
    for unit in units:
        at = long_text.find(unit, pos)
        assert at >= pos and not long_text[pos:at].strip()
        pos = at + len(unit)
    assert not long_text[pos:].strip()
    sizes = [counter(u) for u in units]
    assert max(sizes) <= embedder.max_tokens
    assert max(sizes) - min(sizes) <= embedder.max_tokens // 8 + 2  # about equal
    # a section head unit: at most head_tokens tokens, from the start of the text
    head = embedder.units(long_text, PLAN_2, max_tokens=PLAN_2.head_tokens)[0]
    assert long_text.startswith(head) and counter(head) <= PLAN_2.head_tokens
    assert PLAN_2.identity("abc") == "abc+units2" and embedder.units("", PLAN_2) == []


def test_streams_give_the_vectors_of_one_run_at_a_time(embedder: Embedder,
                                                       long_text: str) -> None:
    """Single-unit runs from two threads into one 1-thread session (the index's way) give
    each unit the vector it gets alone, in the units' order."""
    units = embedder.units(long_text)[:6] + [TRANSFORMER_PARAGRAPH, BITCOIN_PARAGRAPH]
    alone = embedder.embed(units, single=True)
    streamed = Embedder(None, embedder.cache_dir, threads=1, streams=2)
    assert streamed.streams == 2
    together = streamed.embed(units, single=True)
    np.testing.assert_allclose(together, alone, atol=1e-6)
    assert streamed.tokens_embedded == sum(streamed._padded_counts(units))  # once per unit
    assert float(together[-2] @ together[-1]) < 0.5   # rows not swapped between units


def test_index_embeds_with_one_stream_per_core() -> None:
    from pdftui.index.embedding import EARLIER, EmbedPipeline, embed_streams

    assert embed_streams(EmbedPipeline(streams=3)) == 3
    assert embed_streams(EARLIER) == 1
    assert embed_streams(EmbedPipeline()) == min(8, len(os.sched_getaffinity(0)))
    assert EmbedPipeline().threads == 1 and EARLIER.threads is None


def test_one_thread_query_vectors_equal_the_thread_pools(embedder: Embedder) -> None:
    """The search service embeds queries on one onnxruntime thread (no pool whose workers
    busy-wait between queries): its vectors are the default pool's, bit for bit."""
    from pdftui.search.engine import QUERY_THREADS

    one = Embedder(None, embedder.cache_dir, threads=QUERY_THREADS)
    assert one._ensure_model().model.model.get_session_options().intra_op_num_threads == 1
    for q in ("attention heads", "proof-of-work chain " * 40, "a", "注意力 机制"):
        assert np.array_equal(one.embed_query(q), embedder.embed_query(q))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice: Linux")
def test_embedding_thread_lowers_only_its_own_priority() -> None:
    """The index's embedding thread yields the cores to extraction and searching: its nice
    value rises, and the threads it starts inherit it; the process's other threads keep
    theirs."""
    import threading

    from pdftui.index.embedding import EARLIER, EmbedPipeline, lower_thread_priority

    main_before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    seen: dict[str, int] = {}

    def embedding_thread() -> None:
        before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        seen["changed"] = lower_thread_priority(3)
        seen["delta"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) - before
        child = threading.Thread(target=lambda: seen.update(
            child=os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) - before))
        child.start()
        child.join()

    t = threading.Thread(target=embedding_thread)
    t.start()
    t.join()
    if main_before + 3 > 19:
        pytest.skip("already at the lowest priority")
    assert seen == {"changed": True, "delta": 3, "child": 3}
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == main_before
    assert lower_thread_priority(0) is False
    assert EmbedPipeline().nice == 10 and EARLIER.nice == 0


def test_a_topic_only_in_a_long_pages_last_sentence_is_first_with_paragraph_units(tmp_path):
    """The long-page case: the only sentence on the query's topic ends a page of ~1,100
    words on something else. Plan 5 cuts at paragraphs, so that sentence's unit is its
    short last paragraph with the one before, and the page comes first in semantic mode
    (plan 1, the default, holds it as one line of a 256-token window: 5th of 5 documents;
    plan 5 is not the default because it loses on bench/quality.py, bench/README.md)."""
    from pdftui.embed import PLAN_5
    from pdftui.index import index_folder
    from pdftui.index.embedding import EmbedPipeline
    from pdftui.search import SearchService

    from .builders import build_long_page

    query = build_long_page(tmp_path / "docs")
    index_folder(tmp_path / "docs", tmp_path / "cache",
                 pipeline=EmbedPipeline(int8=True, plan=PLAN_5))
    service = SearchService(tmp_path / "docs", cache_dir=tmp_path / "cache")
    try:
        hits = service.search_sync(query, mode="semantic", top_k=5).hits
    finally:
        service.close()
    assert (hits[0].doc, hits[0].page) == ("databases.pdf", 2), [(h.doc, h.page) for h in hits]


def test_a_topic_only_in_a_long_pages_last_sentence_with_tile_pairs(tmp_path):
    """The long-page case with plan 10 (tiles of half the model's length searched as pairs
    of neighbours). Its last tile holds the sentence with about 110 tokens of the text
    before it, and the unit searched is that tile paired with the one before (~250
    tokens, as plan 1's last window): the page is found, but 5th of 5 documents, as with
    plan 1 (bench/README.md "Tile pairs, plans 10-12"). The tokens embedded are the tiles'
    alone, under 0.7x of plan 1's on the same folder."""
    from pdftui.embed import PLAN_1, PLAN_10
    from pdftui.index import index_folder
    from pdftui.index.embedding import EmbedPipeline
    from pdftui.search import SearchService

    from .builders import build_long_page

    query = build_long_page(tmp_path / "docs")
    summary = index_folder(tmp_path / "docs", tmp_path / "cache",
                           pipeline=EmbedPipeline(int8=True, plan=PLAN_10))
    assert summary.units > 0 and not summary.notes, summary.notes
    service = SearchService(tmp_path / "docs", cache_dir=tmp_path / "cache")
    try:
        hits = [(h.doc, h.page) for h in
                service.search_sync(query, mode="semantic", top_k=5).hits]
    finally:
        service.close()
    assert ("databases.pdf", 2) in hits, hits
    plan1 = index_folder(tmp_path / "docs", tmp_path / "cache1",
                         pipeline=EmbedPipeline(int8=True, plan=PLAN_1))
    assert summary.tokens_embedded < 0.7 * plan1.tokens_embedded, \
        (summary.tokens_embedded, plan1.tokens_embedded)


def test_the_int8_copy_runs_at_the_basic_graph_level(tmp_path) -> None:
    """The int8 copy's session is opened at onnxruntime's basic graph optimisation level
    (faster on this model than fastembed's "all", bench/kernels.py) and embeds as before:
    unit-length vectors, a query closest to its own paragraph. (int8 asked for by name:
    the TUI tests' conftest turns the environment's default off for the whole run.)"""
    import onnxruntime as ort

    embedder = Embedder(None, tmp_path / "cache", int8=True)
    embedder.load()
    assert embedder.int8
    session = embedder._model.model.model
    assert session.get_session_options().graph_optimization_level == \
        ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    vecs = embedder.embed(["Bees keep the hive warm by shivering.", "Tables sit on pages."],
                          single=True)
    q = embedder.embed_query("how do bees heat their hive")
    assert abs(float(np.linalg.norm(vecs[0])) - 1) < 1e-5 and vecs[0] @ q > vecs[1] @ q
