"""Tests for pdftui.extract on the real hostile files in /work/shared (no mocks)."""

from __future__ import annotations

import os
import time

import pytest

from pdftui.extract import extract_document
from pdftui.page_text import join_lines, normalize_text
from pdftui.text import strip_control

from .conftest import CORPUS, SHARED, needs_shared  # noqa: E402
from .invariants import assert_outline_well_formed

MADE = SHARED / "tricky" / "made"
REAL = SHARED / "tricky" / "real"

pytestmark = needs_shared(MADE, CORPUS)
# big files (5,000 pages, 1,370 pages): run with PDFTUI_SLOW=1
slow = pytest.mark.skipif(not os.environ.get("PDFTUI_SLOW"), reason="slow; set PDFTUI_SLOW=1")


def doc_text(e) -> str:
    return "\n\n".join(p.text for p in e.pages)


# --------------------------------------------------------------------------- normalisation


def test_ligatures_expanded_on_both_pages():
    e = extract_document(MADE / "01_ligatures.pdf")
    assert e.skip_reason is None and e.text_quality == "ok"
    assert len(e.pages) == 2
    for p in e.pages:
        assert "financial" in p.text
        assert "firewall" in p.text
        assert "\ufb01" not in p.text and "\ufb02" not in p.text


def test_fl_ligature_vs_plain():
    e = extract_document(REAL / "ligatures-flag-vs-fl-ag.pdf")
    assert doc_text(e).count("flag") == 2


def test_hyphenation_cases():
    text = doc_text(extract_document(MADE / "02_hyphenation.pdf"))
    for word in ("zeppelinophile", "extraction", "hyphen", "state-of-the-art", "n-octanal", "pages 10-20"):
        assert word in text, word
    for wrong in ("zeppe-", "extrac-", "hy-phen", "state-of-theart", "noctanal", "pages 1020"):
        assert wrong not in text, wrong


def test_join_lines_rules():
    assert join_lines(["zeppe-", "linophile"]) == "zeppelinophile"
    assert join_lines(["state-of-the-", "art"]) == "state-of-the-art"
    assert join_lines(["n-", "octanal"]) == "n-octanal"
    assert join_lines(["10-", "20"]) == "10-20"
    assert join_lines(["pre-", "Raphaelite"]) == "pre-Raphaelite"
    assert join_lines(["Sim-", "ilarly, the"]) == "Similarly, the"   # GFS p. 4
    assert join_lines(["X-", "ray"]) == "X-ray"
    assert join_lines(["one", "two"]) == "one two"
    assert join_lines(["日本", "語"]) == "日本語"
    assert join_lines(["dis\u00ad", "cretionary"]) == "discretionary"


def test_join_lines_of_a_page_of_many_thousand_lines():
    """20,000 lines (a dense page: each third one hyphenated at its end, soft hyphens,
    a very long unbroken word) join exactly as short blocks do; the join is linear (it was
    quadratic: each line re-read the whole text joined so far)."""
    lines, want = [], []
    for i in range(20_000):
        if i % 3 == 0:
            lines += [f"line {i} ends in a bro-", "ken word"]
            want.append(f"line {i} ends in a broken word")
        elif i % 3 == 1:
            lines += [f"line {i} has a dis\u00ad", "cretionary break"]
            want.append(f"line {i} has a discretionary break")
        else:
            lines.append(f"line {i} is state-of-the-")
            lines.append("art")
            want.append(f"line {i} is state-of-the-art")
    lines += ["x" * 5000 + "abc-", "def", "1" * 5000 + "-", "two"]
    want.append("x" * 5000 + "abcdef " + "1" * 5000 + "-two")   # judged on the word's end
    assert join_lines(lines) == " ".join(want)


def test_normalize_text():
    assert normalize_text("\ufb01nancial") == "financial"
    assert normalize_text("\uff21\uff22\uff23") == "ABC"
    assert normalize_text("co\u00adoperate pass\u200bword") == "cooperate password"
    assert normalize_text("cafe\u0301") == "caf\u00e9"
    assert normalize_text("a\x00b\x07c  \t d") == "abc d"
    assert normalize_text("\ufefb") == "\u0644\u0627"  # Arabic presentation form -> base letters


