"""BibTeX that a reference manager takes without hand fixes (pdftui.triage.bibtex): one
case per rule, then the whole corpus (folder export with every ``--marked`` value, the
reference list of every document that has one) parsed by bibtexparser and, where Debian's
``biber`` is installed, read by ``biber --tool``."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from pathlib import Path

import bibtexparser
import pytest

from pdftui.references import Reference
from pdftui.triage.bibtex import (BibRecord, Person, author_field, balanced, base_key, entry,
                                  person, record_of_item, references_bibtex, to_bibtex,
                                  unique_keys)
from pdftui.triage.export import ExportItem
from pdftui.triage.title_case import title_case, word_forms
from pdftui.venue import Venue, VenueKind, reference_venue


def _one(text: str) -> dict:
    """The single entry of ``text`` as bibtexparser reads it."""
    [e] = bibtexparser.loads(text).entries
    return e


# ------------------------------------------------------------------ authors
@pytest.mark.parametrize("name, want", [
    ("Ashish Vaswani", Person("Vaswani", "Ashish")),
    ("Aidan N. Gomez", Person("Gomez", "Aidan N.")),
    ("Gael Le Lan", Person("Le Lan", "Gael")),
    ("Timothy Van Zandt", Person("Van Zandt", "Timothy")),
    ("Ludwig van Beethoven", Person("van Beethoven", "Ludwig")),
    ("Le Zhang", Person("Zhang", "Le")),                      # a first word is a given name
    ("Martin Luther King Jr.", Person("King", "Martin Luther", "Jr.")),
    ("Vaswani, Ashish", Person("Vaswani", "Ashish")),
    ("Satoshi  Nakamoto\x1b", Person("Nakamoto", "Satoshi")),
    ("Plato", Person("Plato")),
])
def test_a_name_is_split_into_surname_and_given_names(name, want):
    assert person(name) == want


def test_the_author_field_is_surname_comma_given_joined_by_and():
    people = [person("Ashish Vaswani"), person("Gael Le Lan"), Person("Kaiser", "Łukasz"),
              person("Martin Luther King Jr.")]
    assert author_field(people) == ("Vaswani, Ashish and Le Lan, Gael and Kaiser, Łukasz "
                                    "and King, Jr., Martin Luther")
    assert author_field([Person("Ba"), Person("Kiros")], et_al=True) == "Ba and Kiros and others"
    assert author_field([Person("Rezende", "D.J."), Person("Chang", "K.C.-C.")]) == \
        "Rezende, D. J. and Chang, K. C.-C."
    assert author_field([], et_al=True) == ""
    # an empty name would make "A and  and B", which biber skips the entry for
    assert author_field([Person("Ba"), Person(" "), Person("Hinton")]) == "Ba and Hinton"
    # a word "and" or a comma inside a name cannot split the list or the name
    got = author_field([Person("Smith and Jones", "Bob"), Person("Acme, Inc.")])
    assert got == "{Smith and Jones}, Bob and {Acme, Inc.}"
    assert [e["author"] for e in [_one(entry(BibRecord("T", (Person("Smith and Jones"),)),
                                             "k"))]] == ["{Smith and Jones}"]


def test_reference_authors_take_given_names_and_et_al_when_the_parser_has_them():
    """A Reference without given names gives surnames only; one with them gives "Surname,
    Given", and "and others" when the entry printed "et al."."""
    base = Reference(0, 3, "[1]", "Ba, J. L., Kiros, J. R., et al. Layer normalization. "
                     "arXiv preprint arXiv:1607.06450, 2016.", ("Ba", "Kiros"), 2016,
                     "Layer normalization", "arXiv preprint arXiv:1607.06450", "1607.06450")
    assert _one(references_bibtex([base]))["author"] == "Ba and Kiros"
    now = dataclasses.replace(base, given=("J. L.", "J. R."), et_al=True)
    e = _one(references_bibtex([now]))
    assert e["author"] == "Ba, J. L. and Kiros, J. R. and others"
    shorter = dataclasses.replace(now, given=("Jimmy Lei",), et_al=False)
    assert _one(references_bibtex([shorter]))["author"] == "Ba, Jimmy Lei and Kiros"


