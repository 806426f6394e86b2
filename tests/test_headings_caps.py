"""Numbered headings in capitals, neither bold nor larger than body text ("7. THE ENTROPY
OF AN INFORMATION SOURCE"), are headings when they make a sequence 1, 2, 3, ... through a
document; numbered list items in sentence case and lines of displayed formulas are not.
On a PDF made with PyMuPDF and on Shannon's paper from the corpus (real extraction, real
detector)."""

from __future__ import annotations

import pytest

from pdftui.extract import extract_document
from pdftui.heading_rejects import is_formula_fragment
from pdftui.headings import detect_headings
from pdftui.sections import sections_for
from tests.conftest import corpus_pdf
from tests.test_headings_styles import Paper

pymupdf = pytest.importorskip("pymupdf")

SHANNON = "shannon-1948-mathematical-theory-of-communication.pdf"

#: Shannon's numbered sections as printed: number -> (page, title)
SHANNON_SECTIONS = {
    1: (3, "THE DISCRETE NOISELESS CHANNEL"), 2: (4, "THE DISCRETE SOURCE OF INFORMATION"),
    3: (7, "THE SERIES OF APPROXIMATIONS TO ENGLISH"),
    4: (8, "GRAPHICAL REPRESENTATION OF A MARKOFF PROCESS"), 5: (8, "ERGODIC AND MIXED SOURCES"),
    6: (10, "CHOICE, UNCERTAINTY AND ENTROPY"), 7: (13, "THE ENTROPY OF AN INFORMATION SOURCE"),
    8: (15, "REPRESENTATION OF THE ENCODING AND DECODING OPERATIONS"),
    9: (16, "THE FUNDAMENTAL THEOREM FOR A NOISELESS CHANNEL"),
    10: (17, "DISCUSSION AND EXAMPLES"), 11: (19, "REPRESENTATION OF A NOISY DISCRETE CHANNEL"),
    12: (20, "EQUIVOCATION AND CHANNEL CAPACITY"),
    13: (22, "THE FUNDAMENTAL THEOREM FOR A DISCRETE CHANNEL WITH NOISE"),
    14: (24, "DISCUSSION"), 15: (25, "EXAMPLE OF A DISCRETE CHANNEL AND ITS CAPACITY"),
    16: (26, "THE CHANNEL CAPACITY IN CERTAIN SPECIAL CASES"),
    17: (27, "AN EXAMPLE OF EFFICIENT CODING"), 18: (32, "SETS AND ENSEMBLES OF FUNCTIONS"),
    19: (34, "BAND LIMITED ENSEMBLES OF FUNCTIONS"),
    20: (35, "ENTROPY OF A CONTINUOUS DISTRIBUTION"),
    21: (38, "ENTROPY OF AN ENSEMBLE OF FUNCTIONS"), 22: (39, "ENTROPY LOSS IN LINEAR FILTERS"),
    23: (40, "ENTROPY OF A SUM OF TWO ENSEMBLES"), 24: (41, "THE CAPACITY OF A CONTINUOUS CHANNEL"),
    25: (43, "CHANNEL CAPACITY WITH AN AVERAGE POWER LIMITATION"),
    26: (45, "THE CHANNEL CAPACITY WITH A PEAK POWER LIMITATION"),
    27: (47, "FIDELITY EVALUATION FUNCTIONS"),
    28: (49, "THE RATE FOR A SOURCE RELATIVE TO A FIDELITY EVALUATION"),
    29: (50, "THE CALCULATION OF RATES"),
}

#: numbered list items and formula lines the detector once took for Shannon's headings
SHANNON_NOT_HEADINGS = [
    "4. Any change toward equalization of the probabilities p1", "3. The ensemble",
    "4. We have", "2 2 dx", "0 p (x)xdx;", "Z P(x)logP(x)dx +", "N C W log", "1 and",
    "0 C and the number of symbols per second", "N W log", "N R W1 log Q N",
    "Z P(x)logP(x)dx. The channel capacity is thus expressed as",
]


@pytest.fixture(scope="module")
def shannon():
    return extract_document(str(corpus_pdf(SHANNON)))