def test_strip_control_removes_escapes_and_nul():
    s = "a\x1b[31mred\x1b[0m\x00b\x1b]0;evil title\x07c\x9b2Jd\u202eE\tF\nG\x7f"
    out = strip_control(s)
    assert "\x1b" not in out and "\x00" not in out and "\x9b" not in out and "\u202e" not in out
    assert out == "aredbcdE\tF\nG"
    assert strip_control("x\ny\tz", keep_newlines=False, keep_tabs=False) == "x y z"


def test_accents_cjk():
    text = doc_text(extract_document(MADE / "21_accents_cjk_rtl.pdf"))
    assert "café" in text and "password" in text and "cooperate" in text
    assert "天气" in text and "東京" in text


def test_arabic_presentation_forms_normalised():
    e = extract_document(REAL / "rtl-arabic-cid-truetype.pdf")
    assert e.text_quality == "ok"
    assert "العربية" in doc_text(e)


# --------------------------------------------------------------------------- skip reasons


@pytest.mark.parametrize(
    "path, reason",
    [
        (MADE / "07_encrypted_user_password.pdf", "password protected"),
        (REAL / "encrypted-aes256-user-password.pdf", "password protected"),
        (REAL / "encrypted-rc4-40-user-password.pdf", "password protected"),
        (REAL / "encrypted-libreoffice-user-password.pdf", "password protected"),
        (MADE / "09_truncated_60pct.pdf", "damaged"),
        (REAL / "truncated-bitcoin-first-60pct.pdf", "damaged"),
        (MADE / "11_not_a_pdf.pdf", "not a PDF"),
        (REAL / "not-a-pdf-html.pdf", "not a PDF"),
        (REAL / "not-a-pdf-gzip-compressed.pdf", "not a PDF"),
        (MADE / "12_empty_0_bytes.pdf", "empty file"),
        (REAL / "zero-bytes.pdf", "empty file"),
        (MADE / "13_zero_pages.pdf", "0 pages"),
    ],
    ids=lambda v: v if isinstance(v, str) else v.name,
)
def test_skip_reasons(path, reason):
    e = extract_document(path)
    assert e.skip_reason == reason
    assert e.pages == []
    assert e.title == path.stem


def test_missing_file():
    assert extract_document("/nonexistent/nope.pdf").skip_reason == "file not found"


def test_repaired_file_is_indexed():
    e = extract_document(MADE / "10_bad_startxref.pdf")
    assert e.skip_reason is None
    assert "xrefjunk" in doc_text(e)


def test_owner_only_encryption_is_indexed():
    e = extract_document(REAL / "encrypted-aes256-owner-password-only.pdf")
    assert e.skip_reason is None and e.text_quality == "ok"
    assert "pdf encryption test" in doc_text(e)
    e = extract_document(MADE / "08_encrypted_owner_only_nocopy.pdf")
    assert e.skip_reason is None and "nougat" in doc_text(e)


def test_fifo_is_not_a_regular_file(tmp_path):
    fifo = tmp_path / "x.pdf"
    os.mkfifo(fifo)
    t0 = time.monotonic()
    e = extract_document(fifo)
    assert e.skip_reason == "not a regular file"
    assert time.monotonic() - t0 < 2


def test_directory_is_not_a_regular_file(tmp_path):
    d = tmp_path / "dir.pdf"
    d.mkdir()
    assert extract_document(d).skip_reason == "not a regular file"


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read a chmod 000 file")
def test_permission_denied(tmp_path):
    f = tmp_path / "secret.pdf"
    f.write_bytes((MADE / "01_ligatures.pdf").read_bytes())
    f.chmod(0)
    try:
        assert extract_document(f).skip_reason == "permission denied"
    finally:
        f.chmod(0o600)


# --------------------------------------------------------------------------- text quality


