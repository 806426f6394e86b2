"""Export formats parse with their own well-kept parsers, and hostile titles and notes
cannot break them."""

from __future__ import annotations

import csv
import io
import json
import re

import bibtexparser
import pytest

from pdftui.triage.bibtex import citekeys, to_bibtex
from pdftui.triage.export import (ExportFormat, ExportItem, md_escape, render, select, to_csv,
                                  to_json, to_markdown)
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
    # "any": a mark, a note or a clip (a noted but unmarked paper is triaged too); a
    # skipped work only when asked for (trial: skipped papers were exported after an
    # @comment by default)
    assert [i.doc for i in select(items, "any")] == [
        "arxiv-1706.03762v5-attention.pdf", "evil.pdf", "noted.pdf", "clipped.pdf"]
    assert len(select(items, "all")) == 6
    assert [i.doc for i in select(items, "skip")] == ["attention-copy.pdf"]
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
    assert a["ENTRYTYPE"] == "misc" and a["title"] == "Attention Is All You Need"
    assert a["author"] == "Vaswani, Ashish and Shazeer, Noam" and a["year"] == "2017"
    assert a["eprint"] == "1706.03762" and a["archiveprefix"] == "arXiv"
    assert a["url"] == "https://arxiv.org/abs/1706.03762"
    assert a["file"] == "/papers/arxiv-1706.03762v5-attention.pdf"
    # sixth trial: the private note went into ``note``, which styles print
    assert a["annote"] == "the transformer paper" and "note" not in a
    e = by_id["kaiser2019evil"]
    # a DOI alone names no journal: @misc with its doi (an @article needs its journal)
    assert e["ENTRYTYPE"] == "misc" and e["doi"] == "10.1145/3600006.3613165"
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
        "page_label": "3", "section": "3.2 Attention",
        "doc": "arxiv-1706.03762v5-attention.pdf"}
    for fmt in ExportFormat:
        assert render(items, fmt)


def test_skipped_papers_are_apart_from_the_reading_list_in_every_format():
    """Fresh-user finding: a paper marked skip was listed under "Reading list" with the
    papers to read. Every format now writes to read, keep, unmarked, then skipped; the
    Markdown list has a section per mark with the skipped ones in their own last
    section; BibTeX puts them after a comment saying so and names each mark."""
    items = _items()   # keep, to-read, skip, unmarked (folder order)
    chosen = [i for i in select(items, "all") if i.mark is not Mark.NONE]
    assert all(i.mark is not Mark.SKIP for i in select(items, "any"))   # left out unless asked
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


# ------------------------------------------------------------------ CSV formula cells
def test_csv_cells_that_start_a_formula_are_text():
    """Issue 33: a CSV cell starting with ``=``, ``+``, ``-``, ``@`` (a PDF title
    ``=HYPERLINK(...)``, a note ``@SUM(...)``) was written as is, so a spreadsheet ran it.
    Such cells now start with ``'`` (OWASP); Markdown, BibTeX and JSON are unchanged."""
    title = '=HYPERLINK("http://evil.example/?x="&A1,"click")'
    item = ExportItem("-evil.pdf", "/papers/-evil.pdf", title, ("+Cmd Person",), 2020,
                      "", "", 3, Mark.KEEP, "@SUM(1+1)\nsecond line",
                      (Clip("=1+2", 2, "2", "@sec"),))
    plain = ExportItem("fine.pdf", "/papers/fine.pdf", "A - B = C", (), None,
                       note="\tTabbed")
    rows = list(csv.DictReader(io.StringIO(to_csv([item, plain]))))
    evil = rows[0]
    assert evil["title"] == "'" + title
    assert evil["note"] == "'@SUM(1+1)\nsecond line"
    assert evil["authors"] == "'+Cmd Person" and evil["doc"] == "'-evil.pdf"
    assert evil["clips"] == "p. 2 (@sec): =1+2"          # starts with "p.": no formula
    assert rows[1]["title"] == "A - B = C"               # a formula char inside: as it is
    assert rows[1]["note"] == " Tabbed"      # the tab is a control character: a space
    assert all(not v.startswith(("=", "+", "-", "@")) for r in rows for v in r.values())
    # the other formats keep their own escaping, not the quote
    data = json.loads(to_json([item]))["documents"][0]
    assert data["title"] == title and data["note"] == "@SUM(1+1)\nsecond line"
    assert "'=HYPERLINK" not in to_markdown([item]) and "'=HYPERLINK" not in to_bibtex([item])


