"""The query syntax (pdftui.search.query), identifiers, and what each operator does to a
real search over real corpus PDFs (phrases, exclusions in every arm, fields, identifiers)."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pdftui.store.database import Cache
from pdftui.identifiers import identifiers_in, normalize
from pdftui.library import Library
from pdftui.search import SearchService
from pdftui.search.keyword import parse_query
from pdftui.search.query import (Field, FieldName, Query, as_you_type, parse, parse_years,
                                 phrase_regex)

from .conftest import shared_index
from .harness import holds
from .invariants import assert_well_parsed, assert_well_ranked
from .test_keyword import add, hostile_queries

V5 = "arxiv-1706.03762v5-attention-is-all-you-need.pdf"
V7 = "arxiv-1706.03762v7-attention-is-all-you-need.pdf"
ECAPA = "arxiv-2005.07143-ecapa-tdnn-speaker-verification.pdf"
CMB = "arxiv-0908.0054-ultralight-bosonic-dark-matter-cmb.pdf"
RESNET = "arxiv-1512.03385-resnet.pdf"

T, A, Y, D, S = (FieldName.TITLE, FieldName.AUTHOR, FieldName.YEAR, FieldName.DOC,
                 FieldName.SECTION)

# input -> (words, phrases, excluded, fields, identifiers)
TABLE = [
    ("attention is all you need", (("attention", "is", "all", "you", "need"), (), (), (), ())),
    ('"exact phrase" word', (("word",), ("exact phrase",), (), (), ())),
    ('"unclosed phrase runs', ((), ("unclosed phrase runs",), (), (), ())),
    ('"single"', (("single",), (), (), (), ())),
    ('""', ((), (), (), (), ())),
    ("attention -transformer", (("attention",), (), ("transformer",), (), ())),
    ('-"a phrase" x', (("x",), (), ("a phrase",), (), ())),
    ("-trans* x", (("x",), (), ("trans*",), (), ())),
    ("-1 offset", (("-1", "offset"), (), (), (), ())),
    ("- alone", (("-", "alone"), (), (), (), ())),
    ("title:simple", ((), (), (), (Field(T, "simple"),), ())),
    ('Title:"made simple" paxos', (("paxos",), (), (), (Field(T, "made simple"),), ())),
    ("author:vaswani", ((), (), (), (Field(A, "vaswani"),), ())),
    ("year:2017", ((), (), (), (Field(Y, "2017", years=(2017, 2017)),), ())),
    ("year:2015..2019", ((), (), (), (Field(Y, "2015..2019", years=(2015, 2019)),), ())),
    ("year:>2018", ((), (), (), (Field(Y, ">2018", years=(2019, None)),), ())),
    ("year:<=2000", ((), (), (), (Field(Y, "<=2000", years=(None, 2000)),), ())),
    ("doc:google-* chunk", (("chunk",), (), (), (Field(D, "google-*"),), ())),
    ("section:attention", ((), (), (), (Field(S, "attention"),), ())),
    ("-doc:draft* x", (("x",), (), (), (Field(D, "draft*", negated=True),), ())),
    ("TODO: fix", (("TODO:", "fix"), (), (), (), ())),
    ("38.101", (("38.101",), (), (), (), ("38.101",))),
    ("column:term", (("column:term",), (), (), (), ())),
    ("title:", ((), (), (), (), ())),
    ("doc: attention", (("attention",), (), (), (), ())),
    ("fin*", (("fin*",), (), (), (), ())),
    ("1706.03762", (("1706.03762",), (), (), (), ("1706.03762",))),
    ("arXiv:1706.03762v7", (("arXiv:1706.03762v7",), (), (), (), ("1706.03762v7",))),
    ("RFC 7231", (("RFC", "7231"), (), (), (), ("rfc7231",))),
    ("C++ and x86_64", (("C++", "and", "x86_64"), (), (), (), ("c++", "x86_64"))),
    ('"don\'t" AND (', (("don't", "AND", "("), (), (), (), ())),
]


@pytest.mark.parametrize("text,want", TABLE, ids=[t for t, _ in TABLE])
def test_parser_table(text, want):
    q = parse(text)
    assert (q.words, q.phrases, q.excluded, q.fields, q.identifiers) == want


def test_parser_notes_and_text():
    q = parse("year:abc dropout")
    assert q.fields == () and q.words == ("abc", "dropout") and "not a year" in q.notes[0]
    q = parse('fin* "exact phrase" -x title:y')
    assert q.text == "fin* exact phrase" and q.semantic_text == "fin exact phrase"
    assert q.has_syntax and not parse("plain words").has_syntax
    assert parse("RFC 7231 now").loose == ("now",)
    assert parse_years("2019-2015") == (2015, 2019) and parse_years("20") is None
    assert parse("doc: attention").notes == (
        "doc: has no value (write doc:VALUE, no space): left out",)
    assert parse("?!.,;").semantic_text == "" and parse("注意力").semantic_text == "注意力"


TYPING = [
    ("dropo", "dropo*"), ("dropout ", "dropout "), ("dropout ra", "dropout ra*"),
    ("multi-he", "multi-he*"), ("1706", "1706"), ("d", "d"), ("dropout r", "dropout"),
    ("C++ c", "C++"), ('"scaled dot-pro', '"scaled dot-pro*"'), ('"scal', '"scal*"'),
    ('"scaled d', '"scaled d*"'), ('"s', '"s'), ('"dot 12', '"dot 12'),
    ('"scaled dot-product"', '"scaled dot-product"'),
    ("attention -tra", "attention"), ('attention -"multi he', "attention"),
    ("attention -author:vas", "attention"), ("attention -1", "attention -1"),
    ("author:vas", "author:vas*"), ("author:v", "author:v*"), ('title:"made sim', 'title:"made sim*"'),
    ("section:train", "section:train*"), ("doc:goo", "doc:goo"),
    ("attention title:", "attention"), ("model year:201", "model"),
    ("model year:2017", "model year:2017"), ("", ""), ("author:", "author*"),
    ("year:201", "year*"),
]


@pytest.mark.parametrize("typed,run", TYPING, ids=[t for t, _ in TYPING])
def test_as_you_type_table(typed, run):
    assert as_you_type(typed) == run


def test_as_you_type_never_raises():
    for text in hostile_queries() + [None, 12, '"', '-"', "-", "title:\"", "x" * 20_000]:
        typed = as_you_type(text)
        # what runs while typing is a well-formed query made of what was typed: at most a
        # closing quote and a prefix star more
        assert isinstance(typed, str) and len(typed) <= len(text if isinstance(text, str)
                                                             else str(text)) + 2
        assert_well_parsed(parse(typed))


def test_parser_never_raises_on_hostile_queries():
    for text in hostile_queries() + [None, b"bytes", 12, "\x00\x1b[31m", "x" * 20_000]:
        assert_well_parsed(parse(text))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80)
       | st.text(alphabet='"-:*. abcyeartitl()2017+/', max_size=40))
def test_parser_never_raises(text):
    q = parse(text)
    assert isinstance(q, Query) and all(isinstance(f, Field) for f in q.fields)
    assert_well_parsed(q)


def test_phrase_regex():
    rx = re.compile(phrase_regex("multi-head attention"), re.IGNORECASE)
    assert rx.search("The Multi-Head\nAttention layer") and rx.search("multi head attentions")
    assert re.search(phrase_regex("chunk server"), "two Chunkservers", re.IGNORECASE)
    assert not rx.search("attention multi-head") and phrase_regex("!!") == ""


IDENTS = [
    ("1706.03762", "1706.03762"), ("arXiv:1706.03762v7", "1706.03762v7"),
    ("quant-ph/9508027", "quant-ph/9508027"), ("10.7717/peerj-cs.118", "10.7717/peerj-cs.118"),
    ("https://doi.org/10.7717/peerj-cs.118.", "10.7717/peerj-cs.118"), ("v1.2.3", "v1.2.3"),
    ("x86_64", "x86_64"), ("C++", "c++"), ("C#", "c#"), ("3.2.1.", "3.2.1"), ("(20.04)", "20.04"),
    ("RFC 7231", "rfc7231"), ("multi-agent", None), ("state-of-the-art", None),
    ("TODO:", None), ("don't", None), ("2017", None), ("attention", None), ("", None),
]


@pytest.mark.parametrize("token,want", IDENTS)
def test_identifier_normalize(token, want):
    assert normalize(token) == want


def test_identifiers_in_text_with_versions():
    got = identifiers_in("arXiv:1706.03762v7 [cs.CL] 6 Dec 2017. See RFC 7231 and C++ on "
                         "x86_64; 3.2.1 Scaled Dot-Product Attention")
    assert {"1706.03762v7", "1706.03762", "rfc7231", "c++", "x86_64", "3.2.1"} <= set(got)
    assert "2017" not in got and "dot-product" not in got
    assert identifiers_in("") == {} and identifiers_in("quant-ph/9508027v2")["quant-ph/9508027"]


def test_schema_v2_cache_gains_identifiers_from_cached_text(tmp_path):
    """A v2 cache is migrated in place: the identifier and word tables are filled from
    the cached page text, nothing is extracted again."""
    c = Cache(tmp_path / "cache")
    cid = add(c, "a", ["The stamp arXiv:1706.03762v7 and C++ code.", "dropout rate 0.1"])
    c.db.execute("DROP TABLE page_idents")
    c.db.execute("DROP TABLE section_idents")
    c.db.execute("DROP TABLE words")
    c.db.execute("PRAGMA user_version=2")
    c.close()
    c = Cache(tmp_path / "cache")
    try:
        got = {i for (i,) in c.db.execute("SELECT ident FROM page_idents")}
        assert {"1706.03762v7", "1706.03762", "c++", "0.1"} <= got
        words = {w for (w,) in c.db.execute("SELECT word FROM words WHERE content_id=?", (cid,))}
        assert {"dropout", "rate", "stamp"} <= words
        assert c.db.execute("SELECT count(*) FROM pages WHERE content_id=?", (cid,)).fetchone()[0] == 2
        c.delete_content(cid)
        for table in ("page_idents", "section_idents", "words"):
            assert c.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0
    finally:
        c.close()


# -- real searches ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def attention(tmp_path_factory):
    """Both Attention papers, the ECAPA-TDNN paper and the dark-matter paper, embedded."""
    folder, cache = shared_index(tmp_path_factory, "query", [V5, V7, ECAPA, CMB])
    service = SearchService(folder, cache_dir=cache)
    lib = Library(folder, cache)
    yield service, lib
    lib.close()
    service.close()


def page_text(lib: Library, hit) -> str:
    return lib.page(hit.doc, hit.page).text


def hit_body(lib: Library, hit) -> tuple[str, str]:
    """``(title, body)`` of a hit: "" and its page's text, or a section's title and own
    text (the text before its first subsection, which its excerpt comes from and the
    section index holds)."""
    if hit.section_id is None:
        return "", page_text(lib, hit)
    title, text, own = lib.db.execute("SELECT title, text, own_chars FROM sections"
                                      " WHERE id=?", (hit.section_id,)).fetchone()
    return title, text if own < 0 else text[:own]


def hit_text(lib: Library, hit) -> str:
    """What a hit is: its page's text, or a section's title and own text."""
    return "\n".join(hit_body(lib, hit))


MODES = ["keyword", "semantic", "hybrid"]
GRANULARITIES = ["page", "section"]


@pytest.mark.parametrize("granularity", GRANULARITIES)
@pytest.mark.parametrize("mode", MODES)
def test_phrase_keeps_only_hits_holding_it_and_the_excerpt_shows_it(attention, mode,
                                                                   granularity):
    service, lib = attention
    # the last one is written closed up in the papers ("checkpoints")
    for phrase in ("scaled dot-product attention", "multi-head attention", "check points"):
        res = service.search_sync(f'"{phrase}"', mode=mode, granularity=granularity,
                                  top_k=50)
        assert res.hits, phrase
        rx = re.compile(phrase_regex(phrase), re.IGNORECASE)
        for h in res.hits:
            assert holds(hit_text(lib, h), phrase), (phrase, h.doc, h.page, h.section)
            if rx.search(hit_body(lib, h)[1]):   # not in a section's title only
                assert rx.search(h.excerpt), ("the excerpt shows the phrase", phrase,
                                              h.doc, h.page, h.excerpt[:200])
        loose = service.search_sync(phrase, mode=mode, granularity=granularity, top_k=50)
        assert len(loose.hits) > len(res.hits), ("the loose words match more hits", phrase)
    assert not holds("check the points", "check points")
    assert holds("averaging the last 5 checkpoints", "check points")


def test_phrase_excerpt_beats_the_semantic_unit():
    """A hit only the semantic arm found shows the passage holding the required phrase,
    not the passage of its best unit; a long passage is cut around the phrase."""
    from pdftui.search.excerpt import choose

    filler = "Recurrent models compute hidden states one position after another. "
    # paragraphs longer than PASSAGE_CHARS: the unit's passage is not run on into the phrase
    blocks = [filler * 10, "We call our particular attention Scaled Dot-Product Attention.",
              filler * 2]
    page = "\n".join(blocks)
    unit = (page.index(blocks[2]), len(page))   # the best unit lies in the last block
    _i, text = choose(blocks, [], unit_span=unit, page_text=page)
    assert "Scaled" not in text
    _i, text = choose(blocks, [], unit_span=unit, page_text=page,
                      phrases=["scaled dot-product attention"])
    assert "Scaled Dot-Product Attention" in text
    # a phrase broken across two blocks no passage joins is still shown whole
    split = [filler * 3, "Scaled Dot-Product", "Attention is what we call it.", filler]
    _i, text = choose(split, [], phrases=["scaled dot-product attention"])
    assert "Scaled Dot-Product Attention" in text
    # deep inside a very long passage: the window holds the phrase
    long = [filler * 60 + "then scaled dot-product attention, " + filler * 10]
    _i, text = choose(long, [], phrases=["scaled dot-product attention"])
    assert "scaled dot-product attention" in text and text.startswith("…")


def test_typing_a_query_never_empties_the_list(attention):
    """Search as you type, keystroke by keystroke: once the first word has 3 letters,
    every state of the box lists hits (no empty list between keystrokes), and an
    unfinished phrase lists only pages holding it so far."""
    service, lib = attention
    for query in ('"scaled dot-product attention"', "speaker verification -ecapa",
                  "author:vaswani attention", 'attention -"multi-head" layers'):
        for n in range(4, len(query) + 1):
            res = service.search_sync(as_you_type(query[:n]), mode="keyword", top_k=5)
            assert res.hits, (query[:n], as_you_type(query[:n]))
    res = service.search_sync(as_you_type('"scaled dot-pro'), mode="keyword", top_k=50)
    full = service.search_sync('"scaled dot-product"', mode="keyword", top_k=50)
    assert {(h.doc, h.page) for h in res.hits} >= {(h.doc, h.page) for h in full.hits}
    for h in res.hits:
        assert holds(page_text(lib, h), "scaled dot-pro*")


def test_a_prefix_matches_the_stem_of_the_word_being_typed(attention):
    """The index holds porter stems: ``attention*`` must find the pages "attention" finds
    (stem "attent"), ``scaled*`` those holding "scale", and a word typed past its stem
    (``attenti*``, ``trainin*``) those of the stem, not nothing."""
    service, lib = attention
    for typed, word in (("attention*", "attention"), ("scaled*", "scaled"),
                        ("attenti*", "attention"), ("trainin*", "training"),
                        ("multi-hea*", "multi-head")):
        got = service.search_sync(typed, mode="keyword", top_k=50)
        want = service.search_sync(word, mode="keyword", top_k=50)
        assert want.hits and {(h.doc, h.page) for h in got.hits} >= \
            {(h.doc, h.page) for h in want.hits}, typed
    engine = service._get_engine()
    t = engine.kw.complete_prefix(parse_query("attenti*")[0])
    assert t.prefix and "attent" in t.stems and t.matches("attent") and t.matches("attentive")
    assert not t.matches("atten") and parse_query("fin*")[0].stems == ()


def test_phrase_in_wrong_order_matches_nothing_adjacent(attention):
    service, lib = attention
    res = service.search_sync('"attention dot-product scaled"', mode="keyword", top_k=50)
    assert res.hits == []


#: (query, what it excludes): a word, a phrase, a word on both Attention papers' first
#: page (their byline is the head-field list's page; their head vector the document
#: arm's), and a prefix.
EXCLUSIONS = [
    ("attention -transformer", "transformer"),
    ('attention -"multi-head"', "multi-head"),
    ("vaswani attention -transformer", "transformer"),
    ("speaker verification -ecapa", "ecapa"),
    ("dark matter spectrum -boson*", "boson*"),
]


@pytest.mark.parametrize("granularity", GRANULARITIES)
@pytest.mark.parametrize("mode", MODES)
def test_exclusion_removes_every_hit_holding_it(attention, mode, granularity):
    """In every mode and granularity no hit (page; section title or own text) holds an
    excluded word or phrase, and the coverage line says what was excluded; without the
    exclusion some hits do hold it (so this can fail)."""
    service, lib = attention
    held_before = 0
    for query, what in EXCLUSIONS:
        res = service.search_sync(query, mode=mode, granularity=granularity, top_k=100)
        assert res.hits, query
        for h in res.hits:
            assert not holds(hit_text(lib, h), what), (query, h.doc, h.page, h.section)
        assert res.coverage.excluded.terms == (what.strip('"'),)
        assert res.coverage.excluded.rows > 0 and "excluded" in res.coverage.note
        plain = service.search_sync(query.rsplit(" -", 1)[0], mode=mode,
                                    granularity=granularity, top_k=100)
        held_before += sum(holds(hit_text(lib, h), what) for h in plain.hits)
    assert held_before > 0


def test_exclusion_leaves_every_arm_list(attention):
    """Not only the fused list: the keyword, semantic and head-field lists of hybrid
    search hold nothing excluded."""
    service, lib = attention
    engine = service._get_engine()
    engine.refresh()
    searchable = [d for d in engine._docs if d.reason is None]
    cov = engine.coverage(searchable, True)
    for query, what in EXCLUSIONS:
        for kind in ("page", "section"):
            out = engine.rank(query, "hybrid", kind, searchable, cov, top_k=100)
            lists = {"keyword": out.keyword.keys, "semantic": out.semantic.keys,
                     "units": out.semantic.units or [], "heads": out.semantic.heads or [],
                     "fused": out.run.keys}
            for arm, keys in lists.items():
                for key in keys:
                    if kind == "page":
                        text = lib.page(key[0], key[1]).text
                    else:
                        text = hit_text(lib, type("H", (), {"section_id": key[1]}))
                    assert not holds(text, what), (query, kind, arm, key)
        out = engine.rank(query, "hybrid", "page", searchable, cov, top_k=100)
        for (doc, page), _share in out.keyword.head:
            assert not holds(lib.page(doc, page).text, what), (query, "head", doc)
    # the byline query's head-field list is not empty without the exclusion
    out = engine.rank("vaswani attention", "hybrid", "page", searchable, cov)
    assert out.keyword.head


def test_exclusion_only_query_says_so(attention):
    service, _lib = attention
    res = service.search_sync("-dead", mode="hybrid")
    assert res.hits == [] and "only excludes" in res.coverage.note
    # another note first (the fields') does not hide that something was excluded
    res = service.search_sync("author:vaswani attention -transformer", mode="hybrid")
    note = res.coverage.note
    assert "author:vaswani" in note and "excluded" in note and "transformer" in note


def test_an_excluded_phrase_is_quoted_and_the_note_says_how_to_leave_out_a_document():
    """Second trial: ``sparse attention -"big bird"`` left Big Bird's pages that do not
    say the name in the list, and the note ("excluded 45 pages holding big bird") did not
    say that an exclusion is by page, nor how to leave the paper out."""
    from pdftui.search.coverage import excluded_note

    assert excluded_note(45, "pages", ["big bird", "linformer"]) == \
        'excluded 45 pages holding "big bird", linformer; whole documents: -title:"big bird"'
    assert excluded_note(3, "sections", ["dropout"]) == \
        "excluded 3 sections holding dropout; whole documents: -title:dropout"


@pytest.mark.parametrize("mode", MODES)
def test_a_query_without_a_letter_or_a_field_value_says_so(attention, mode):
    """Junk is treated alike in every mode: punctuation alone ("?!.,;" gave the semantic
    arm's nearest pages, "*" nothing) finds nothing and says why; a field without a value
    ("doc:" searched "doc" as a word) is left out with a note; the parser's notes (a year
    that is not one) reach the answer."""
    service, _lib = attention
    for junk in ("?!.,;", "*", "-("):
        res = service.search_sync(junk, mode=mode)
        assert res.hits == [] and res.coverage.note == \
            "the query has no letter or digit: nothing to search for"
    res = service.search_sync("doc: attention", mode=mode)
    assert res.hits and "doc: has no value" in res.coverage.note
    assert res.hits[0].doc in (V5, V7)
    res = service.search_sync("attention year:abc", mode=mode)
    assert "year:abc is not a year" in res.coverage.note


def test_author_field_puts_the_authored_papers_first(attention):
    service, _lib = attention
    res = service.search_sync("author:vaswani", mode="hybrid")
    assert {h.doc for h in res.hits} == {V5, V7}
    assert res.coverage.fields.to_json() == {"query": "author:vaswani", "documents": 2,
                                             "of": 4}
    res = service.search_sync("author:vaswani attention", mode="hybrid")
    assert {h.doc for h in res.hits} == {V5, V7}
    # the JSON's coverage says what the field admitted, as the screen does (it said 4)
    cov = res.to_json()["coverage"]
    assert (cov["searched"], cov["total"], cov["semantic_searched"]) == (2, 4, 2)
    res = service.search_sync("-author:vaswani attention", mode="hybrid")
    assert res.hits and not {h.doc for h in res.hits} & {V5, V7}


def test_title_year_doc_and_section_fields(attention):
    service, lib = attention
    assert {h.doc for h in service.search_sync("title:speaker", mode="keyword").hits} == {ECAPA}
    assert {h.doc for h in service.search_sync("title:attention model").hits} <= {V5, V7}
    assert {h.doc for h in service.search_sync("year:2017 model").hits} == {V5, V7}
    assert {h.doc for h in service.search_sync("year:>2018 model").hits} == {ECAPA}
    assert service.search_sync("year:2030..2040 model").hits == []
    assert {h.doc for h in service.search_sync("doc:ecapa model").hits} == {ECAPA}
    assert {h.doc for h in service.search_sync("doc:*0908* mass").hits} == {CMB}
    res = service.search_sync('section:"scaled dot-product" attention', mode="keyword")
    assert res.hits
    for h in res.hits:
        sec = lib.section_at(h.doc, h.page, 0)
        spans = [s for s in lib.sections(h.doc) if "scaled dot-product" in s.title.lower()]
        assert any(s.start_page <= h.page <= s.last_page for s in spans)
        assert sec is not None
    sec = service.search_sync("section:training", mode="hybrid", granularity="section")
    assert sec.hits and all("training" in h.section.lower() for h in sec.hits)


def test_identifier_puts_both_attention_papers_first(attention):
    service, _lib = attention
    for mode in ("keyword", "hybrid"):
        res = service.search_sync("1706.03762", mode=mode)
        docs = list(dict.fromkeys(h.doc for h in res.hits))
        assert set(docs[:2]) == {V5, V7}, (mode, docs)
        # an identifier found exactly is an answer, not "no strong match"
        assert not res.weak and res.coverage.evidence.to_json()["keyword"] == 1.0, res.coverage
    res = service.search_sync("arXiv:1706.03762v7", mode="keyword")
    docs = [h.doc for h in res.hits]
    assert docs[0] == V7   # the version typed leads; its word stems find the rest after
    assert docs == sorted(docs, key=lambda d: d != V7)


def test_identifier_rows_match_as_typed(attention):
    service, _lib = attention
    engine = service._get_engine()
    engine.refresh()
    got = engine.db.execute("SELECT count(*) FROM page_idents WHERE ident='1706.03762'"
                            ).fetchone()[0]
    assert got >= 2
    terms = engine.query_terms(parse("1706.03762 dropout"))
    # the identifier as typed, then its word stems (they find "arXiv: 1706.03762")
    assert [(t.text, t.ident) for t in terms] == [
        ("dropout", False), ("1706.03762", True), ("1706", False), ("03762", False)]
    # an identifier no page holds falls back to its words (as before)
    assert all(not t.ident for t in engine.query_terms(parse("9999.99999")))


def test_hostile_queries_with_syntax_in_every_mode(attention):
    service, _lib = attention
    for q in hostile_queries()[:40] + ['"', '-"', "title:", 'title:"', "year:>", "-",
                                       "section:* x", "doc:[ x", "-author: x"]:
        for mode in ("keyword", "hybrid"):
            res = service.search_sync(q, mode=mode, top_k=3)
            assert len(res.hits) <= 3
            assert_well_ranked(res)
    with pytest.raises(ValueError):
        service.search_sync("x", mode="nope")


def test_typo_suggestions_and_the_typo_note(attention):
    service, _lib = attention
    res = service.search_sync("dropuot rate", mode="hybrid")
    assert res.suggestions["dropuot"][0] == "dropout"
    assert res.to_json()["suggestions"] == res.suggestions
    only = service.search_sync("dropuot", mode="keyword")
    assert only.hits == [] and "only because of a typo" in only.coverage.note
    assert "'dropout'" in only.coverage.note
    # nonsense whose words lie near some word is not "a typo": the fixed query would
    # find no strong answer either
    assert "typo" not in (service.search_sync("lorem ipsum dolor", mode="keyword"
                                              ).coverage.note or "")
    assert service.search_sync("dropout rate", mode="hybrid").suggestions == {}
    # a word no document holds and nothing is near: no suggestion, no typo note
    none = service.search_sync("qxzvkw", mode="keyword")
    assert none.suggestions == {} and "typo" not in (none.coverage.note or "")


def test_an_answer_says_which_query_word_no_document_holds(attention):
    """Fresh-user trial 14: "how does Kubernetes schedule pods onto nodes" was answered
    as strong with no word that "kubernetes" is in no document. When the other words
    carry a strong answer, a note names the words no document holds; a weak answer says
    "no strong match" instead, and a query every word of which some page holds, nothing."""
    service, _lib = attention
    q = "scaled dot product attention heads kubernetes"
    res = service.search_sync(q, mode="hybrid")
    assert res.hits and not res.weak
    assert "no document holds 'kubernetes'" in res.coverage.note
    assert "no document holds" not in (service.search_sync(
        "scaled dot product attention heads", mode="hybrid").coverage.note or "")
    weak = service.search_sync("kubernetes pods", mode="hybrid")
    assert weak.weak and "no document holds 'kubernetes'" not in (weak.coverage.note or "")


def test_weak_answers_on_nonsense_and_not_on_real_questions(attention):
    service, _lib = attention
    from pathlib import Path

    nonsense = [ln for ln in (Path(__file__).parent / "fixtures" / "nonsense_queries.txt")
                .read_text().splitlines() if ln and not ln.startswith("#")]
    weak = [q for q in nonsense[::4] if service.search_sync(q, mode="hybrid").weak]
    assert len(weak) >= 0.9 * len(nonsense[::4]), set(nonsense[::4]) - set(weak)
    for q in ("what dropout rate did the base model use", "scaled dot-product attention",
              "speaker verification with channel attention", "dark matter and the CMB"):
        res = service.search_sync(q, mode="hybrid")
        assert not res.weak, (q, res.coverage.evidence)
        assert res.to_json()["weak"] is False
    res = service.search_sync("lorem ipsum dolor sit amet", mode="hybrid")
    assert res.weak and res.hits and res.coverage.note.startswith("no strong match")
