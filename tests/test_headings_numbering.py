"""Heading numbers as CJK typesetting prints them: numbers separated by a mid-height dot
("1∙1", "2·3", "2・3") or a full-width stop, full-width digits; and the repeat key of a
row holding the row's Chinese characters, not only its Latin words. On a corpus PDF
(real extraction, real detector) and on strings."""

from __future__ import annotations

import pytest

from pdftui.extract import extract_document
from pdftui.heading_rejects import repeat_key
from pdftui.heading_text import is_number_only, numbering, strip_number
from pdftui.headings import detect_headings
from pdftui.sections import reference_headings
from tests.conftest import corpus_pdf

ZH_SURVEY = "cn-2003-machine-learning-strategies-survey-zh.pdf"


@pytest.mark.parametrize("text,label,depth,title", [
    ("1∙1 基本概念", "1.1", 2, "基本概念"),                 # U+2219 bullet operator
    ("2∙3∙1 示例学习", "2.3.1", 3, "示例学习"),
    ("2·3 強化学習", "2.3", 2, "強化学習"),                 # U+00B7 middle dot
    ("2・3 強化学習", "2.3", 2, "強化学習"),                 # U+30FB katakana middle dot
    ("２．３\u3000強化学習", "2.3", 2, "強化学習"),          # full-width digits and stop
    ("3.2 Attention", "3.2", 2, "Attention"),
])
def test_cjk_numbering_separators_number_a_heading(text, label, depth, title):
    assert numbering(text) == (label, depth)
    assert strip_number(text) == title
    assert not is_number_only(text)


def test_a_number_alone_with_a_mid_height_dot_is_a_bare_number():
    assert is_number_only("2∙10")
    assert numbering("·4·") == ("", 0)   # a folio between dots numbers no heading


def test_repeat_key_keeps_chinese_characters():
    assert repeat_key("2∙10 多Agent 学习") != repeat_key("多Agent 系统的研究")
    assert repeat_key("第7期 闫友彪等:机器学习") == repeat_key("第7期 闫友彪等:机器学习 ")
    assert repeat_key("3 Results") == repeat_key("4 Results") == "results"


def test_chinese_survey_numbered_with_a_bullet_operator_has_its_subsections():
    """A Chinese journal numbers its subsections "1∙1　基本概念", "2∙3∙1　示例学习（...）"
    (U+2219 between the numbers, an ideographic space after): each is a heading one
    level below its section, "2∙10　多Agent 学习" too (its "Agent" is in many rows of its
    page, its Chinese words are not)."""
    ex = extract_document(str(corpus_pdf(ZH_SURVEY)))
    got = [(h.page, h.level, h.title) for h in detect_headings(ex.pages, run_in=False)]
    titles = [t for _p, _l, t in got]
    assert (1, 1, "1 机器学习的基本概念与学习系统") in got
    assert (1, 2, "1∙1 基本概念") in got and (1, 2, "1∙2 学习系统") in got
    assert (2, 3, "2∙3∙1 示例学习(Learning from Examples)") in got
    assert (6, 2, "2∙10 多Agent 学习") in got
    subs = [t for t in titles if t.startswith("2∙")]
    assert [s.split()[0] for s in subs] == [
        "2∙1", "2∙2", "2∙3", "2∙3∙1", "2∙3∙2", "2∙4", "2∙5", "2∙6", "2∙7", "2∙8", "2∙9",
        "2∙10"]


def test_a_numbered_heading_whose_title_is_a_command_name_and_a_german_abstract():
    """colortbl's German manual numbers sections titled by a command ("8 \\\\arrayrulecolor"
    in 14.5 pt over 10 pt body text): a heading, not a listing's line ("35 \\\\else");
    its abstract is headed "Zusammenfassung"."""
    ex = extract_document(str(corpus_pdf("texlive-colortbl-de.pdf")))
    got = [(h.page, h.title) for h in detect_headings(ex.pages, run_in=False)]
    assert (7, "8 \\arrayrulecolor") in got and (8, "9 \\doublerulesepcolor") in got
    assert (1, "Zusammenfassung") in got


def test_subheadings_over_a_code_listing_and_a_chinese_reference_list():
    """asymptote's literate LaTeX source heads code listings with bold subheadings
    ("Macros" over "68 \\\\def\\\\csarg ..."; "Allocations" under "4.1 Allocations"): they
    open a listing as others open a paragraph. The Chinese survey's reference list,
    "参考文献：", starts a section."""
    ex = extract_document(str(corpus_pdf("debian-asymptote-asy-latex.pdf")))
    got = [(h.page, h.title) for h in detect_headings(ex.pages, run_in=False)]
    assert (3, "Allocations") in got and (4, "Macros") in got
    assert (4, "Ensuring attachfile2 is loaded if [attach] is requested") in got
    ex = extract_document(str(corpus_pdf(ZH_SURVEY)))
    refs = reference_headings(ex.pages, detect_headings(ex.pages))
    assert [(e.page, e.title) for e in refs][:1] == [(8, "参考文献:")]