# ------------------------------------------------------------------ BibTeX titles, types
def test_bibtex_titles_are_title_case_with_acronyms_and_names_in_braces():
    from pdftui.triage.title_case import title_case, word_forms

    vit = word_forms("We show that a pure transformer applied to image patches ... "
                     "Vision Transformer (ViT) attains excellent results; Transformers "
                     "lack some of the inductive biases")
    assert title_case("AN IMAGE IS WORTH 16X16 WORDS: TRANSFORMERS FOR IMAGE RECOGNITION "
                      "AT SCALE", vit) == ("An Image Is Worth {16x16} Words: Transformers "
                                          "for Image Recognition at Scale")
    # the first pages hold the title itself: its own words do not count as the text's
    deberta = word_forms("DEBERTA: DECODING-ENHANCED BERT WITH DIS-ENTANGLED ATTENTION\n"
                         "DeBERTa improves the BERT and RoBERTa models using disentangled "
                         "attention and an enhanced mask decoder")
    assert title_case("DEBERTA: DECODING-ENHANCED BERT WITH DIS-ENTANGLED ATTENTION",
                      deberta) == ("{DeBERTa}: Decoding-Enhanced {BERT} with Disentangled "
                                   "Attention")
    assert title_case("CTRL: A CONDITIONAL TRANSFORMER LANGUAGE MODEL") == \
        "{CTRL}: A Conditional Transformer Language Model"
    # sentence case becomes title case; acronyms and inner capitals are protected
    assert title_case("Graph neural networks: A review of methods and applications") == \
        "Graph Neural Networks: A Review of Methods and Applications"
    assert title_case("Why AI is Harder Than We Think") == "Why {AI} Is Harder than We Think"
    assert title_case("FlashAttention: Fast and memory-efficient exact attention") == \
        "{FlashAttention}: Fast and Memory-Efficient Exact Attention"
    assert title_case("wav2vec: Unsupervised pre-training") == \
        "{wav2vec}: Unsupervised Pre-Training"
    # a proper noun: written capitalised inside sentences, never in lower case
    dynamo = word_forms("the needs of Amazon services; at Amazon we run; reliability at "
                        "massive scale is one of the biggest challenges")
    assert title_case("Dynamo: Amazon’s Highly Available Key-value Store", dynamo) == \
        "Dynamo: {Amazon’s} Highly Available Key-Value Store"
    # the escaping of each piece applies, the protecting braces are not escaped
    assert title_case("Cost of {x} & BERT", escape=lambda t: t.replace("{", "<")) == \
        "Cost of <X} & {BERT}"


def _page(venue_line: str, stamp: str = "") -> tuple[str, ...]:
    return (f"Some Title\n\nAbstract. Words of the abstract.\n\n{venue_line}\n\n{stamp}",)


