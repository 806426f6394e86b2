"""bench/section_paraphrases.json: section queries in the reader's own words (issue 18).

The set measures the kind of section query the hidden set misses: what a section does, said
without its title's words. These checks hold it to that: no query shares a content stem with
its section's title, each names one corpus document, and bench/quality.py reports the two
halves apart (a change is kept only when neither half falls).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pdftui.search import keyword

from .conftest import CORPUS, REPO

sys.path.insert(0, str(REPO / "bench"))
import quality  # noqa: E402  (bench/quality.py)

PARA = REPO / "bench" / "section_paraphrases.json"


def _stems(text: str) -> set[str]:
    stop = keyword._stem_stopwords()
    return {t for t in keyword.tokenize(text) if t not in stop and not t.isdigit()}


def test_no_paraphrase_shares_a_content_word_with_its_title():
    queries = json.loads(PARA.read_text())["queries"]
    assert len(queries) == 37
    for q in queries:
        for s in q["sections"]:
            assert not _stems(q["query"]) & _stems(s["title"]), (q["id"], s["title"])


def test_paraphrases_name_corpus_documents_and_two_halves():
    queries = json.loads(PARA.read_text())["queries"]
    assert {q["half"] for q in queries} == {"a", "b"}
    assert len({q["sections"][0]["doc"] for q in queries}) == len(queries)  # one per doc
    if CORPUS.is_dir():
        for q in queries:
            assert (CORPUS / q["sections"][0]["doc"]).is_file(), q["id"]


class _Hit:
    def __init__(self, doc: str, page: int):
        self.doc, self.page = doc, page


class _Engine:
    """Answers each query with one section hit: the right one for half a only."""

    def __init__(self, queries: list[dict]):
        self.by_text = {q["query"]: q for q in queries}

    def search(self, text, mode, granularity, top_k):
        q = self.by_text[text]
        s = q["sections"][0]
        page = s["start_page"] if q["half"] == "a" else s["start_page"] + 1000

        class R:
            hits = [_Hit(s["doc"], page)]
        return R()


def test_quality_reports_each_half_apart():
    queries = json.loads(PARA.read_text())["queries"]
    got = quality.run_probes(_Engine(queries), queries, ["hybrid"])["hybrid"]
    n_a = sum(q["half"] == "a" for q in queries)
    assert got["half_a"] == {"section_mrr": 1.0, "section_ndcg": 1.0, "n": n_a}
    assert got["half_b"]["section_mrr"] == 0.0
    assert got["all"]["section_mrr"] == round(n_a / len(queries), 4)