# ------------------------------------------------------------------ entry types and venues
@pytest.mark.parametrize("venue, kind, name", [
    ("Advances in Neural Information Processing Systems, 32", VenueKind.INPROCEEDINGS,
     "Advances in Neural Information Processing Systems"),
    ("Proceedings of the Sixteenth ACM Symposium on Operating Systems Principles (Saint "
     "Malo, France, Octo", VenueKind.INPROCEEDINGS,
     "Proceedings of the Sixteenth ACM Symposium on Operating Systems Principles"),
    ("CVPR, volume 1, page 6", VenueKind.INPROCEEDINGS, "CVPR"),
    ("Journal of Machine Learning Research, 15(1", VenueKind.ARTICLE,
     "Journal of Machine Learning Research"),
    ("Audio, Speech, and Language Processing, IEEE Transactions on, 20(1)", VenueKind.ARTICLE,
     "Audio, Speech, and Language Processing, IEEE Transactions on"),
    ("Neuron ;113(16", VenueKind.ARTICLE, "Neuron"),
    ("Proceedings of the IEEE, 86(11)", VenueKind.ARTICLE, "Proceedings of the IEEE"),
    ("Proceedings of the National Academy of Sciences ;112(38):E5361–E5370",
     VenueKind.ARTICLE, "Proceedings of the National Academy of Sciences"),
    ("Proceedings of the IEEE/CVF Conference on Computer Vision and Pattern Recognition "
     "(CVPR", VenueKind.INPROCEEDINGS, "Proceedings of the IEEE/CVF Conference on Computer "
     "Vision and Pattern Recognition (CVPR)"),
    ("Proceedings of the IEEE 26th Symposium on Mass Storage Systems", VenueKind.INPROCEEDINGS,
     "Proceedings of the IEEE 26th Symposium on Mass Storage Systems"),
    ("Duke Math. J. 7", VenueKind.ARTICLE, "Duke Math. J."),
    ("PhD thesis, University of Toronto", VenueKind.PHDTHESIS, "University of Toronto"),
    ("Master’s thesis, University of Bielefeld", VenueKind.MASTERSTHESIS,
     "University of Bielefeld"),
    ("Technical report, OpenAI", VenueKind.TECHREPORT, "OpenAI"),
    ("Microsoft Research, Redmond, Washington, Tech. Rep. MSR-TR-, 101",
     VenueKind.TECHREPORT, "Microsoft Research"),
    ("MIT Press, Cambridge, MA", VenueKind.BOOK, "MIT Press"),
    ("Apress", VenueKind.BOOK, "Apress"),                    # not the month "Apr"
])
def test_a_reference_venue_has_the_kind_its_text_says(venue, kind, name):
    got = reference_venue(venue)
    assert got is not None and (got.kind, got.name) == (kind, name)


@pytest.mark.parametrize("venue", [
    "arXiv preprint arXiv:1607.06450", "CoRR, abs/1409.0473",
    "Technical report",                # a report, but no institution printed
    "Tech. rep. MSR-TR-",              # a report number is no institution
    "Last accessed June 5", "The Guardian, URL", "",
])
def test_no_venue_kind_is_guessed(venue):
    assert reference_venue(venue) is None


def test_each_venue_kind_writes_its_entry_type_and_field():
    cases = [(VenueKind.ARTICLE, "article", "journal"),
             (VenueKind.INPROCEEDINGS, "inproceedings", "booktitle"),
             (VenueKind.PHDTHESIS, "phdthesis", "school"),
             (VenueKind.MASTERSTHESIS, "mastersthesis", "school"),
             (VenueKind.TECHREPORT, "techreport", "institution"),
             (VenueKind.BOOK, "book", "publisher")]
    for kind, etype, field in cases:
        e = _one(entry(BibRecord("A Title", (Person("Doe", "Jane"),), year=2001,
                                 venue=Venue(kind, "Somewhere & Co")), "doe2001title"))
        assert (e["ENTRYTYPE"], e[field]) == (etype, r"Somewhere \& Co"), kind
    assert _one(entry(BibRecord("A Title", venue=Venue(VenueKind.ARTICLE, " ")), "k")
                )["ENTRYTYPE"] == "misc"                    # no name: no journal to give


def test_an_arxiv_reference_is_misc_with_eprint_as_arxiv_writes_it():
    ref = Reference(3, 9, "[4]", "Y. Tay. Synthesizer. arXiv:2005.00743 [cs.CL], 2020.",
                    ("Tay",), 2020, "Synthesizer", "arXiv preprint arXiv:2005.00743",
                    "2005.00743")
    e = _one(references_bibtex([ref]))
    assert e["ENTRYTYPE"] == "misc" and "howpublished" not in e
    assert (e["eprint"], e["archiveprefix"], e["primaryclass"], e["url"]) == (
        "2005.00743", "arXiv", "cs.CL", "https://arxiv.org/abs/2005.00743")
    other = dataclasses.replace(ref, venue="Google Cloud Blog", arxiv_id="")
    assert _one(references_bibtex([other]))["howpublished"] == "Google Cloud Blog"


