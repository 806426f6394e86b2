"""Heading styles the detector finds and rows it never takes for headings, on small PDFs
made with PyMuPDF (real extraction, real detector): section-sign and roman numbering,
headings ending in a number, a contents page, numbered headings in body size, an
unnumbered document's headings, the title block, table header cells, an outline too
deep to read."""

from __future__ import annotations

from pathlib import Path

import pytest

from pdftui.extract import extract_document
from pdftui.headings import detect_headings
from pdftui.sections import sections_for

pymupdf = pytest.importorskip("pymupdf")

_WORDS = ("apple river stone cloud forest engine harbor violin garden mirror candle "
          "pepper meadow lantern copper signal window ladder bridge marble thunder "
          "pillow orchard compass").split()


def _sentence(seed: int, n: int = 13) -> str:
    """A line of body text that no other line repeats."""
    words = [_WORDS[(seed * 7 + k * 5 + k * k) % len(_WORDS)] for k in range(n)]
    return f"Line {seed} holds the {' '.join(words)}."


class Paper:
    """A PDF written top-down, page by page: headings and paragraphs of body text
    (Helvetica 10 pt, 14 pt apart), x = 72 unless told."""

    def __init__(self) -> None:
        self.doc = pymupdf.open()
        self.page = None
        self.y = 0.0
        self.seed = 0

    def new_page(self) -> "Paper":
        self.page = self.doc.new_page()
        self.y = 72.0
        return self

    def heading(self, text: str, size: float = 12, font: str = "hebo",
                x: float = 72) -> "Paper":
        self.y += 10
        self.page.insert_text((x, self.y), text, fontsize=size, fontname=font)
        self.y += size + 6
        return self

    def text(self, lines: int = 5, x: float = 72) -> "Paper":
        for _ in range(lines):
            self.seed += 1
            self.page.insert_text((x, self.y), _sentence(self.seed), fontsize=10,
                                  fontname="helv")
            self.y += 14
        self.y += 6
        return self

    def line(self, text: str, x: float = 72, size: float = 10, font: str = "helv",
             y: float | None = None) -> "Paper":
        """One line at ``x`` (on the current baseline, or ``y``), the baseline unmoved."""
        self.page.insert_text((x, self.y if y is None else y), text, fontsize=size,
                              fontname=font)
        return self

    def save(self, path: Path, toc: list | None = None) -> Path:
        if toc is not None:
            self.doc.set_toc(toc)
        self.doc.save(path)
        return path


def _titles(path: Path) -> list[tuple[int, int, str]]:
    """(page, level, title) of the detector's headings."""
    ex = extract_document(str(path))
    return [(h.page, h.level, h.title) for h in detect_headings(ex.pages)]


def test_section_sign_headings_nest_under_roman_parts(tmp_path):
    p = Paper().new_page().heading("On Moving Bodies", size=18, font="helv").text(3)
    p.heading("I. KINEMATICAL PART", size=14).heading("§ 1. Definition of Simultaneity")
    p.text(6).line("as we said in § 1, the clocks agree.").text(4)
    p.heading("§ 2. On the Relativity of Lengths and Times").text(8)
    p.new_page().text(4).heading("§ 3. Theory of the Transformation of Co-ordinates and")
    p.y -= 2
    p.heading("Times from a Stationary System").text(8)
    p.heading("II. ELECTRODYNAMICAL PART", size=14).heading("§ 4. Transformation of the Equations")
    p.text(10)
    got = _titles(p.save(tmp_path / "parts.pdf"))
    assert (1, 1, "I. KINEMATICAL PART") in got
    assert (1, 2, "§ 1. Definition of Simultaneity") in got
    assert (1, 2, "§ 2. On the Relativity of Lengths and Times") in got
    assert (2, 2, "§ 3. Theory of the Transformation of Co-ordinates and Times from a "
                  "Stationary System") in got
    assert (2, 1, "II. ELECTRODYNAMICAL PART") in got
    ex = extract_document(str(tmp_path / "parts.pdf"))
    paths = [s.path for s in sections_for(ex)]
    assert "II. ELECTRODYNAMICAL PART > § 4. Transformation of the Equations" in paths


