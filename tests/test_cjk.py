"""Chinese and Japanese queries match their characters as a run (adjacent bigrams), not as
characters scattered over a page, and the excerpt is the CJK block that holds them."""

from __future__ import annotations

import shutil

import pytest

from pdftui.index import index_folder
from pdftui.search import keyword
from pdftui.search.excerpt import choose
from pdftui.search.page_passages import grow, weighted_len
from pdftui.search.keyword import Term
from pdftui.search.engine import Engine

from .conftest import CORPUS, TRICKY

SURVEY = "cn-2003-machine-learning-strategies-survey-zh.pdf"
MADE21 = "21_accents_cjk_rtl.pdf"

pytestmark = pytest.mark.skipif(not (TRICKY / "made" / MADE21).exists()
                                or not (CORPUS / SURVEY).exists(), reason="no shared PDFs")


def test_cjk_runs_become_adjacent_bigrams():
    assert keyword.parse_query("天气") == [Term("天气", parts=("天", "气"))]
    assert [t.text for t in keyword.parse_query("天气预报")] == ["天气", "气预", "预报"]
    assert keyword.parse_query("天") == [Term("天")]
    mixed = keyword.parse_query("BM25 的 東京 ranking")
    assert [t.text for t in mixed] == ["bm25", "的", "東京", "rank"]
    assert keyword.parse_query("信用评级*")[-1] == Term("评级", parts=("评", "级"))
    # a block holds a bigram only where its two characters stand together
    stems = keyword.tokenize_many(["今天的天气很好", "天很好，空气也好"],
                                  keyword.parse_query("天气"))
    assert stems == [{"天气"}, set()]


@pytest.fixture(scope="module")
def cjk_folder(tmp_path_factory):
    base = tmp_path_factory.mktemp("cjk")
    folder = base / "papers"
    folder.mkdir()
    shutil.copy2(TRICKY / "made" / MADE21, folder / MADE21)
    shutil.copy2(CORPUS / SURVEY, folder / SURVEY)
    summary = index_folder(folder, base / "cache", embed=False)
    assert summary.indexed == 2, summary.to_json()
    eng = Engine(folder, base / "cache")
    yield eng
    eng.close()


def test_tianqi_matches_only_where_adjacent(cjk_folder):
    """made/21 has 天气 side by side; the survey has 天 (p. 7) but never 天气."""
    res = cjk_folder.search("天气", mode="keyword")
    assert [(h.doc, h.page) for h in res.hits] == [(MADE21, 1)], res.coverage
    # the excerpt is the Chinese block, not the page's Latin first paragraph
    assert res.hits[0].excerpt.startswith("今天的天气很好我们去公园"), res.hits[0].excerpt


def test_cjk_word_hits_only_pages_holding_it_as_a_run(cjk_folder):
    """数学 (mathematics) stands together on pages 1, 4 and 6 of the survey; 数 and 学 both
    occur, apart, on every other page, which matched as scattered characters before."""
    res = cjk_folder.search("数学", mode="keyword", top_k=20)
    assert sorted(h.page for h in res.hits) == [1, 4, 6]
    assert all(h.doc == SURVEY and "数学" in h.excerpt for h in res.hits)


def test_cjk_characters_weigh_more_towards_an_excerpt():
    assert weighted_len("今天的天气很好") == 28
    blocks = ["Zero width: password and cooperate, Greek with tonos, several more words of Latin text",
              "今天的天气很好我们去公园", "東京の天気は晴れ", "tail"]
    assert grow(blocks, 1) == "今天的天气很好我们去公园 東京の天気は晴れ"
    # the excerpt also runs on into the short block after it (it is under PASSAGE_CHARS)
    bi, text = choose(blocks, keyword.parse_query("天气"))
    assert bi == 1 and text == "今天的天气很好我们去公园 東京の天気は晴れ tail"
