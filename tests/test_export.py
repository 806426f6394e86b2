"""Export formats parse with their own well-kept parsers, and hostile titles and notes
cannot break them."""

from __future__ import annotations

import csv
import io
import json
import re

import bibtexparser
import pytest

from pdftui.triage.export import (ExportFormat, ExportItem, citekeys, md_escape, render,
                                  select, to_bibtex, to_csv, to_json, to_markdown)
from pdftui.triage.store import Clip, Mark

HOSTILE_TITLE = "Evil } @misc{pwn, title={x} [click](http://evil.example) <b>x</b> # 100% & $"
HOSTILE_NOTE = "line one\n# not a heading\n- not a list\n} @article{x,\n\x1b[31mred\x1b[0m"


def _items() -> list[ExportItem]:
    return [
        ExportItem("arxiv-1706.03762v5-attention.pdf", "/papers/arxiv-1706.03762v5-attention.pdf",
                   "Attention Is All You Need", ("Ashish Vaswani", "Noam Shazeer"), 2017,
                   "1706.03762", "", 15, Mark.KEEP, "the transformer paper",
                   (Clip("Attention is a function of a query and key-value pairs", 3, "3",
                         "3.2 Attention"),)),
        ExportItem("evil.pdf", "/papers/evil {x}.pdf", HOSTILE_TITLE, ("Łukasz Kaiser",),
                   2019, "", "10.1145/3600006.3613165", 2, Mark.TO_READ, HOSTILE_NOTE,
                   (Clip("a } clip @ with [link](javascript:x)", 7, "vii", "Intro_duction"),)),
        ExportItem("attention-copy.pdf", "/papers/attention-copy.pdf",
                   "Attention Is All You Need", ("Ashish Vaswani",), 2017, "", "", 15,
                   Mark.SKIP),
        ExportItem("unmarked.pdf", "/papers/unmarked.pdf", "Nothing", (), None),
    ]


def test_select_by_mark():
    items = _items() + [
        ExportItem("noted.pdf", "/papers/noted.pdf", "Noted", (), None, note="read §7"),
        ExportItem("clipped.pdf", "/papers/clipped.pdf", "Clipped", (), None,
                   clips=(Clip("a passage", 2, "2", ""),))]
    assert [i.doc for i in select(items, "keep")] == ["arxiv-1706.03762v5-attention.pdf"]
    # "any": a mark, a note or a clip (a noted but unmarked paper is triaged too)
    assert [i.doc for i in select(items, "any")] == [
        "arxiv-1706.03762v5-attention.pdf", "evil.pdf", "attention-copy.pdf", "noted.pdf",
        "clipped.pdf"]
    assert len(select(items, "all")) == 6
    assert [i.doc for i in select(items, "to-read")] == ["evil.pdf"]
    with pytest.raises(ValueError):
        select(items, "maybe")


def test_citekeys_are_stable_and_unique():
    items = _items()
    keys = citekeys(items)
    assert len(set(keys.values())) == len(items)
    assert keys["evil.pdf"] == "kaiser2019evil"
    assert keys["unmarked.pdf"] == "anonndnothing"
    # the two "vaswani2017attention" get a / b in doc order, whatever the input order
    assert {keys["attention-copy.pdf"], keys["arxiv-1706.03762v5-attention.pdf"]} == {
        "vaswani2017attentiona", "vaswani2017attentionb"}
    assert citekeys(list(reversed(items))) == keys


def test_bibtex_parses_and_keeps_the_values():
    text = to_bibtex(_items())
    db = bibtexparser.loads(text)
    by_id = {e["ID"]: e for e in db.entries}
    assert len(by_id) == 4                     # the hostile title opened no extra entry
    a = by_id["vaswani2017attentiona"]   # "arxiv-..." sorts before "attention-copy"
    assert a["ENTRYTYPE"] == "misc" and a["title"] == "{Attention Is All You Need}"
    assert a["author"] == "Ashish Vaswani and Noam Shazeer" and a["year"] == "2017"
    assert a["eprint"] == "1706.03762" and a["archiveprefix"] == "arXiv"
    assert a["file"] == "/papers/arxiv-1706.03762v5-attention.pdf"
    e = by_id["kaiser2019evil"]
    assert e["ENTRYTYPE"] == "article" and e["doi"] == "10.1145/3600006.3613165"
    assert "pwn" not in by_id and "@misc" not in e["title"].replace(r"{\char64}misc", "")
    assert r"\textbraceright{}" in e["title"] and r"\%" in e["title"] and r"\&" in e["title"]
    assert "\x1b" not in text
    assert e["file"] == "/papers/evil {x}.pdf"         # balanced: the path as it is