def test_the_publication_year_the_venue_prints_comes_before_the_metadata_year():
    """mixup's arXiv id says 2017; page 1 says "Published as a conference paper at ICLR
    2018": the entry's year is 2018, and so is its citekey's (second trial: the key
    zhang2017mixup beside year 2018)."""
    item = ExportItem("mixup.pdf", "/p/mixup.pdf", "mixup: Beyond Empirical Risk "
                      "Minimization", ("Hongyi Zhang",), 2017, "1710.09412",
                      first_pages=("Published as a conference paper at ICLR 2018\n\nmixup: "
                                   "BEYOND EMPIRICAL RISK MINIMIZATION",))
    rec = record_of_item(item)
    assert rec.year == 2018 and rec.venue.kind is VenueKind.INPROCEEDINGS
    e = _one(to_bibtex([item]))
    assert e["year"] == "2018" and e["ID"] == "zhang2018mixup"
    plain = dataclasses.replace(item, first_pages=("no venue here",))
    assert _one(to_bibtex([plain]))["year"] == "2017"


# ------------------------------------------------------------------ titles
def test_title_case_braces_names_of_a_sentence_case_title():
    title = "Iron deficiency anaemia can be improved after eradication of Helicobacter pylori"
    assert title_case(title) == ("Iron Deficiency Anaemia Can Be Improved After "
                                 "Eradication of {Helicobacter} Pylori")
    assert title_case("Barriers to a quality improvement process: a situational analysis "
                      "at Kamuzu Central Hospital in Malawi") == (
        "Barriers to a Quality Improvement Process: A Situational Analysis at {Kamuzu} "
        "{Central} {Hospital} in {Malawi}")
    assert title_case("Extensions of Lipschitz mappings into a Hilbert space") == \
        "Extensions of {Lipschitz} Mappings into a {Hilbert} Space"
    # more capitalised words than lower-case ones (one-letter words and the halves of
    # hyphenated ones not counted): title case with a word left in lower case
    assert title_case("The Planar k-means Problem is NP-hard") == \
        "The Planar K-Means Problem Is {NP}-Hard"
    # a title-case title says nothing of names by its capitals
    assert title_case("Programming Languages: Application and Interpretation") == \
        "Programming Languages: Application and Interpretation"


def test_the_title_s_own_lines_are_not_the_text_writing_a_word_capitalised():
    """Trial: "Programming Languages: Application and {Interpretation}" and "Debian
    {Developer's} {Reference}": the title line and running heads ("and Interpretation",
    with a curly apostrophe) counted as the text capitalising a word mid-sentence."""
    title = "Programming Languages: Application and Interpretation"
    pages = (f"{title}\n\nVersion Second Edition\n\nProgramming Languages: Application and "
             "\nInterpretation\n\nwe study the interpretation of programs")
    assert title_case(title, word_forms(pages, title)) == title
    deb = "Debian Developer's Reference"
    pages = "Debian Developer’s Reference\n\nRelease 12.18\n\nDeveloper’s Reference Team"
    assert title_case(deb, word_forms(pages, deb)) == "Debian Developer's Reference"
    # a real name written inside sentences still counts
    dynamo = word_forms("Dynamo\n\nthe needs of Amazon services; at Amazon we run",
                        "Dynamo")
    assert "{Amazon}" in title_case("Lessons from Amazon", dynamo)