def test_headings_ending_in_a_number_are_not_contents_entries(tmp_path):
    p = Paper().new_page().heading("1 Introduction", size=14).text(8)
    p.heading("2 Theory", size=14).heading("2.1 Global Optimality").text(6)
    p.heading("2.2 Convergence of Algorithm 1").text(8)
    p.new_page().heading("3 Experiments", size=14).text(10)
    p.heading("A Proof of Theorem 1", size=14).text(8)
    titles = [t for _p, _l, t in _titles(p.save(tmp_path / "ending.pdf"))]
    assert "2.2 Convergence of Algorithm 1" in titles
    assert "A Proof of Theorem 1" in titles


def test_a_contents_entry_does_not_hide_its_heading(tmp_path):
    p = Paper().new_page().heading("Contents", size=14)
    for i, t in enumerate(("1 Introduction", "2 Important rules", "3 Usage"), 1):
        p.line(t, font="hebo").line(str(i), x=500)
        p.y += 16
    p.heading("1 Introduction", size=14).text(6).heading("2 Important rules", size=14)
    p.text(6).new_page().heading("3 Usage", size=14).text(10)
    got = _titles(p.save(tmp_path / "contents.pdf"))
    assert [(pg, t) for pg, _l, t in got] == [
        (1, "Contents"), (1, "1 Introduction"), (1, "2 Important rules"), (2, "3 Usage")]


def test_numbered_headings_in_body_size_capitals_are_found(tmp_path):
    p = Paper().new_page().heading("1 INTRODUCTION", size=12, font="helv").text(6)
    p.heading("2 BACKGROUND", size=12, font="helv")
    p.heading("2.1 TRANSFORMER", size=10, font="helv").text(6)
    p.heading("2.2 MASKED LANGUAGE MODEL", size=10, font="helv").text(6)
    p.new_page().heading("3 THE ARCHITECTURE", size=12, font="helv")
    p.heading("3.1 DISENTANGLED ATTENTION", size=10, font="helv").text(6)
    p.heading("3.2 ENHANCED MASK DECODER ACCOUNTS FOR ABSOLUTE WORD POSITIONS", size=10,
              font="helv").text(6)
    p.heading("4 SCALE INVARIANT FINE-TUNING", size=12, font="helv").text(8)
    titles = [t for _p, _l, t in _titles(p.save(tmp_path / "caps.pdf"))]
    assert "3.2 ENHANCED MASK DECODER ACCOUNTS FOR ABSOLUTE WORD POSITIONS" in titles
    assert "2.2 MASKED LANGUAGE MODEL" in titles


def test_an_unnumbered_documents_long_headings_in_its_heading_style(tmp_path):
    p = Paper().new_page().heading("Introduction", size=10).text(8)
    p.heading("Springs and Winters", size=10).text(8)
    p.new_page().heading("Fallacy 1: Narrow intelligence is on a continuum with general "
                         "intelligence", size=10).text(8)
    p.heading("Fallacy 2: Easy things are easy and hard things are hard", size=10).text(8)
    p.new_page().heading("Conclusions", size=10).text(8)
    p.heading("References", size=10).text(6)
    titles = [t for _p, _l, t in _titles(p.save(tmp_path / "unnumbered.pdf"))]
    assert "Fallacy 1: Narrow intelligence is on a continuum with general intelligence" \
        in titles
    assert "Fallacy 2: Easy things are easy and hard things are hard" in titles


def test_the_title_block_is_not_a_heading(tmp_path):
    p = Paper().new_page().heading("Distributed Representations of Words", size=17)
    p.heading("Tomas Mikolov", size=10).heading("Ilya Sutskever", size=10)
    p.heading("Abstract", size=12).text(6).heading("1 Introduction", size=12).text(8)
    p.new_page().heading("2 The Skip-gram Model", size=12).text(10)
    titles = [t for _p, _l, t in _titles(p.save(tmp_path / "title.pdf"))]
    assert titles == ["Abstract", "1 Introduction", "2 The Skip-gram Model"]


