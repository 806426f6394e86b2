"""The section vector (pdftui/search/section_vector.py) on real indexed PDFs: its cosine is
that of the normalised mean of the section's own unit vectors, and the list is fused into
hybrid section search only when ``sections.vector_weight`` asks for it."""

import numpy as np
import pytest

from pdftui.search import section_vector
from pdftui.search.config import RankingConfig
from pdftui.search.engine import Engine
from pdftui.search.run import Arm
from pdftui.search.section_semantic import DocScope

from .conftest import SMALL_DOCS, shared_index

pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def embedded(tmp_path_factory):
    return shared_index(tmp_path_factory, "section-vector", SMALL_DOCS)


def _arrays(engine: Engine):
    engine.refresh()
    m = engine.matrix()
    docs_of = {d.content_id: [d.doc] for d in engine._docs if d.reason is None}
    return m, engine.view.section_index(m, docs_of), DocScope.of(docs_of)


def test_section_cosine_is_the_normalised_mean_of_its_units(embedded):
    folder, cache = embedded
    engine = Engine(folder, cache)
    m, su, _scope = _arrays(engine)
    assert len(su.sid) > 5
    q = engine.embed_query("speaker verification with channel attention")
    sims = m.similarities(q)
    got = section_vector.mean_cosines(su, sims, section_vector.sum_norms(su, m.matrix))
    ends = np.append(su.seg[1:], len(su.idx))
    for i in range(len(su.sid)):
        rows = su.idx[su.seg[i]:ends[i]]
        vecs = np.stack([m.matrix[int(r)] for r in rows])
        mean = vecs.mean(axis=0)
        want = float(mean @ q.astype(np.float32) / np.linalg.norm(mean))
        assert got[i] == pytest.approx(want, abs=2e-4)
    # the norms are computed once per index: a second call returns the same array
    assert section_vector.sum_norms(su, m.matrix) is section_vector.sum_norms(su, m.matrix)


def test_vector_list_orders_sections_by_that_cosine(embedded):
    folder, cache = embedded
    engine = Engine(folder, cache)
    m, su, scope = _arrays(engine)
    sims = m.similarities(engine.embed_query("dark matter and the cosmic microwave background"))
    norms = section_vector.sum_norms(su, m.matrix)
    score = section_vector.mean_cosines(su, sims, norms)
    keys = section_vector.vector_list(su, sims, norms, scope, None)
    by_sid = dict(zip(su.sid.tolist(), score.tolist()))
    ranked = [by_sid[s] for s in keys.sid.tolist()]
    assert len(ranked) == len(su.sid)
    assert ranked == sorted(ranked, reverse=True)


def test_hybrid_sections_fuse_the_vector_list_only_when_weighted(embedded):
    folder, cache = embedded
    query = "how the speaker embedding pools frames over time"
    off = Engine(folder, cache).search(query, mode="hybrid", granularity="section", top_k=5)
    assert off.hits
    assert all(c.arm is not Arm.SECTION_VECTOR for h in off.hits for c in h.arms)
    on_cfg = RankingConfig().updated({"sections.vector_weight": 1.0})
    on = Engine(folder, cache, config=on_cfg).search(query, mode="hybrid",
                                                     granularity="section", top_k=5)
    assert any(c.arm is Arm.SECTION_VECTOR for h in on.hits for c in h.arms)