def test_names_the_eleventh_trial_found_unprotected_are_braced():
    """Eleventh trial: "Big Bird", "Google" and "Lindenstrauss" were left to a style
    that lowercases titles ("Big bird", "the google file system"). A name the text writes
    as one word with inner capitals (BigBird, BIGBIRD), a name whose only lower-case
    spellings are in mail or web addresses (research.google.com), and the second of two
    names joined by a dash inside a sentence are protected; a common word is not."""
    bird = "Big Bird: Transformers for Longer Sequences"
    pages = f"{bird}\n\nwe propose BIGBIRD, a sparse attention; BigBird reduces the cost"
    assert title_case(bird, word_forms(pages, bird)) == \
        "{Big} {Bird}: Transformers for Longer Sequences"
    gfs = "The Google File System"
    pages = (f"{gfs}\n\nghemawat@google.com, http://research.google.com/pubs\n"
             "we run it at Google on many clusters; at Google the workload")
    assert title_case(gfs, word_forms(pages, gfs)) == "The {Google} File System"
    jl = "A Sparse Johnson–Lindenstrauss Transform"
    pages = (f"{jl}\n\nthe Johnson–Lindenstrauss lemma states; by the "
             "Johnson-Lindenstrauss lemma a sparse map exists")
    assert title_case(jl, word_forms(pages, jl)) == \
        "A Sparse {Johnson}–{Lindenstrauss} Transform"
    plain = "Longer Sequences for Transformers"
    assert title_case(plain, word_forms("long sequences; Transformers are models", plain)) \
        == plain


def test_title_glitches_of_the_fourth_trial_are_gone():
    """Fourth trial's BibTeX titles: "{16X16}", "Dis-Entangled" (a title broken over two
    lines at a hyphen), "{LATEX}" (the logo as text extraction reads it) and
    "Fancybox.Sty" (a file name title-cased)."""
    vit = "AN IMAGE IS WORTH 16X16 WORDS: TRANSFORMERS FOR IMAGE RECOGNITION AT SCALE"
    assert title_case(vit, word_forms("we split an image into patches", vit)) == (
        "An Image Is Worth {16x16} Words: Transformers for Image Recognition at Scale")
    deberta = "DEBERTA: DECODING-ENHANCED BERT WITH DIS-ENTANGLED ATTENTION"
    pages = "DeBERTa improves BERT with a disentangled attention mechanism; BERT and RoBERTa"
    assert title_case(deberta, word_forms(pages, deberta)) == (
        "{DeBERTa}: Decoding-Enhanced {BERT} with Disentangled Attention")
    # a hyphenated word the text never writes whole keeps its hyphen
    assert title_case("Self-attention for all") == "Self-Attention for All"
    assert title_case("Publication quality tables in LATEX") == \
        "Publication Quality Tables in {LaTeX}"
    assert title_case("A new implementation of LATEX’s indexing commands") == \
        "A New Implementation of {LaTeX’s} Indexing Commands"
    assert title_case("Documentation for fancybox.sty: Box tips and tricks for LATEX") == \
        "Documentation for {fancybox.sty}: Box Tips and Tricks for {LaTeX}"


def test_reference_titles_are_title_cased_not_braced_whole():
    ref = Reference(0, 1, "[1]", "raw", ("Bahdanau",), 2014, "Neural machine translation by "
                    "jointly learning to align and translate", "ICLR")
    e = _one(references_bibtex([ref]))
    assert e["title"] == "Neural Machine Translation by Jointly Learning to Align and Translate"
    assert e["ENTRYTYPE"] == "inproceedings" and e["booktitle"] == "ICLR"


# ------------------------------------------------------------------ escaping, empty fields
def test_hostile_values_are_escaped_and_every_value_balances():
    hostile = "Evil } @misc{pwn, title={x} 100% & $ # _ ~ ^ \\ {"
    rec = BibRecord(hostile, (Person("O}Brien", "{Bob"),), note=hostile,
                    venue=Venue(VenueKind.ARTICLE, "J. {of} }Hacks"), howpublished="x{",
                    file="/papers/a {b.pdf", doi="10.1/}x", keywords="k}")
    text = entry(rec, "k")
    db = bibtexparser.loads(text)
    assert [e["ID"] for e in db.entries] == ["k"]             # nothing opened or closed
    e = db.entries[0]
    for name, value in e.items():
        assert balanced(value), (name, value)
    assert r"\textbraceright{}" in e["title"] and r"\%" in e["title"] and r"\&" in e["title"]
    assert r"\$" in e["note"] and r"\_" in e["note"] and r"\textbackslash{}" in e["note"]
    assert "@misc" not in text.replace(r"{\char64}misc", "")


def test_non_ascii_is_kept_as_utf8():
    e = _one(entry(BibRecord("Über die Elektrodynamik bewegter Körper",
                             (Person("Sarlós", "Tamás"), Person("Kaiser", "Łukasz"))), "k"))
    assert e["author"] == "Sarlós, Tamás and Kaiser, Łukasz"
    assert "Körper" in e["title"] and "{Über}" in e["title"]