def test_a_title_page_holds_no_heading(tmp_path):
    p = Paper().new_page().heading("R Data Import/Export", size=20)
    p.heading("Version 4.2.2", size=12).heading("R Core Team", size=12)
    p.new_page().heading("1 Introduction", size=14).text(10)
    p.heading("2 Spreadsheet-like data", size=14).text(10)
    titles = [t for _p, _l, t in _titles(p.save(tmp_path / "titlepage.pdf"))]
    assert titles == ["1 Introduction", "2 Spreadsheet-like data"]


def test_numbered_lines_of_code_and_spelled_chapter_numbers_are_not_headings(tmp_path):
    p = Paper().new_page().heading("CHAPTER", size=20).heading("ONE", size=20)
    p.heading("1 Introduction", size=14).text(6)
    p.line("35 \\else", font="cobo").line("55 #1\\endcsname", font="cobo", y=p.y + 14)
    p.y += 34
    p.text(4).heading("2 Usage", size=14).text(8)
    titles = [t for _p, _l, t in _titles(p.save(tmp_path / "code.pdf"))]
    assert titles == ["1 Introduction", "2 Usage"]


def test_an_outline_too_deep_to_read_is_a_note_and_the_headings_make_sections(tmp_path):
    p = Paper().new_page().heading("1 Introduction", size=14).text(10)
    p.new_page().heading("2 Methods of Measurement", size=14).text(10)
    p.new_page().heading("3 Results and Discussion", size=14).text(10)
    toc = [[i + 1, f"Level {i + 1}", 1] for i in range(5000)]
    ex = extract_document(str(p.save(tmp_path / "deep.pdf", toc)))
    assert ex.outline == []
    assert any(n.startswith("outline unreadable (nested too deep)") and "headings" in n
               for n in ex.notes), \
        ex.notes
    secs = sections_for(ex)
    assert [s.title for s in secs] == ["1 Introduction", "2 Methods of Measurement",
                                      "3 Results and Discussion"]
    assert all(s.source == "detected" for s in secs)


def _numbered_list(p: Paper, items: tuple[str, ...]) -> None:
    """A numbered list in bold body size, each item over a paragraph (a manual's "1.
    Encoding", "2. Header line")."""
    for i, item in enumerate(items, 1):
        p.heading(f"{i}. {item}", size=10, x=80).text(3, x=80)


def _list_paper() -> Paper:
    p = Paper().new_page().heading("1 Introduction", size=16).text(4)
    p.heading("1.1 Imports", size=13).text(3)
    _numbered_list(p, ("Encoding", "Header line", "Separator", "Missing values"))
    p.new_page().heading("1.2 Export", size=13).text(6)
    p.heading("2 Spreadsheet-like data", size=16).text(4)
    p.heading("2.1 Variations on read.table", size=13).text(3)
    _numbered_list(p, ("Encoding", "Header line", "Quoting"))
    return p


def test_a_numbered_list_inside_a_section_is_not_headings(tmp_path):
    titles = [t for _p, _l, t in _titles(_list_paper().save(tmp_path / "list.pdf"))]
    assert titles == ["1 Introduction", "1.1 Imports", "1.2 Export",
                      "2 Spreadsheet-like data", "2.1 Variations on read.table"]


def test_a_lone_letter_early_is_no_appendix_and_a_lettered_series_is(tmp_path):
    p = Paper().new_page().heading("A Sparse Johnson-Lindenstrauss Transform", size=18)
    p.text(3).heading("Abstract", size=12).text(4)
    p.new_page().heading("1 Introduction", size=14).text(10)
    p.new_page().heading("2 Analysis", size=14).text(6)
    p.line("C Time", font="hebo", size=11).line("O(n log n)", x=200, size=11)
    p.y += 20
    p.text(6).new_page().heading("3 Experiments", size=14).text(10)
    p.new_page().heading("A Proofs", size=14).text(4).heading("A.1 Lemma 1", size=12)
    p.text(4).heading("B Tables", size=14).text(6)
    titles = [t for _p, _l, t in _titles(p.save(tmp_path / "letters.pdf"))]
    assert titles == ["Abstract", "1 Introduction", "2 Analysis", "3 Experiments",
                      "A Proofs", "A.1 Lemma 1", "B Tables"]


