"""Keyword arm: safe query parsing, index-identical tokenisation, per-document BM25."""

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pdftui.store.database import Cache
from pdftui.document import Block, Extraction, Page
from pdftui.search import keyword
from pdftui.search.keyword import Term, parse_query
from pdftui.store.text_index import KeywordIndex

from .conftest import TRICKY, shared_file

HOSTILE_JSON = TRICKY / "queries" / "hostile_queries.json"
HOSTILE_TXT = TRICKY / "queries" / "hostile_queries.txt"


def hostile_queries() -> list[str]:
    out = [q["query"] for q in json.loads(shared_file(HOSTILE_JSON).read_text())]
    for line in shared_file(HOSTILE_TXT).read_text().splitlines():
        if line and not line.startswith("#"):
            out.append(line.split("\t")[0])
    return out


def make_doc(texts: list[str], title: str = "t") -> Extraction:
    pages = [Page(i + 1, str(i + 1), t, [Block(t, 0, 0, 100, 10)]) for i, t in enumerate(texts)]
    return Extraction(title, len(pages), pages)


def add(cache: Cache, sha: str, texts: list[str]) -> int:
    cid = cache.insert_content(sha, 1, make_doc(texts))
    cache.set_file("/root", sha + ".pdf", 1, 1, cid)
    return cid


DOC_A = [
    "Multi-head attention lets the model attend to several positions at once.",
    "The financial report of the café: state-of-the-art results in attention research.",
    "今天天气很好 and the weather was nice; attention attention attention everywhere.",
    "Final remarks. The finishing line of the paper, with fine print.",
    "Nothing relevant here except a long page about cooking pasta and tomatoes." * 5,
]
DOC_B = ["attention is all you need, attention again", "café ﬁnancial news", "pasta"]
DOC_C = ["multi head attention attention attention", "head of the department"]


@pytest.fixture
def cache(tmp_path):
    c = Cache(tmp_path / "cache")
    yield c
    c.close()


def test_hostile_queries_never_raise(cache):
    add(cache, "a", DOC_A)
    idx = KeywordIndex(cache.db)
    for q in hostile_queries():
        terms = parse_query(q)
        assert all(isinstance(t, Term) and t.text for t in terms)
        for policy in ("or", "and"):
            idx.rank(terms, None, "pages", policy)
            idx.rank(terms, None, "sections", policy)


def test_query_syntax_is_inert():
    assert [str(t) for t in parse_query("multi-agent")] == ["multi", "agent"]
    assert [str(t) for t in parse_query('"don\'t" AND (')] == ["don", "t"]
    assert [str(t) for t in parse_query("Rock AND Roll")] == ["rock", "roll"]
    assert [str(t) for t in parse_query("body:term")] == ["bodi", "term"]
    assert parse_query("*") == [] and parse_query("") == [] and parse_query(None) == []
    assert [str(t) for t in parse_query("fin*")] == ["fin*"]
    assert [str(t) for t in parse_query("AND")] == ["and"]          # stopword only: kept
    assert len(parse_query("x" * 5000)) == 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_parse_query_never_raises_on_any_text(text):
    terms = parse_query(text)
    assert len(terms) <= keyword.MAX_TERMS
    assert len(set(terms)) == len(terms)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=80))
def test_rank_never_raises_on_any_text(cache, text):
    if not cache.db.execute("SELECT 1 FROM contents").fetchone():
        add(cache, "a", DOC_A)
    KeywordIndex(cache.db).rank(parse_query(text), None, "pages", "or")


def test_tokenised_like_the_index(cache):
    add(cache, "a", DOC_A)
    idx = KeywordIndex(cache.db)

    def pages(q, policy="and"):
        r = idx.rank(parse_query(q), None, "pages", policy)
        return sorted(p for rows in r.per_doc.values() for p in rows)

    pid = {n: i for i, n in cache.db.execute("SELECT id, number FROM pages")}
    assert pages("ﬁnancial") == [pid[2]]          # ligature in the query
    assert pages("cafe") == pages("café") == [pid[2]]
    assert pages("天气") == [pid[3]]               # CJK unigrams
    assert pages("multi-head") == [pid[1]]
    assert pages("state-of-the-art") == [pid[2]]
    assert pages("fin*", "or") == [pid[2], pid[4]]  # financial, final/finishing (not 'fine'? yes)
    assert pages("attentions") == [pid[1], pid[2], pid[3]]  # porter stemming


def test_document_ranking_independent_of_other_documents(cache):
    a = add(cache, "a", DOC_A)
    idx = KeywordIndex(cache.db)
    terms = parse_query("attention head financial pasta")
    before = idx.rank(terms, None, "pages", "or")
    b = add(cache, "b", DOC_B)
    add(cache, "c", DOC_C)
    idx.refresh(("changed",))
    after = idx.rank(terms, None, "pages", "or")
    assert after.per_doc[a] == before.per_doc[a]
    for pid in before.per_doc[a]:
        assert after.scores[pid] == pytest.approx(before.scores[pid])
    cache.delete_content(b)
    idx.refresh(("changed again",))
    again = idx.rank(terms, None, "pages", "or")
    assert again.per_doc[a] == before.per_doc[a]


