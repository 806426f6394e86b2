"""Unit vectors held as int8 codes with a scale (pdftui.search.quantized), on real vectors."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from pdftui.search.quantized import Int8Matrix, quantize
from pdftui.search.semantic import VectorMatrix
from pdftui.search.engine import Engine

from .conftest import SMALL_DOCS, shared_index


@pytest.fixture(scope="module")
def one_paper(tmp_path_factory):
    return shared_index(tmp_path_factory, "quantized", SMALL_DOCS[:1])


def _matrix(folder, cache) -> VectorMatrix:
    engine = Engine(folder, cache)
    m = VectorMatrix(engine.model_id)
    engine.close()
    db = sqlite3.connect(cache / "index.sqlite3")
    m.refresh(db)
    db.close()
    return m


def _stored(cache) -> np.ndarray:
    db = sqlite3.connect(cache / "index.sqlite3")
    blobs = [b for (b,) in db.execute("SELECT vector FROM units WHERE page > 0 ORDER BY id")]
    db.close()
    return np.vstack([np.frombuffer(b, dtype=np.float32) for b in blobs])


def test_held_vectors_are_int8_and_their_cosines_match_the_stored_float32(one_paper):
    folder, cache = one_paper
    m = _matrix(folder, cache)
    stored = _stored(cache)
    assert isinstance(m.matrix, Int8Matrix) and m.matrix.shape == stored.shape
    assert m.matrix.codes.dtype == np.uint8 and m.matrix.codes.nbytes == stored.size
    assert m.matrix.nbytes == stored.shape[0] * (stored.shape[1] + 4)   # a quarter, + scale
    rng = np.random.default_rng(7)
    for q in [stored[5], stored[-1], rng.standard_normal(stored.shape[1])]:
        q = (q / np.linalg.norm(q)).astype(np.float32)
        want, got = stored @ q, m.matrix.dot(q)
        assert np.abs(got - want).max() < 3e-3
        assert np.array_equal(got, m.matrix.dot(q))    # deterministic
    # a unit's own vector still finds that unit first, at cosine ~1
    sims = m.matrix.dot(stored[5])
    assert int(np.argmax(sims)) == 5 and abs(float(sims[5]) - 1.0) < 3e-3
    # a held row, dequantized, is its stored vector within half a step per component
    assert np.abs(m.matrix[5] - stored[5]).max() <= m.matrix.scales[5] / 2 + 1e-7


def test_quantize_zero_vector_and_shape_errors():
    codes, scales = quantize(np.zeros((2, 4), dtype=np.float32))
    assert not codes.any() and not scales.any()
    m = Int8Matrix.from_float(np.vstack([np.zeros(4), np.ones(4) / 2]))
    assert m.dot(np.array([0.5, 0.5, 0.5, 0.5], dtype=np.float32)).tolist() == \
        pytest.approx([0.0, 1.0], abs=1e-6)
    with pytest.raises(ValueError):
        m.dot(np.ones(3, dtype=np.float32))
    assert len(Int8Matrix.empty(4).dot(np.ones(4, dtype=np.float32))) == 0


def test_the_matrix_refresh_keeps_one_copy_of_the_codes(one_paper):
    folder, cache = one_paper
    m = _matrix(folder, cache)
    assert len(m.section_matrix) > 0
    for c in m._contents.values():
        assert np.shares_memory(c.vectors, m.matrix.codes)
        assert np.shares_memory(c.scales, m.matrix.scales)
        assert np.shares_memory(c.section_vectors, m.section_matrix.codes)


def test_a_second_rebuild_keeps_the_codes_of_contents_already_held(one_paper):
    """Contents already in the matrix are held offset (uint8 views); a rebuild (another
    content changed) copies them as they are, not offset twice."""
    folder, cache = one_paper
    m = _matrix(folder, cache)
    q = m.matrix[3] / np.linalg.norm(m.matrix[3])
    before, heads = m.matrix.dot(q), m.section_head_sims(q)
    m._rebuild()
    assert np.array_equal(m.matrix.dot(q), before)
    assert np.array_equal(m.section_head_sims(q), heads)
