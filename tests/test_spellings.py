"""Query terms match joined and spaced spellings alike: "big bird" finds BigBird, BIGBIRD,
Big-Bird and big bird (and each of those spellings finds the others), in every arm that
matches words (the keyword arm's pages and sections, the required phrase, the exclusion),
on made PDFs indexed for real."""

from __future__ import annotations

import pytest

from pdftui.index import index_folder
from pdftui.search import query
from pdftui.search.engine import Engine

from .builders import make_pdf

FILLER = "The lighthouse keeper counted the waves of the harbour every evening."
#: one document per spelling of the model's name, each on its page 1 (page 2 is filler)
SPELLINGS = {
    "camel.pdf": "We introduce BigBird, a sparse attention encoder for long inputs.",
    "caps.pdf": "BIGBIRD reduces the quadratic cost with sparse attention on long inputs.",
    "hyphen.pdf": "The Big-Bird encoder keeps sparse attention cheap on long inputs.",
    "spaced.pdf": "The big bird encoder keeps sparse attention cheap on long inputs.",
}
OTHER = "plain.pdf"   # sparse attention, no bird
FLASH = {"flashcamel.pdf": "FlashAttention computes exact softmax kernels tile by tile.",
         "flashspaced.pdf": "A flash attention kernel computes exact softmax tile by tile."}
#: every way a person may type the name, and the spelling pages it must find
TYPED = ["big bird", "Big Bird", "BigBird", "Big-Bird", "BIGBIRD", "bigbird"]


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    base = tmp_path_factory.mktemp("spellings")
    folder = base / "papers"
    folder.mkdir()
    texts = dict(SPELLINGS, **FLASH)
    texts[OTHER] = "Windowed sparse attention on long inputs, with no model names."
    for name, text in texts.items():
        first = "BigBird blocks" if name == "camel.pdf" else "Introduction"
        make_pdf(folder / name, [text, FILLER], fontsize=8,
                 title="BigBird: sparse encoders" if name == "camel.pdf" else None,
                 toc=[[1, first, 1], [1, "The harbour", 2]])
    summary = index_folder(folder, base / "cache", embed=False)
    assert summary.indexed == len(texts), summary.to_json()
    eng = Engine(folder, base / "cache")
    yield eng
    eng.close()


def _docs(res) -> set[str]:
    return {h.doc for h in res.hits}


@pytest.mark.parametrize("granularity", ["page", "section"])
@pytest.mark.parametrize("typed", TYPED)
def test_each_typed_form_finds_every_spelling(engine, typed, granularity):
    """Loose words: the keyword arm ranks every spelling's page (camel case and all caps
    are one indexed token, the hyphen and the space two adjacent ones)."""
    res = engine.search(typed, mode="keyword", granularity=granularity, top_k=20)
    assert _docs(res) == set(SPELLINGS), (typed, [(h.doc, h.page) for h in res.hits])


@pytest.mark.parametrize("typed", TYPED)
def test_each_typed_form_holds_every_query_word_on_every_spelling(engine, typed):
    """A page writing the joined form holds the query's words as fully as one writing
    them apart: every spelling's page 1 holds every query term (the BM25 rows' terms)."""
    engine.search("warm", mode="keyword")   # the index statistics of this data version
    terms = engine.query_terms(query.parse(f"sparse attention {typed}"))
    ranking = engine.kw.rank(terms, None, "pages", "or")
    page1 = {doc: pid for doc, pid in engine.db.execute(
        "SELECT f.doc, p.id FROM files f JOIN pages p ON p.content_id = f.content_id"
        " WHERE p.number = 1")}
    every = frozenset(str(t) for t in terms)
    held = {d: ranking.row_terms.get(page1[d]) for d in SPELLINGS}
    assert all(h == every for h in held.values()), (every, held)


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_a_required_phrase_keeps_each_spelling(engine, spelling):
    for typed in ('"big bird"', '"Big Bird"', '"BIG BIRD"'):
        res = engine.search(f"sparse attention {typed}", mode="keyword", top_k=20)
        assert spelling in _docs(res), typed
        assert OTHER not in _docs(res), typed


@pytest.mark.parametrize("granularity", ["page", "section"])
@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_an_exclusion_drops_each_spelling(engine, spelling, granularity):
    for typed in ('-"big bird"', "-BigBird", "-bigbird", "-Big-Bird", '-"BIG BIRD"'):
        res = engine.search(f"sparse attention {typed}", mode="keyword",
                            granularity=granularity, top_k=20)
        assert spelling not in _docs(res), typed
        assert OTHER in _docs(res), typed


@pytest.mark.parametrize("typed", ["flash attention", "FlashAttention", "Flash-Attention",
                                   "FLASHATTENTION"])
def test_flash_attention_spelled_either_way(engine, typed):
    res = engine.search(typed, mode="keyword", top_k=20)
    assert set(FLASH) <= _docs(res), typed
    gone = engine.search(f"exact softmax -{typed}" if " " not in typed
                         else f'exact softmax -"{typed}"', mode="keyword", top_k=20)
    assert not set(FLASH) & _docs(gone), typed


@pytest.mark.parametrize("field", ['title:"big bird"', 'section:"big bird"',
                                   'section:"Big-Bird"', "section:bigbird"])
def test_fields_match_the_closed_up_spelling(engine, field):
    """``title:`` and ``section:`` with the name spaced (or closed up) find the title
    writing BigBird (the other spellings' pages have titles of their own words)."""
    res = engine.search(f"sparse attention {field}", mode="keyword",
                        granularity="section" if field.startswith("section") else "page",
                        top_k=20)
    got = _docs(res)
    assert "camel.pdf" in got and OTHER not in got, (field, [(h.doc, h.page) for h in res.hits])


def test_an_excluded_name_in_a_subsection_excludes_the_section_enclosing_it(tmp_path):
    """Fifth trial: with ``-"big bird"`` in section mode, Big Bird's "3 Theoretical
    Results" came first: its own text does not say the name, but its subsection 3.4 does
    ("not just BIGBIRD"), and reading it whole shows it. A section whose subsection holds
    an excluded word is excluded too; a sibling section without it stays."""
    folder = tmp_path / "papers"
    folder.mkdir()
    make_pdf(folder / "theory.pdf",
             ["Sparse attention theory\n\nSparse attention results for long inputs, "
              "stated as theorems. " + FILLER,
              "Other graphs\n\nThe same bounds hold for other graphs, not just BIGBIRD, "
              "with sparse attention. " + FILLER,
              "Sparse attention experiments\n\nSparse attention on long inputs, "
              "measured. " + FILLER],
             fontsize=8, toc=[[1, "Sparse attention theory", 1], [2, "Other graphs", 2],
                              [1, "Sparse attention experiments", 3]])
    index_folder(folder, tmp_path / "cache", embed=False)
    eng = Engine(folder, tmp_path / "cache")
    try:
        res = eng.search('sparse attention -"big bird"', mode="keyword",
                         granularity="section", top_k=10)
        spans = [(h.section, h.start_page, h.end_page) for h in res.hits]
        assert "Sparse attention experiments" in {s for s, _a, _b in spans}, spans
        # nothing listed whose text, read whole, holds page 2's "not just BIGBIRD"
        assert not any(a <= 2 <= b for _s, a, b in spans), spans
    finally:
        eng.close()