def test_bibtex_entry_types_follow_the_venue_the_first_pages_print():
    """Trial: every entry was @misc with no venue. The type and its field now follow
    what the paper prints (arXiv fields as arXiv's own export writes them)."""
    base = dict(doc="a.pdf", path="/p/a.pdf", title="Attention Is All You Need",
                authors=("Ashish Vaswani",), year=2017)
    items = [
        ExportItem(**base, arxiv_id="1706.03762", first_pages=_page(
            "31st Conference on Neural Information Processing Systems (NIPS 2017), Long "
            "Beach, CA, USA.", "arXiv:1706.03762v7 [cs.CL] 2 Aug 2023")),
        ExportItem(**{**base, "doc": "b.pdf", "title": "Switch Transformers"},
                   arxiv_id="2101.03961", first_pages=_page(
                       "Journal of Machine Learning Research 23 (2022) 1-40 Submitted 8/21",
                       "arXiv:2101.03961v3 [cs.LG] 16 Jun 2022")),
        ExportItem(**{**base, "doc": "c.pdf", "title": "Realm"}, arxiv_id="2002.08909",
                   first_pages=_page("", "arXiv:2002.08909v1 [cs.CL] 10 Feb 2020")),
        ExportItem(**{**base, "doc": "d.pdf", "title": "Shor"}, arxiv_id="quant-ph/9508027"),
    ]
    db = bibtexparser.loads(to_bibtex(items))
    got = {e["title"]: e for e in db.entries}
    nips = got["Attention Is All You Need"]
    assert nips["ENTRYTYPE"] == "inproceedings"
    assert nips["booktitle"] == "Advances in Neural Information Processing Systems"
    assert (nips["eprint"], nips["archiveprefix"], nips["primaryclass"]) == (
        "1706.03762", "arXiv", "cs.CL")
    jmlr = got["Switch Transformers"]
    assert jmlr["ENTRYTYPE"] == "article"
    assert jmlr["journal"] == "Journal of Machine Learning Research"
    realm = got["Realm"]
    assert realm["ENTRYTYPE"] == "misc" and realm["primaryclass"] == "cs.CL"
    assert realm["url"] == "https://arxiv.org/abs/2002.08909"
    assert got["Shor"]["primaryclass"] == "quant-ph"     # an old id names its archive


def test_one_citekey_per_work_and_suffixes_only_on_real_clashes():
    """Trial: v5 and v7 of the Transformer paper got ``vaswani2017attentiona`` / ``b``,
    and ``b`` even when only v7 was exported. A work is one item (one key); a letter is
    added only when two different works give one key, in doc order, whatever is
    exported."""
    from types import SimpleNamespace

    from pdftui.triage.export import items_for
    from pdftui.triage.store import DocTriage

    def info(doc, title, year=2017, authors=("Ashish Vaswani",)):
        return SimpleNamespace(doc=doc, title=title, authors=authors, year=year,
                               arxiv_id="1706.03762" if "1706" in doc else "", doi="",
                               pages=15)

    v5 = "arxiv-1706.03762v5-attention-is-all-you-need.pdf"
    v7 = "arxiv-1706.03762v7-attention-is-all-you-need.pdf"
    other = "vaswani-attention-lecture.pdf"
    docs = [info(v5, "Attention Is All You Need"), info(v7, "Attention Is All You Need"),
            info(other, "Attention, a lecture")]
    triage = {v7: DocTriage(Mark.KEEP)}
    items = items_for("/papers", docs, triage)
    assert [(i.doc, i.versions, i.mark) for i in items] == [
        (v7, (v5, v7), Mark.KEEP), (other, (), Mark.NONE)]
    keys = citekeys(items)
    assert keys == {v7: "vaswani2017attentiona", other: "vaswani2017attentionb"}
    alone = citekeys(items_for("/papers", docs[:2], triage))
    assert alone == {v7: "vaswani2017attention"}          # no clash, no suffix
    assert citekeys(list(reversed(items))) == keys        # stable across runs and orders
    text = to_bibtex(select(items, "keep"), keys)
    assert [e["ID"] for e in bibtexparser.loads(text).entries] == ["vaswani2017attentiona"]


def _corpus_items():
    """Every corpus PDF as an export item: title and metadata as the index reads them
    (:func:`pdftui.extract.head_of_file`), the text of its first two pages."""
    import pymupdf

    from pdftui.extract import head_of_file

    from .conftest import CORPUS, shared_file

    shared_file(CORPUS / "MANIFEST.tsv")
    items = []
    for path in sorted(CORPUS.glob("*.pdf")):
        title, md = head_of_file(path, path.stem)
        with pymupdf.open(path) as d:
            pages = tuple(d[i].get_text() for i in range(min(2, d.page_count)))
        items.append(ExportItem(path.name, str(path), title, md.authors, md.year,
                                md.arxiv_id, md.doi, 0, first_pages=pages))
    return items