def test_markdown_escapes_titles_links_and_notes():
    text = to_markdown(_items(), "Reading list: papers")
    assert "### 2. Attention Is All You Need" in text   # after the paper to read
    assert "- Authors: Ashish Vaswani, Noam Shazeer" in text
    assert "- Mark: keep" in text and "- Year: 2017" in text
    assert "> Attention is a function of a query and key\\-value pairs" not in text
    assert "> — p. 3, 3.2 Attention" in text
    assert "> — p. vii, Intro\\_duction" in text
    # the hostile title is text: no link, no HTML, no heading or list inside the note
    assert "[click](http" not in text and re.search(r"(?<!\\)<", text) is None
    assert "\\<b>x\\</b>" in text   # every < escaped: no tag
    assert "\\[click\\](http\\://evil.example)" in text
    assert "\n# not a heading" not in text and "> \\# not a heading" in text
    assert "> \\- not a list" in text
    assert "\x1b" not in text and "[31m" not in text.replace("\\[31m", "")
    assert md_escape("*bold* _it_ `code`") == "\\*bold\\* \\_it\\_ \\`code\\`"
    # fresh-user finding: titles read as written where nothing in them is Markdown
    plain = 'Dynamo: Amazon\u2019s "Highly" Available Key-value Store (2007) & more!'
    assert md_escape(plain) == plain
    assert md_escape("&amp; &#38; <i>") == "\\&amp; \\&#38; \\<i>"
    assert md_escape("# head", line_start=True) == "\\# head"
    assert md_escape("3 Design > 3.3 Appends {sec 3.2}") == "3 Design > 3.3 Appends {sec 3.2}"
    assert md_escape("a\n> b") == "a\n\\> b"   # a block quote only where a line starts



def test_markdown_ids_keep_their_digits():
    """An arXiv id or DOI after "- arXiv: " is not at a line start: no backslash (a
    backslash before a digit is no Markdown escape, so it would show)."""
    text = to_markdown(_items())
    assert "- arXiv: 1706.03762\n" in text
    assert "- DOI: 10.1145/3600006.3613165\n" in text
    assert "\\1" not in text
    # where a number does start a line (a note's line), the delimiter is escaped
    assert md_escape("1. first", line_start=True) == "1\\. first"
    assert md_escape("2) second\n3. third") == "2) second\n3\\. third"
    assert md_escape("1706.03762", line_start=True) == "1706.03762"   # no list marker
    assert md_escape("- item") == "- item" and md_escape("- item", True) == "\\- item"


def test_csv_and_json_round_trip():
    items = _items()
    rows = list(csv.DictReader(io.StringIO(to_csv(items))))
    assert len(rows) == 4
    evil = next(r for r in rows if r["doc"] == "evil.pdf")
    assert evil["title"] == HOSTILE_TITLE and evil["mark"] == "to-read"
    assert evil["note"].startswith("line one\n# not a heading")
    assert "\x1b" not in evil["note"]
    assert evil["clips"].startswith("p. vii (Intro_duction): a } clip")
    data = json.loads(to_json(items))
    by_doc = {d["doc"]: d for d in data["documents"]}
    assert by_doc["arxiv-1706.03762v5-attention.pdf"]["clips"][0] == {
        "text": "Attention is a function of a query and key-value pairs", "page": 3,
        "page_label": "3", "section": "3.2 Attention"}
    for fmt in ExportFormat:
        assert render(items, fmt)


def test_skipped_papers_are_apart_from_the_reading_list_in_every_format():
    """Fresh-user finding: a paper marked skip was listed under "Reading list" with the
    papers to read. Every format now writes to read, keep, unmarked, then skipped; the
    Markdown list has a section per mark with the skipped ones in their own last
    section; BibTeX puts them after a comment saying so and names each mark."""
    items = _items()   # keep, to-read, skip, unmarked (folder order)
    chosen = select(items, "any")
    text = to_markdown(chosen, "Reading list: papers")
    heads = [ln for ln in text.splitlines() if ln.startswith("#")]
    assert heads[2].startswith("### 1. Evil ")
    assert heads[1:2] + heads[3:] == ["## To read", "## Keep", "### 2. Attention Is All You Need",
                                      "## Skipped (not in the reading list)",
                                      "### 1. Attention Is All You Need"], heads
    # the skipped paper is numbered and counted apart (trial: "3 documents", "### 3.")
    assert "2 documents · 1 skipped · exported" in text
    order = ["evil.pdf", "arxiv-1706.03762v5-attention.pdf", "attention-copy.pdf"]
    assert [r["doc"] for r in csv.DictReader(io.StringIO(to_csv(chosen)))] == order
    assert [d["doc"] for d in json.loads(to_json(chosen))["documents"]] == order
    bib = to_bibtex(chosen)
    db = bibtexparser.loads(bib)
    assert [e["keywords"] for e in db.entries] == ["pdftui-to-read", "pdftui-keep",
                                                   "pdftui-skip"]
    assert bib.index("@comment{Skipped") < bib.index("file = {/papers/attention-copy.pdf}")
    assert bib.count("@comment") == 1
    assert "@comment" not in to_bibtex(select(items, "keep"))
