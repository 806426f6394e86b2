"""Ruled tables become one searchable record per row, "Header: value; Header: value", kept
with their page; prose and unruled pages are left as they were."""

from __future__ import annotations

import shutil

import pytest

from pdftui import tables
from pdftui.extract import extract_document
from pdftui.index import index_folder
from pdftui.search.engine import Engine

from .conftest import CORPUS, TRICKY

BOND = TRICKY / "real" / "cjk-chinese-bond-prospectus-table.pdf"

pytestmark = pytest.mark.skipif(not BOND.exists(), reason="no ../shared/tricky")


def test_bond_prospectus_rows_are_records_with_their_headers():
    ex = extract_document(BOND)
    texts = [b.text for b in ex.pages[0].blocks]
    assert ("序号: 1; 金融机构名称: 工商银行; 授信总额: 330,435.30; 已使用情况: 234,850.00;"
            " 剩余额度: 95,585.30") in texts
    assert any(t.startswith("年份: 2023; 主体信用评级: AA+; 涵义: 偿还债务的能力很强")
               for t in texts)
    # the captions and the prose around the tables stay as they were
    assert "表7-2:截至2023 年3 月末发行人授信及使用情况" in texts
    assert "本次发行不引用主体评级,未进行债项评级安排。" in texts
    assert any("table row(s) as records" in n for n in ex.notes)
    # without tables the cells scatter: the header and the value stand apart
    plain = [b.text for b in extract_document(BOND, tables=False).pages[0].blocks]
    assert not any("金融机构名称: 工商银行" in t for t in plain)


def test_a_row_is_found_and_its_excerpt_is_the_row(tmp_path):
    folder = tmp_path / "papers"
    folder.mkdir()
    shutil.copy2(BOND, folder / BOND.name)
    index_folder(folder, tmp_path / "cache", embed=False)
    eng = Engine(folder, tmp_path / "cache")
    try:
        res = eng.search("徽商银行", mode="keyword")
        assert res.hits and res.hits[0].excerpt.startswith(
            "序号: 2; 金融机构名称: 徽商银行南京中山北路支行; 授信总额: 330,435.30"), res.hits
    finally:
        eng.close()


def test_prose_pages_are_left_alone_and_the_parsing_table_is_rows():
    """The Attention paper (v5): its prose pages keep their paragraphs; Table 4 (English
    constituency parsing, ruled) becomes one record per parser."""
    ex = extract_document(CORPUS / "arxiv-1706.03762v5-attention-is-all-you-need.pdf")
    assert not any(b.text.count("; ") > 1 and ": " in b.text
                   for p in ex.pages[:8] for b in p.blocks), "a table record in the prose"
    rows = [b.text for b in ex.pages[8].blocks]
    assert ("Parser: Petrov et al. (2006) [29]; Training: WSJ only, discriminative;"
            " WSJ 23 F1: 90.4") in rows
    assert any("table row(s) as records on 1 page(s): 9" in n for n in ex.notes)


def test_records_name_every_value_by_its_column():
    cells = [["Model", "BLEU", ""], ["base", "27.3", "x"], ["big", "", "28.4"]]
    assert tables.records(cells) == [(1, "Model: base; BLEU: 27.3; BLEU: x"),
                                     (2, "Model: big; BLEU: 28.4")]
    # a first row of numbers is data, not a header
    assert tables.records([["1", "2"], ["3", "4"]]) == [(0, "1; 2"), (1, "3; 4")]


def test_stacked_labels_in_one_grid_row_split_into_rows():
    grid = tables.Grid((0, 0, 100, 100), [[(0, 0, 50, 20), (50, 0, 100, 20)],
                                          [(0, 20, 50, 100), (50, 20, 100, 100)]])
    lines = [("method", (1, 5, 20, 10)), ("error", (60, 5, 80, 10)),
             ("Maxout", (1, 30, 20, 35)), ("9.38", (60, 30, 70, 35)),
             ("NIN", (1, 40, 20, 45)), ("8.81", (60, 40, 70, 45))]
    cells, boxes = tables.fill(grid, lines)
    assert tables.records(cells) == [(1, "method: Maxout; error: 9.38"),
                                     (2, "method: NIN; error: 8.81")]
    assert boxes[1] == (1, 30, 70, 35)
    # half the cells empty: a grid of boxes, not a table of text
    assert tables.fill(grid, lines[:1]) is None


def test_the_gate_needs_a_caption_and_a_text_grid():
    row = [(0, 10, 20, 14), (30, 10, 50, 14), (60, 10, 80, 14)]
    grid = [(x0, y0 + 20 * k, x1, y1 + 20 * k) for k in range(3) for x0, y0, x1, y1 in row]
    assert tables.looks_tabular(grid, ["Table 2: results", "x"])
    assert not tables.looks_tabular(grid, ["Results are in the text"])
    assert not tables.looks_tabular(grid[:6], ["Table 2: results"])