@pytest.mark.corpus
def test_bibtex_of_the_whole_corpus_parses_and_passes_biber(tmp_path):
    """Every work of the corpus exported as BibTeX parses with bibtexparser, one entry
    each with its venue field, and, where Debian's ``biber`` is installed, ``biber
    --tool`` reads it with no error or warning."""
    import shutil
    import subprocess

    items = _corpus_items()
    text = to_bibtex(items)
    db = bibtexparser.loads(text)
    assert len(db.entries) == len(items) and len({e["ID"] for e in db.entries}) == len(items)
    kinds = {e["ENTRYTYPE"] for e in db.entries}
    assert kinds == {"misc", "article", "inproceedings"}, kinds
    for e in db.entries:
        assert e["title"].strip()
        assert e["ENTRYTYPE"] != "article" or e.get("journal"), e
        assert e["ENTRYTYPE"] != "inproceedings" or e.get("booktitle"), e
    by_file = {e["file"].rsplit("/", 1)[-1]: e for e in db.entries}
    assert by_file["nakamoto-2008-bitcoin.pdf"]["year"] == "2008"
    assert by_file["arxiv-2010.11929-vit-image-is-worth-16x16-words.pdf"]["title"] \
        .startswith("An Image Is Worth {16x16} Words")
    assert by_file["peerjcs-2017-118.pdf"]["journal"] == "PeerJ Computer Science"
    if shutil.which("biber") is None:
        pytest.skip("biber is not installed (apt-get install biber)")
    bib = tmp_path / "corpus.bib"
    bib.write_text(text, encoding="utf-8")
    run = subprocess.run(["biber", "--tool", "--validate-datamodel", str(bib),
                          "--output-file", str(tmp_path / "out.bib")],
                         capture_output=True, text=True, cwd=tmp_path, timeout=300)
    log = run.stdout + run.stderr
    assert run.returncode == 0, log
    assert not [ln for ln in log.splitlines() if ln.startswith(("ERROR", "WARN"))], log


def test_every_format_gives_the_year_the_bibtex_entry_gives():
    """Third trial: BibTeX said fedus2022switch, year 2022 (its venue's year) while the
    Markdown list said 2021 and the CSV paired fedus2022switch with 2021 (the arXiv id's
    year). Every format gives the entry's year, the one in its citekey."""
    import dataclasses

    item = dataclasses.replace(
        _items()[3], doc="mixup.pdf", title="mixup: Beyond Empirical Risk Minimization",
        authors=("Hongyi Zhang",), year=2017, mark=Mark.KEEP,
        first_pages=("Published as a conference paper at ICLR 2018\n\nmixup: BEYOND "
                     "EMPIRICAL RISK MINIMIZATION",))
    keys = citekeys([item])
    assert keys == {"mixup.pdf": "zhang2018mixup"}
    assert "- Year: 2018" in to_markdown([item])
    row = next(csv.DictReader(io.StringIO(to_csv([item], keys))))
    assert (row["citekey"], row["year"]) == ("zhang2018mixup", "2018")
    assert json.loads(to_json([item], keys))["documents"][0]["year"] == 2018


def test_titles_printed_in_capitals_read_as_the_bibtex_entry_in_every_list():
    """Fourth trial: the Markdown and CSV lists kept seven titles in capitals ("DEBERTA:
    DECODING-ENHANCED BERT WITH DIS-ENTANGLED ATTENTION") that BibTeX title-cases. They
    read as the BibTeX entry does, without its braces; other titles stay as they are."""
    import dataclasses

    caps = "DEBERTA: DECODING-ENHANCED BERT WITH DIS-ENTANGLED ATTENTION"
    item = dataclasses.replace(
        _items()[3], doc="deberta.pdf", title=caps, mark=Mark.KEEP,
        first_pages=(f"{caps}\n\nDeBERTa improves BERT and RoBERTa with disentangled "
                     "attention",))
    want = "DeBERTa: Decoding-Enhanced BERT with Disentangled Attention"
    assert f"### 1. {want}" in to_markdown([item])
    keys = citekeys([item])
    assert next(csv.DictReader(io.StringIO(to_csv([item], keys))))["title"] == want
    odd = dataclasses.replace(item, title="Sets {A} and B", first_pages=())
    assert "### 1. Sets {A} and B" in to_markdown([odd])