@pytest.mark.parametrize(
    "name",
    ["scanned-lisp2-garbage-collector-2pages.pdf", "scanned-jbig2-rotated-270.pdf",
     "scanned-flajolet-probabilistic-counting-28pages.pdf"],
)
def test_scanned_has_no_text_layer(name, tmp_path, monkeypatch):
    """Without Tesseract (its data folder empty) a scan is flagged, every page counted as
    waiting for OCR; with it, the pages are OCR'd (tests/test_ocr.py)."""
    from pdftui import ocr

    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path))
    monkeypatch.setattr(ocr, "_TESSDATA", [])
    e = extract_document(REAL / name)
    assert e.skip_reason is None
    assert e.text_quality == "no text layer"
    assert e.page_count == len(e.pages) > 0
    assert e.ocr_missing == e.page_count and not any(p.ocr for p in e.pages)
    assert any(ocr.MISSING_NOTE in n for n in e.notes)


def test_tiny_text_layer_is_ok():
    e = extract_document(REAL / "scan-with-tiny-text-layer.pdf")
    assert e.text_quality == "ok"
    assert "pdf.js" in doc_text(e)


@pytest.mark.parametrize(
    "path",
    [MADE / "05_type3_no_tounicode.pdf", MADE / "06a_cid_no_tounicode.pdf",
     REAL / "garbled-text-layer-custom-encoding.pdf", REAL / "garbled-non-unicode-cmap.pdf"],
    ids=lambda p: p.name,
)
def test_garbled_is_unreliable(path):
    e = extract_document(path)
    assert e.skip_reason is None
    assert e.text_quality == "unreliable"
    assert len(e.pages) == e.page_count  # pages still returned
    assert any("garbled" in n for n in e.notes)
    for p in e.pages:  # no control characters leak into the text
        assert not any(ord(c) < 32 and c not in "\n\t" for c in p.text)


@pytest.mark.parametrize(
    "path",
    [REAL / "cjk-chinese-bond-prospectus-table.pdf", REAL / "cjk-korean-report-page.pdf",
     REAL / "cjk-japanese-vertical-writing.pdf", REAL / "rtl-arabic-cid-truetype.pdf",
     CORPUS / "cn-2003-machine-learning-strategies-survey-zh.pdf",
     CORPUS / "arxiv-hep-ph-9412269-cebaf-preprint.pdf", CORPUS / "debian-octave-refcard-a4.pdf",
     CORPUS / "arxiv-quant-ph-9508027-shor-factoring.pdf"],
    ids=lambda p: p.name,
)
def test_real_text_not_flagged(path):
    e = extract_document(path)
    assert e.skip_reason is None and e.text_quality == "ok", e.notes


def test_chinese_words_found():
    text = doc_text(extract_document(REAL / "cjk-chinese-bond-prospectus-table.pdf"))
    assert "发行人" in text and "信用评级" in text


# --------------------------------------------------------------------------- layout


def test_two_columns_read_column_by_column():
    e = extract_document(MADE / "03_two_columns.pdf")
    for p in e.pages:
        t = p.text
        assert "lighthouse keeper who counted every ship" in t
        assert t.index("Column one") < t.index("lighthouse") < t.index("ledger.") < t.index("Column two")
        assert t.index("Column two") < t.index("storm that arrived")


def test_tracemonkey_left_column_first():
    e = extract_document(REAL / "two-column-tracemonkey-pldi09.pdf")
    t = e.pages[0].text
    assert t.index("1. Introduction") < t.index("Compilers for statically typed languages")


def test_lines_have_font_info():
    e = extract_document(CORPUS / "arxiv-1706.03762v5-attention-is-all-you-need.pdf")
    p = e.pages[2]
    assert p.lines
    assert all(0 <= ln.block < len(p.blocks) for ln in p.lines)
    assert all(ln.font and ln.size > 0 for ln in p.lines)
    heads = [ln for ln in p.lines if ln.text.strip() == "Attention" and ln.bold]
    assert heads, "bold heading line expected"
    assert p.width == 612 and p.height == 792


