"""The int8 copy of the bundled model (pdftui.embed.quantize), length-sorted runs, and the
embedding queue's order, on real corpus text with the real model."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import onnx
import pymupdf
import pytest

from pdftui.embed import DEFAULT_WEIGHTS_SHA256, Embedder, quantize
from pdftui.embed.embedder import length_runs
from pdftui.index.embedding import _EmbedQueue

from .conftest import CORPUS, shared_file


@pytest.fixture(scope="module")
def corpus_units() -> list[str]:
    """The embedding units of two SMALL-subset papers' first pages (real text)."""
    emb = Embedder(None, pathlib.Path("/nonexistent"), int8=False)
    units: list[str] = []
    for name in ("arxiv-2005.07143-ecapa-tdnn-speaker-verification.pdf",
                 "arxiv-0908.0054-ultralight-bosonic-dark-matter-cmb.pdf"):
        with pymupdf.open(shared_file(CORPUS / name)) as doc:
            for page in list(doc)[:2]:
                units += emb.units(page.get_text())
    return units


@pytest.fixture(scope="module")
def int8_cache(tmp_path_factory) -> pathlib.Path:
    cache = tmp_path_factory.mktemp("int8")
    Embedder(None, cache, int8=True).load()
    return cache


def test_int8_model_is_built_once_into_the_cache(int8_cache: pathlib.Path) -> None:
    emb = Embedder(None, int8_cache, int8=True)
    folder = int8_cache / "models" / quantize.INT8_FOLDER
    marker = json.loads((folder / ".pdftui-int8.json").read_text())
    assert emb.known_weights_hash() == marker["sha256"] == emb.weights_hash
    assert emb.weights_hash != DEFAULT_WEIGHTS_SHA256  # another model identity: re-embeds
    model = onnx.load(str(folder / "model.onnx"))
    ops = {n.op_type for n in model.graph.node}
    assert "IsNaN" not in ops and ({"MatMulInteger", "DynamicQuantizeMatMul"} & ops)
    assert not list(folder.glob(".build-*"))  # the temporary files are gone


def test_int8_build_is_deterministic(int8_cache: pathlib.Path, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(quantize, "_BUILT", {})  # build again, do not reuse the first file
    again = Embedder(None, tmp_path, int8=True)
    assert again.weights_hash == Embedder(None, int8_cache, int8=True).weights_hash


def test_int8_vectors_stay_close_to_fp32(int8_cache, corpus_units) -> None:
    fp32 = Embedder(None, int8_cache, int8=False).embed(corpus_units)
    int8 = Embedder(None, int8_cache, int8=True).embed(corpus_units)
    cos = (fp32 * int8).sum(axis=1)
    assert len(corpus_units) >= 8
    assert cos.mean() >= 0.98 and cos.min() >= 0.95
    np.testing.assert_allclose(np.linalg.norm(int8, axis=1), 1.0, atol=1e-5)


def test_sorted_runs_give_the_same_vectors(int8_cache, corpus_units) -> None:
    texts = corpus_units + ["Results", "Table 2: EER on VoxCeleb1"]
    fp32 = Embedder(None, int8_cache, int8=False)
    np.testing.assert_allclose(fp32.embed(texts), fp32.embed(texts, sort=False), atol=1e-4)
    # int8: activations are quantized per run, so a text's companions in its run move its
    # vector a little
    emb = Embedder(None, int8_cache, int8=True)
    cos = (emb.embed(texts) * emb.embed(texts, sort=False)).sum(axis=1)
    assert cos.mean() >= 0.99 and cos.min() >= 0.97
    assert emb.tokens_padded > emb.tokens_embedded > 0


def test_length_runs_cover_every_text_within_the_budget() -> None:
    counts = np.array([256, 12, 256, 40, 7, 256, 90, 13, 256, 30])
    runs = length_runs(counts, batch_size=2, window=256)
    flat = np.concatenate(runs)
    assert sorted(flat.tolist()) == list(range(len(counts)))
    for r in runs:
        assert len(r) == 1 or len(r) * counts[r].max() <= 2 * 256
    assert [int(counts[r].max()) for r in runs] == sorted(int(counts[r].max()) for r in runs)
    assert len(runs[0]) > 2  # short texts share a run beyond batch_size


def test_strip_guard_leaves_other_graphs_alone() -> None:
    from onnx import helper

    node = helper.make_node("Where", ["c", "a", "b"], ["y"])
    graph = helper.make_graph([node], "g", [], [])
    assert quantize.strip_softmax_nan_guard(helper.make_model(graph)) == 0


def test_embed_queue_puts_every_opening_first() -> None:
    q = _EmbedQueue(heads_first=True)
    units = lambda n: [(1 + i // 3, i % 3, 0, 1, "x") for i in range(n)]  # noqa: E731
    q.add(1, 0.0, units(9) + [(0, 0, 0, 1, "head of a section")])
    q.add(2, 0.0, units(6))
    order = [(cid, t[0], t[1]) for cid, _s, t in q.take(100)]
    assert order[:8] == [(1, 1, 0), (1, 1, 1), (1, 1, 2), (1, 2, 0),
                         (2, 1, 0), (2, 1, 1), (2, 1, 2), (2, 2, 0)]
    assert len(order) == 16 and (1, 0, 0) in order[8:]
    q2 = _EmbedQueue(heads_first=False)
    q2.add(1, 0.0, units(5))
    q2.dead.add((1, 0.0))
    assert q2.take(10) == []