def test_idf_is_document_local(cache):
    add(cache, "a", DOC_A)
    idx = KeywordIndex(cache.db)
    r = idx.rank([Term("attent"), Term("weather")], None, "pages", "or")
    n = 5   # "weather" is on page 3 only (df 1); "attent" on 3 of the 5 pages
    pid3 = cache.db.execute("SELECT id FROM pages WHERE number=3").fetchone()[0]
    dl = cache.db.execute("SELECT n_tokens FROM pages WHERE id=?", (pid3,)).fetchone()[0]
    avg = cache.db.execute("SELECT avg(n_tokens) FROM pages").fetchone()[0]
    idf = lambda df: math.log1p((n - df + 0.5) / (df + 0.5))  # noqa: E731 - Lucene's form
    norm = 1.2 * (0.25 + 0.75 * dl / avg)
    want = idf(1) * 1 * 2.2 / (1 + norm) + idf(3) * 3 * 2.2 / (3 + norm)   # 3 x "attention"
    assert r.scores[pid3] == pytest.approx(want)


def test_policies(cache):
    cid = add(cache, "a", DOC_A)
    idx = KeywordIndex(cache.db)
    terms = parse_query("attention cafe")
    assert len(idx.rank(terms, None, "pages", "or").per_doc[cid]) == 3
    assert len(idx.rank(terms, None, "pages", "and").per_doc[cid]) == 1
    assert idx.rank(terms, {cid + 99}, "pages", "or").per_doc == {}


def test_doc_bm25_over_documents_as_units(cache):
    a = add(cache, "a", DOC_A)
    b = add(cache, "b", DOC_B)
    c = add(cache, "c", DOC_C)
    idx = KeywordIndex(cache.db)
    r = idx.rank(parse_query("attention pasta"), None, "pages", "or")
    docs = {"a.pdf": a, "b.pdf": b, "c.pdf": c}
    got = keyword.doc_bm25(r, docs)
    lens = {cid: cache.db.execute("SELECT sum(n_tokens) FROM pages WHERE content_id=?",
                                  (cid,)).fetchone()[0] for cid in (a, b, c)}
    avg = sum(lens.values()) / 3

    def tf(cid, word):
        return sum(cache.db.execute(
            "SELECT count(*) FROM pages_fts_instance WHERE term=? AND doc IN"
            " (SELECT id FROM pages WHERE content_id=?)", (word, cid)).fetchone())

    def part(cid, word, df):
        idf = math.log(1 + (3 - df + 0.5) / (df + 0.5))
        t = tf(cid, word)
        return idf * t * 2.2 / (t + 1.2 * (0.25 + 0.75 * lens[cid] / avg)) if t else 0.0

    for name, cid in docs.items():
        assert got[name] == pytest.approx(part(cid, "attent", 3) + part(cid, "pasta", 2))
    order = keyword.doc_order(r, docs)
    assert order == sorted(docs, key=lambda d: -got[d])
    # the per-document page lists are untouched by the document statistics
    alone = idx.rank(parse_query("attention pasta"), {a}, "pages", "or")
    assert alone.per_doc[a] == r.per_doc[a]


def test_query_rarity_share_is_the_share_of_rarity_mass(cache):
    a = add(cache, "a", DOC_A)
    b = add(cache, "b", DOC_B)
    idx = KeywordIndex(cache.db)
    r = idx.rank(parse_query("attention weather zyzzyva"), None, "pages", "or")
    cov = keyword.query_rarity_share(r, {"a.pdf": a, "b.pdf": b})
    idf = {t: math.log(1 + (2 - df + 0.5) / (df + 0.5))
           for t, df in (("attent", 2), ("weather", 1), ("zyzzyva", 0))}
    total = sum(idf.values())
    pid = {n: i for i, n in cache.db.execute(
        "SELECT id, number FROM pages WHERE content_id=?", (a,))}
    assert cov[pid[3]] == pytest.approx((idf["attent"] + idf["weather"]) / total)
    assert cov[pid[1]] == pytest.approx(idf["attent"] / total)
    assert all(0 < v < 1 for v in cov.values())   # nobody holds the unknown word


def test_closed_compound_matches_its_open_and_hyphenated_forms(cache):
    cid = add(cache, "a", ["a feed-forward layer with a forward pass", "feed the cat",
                           "the feedforward network", "go forward, feed later"])
    idx = KeywordIndex(cache.db)
    pid = {n: i for i, n in cache.db.execute("SELECT id, number FROM pages")}
    terms = parse_query("feedforward")
    assert idx.decompound   # the default, the product's
    r = idx.rank(terms, None, "pages", "or")
    assert sorted(r.per_doc[cid]) == [pid[1], pid[3]]   # adjacent pairs only, not p2/p4
    assert r.row_terms[pid[1]] == frozenset({"feedforward"})
    idx.decompound = False
    assert sorted(idx.rank(terms, None, "pages", "or").per_doc[cid]) == [pid[3]]
    for q in hostile_queries():
        idx.rank(parse_query(q), None, "pages", "or")
        idx.rank(parse_query(q), None, "sections", "or")