def test_form_field_value_found():
    assert "Quarrington" in doc_text(extract_document(MADE / "20_form_field_value.pdf"))


def test_rotated_pages():
    text = doc_text(extract_document(MADE / "04_rotated.pdf"))
    for w in ("gyroscope90", "periscope", "kaleidoscope"):
        assert w in text


def test_slow_page_is_bounded():
    t0 = time.monotonic()
    e = extract_document(MADE / "16_slow_page_200k_text_ops.pdf")
    elapsed = time.monotonic() - t0
    assert e.skip_reason is None and e.page_count == 1
    assert e.pages[0].text.startswith("x x x")
    assert any("without font info" in n for n in e.notes)
    print(f"slow page extracted in {elapsed:.2f} s")


# --------------------------------------------------------------------------- outline, labels, title


def test_attention_outline_validated():
    e = extract_document(CORPUS / "arxiv-1706.03762v5-attention-is-all-you-need.pdf")
    assert e.text_quality == "ok" and e.outline_dropped == 0
    entry = next(o for o in e.outline if o.title == "3.2 Attention")
    assert entry.page == 3 and entry.level == 2
    heading = next(ln for ln in e.pages[2].lines if ln.text.strip() == "Attention" and ln.bold)
    assert entry.y is not None and abs(entry.y - heading.y0) < 15
    levels = [o.level for o in e.outline]
    assert levels[0] == 1 and all(b <= a + 1 for a, b in zip(levels, levels[1:]))


def test_toc_edge_cases():
    e = extract_document(MADE / "17_toc_edge_cases.pdf")
    assert e.outline_dropped >= 3
    titles = [o.title for o in e.outline]
    assert "Points past the end" not in titles  # /Dest [null ...]: MuPDF says page 1
    assert "Missing named destination" not in titles
    assert_outline_well_formed(e.outline, e.page_count)
    assert [o.page for o in e.outline if o.title == "Introduction"] == [1, 2]


@pytest.mark.parametrize("path", [MADE / "18_toc_cycle.pdf", REAL / "outline-circular.pdf"], ids=lambda p: p.name)
def test_circular_outline_terminates(path):
    e = extract_document(path)
    assert e.skip_reason is None
    assert_outline_well_formed(e.outline, e.page_count)  # a cycle repeats no entry


def test_page_labels():
    e = extract_document(REAL / "page-labels-roman-numerals.pdf")
    assert [p.label for p in e.pages] == ["iii", "iv", "1", "2", "1"]
    assert [p.number for p in e.pages] == [1, 2, 3, 4, 5]
    assert [o.page for o in e.outline] == [1, 2, 3, 5]


def test_no_labels_means_empty_string():
    e = extract_document(MADE / "01_ligatures.pdf")
    assert [p.label for p in e.pages] == ["", ""]


def test_blank_page_with_outline():
    e = extract_document(REAL / "blank-page-with-outline.pdf")
    assert e.skip_reason is None
    assert e.text_quality == "no text layer"
    assert len(e.outline) == 1 and e.outline[0].page == 1


def test_title_from_metadata_or_stem():
    e = extract_document(CORPUS / "arxiv-1904.05862-wav2vec.pdf")
    assert e.title.startswith("wav2vec")
    # empty metadata title: the first page's title (the file name when it has none)
    e = extract_document(CORPUS / "arxiv-1706.03762v5-attention-is-all-you-need.pdf")
    assert e.title == "Attention Is All You Need"


@slow
def test_five_thousand_pages():
    e = extract_document(MADE / "15_five_thousand_pages.pdf")
    assert e.page_count == 5000 == len(e.pages)
    assert "pg05000" in e.pages[-1].text


@slow
def test_lwarp_manual():
    e = extract_document(REAL / "many-pages-lwarp-manual-1370pages.pdf")
    assert e.page_count == 1370 and e.text_quality == "ok"
    assert len(e.outline) > 1000