def test_empty_fields_are_never_written():
    text = entry(BibRecord("Title", (Person(""),), year=None, venue=None, howpublished=" ",
                           arxiv_id="", doi="", file="", note="\x1b", keywords=""), "k")
    assert text == "@misc{k,\n  title = {Title}\n}\n"
    assert "= {}" not in references_bibtex([Reference(0, 1, "", "Some raw text, 1999.")])


# ------------------------------------------------------------------ citekeys
def test_citekeys_get_suffixes_only_on_real_clashes_and_are_stable():
    bases = [("b.pdf", "smith2020deep"), ("a.pdf", "smith2020deep"), ("c.pdf", "doe2019x")]
    keys = unique_keys(bases)
    assert keys == {"a.pdf": "smith2020deepa", "b.pdf": "smith2020deepb", "c.pdf": "doe2019x"}
    assert unique_keys(reversed(bases)) == keys
    assert base_key("Ludwig van Beethoven", None, "The 9th: a symphony") == "beethovennd9th"
    refs = [Reference(n, 1, "", "raw", ("Smith",), 2020, "Deep nets") for n in range(2)]
    ids = [e["ID"] for e in bibtexparser.loads(references_bibtex(refs)).entries]
    assert ids == ["smith2020deepa", "smith2020deepb"]


# ------------------------------------------------------------------ biber on a small file
def _biber(tmp_path: Path, text: str) -> str:
    """``biber --tool`` on ``text``: its log (stdout and stderr); asserts it ran."""
    if shutil.which("biber") is None:
        pytest.skip("biber is not installed (apt-get install biber)")
    bib = tmp_path / "in.bib"
    bib.write_text(text, encoding="utf-8")
    run = subprocess.run(["biber", "--tool", "--validate-datamodel", bib.name,
                          "--output-file", "out.bib"], capture_output=True, text=True,
                         cwd=tmp_path, timeout=300)
    log = run.stdout + run.stderr
    assert run.returncode == 0, log
    return log


def test_biber_reads_hostile_and_non_ascii_entries_without_a_warning(tmp_path):
    recs = [BibRecord("Evil } @misc{pwn, 100% & $", (Person("O}Brien", "Bob"),), year=2020,
                      venue=Venue(VenueKind.ARTICLE, "J. of {Hacks")),
            BibRecord("Über Körper", (Person("Sarlós", "Tamás"),), year=1905,
                      venue=Venue(VenueKind.PHDTHESIS, "Universität Zürich")),
            BibRecord("Layer normalization", (Person("Ba", "Jimmy Lei"),), et_al=True,
                      year=2016, arxiv_id="1607.06450", arxiv_class="stat.ML")]
    log = _biber(tmp_path, "\n".join(entry(r, f"k{n}") for n, r in enumerate(recs)))
    assert not re.findall(r"^(?:WARN|ERROR).*", log, re.M), log


# ------------------------------------------------------------------ the whole corpus
#: A varied part of the corpus for the corpus tier (the whole corpus is the slow tier's):
#: SMALL's papers, manuals and versions, and papers of a symposium (SOSP, OSDI), a journal,
#: ACL's two columns, arXiv-only, a white paper and a journal article.
SELECTION = ["debian-octave-refcard-a4.pdf", "arxiv-0908.0054-ultralight-bosonic-dark-matter-cmb.pdf",
             "arxiv-2005.07143-ecapa-tdnn-speaker-verification.pdf",
             "arxiv-2402.05672-multilingual-e5-embeddings.pdf", "arxiv-1512.03385-resnet.pdf",
             "arxiv-1706.03762v5-attention-is-all-you-need.pdf",
             "arxiv-1706.03762v7-attention-is-all-you-need.pdf", "texlive-euler.pdf",
             "amazon-2007-dynamo.pdf", "google-2012-spanner.pdf", "google-2004-mapreduce.pdf",
             "arxiv-1810.04805-bert.pdf", "arxiv-2108.09084-fastformer.pdf",
             "arxiv-2007.14062-big-bird.pdf", "lamport-2001-paxos-made-simple.pdf",
             "nakamoto-2008-bitcoin.pdf", "raft-2014-understandable-consensus-algorithm.pdf",
             "aiopen-2020-gnn-review-of-methods-and-applications.pdf"]