def test_shannon_numbered_capitals_headings_are_found_on_their_pages(shannon):
    """At least 25 of the 29 numbered sections (8 pt capitals under 10 pt text, plain
    Times) are found, each on its printed page."""
    got = {(h.page, h.title) for h in detect_headings(shannon.pages, run_in=False)}
    found = [n for n, (page, title) in SHANNON_SECTIONS.items() if (page, f"{n}. {title}") in got]
    assert len(found) >= 25, sorted(set(SHANNON_SECTIONS) - set(found))
    for n in (1, 2, 3, 6, 28, 29):   # 28 under a paragraph ending "x." (no number above it)
        assert n in found


def test_shannon_list_items_and_formula_lines_are_not_headings(shannon):
    titles = {h.title for h in detect_headings(shannon.pages, run_in=False)}
    assert not titles & set(SHANNON_NOT_HEADINGS), titles & set(SHANNON_NOT_HEADINGS)


def test_shannon_parts_appendices_and_acknowledgments_are_headings(shannon):
    """The parts stay; an "APPENDIX n" over its capitals title line is one heading, and a
    bare "APPENDIX n" in body size going on from them is one (not joined with the
    paragraph under it); an unnumbered capitals line in the sections' style is one too."""
    got = {(h.page, h.title) for h in detect_headings(shannon.pages, run_in=False)}
    assert (3, "PART I: DISCRETE NOISELESS SYSTEMS") in got
    assert (47, "PART V: THE RATE FOR A CONTINUOUS SOURCE") in got
    assert (29, "APPENDIX 3 THEOREMS ON ERGODIC SOURCES") in got
    assert any(p == 28 and t.startswith("APPENDIX 2 DERIVATION OF H") for p, t in got)
    assert (52, "ACKNOWLEDGMENTS") in got
    assert {(52, "APPENDIX 5"), (52, "APPENDIX 6"), (54, "APPENDIX 7")} <= got


def test_shannon_approximations_to_english_is_a_section_under_its_part(shannon):
    """The section a search for random text built from letter frequencies asks for
    exists, holds its text and sits under its part ("PART I: ..." in 12 pt over the
    numbered sections in 8 pt)."""
    secs = {s.title: s for s in sections_for(shannon)}
    sec = secs["3. THE SERIES OF APPROXIMATIONS TO ENGLISH"]
    assert sec.path == ("PART I: DISCRETE NOISELESS SYSTEMS > "
                        "3. THE SERIES OF APPROXIMATIONS TO ENGLISH")
    assert "Zero-order approximation" in sec.text
    assert "GRAPHICAL REPRESENTATION" not in sec.text


def test_numbered_capitals_in_body_size_make_sections_and_sentence_case_lists_do_not(tmp_path):
    """Headings "1. TITLE" in capitals at body size, plain, numbered 1 to 5 through the
    document, with numbered list items in sentence case ("1. The receiver ...")
    restarting under two of them."""
    p = Paper().new_page().text(4)
    heads = ["1. THE DISCRETE CHANNEL", "2. THE SOURCE OF MESSAGES", "3. THE ENCODING",
             "4. NOISE AND ERRORS", "5. CONTINUOUS SIGNALS"]
    for i, head in enumerate(heads):
        if i == 3:
            p.new_page()
        p.heading(head, size=10, font="helv").text(4)
        if i in (1, 3):
            for k, item in enumerate(["The receiver decodes", "The sender waits",
                                      "We have"], 1):
                p.line(f"{k}. {item}")
                p.y += 20
            p.text(3)
    got = [t for t in (h.title for h in detect_headings(
        extract_document(str(p.save(tmp_path / "caps.pdf"))).pages, run_in=False))]
    assert got == heads


@pytest.mark.parametrize("text,fragment", [
    ("N C W log", True), ("Z P(x)logP(x)dx +", True), ("2 2 dx", True),
    ("0 p (x)xdx;", True), ("N R W1 log Q N", True),
    ("3.2 L2 loss", False), ("A.2 UI", False), ("2 C++", False), ("Dx, dy, dz", False),
    ("source/format", False), ("Argv[ ]", False), ("{pre,post}{inst,rm}", False),
])
def test_formula_fragments_are_told_from_short_headings(text, fragment):
    assert is_formula_fragment(text) is fragment