def test_formulas_and_plot_ticks_are_not_headings(tmp_path):
    p = Paper().new_page().heading("1 Introduction", size=14).text(6)
    p.heading("1 Q + KR 1 Q", size=11).text(3)
    p.heading("0.6 ImageNet 5shot", size=11).text(3)
    p.new_page().heading("2 Spectral Theory", size=14).text(8)
    p.heading("3 Results", size=14).text(8)
    titles = [t for _p, _l, t in _titles(p.save(tmp_path / "math.pdf"))]
    assert titles == ["1 Introduction", "2 Spectral Theory", "3 Results"]


def test_code_lines_in_monospace_and_theorem_labels_are_not_headings(tmp_path):
    p = Paper().new_page().heading("B.1 Invoking R from the command line", size=14)
    p.text(4).heading("R CMD BATCH foo.R", size=10, font="cour").text(4)
    p.heading("Exercise", size=10).text(3).heading("Lemma 3.1.", size=10).text(3)
    p.heading("B.2 Invoking R under Windows", size=14).text(8)
    titles = [t for _p, _l, t in _titles(p.save(tmp_path / "code.pdf"))]
    assert titles == ["B.1 Invoking R from the command line", "B.2 Invoking R under Windows"]


def test_a_running_footer_carrying_its_page_number_is_not_a_heading(tmp_path):
    p = Paper()
    for head, footer in (("1 Introduction", "1"), ("2 Applying", "2"), (None, "3"),
                         (None, "4 Chapter 2. Applying"), (None, "5 Chapter 2. Applying"),
                         ("3 Packages", "6")):
        p.new_page()
        if head:
            p.heading(head, size=14)
        p.text(12).line(footer, font="hebo", y=760)
    titles = [t for _p, _l, t in _titles(p.save(tmp_path / "footer.pdf"))]
    assert titles == ["1 Introduction", "2 Applying", "3 Packages"]


def test_a_heading_hyphenated_over_two_lines_is_one_heading(tmp_path):
    p = Paper().new_page().heading("5.8 Uploading", size=14).text(6)
    p.heading("5.9 Moving, removing, renaming, orphaning, adopting, and reintro-", size=14)
    p.y -= 4
    p.heading("ducing packages", size=14, x=99).text(6)
    p.heading("5.10 Porting", size=14).text(6)
    titles = [t for _p, _l, t in _titles(p.save(tmp_path / "hyphen.pdf"))]
    assert titles == ["5.8 Uploading", "5.9 Moving, removing, renaming, orphaning, adopting, "
                      "and reintroducing packages", "5.10 Porting"]


def test_a_style_of_bold_body_size_headings_under_a_section_is_found(tmp_path):
    p = Paper().new_page().heading("Introduction", size=13).text(8)
    p.new_page().heading("Methods", size=13).text(3)
    p.heading("Ethics statement and animal care", size=10).text(4)
    p.heading("Surgical preparation of the animals", size=10).text(4)
    p.heading("Electrophysiological recordings in the cortex", size=10).text(6)
    p.heading("Histological verification of probe insertion", size=10).text(6)
    p.heading("Results", size=13).text(8)
    titles = [t for _p, _l, t in _titles(p.save(tmp_path / "journal.pdf"))]
    assert titles == ["Introduction", "Methods", "Ethics statement and animal care",
                      "Surgical preparation of the animals",
                      "Electrophysiological recordings in the cortex",
                      "Histological verification of probe insertion", "Results"]


def test_a_large_abstract_holds_no_sections(tmp_path):
    p = Paper().new_page().text(4).heading("Abstract", size=14).text(6)
    p.heading("Introduction", size=11).text(8)
    p.new_page().heading("Methods", size=11).text(8)
    p.heading("Results", size=11).text(8)
    got = [(lvl, t) for _p, lvl, t in _titles(p.save(tmp_path / "abstract.pdf"))]
    assert got == [(1, "Abstract"), (1, "Introduction"), (1, "Methods"), (1, "Results")]

