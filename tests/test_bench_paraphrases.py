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
    def __init__(self, doc: str, page: int, section: str):
        self.doc, self.page, self.section = doc, page, section


class _Engine:
    """Answers each query with one section hit: the right one for half a only."""

    def __init__(self, queries: list[dict]):
        self.by_text = {q["query"]: q for q in queries}

    def search(self, text, mode, granularity, top_k):
        q = self.by_text[text]
        s = q["sections"][0]
        page = s["start_page"] if q["half"] == "a" else s["start_page"] + 1000

        class R:
            hits = [_Hit(s["doc"], page, s["title"])]
        return R()


def test_quality_reports_each_half_apart():
    queries = json.loads(PARA.read_text())["queries"]
    got = quality.run_probes(_Engine(queries), queries, ["hybrid"])["hybrid"]
    n_a = sum(q["half"] == "a" for q in queries)
    assert got["half_a"] == {"section_mrr": 1.0, "section_ndcg": 1.0, "n": n_a}
    assert got["half_b"]["section_mrr"] == 0.0
    assert got["all"]["section_mrr"] == round(n_a / len(queries), 4)


PARA_2 = REPO / "bench" / "section_paraphrases_2.json"


def test_the_second_set_has_its_halves_and_names_corpus_documents():
    """bench/section_paraphrases_2.json: halves c / d (para2-*, the first set's style), e / f
    (para3-*, plain words), g / h (named-*, naming the document); each query's sections are
    corpus documents, and no query repeats one of the first set."""
    queries = json.loads(PARA_2.read_text())["queries"]
    halves = {p: {q["half"] for q in queries if q["id"].startswith(p)}
              for p in ("para2-", "para3-", "named-")}
    assert halves == {"para2-": {"c", "d"}, "para3-": {"e", "f"}, "named-": {"g", "h"}}
    assert len(queries) == 34 + 30 + 11
    first = {(s["doc"], s["title"]) for q in json.loads(PARA.read_text())["queries"]
             for s in q["sections"]}
    for q in queries:
        assert not {(s["doc"], s["title"]) for s in q["sections"]} & first, q["id"]
        if CORPUS.is_dir():
            assert all((CORPUS / s["doc"]).is_file() for s in q["sections"]), q["id"]


def test_the_second_sets_title_stems_shared_by_accident_are_the_four_recorded():
    """Written to share no content word with the title; four share a stem by the stemmer
    ("model"/"modeling", "generator"/"generative") or by the paper's name in its title
    ("attention", "bert"): recorded, not reworded after the rankings were seen."""
    shared = {q["id"] for q in json.loads(PARA_2.read_text())["queries"]
              for s in q["sections"] if _stems(q["query"]) & _stems(s["title"])}
    assert shared == {"para3-003", "para3-005", "named-008", "named-009"}


PARA_3 = REPO / "bench" / "section_paraphrases_3.json"


def test_the_third_set_is_held_out_over_documents_the_others_leave_alone():
    """bench/section_paraphrases_3.json (session 12, never tuned on): 38 queries, halves
    i / j, over 12 corpus documents no query of the first two sets asks about; no query
    shares a content stem with its gold section's title."""
    queries = json.loads(PARA_3.read_text())["queries"]
    assert len(queries) == 38 and {q["half"] for q in queries} == {"i", "j"}
    docs = {s["doc"] for q in queries for s in q["sections"]}
    assert len(docs) == 12
    others = {s["doc"] for p in (PARA, PARA_2) for q in json.loads(p.read_text())["queries"]
              for s in q["sections"]}
    assert not docs & others
    for q in queries:
        for s in q["sections"]:
            if s["grade"] == 3:
                assert not _stems(q["query"]) & _stems(s["title"]), (q["id"], s["title"])
            if CORPUS.is_dir():
                assert (CORPUS / s["doc"]).is_file(), q["id"]


NAMED = REPO / "bench" / "section_named.json"


def test_named_queries_name_their_paper_by_a_word_of_its_title():
    """bench/section_named.json: each query holds a stem of its paper's title (the name a
    reader types, "LLaMA", "ZeRO"), its gold sections are in corpus documents, and no
    query id repeats another set's."""
    queries = json.loads(NAMED.read_text())["queries"]
    assert len(queries) == 24
    titles = {"arxiv-1810.04805-bert.pdf": "BERT", "amazon-2007-dynamo.pdf": "Dynamo",
              "arxiv-2302.13971-llama.pdf": "LLaMA", "google-2004-mapreduce.pdf": "MapReduce"}
    for q in queries:
        assert q["id"].startswith("byname-")
        for s in q["sections"]:
            assert (CORPUS / s["doc"]).is_file(), s["doc"]
        doc = q["sections"][0]["doc"]
        if doc in titles:
            assert _stems(titles[doc]) <= _stems(q["query"]), q["id"]