def _indexed(tmp_path_factory, name: str, docs: list[str] | None):
    """``(folder, cache)`` of ``docs`` (None: the whole corpus) indexed without
    embeddings, shared by the session."""
    from .conftest import CORPUS, shared_index

    docs = docs or sorted(p.name for p in CORPUS.glob("*.pdf"))
    if not docs:
        pytest.skip("the corpus is not here")
    return shared_index(tmp_path_factory, name, docs, embed=False)


def _cli(*args) -> str:
    from click.testing import CliRunner

    from pdftui.cli import main

    r = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.stdout


@pytest.mark.corpus
def test_a_varied_part_of_the_corpus_exports_bibtex_every_checker_reads(tmp_path_factory,
                                                                        tmp_path):
    """:func:`_exports_are_read` on :data:`SELECTION` (17 works)."""
    folder, cache = _indexed(tmp_path_factory, "bibtex-selection", SELECTION)
    _exports_are_read(folder, cache, tmp_path, works=16, reference_lists=10)


@pytest.mark.slow
@pytest.mark.corpus
def test_every_corpus_export_and_reference_list_parses_and_biber_reads_it(tmp_path_factory,
                                                                         tmp_path):
    """:func:`_exports_are_read` on the whole corpus (about 200 s of text indexing)."""
    folder, cache = _indexed(tmp_path_factory, "bibtex-corpus", None)
    _exports_are_read(folder, cache, tmp_path, works=100, reference_lists=60)


def _exports_are_read(folder, cache, tmp_path, works: int, reference_lists: int) -> None:
    """The folder exported as BibTeX with every ``--marked`` value (marks: every fifth
    work keep, every seventh to read, every eleventh skip), and the reference list of
    every document that has one: each parses with bibtexparser (one entry per work or
    reference, keys unique, braces balanced, no empty field), the skipped works only with
    ``all`` / ``skip``; where biber is installed, ``biber --tool`` reads each with no
    error, the folder's export with no warning either."""
    from pdftui.citation_graph import CitationGraph
    from pdftui.library import Library

    data = tmp_path / "data"
    docs = sorted(p.name for p in folder.glob("*.pdf"))
    for n, doc in enumerate(docs):
        mark = "skip" if n % 11 == 3 else "to-read" if n % 7 == 2 else \
            "keep" if n % 5 == 1 else None
        if mark:
            _cli("mark", folder, doc, mark, "--cache-dir", cache, "--data-dir", data)
    texts = {}
    for marked in ("keep", "to-read", "skip", "any", "all"):
        text = _cli("export", folder, "--format", "bibtex", "--marked", marked,
                    "--cache-dir", cache, "--data-dir", data)
        entries = _check(text)
        kinds = [e.get("keywords", "") for e in entries]
        assert ("pdftui-skip" in kinds) == (marked in ("skip", "all")), marked
        texts[f"export-{marked}"] = text
    everything = bibtexparser.loads(texts["export-all"]).entries
    assert len(everything) >= works            # one per work (the versions are one)
    assert {e["ENTRYTYPE"] for e in everything} >= {"misc", "article", "inproceedings"}
    lib = Library(folder, cache)
    try:
        graph = CitationGraph.read(lib)
        for doc in docs:
            refs = [r.reference for r in graph.references(doc)]
            if refs:
                text = references_bibtex(refs)
                assert len(_check(text)) == len(refs), doc
                texts[f"refs-{doc}"] = text
    finally:
        lib.close()
    assert len([k for k in texts if k.startswith("refs-")]) >= reference_lists
    if shutil.which("biber") is None:
        pytest.skip("biber is not installed (apt-get install biber)")
    for name, text in texts.items():
        (tmp_path / name).mkdir()
        log = _biber(tmp_path / name, text)
        assert not re.findall(r"^ERROR.*", log, re.M), (name, log)
        warnings = re.findall(r"^WARN.*", log, re.M)
        if name.startswith("export-"):
            assert not warnings, (name, log)
        else:   # an entry whose title or year the reference parser could not read
            assert all("Missing mandatory field" in w for w in warnings), (name, warnings)


def _check(text: str) -> list[dict]:
    """The entries of ``text``, each with a unique key, balanced braces, no empty
    field."""
    entries = bibtexparser.loads(text).entries
    assert len({e["ID"] for e in entries}) == len(entries)
    assert text.count("\n@") + text.startswith("@") - text.count("@comment") == len(entries)
    for e in entries:
        for name, value in e.items():
            assert value.strip() and balanced(value), (e["ID"], name, value)
    return entries