def test_paragraph_continued_across_a_column_break_is_one_block():
    """GFS p. 3: "keeping a persis-" ends the left column and "tent TCP connection" starts
    the right one; they are one paragraph (one block, hyphenation repaired), so keyword
    search finds "persistent" there and the reader shows one paragraph."""
    from pdftui.layout import continues

    ex = extract_document(str(CORPUS / "google-2003-file-system.pdf"))
    page = ex.pages[2]
    assert "persistent TCP connection" in page.text
    assert "persis-" not in page.text
    block = next(b for b in page.blocks if "persistent TCP" in b.text)
    assert block.text.startswith("A large chunk size offers")
    assert all(0 <= ln.block < len(page.blocks) for ln in page.lines)
    # headings and captions (upper-case or numbered starts) are never glued on
    long = "x" * 100 + " and then"
    assert continues(long, "more text") and not continues(long, "2.6 Metadata")
    assert not continues(long + ".", "more text") and not continues("short and", "more")


def test_table_between_a_paragraph_and_its_continuation_moves_after_it():
    """GFS p. 4: the left column ends "replaying only the", Table 1 and its caption top
    the right column, and "limited number of log records" goes on below them. The
    paragraph is one block and the table follows it; a table row never takes the place
    of the paragraph (no prose, no move)."""
    from pdftui.document import Block
    from pdftui.layout import float_order

    ex = extract_document(str(CORPUS / "google-2003-file-system.pdf"))
    texts = [b.text for b in ex.pages[3].blocks]
    i = next(k for k, t in enumerate(texts) if "replaying only the limited number" in t)
    assert texts[i + 2].startswith("Table 1: File Region State After Mutation")
    assert all(0 <= ln.block < len(texts) for ln in ex.pages[3].lines)
    prose = ("We keep the log on local disk and on remote machines, and we read it back"
             " when the master starts, and")
    row = "Model 80.6 77.0 Base 83.4 81.1 76.6 Large 53.4 GPT FlashAttention HuggingFace"
    for first, moved in ((prose, True), (row, False)):
        blocks = [Block(first, 0, 0, 1, 1), Block("Table 2: Results.", 0, 0, 1, 1),
                  Block("replays the records that follow it.", 0, 0, 1, 1)]
        assert (float_order(blocks) == [0, 2, 1]) is moved


def test_stale_metadata_title_gives_way_to_the_first_page_title():
    """Dynamo's metadata title is "System Model" (a Word export); the first page's title is
    used instead. A metadata title the first page shows is kept."""
    assert extract_document(str(CORPUS / "debian-r-intro.pdf")).title == "An Introduction to R"
    assert extract_document(str(CORPUS / "amazon-2007-dynamo.pdf")).title == \
        "Dynamo: Amazon’s Highly Available Key-value Store"
    # junk metadata ("paper.dvi"): the first page's largest horizontal text, not the
    # arXiv stamp up the margin
    assert extract_document(str(CORPUS / "google-2003-file-system.pdf")).title == \
        "The Google File System"
    assert extract_document(str(CORPUS / "arxiv-1706.03762v5-attention-is-all-you-need.pdf")
                            ).title == "Attention Is All You Need"


def test_a_byline_set_larger_than_the_title_is_not_the_title():
    """Fresh-user finding: the German colortbl manual was titled "David Carlisle" (its
    author's name, set at 20.7 pt under the 17.3 pt "The colortbl package"): the largest
    text was taken whatever it was. A name as the largest text gives way to the largest
    title-like text above it; a title that only looks like a name (five capitalised
    words, a long notice above it) stays."""
    from .conftest import corpus_pdf

    ex = extract_document(corpus_pdf("texlive-colortbl-de.pdf"))
    assert ex.title == "The colortbl package"
    assert ex.metadata is not None and ex.metadata.authors == ("David Carlisle",)
    ex = extract_document(corpus_pdf("arxiv-1706.03762v7-attention-is-all-you-need.pdf"))
    assert ex.title == "Attention Is All You Need"
    ex = extract_document(corpus_pdf("lamport-2001-paxos-made-simple.pdf"))
    assert ex.title == "Paxos Made Simple"
