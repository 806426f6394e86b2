"""Reference entries: a list split into entries (numbered, run-in, author-year, hanging
indent), each parsed into fields; bad and hostile input keeps its raw text, invents no
field and stays bounded."""

from __future__ import annotations

import time

from pdftui.references import (MAX_ENTRIES, MAX_RAW_CHARS, RefBlock, parse_entry,
                               read_references, split_entries)


def _blocks(*lines: tuple[float, str], page: int = 9) -> list[RefBlock]:
    return [RefBlock(page, x0, text) for x0, text in lines]


def test_numbered_entries_with_continuation_lines():
    refs = read_references(_blocks(
        (108, "References"),
        (113, "[1] Jimmy Lei Ba, Jamie Ryan Kiros, and Geoffrey E Hinton. Layer normalization."
              " arXiv preprint arXiv:1607.06450, 2016."),
        (113, "[2] Denny Britz, Anna Goldie, Minh-Thang Luong, and Quoc V. Le. Massive"),
        (120, "exploration of neural machine translation architectures. CoRR, abs/1703.03906,"
              " 2017."),
        (300, "10")))
    assert [r.label for r in refs] == ["[1]", "[2]"]
    assert refs[0].authors == ("Ba", "Kiros", "Hinton")
    assert (refs[0].year, refs[0].title, refs[0].arxiv_id) == (2016, "Layer normalization",
                                                                "1607.06450")
    assert refs[1].authors[-1] == "Le"   # "Le." is a surname, not an initial
    assert refs[1].title == "Massive exploration of neural machine translation architectures"
    assert refs[1].arxiv_id == "1703.03906"


def test_a_doi_broken_after_a_dot_at_the_line_end_is_read_whole():
    r = parse_entry("A. Paszke, S. Gross and S. Chintala. PyTorch: An Imperative Style, "
                    "High-Performance Deep Learning Library. 2019. doi: "
                    "https://doi.org/10.48550/arXiv. 1912.01703.", 7)
    assert (r.doi, r.year) == ("10.48550/arXiv.1912.01703", 2019)
    r = parse_entry("K. Simonyan and A. Zisserman. Very Deep Convolutional Networks. In: "
                    "ICLR. 2015. doi: https://doi.org/10.48550/arXiv.1409. 1556.", 7)
    assert r.doi == "10.48550/arXiv.1409.1556"
    # a year after a DOI that ends its sentence is no part of it
    r = parse_entry("A. Author. A title of the work. J. Things, doi:10.1000/abc. 2020.", 7)
    assert r.doi == "10.1000/abc"


def test_run_in_numbered_list_is_cut_at_each_next_label():
    refs = read_references(_blocks(
        (317, "8. REFERENCES [1] D. Achlioptas. Database-friendly random projections:"),
        (321, "Johnson-Lindenstrauss with binary coins. Journal of Computer and System"
              " Sciences, 66(4):671-687, 2003. [2] N. Ailon and B. Chazelle. The fast"
              " Johnson-Lindenstrauss transform. SIAM J. Comput., 2009.")))
    assert [(r.label, r.authors, r.year) for r in refs] == [
        ("[1]", ("Achlioptas",), 2003), ("[2]", ("Ailon", "Chazelle"), 2009)]


def test_author_year_hanging_indent_and_hyphenated_break():
    refs = read_references(_blocks(
        (72, "Quoc Le and Tomas Mikolov. 2014. Distributed rep-"),
        (83, "resentations of sentences and documents. In ICML, pages 1188-1196."),
        (72, "Hector J Levesque, Ernest Davis, and Leora Morgen-"),
        (83, "stern. 2011. The winograd schema challenge. In KR."),
        (72, "Wilson L Taylor. 1953. Cloze procedure: A new tool for measuring readability."),
        (83, "Journalism Bulletin, 30(4):415-433.")))
    assert len(refs) == 3
    assert refs[0].title == "Distributed representations of sentences and documents"
    assert refs[0].label == "Le and Mikolov, 2014"
    assert refs[0].venue == "ICML"
    assert refs[1].authors == ("Levesque", "Davis", "Morgenstern")
    assert (refs[2].first_author, refs[2].year) == ("Taylor", 1953)


def test_inverted_names_and_parenthesised_year():
    r = parse_entry("Vaswani, A., Shazeer, N., Parmar, N., Uszkoreit, J., Jones, L., Gomez,"
                    " A. N., Kaiser, Ł., and Polosukhin, I. Attention is all you need. In"
                    " NeurIPS, 2017.", 3)
    assert r.authors[0] == "Vaswani" and r.authors[-1] == "Polosukhin"
    assert (r.year, r.title) == (2017, "Attention is all you need")
    r = parse_entry("Bengio, Y., Mesnil, G., Dauphin, Y., and Rifai, S. (2013a). Better mixing"
                    " via deep representations. In ICML’13.", 8)
    assert (r.authors, r.year, r.title) == (("Bengio", "Mesnil", "Dauphin", "Rifai"), 2013,
                                            "Better mixing via deep representations")
    r = parse_entry("CORBETT, J. C., DEAN, J., AND WOODFORD, D. Spanner: Google’s globally-"
                    "distributed database. In Proc. OSDI (2012).", 1)
    assert r.authors == ("CORBETT", "DEAN", "WOODFORD") and r.title.startswith("Spanner")


def test_quoted_title_and_doi():
    r = parse_entry('K. He, X. Zhang, S. Ren, and J. Sun, “Deep residual learning for image'
                    ' recognition,” in CVPR, 2016, doi:10.1109/CVPR.2016.90.', 4)
    assert (r.first_author, r.year) == ("He", 2016)
    assert r.title == "Deep residual learning for image recognition"
    assert r.doi == "10.1109/CVPR.2016.90"


def test_author_year_entries_set_as_running_text_are_cut():
    refs = read_references(_blocks(
        (38, "Allamanis, M., Brockschmidt, M., Khademi, M., 2018. Learning to represent"
             " programs with graphs. Proc. ICLR. Atwood, J., Towsley, D., 2016. Diffusion-"
             "convolutional neural networks. Proceedings of NIPS.")))
    assert [(r.first_author, r.year) for r in refs] == [("Allamanis", 2018), ("Atwood", 2016)]


def test_unparsable_entry_keeps_raw_text_and_invents_nothing():
    r = parse_entry("Phys. Rev. Lett. 85, 1158 - 1161 (2000), [astro-ph/0003365].", 4, 0, "[1]")
    assert r.raw.startswith("Phys. Rev.")
    assert (r.authors, r.title, r.venue) == ((), "", "")
    assert r.label == "[1]"


def test_hostile_entries_are_bounded_and_stored_as_text():
    many = _blocks(*[(72, f"[{i}] A. Writer. Title number {i}. Venue, 2001.")
                     for i in range(1, 12_001)])
    t0 = time.monotonic()
    refs = read_references(many)
    assert len(refs) == MAX_ENTRIES
    huge = read_references(_blocks((72, "[1] " + "word " * 10_000),
                                   (72, "[2] \x1b[31mRed\x1b[0m [bold]Name[/bold]. A title."
                                        " Venue, 2001.")))
    assert time.monotonic() - t0 < 30   # bounded, not a timing goal
    assert len(huge[0].raw) <= MAX_RAW_CHARS
    assert "\x1b" not in huge[1].raw and "[bold]" in huge[1].raw


def test_split_keeps_page_of_each_entry():
    entries = split_entries([RefBlock(10, 72, "[1] A. One. First. V, 2001."),
                             RefBlock(11, 72, "[2] B. Two. Second. V, 2002.")])
    assert [(p, label) for p, label, _t in entries] == [(10, "[1]"), (11, "[2]")]


def test_vancouver_names_and_a_colon_after_the_authors():
    refs = read_references(_blocks(
        (305, "References 1. Kudsk KA, Fabian TC, Baum S: Silent deep vein thrombosis in"
              " immobilized multiple trauma patients. Am J Surg 1989, 158:515-519. 2. Raichle"
              " ME. The restless brain. Brain Connect. 2011;1(1):3-12."
              " https://doi.org/10.1089/brain.2011.0019"),
        (305, "3. Volpi T, Silvestri E, et al. The brain’s “dark energy” puzzle. J Neurosci."
              " 2024;44(1):e1234.")))
    assert [(r.label, r.authors, r.year) for r in refs] == [
        ("1.", ("Kudsk", "Fabian", "Baum"), 1989), ("2.", ("Raichle",), 2011),
        ("3.", ("Volpi", "Silvestri"), 2024)]
    assert refs[0].title == "Silent deep vein thrombosis in immobilized multiple trauma patients"
    assert refs[1].doi == "10.1089/brain.2011.0019"
    assert refs[2].title == "The brain’s “dark energy” puzzle"   # a quote inside a title


def test_a_url_entry_has_no_authors():
    r = parse_entry("LogCabin source code. http://github.com/logcabin/logcabin.", 16, 0, "[22]")
    assert (r.authors, r.title) == ((), "")


def test_running_heads_of_the_list_pages_are_not_entries():
    refs = read_references([
        RefBlock(14, 72, "Webb et al. (2017), PeerJ Comput. Sci., DOI 10.7717/peerj-cs.118 14/16"),
        RefBlock(14, 72, "Blackburne BP, Whelan S. 2013. Class of multiple sequence alignment"
                         " algorithm affects genomic analysis. Mol Biol Evol 30(3):642-653."),
        RefBlock(15, 72, "Webb et al. (2017), PeerJ Comput. Sci., DOI 10.7717/peerj-cs.118 15/16"),
        RefBlock(15, 72, "Loytynoja A, Goldman N. 2005. An algorithm for progressive multiple"
                         " alignment of sequences. PNAS 102(30):10557-10562.")])
    assert [(r.first_author, r.year) for r in refs] == [("Blackburne", 2013),
                                                       ("Loytynoja", 2005)]
    assert refs[0].title == ("Class of multiple sequence alignment algorithm affects genomic"
                             " analysis")


def test_names_then_year_styles_read_names_and_year_and_no_journal_as_title():
    r = parse_entry("L. M. Adleman (1994), Algorithmic number theory—The complexity"
                    " contribution, in Proceedings of the 35th Annual Symposium on"
                    " Foundations of Computer Science, IEEE, pp. 88-113.", 25)
    assert (r.authors, r.year) == (("Adleman",), 1994)
    assert r.title == "Algorithmic number theory—The complexity contribution"
    r = parse_entry("Ehlers J, Geren P and Sachs R K, 1968 J. Math. Phys. 9 1344", 14)
    assert (r.authors, r.year, r.title) == (("Ehlers", "Geren", "Sachs"), 1968, "")


def test_run_in_label_after_a_number_or_url_is_cut():
    """A run-in ``[n]`` after a page number or a URL (no sentence end before it) still
    starts the entry the list expects next, and the ones after it keep being cut."""
    refs = read_references(_blocks(
        (48, "[1] Hinshaw G et al, 2008 Astrophys. J. Suppl. Ser. 180 225 [2] Ehlers J, Geren"
             " P and Sachs R K, 1968 J. Math. Phys. 9 1344"),
        (48, "[3] “Project gutenberg.” [Online]. Available: https:// www.gutenberg.org/ [4] T."
             " H. Trinh and Q. V. Le, “A simple method for commonsense reasoning,” 2018. [5] A."
             " Radford, K. Narasimhan, T. Salimans, and I. Sutskever, “Improving language"
             " understanding by generative pre-training,” 2018.")))
    assert [r.label for r in refs] == ["[1]", "[2]", "[3]", "[4]", "[5]"]
    assert [r.first_author for r in refs] == ["Hinshaw", "Ehlers", "", "Trinh", "Radford"]
    assert refs[4].year == 2018


def test_author_year_entry_starting_at_a_line_end_is_cut():
    """An author-year entry set as running text whose author list reaches the line's end
    (its year on the next line) starts a new entry there."""
    refs = read_references(_blocks(
        (40, "Battaglia, P., Pascanu, R., Lai, M., 2016. Interaction networks for learning"
             " about objects. Proceedings of NIPS 4509-4517. Bojchevski, A., Klicpera, J.,"),
        (40, "Perozzi, B., 2018. NetGAN: generating graphs via random walks. Proceedings of"
             " ICML. Borgwardt, K.M., Ong, C.S., Sch€onauer,"),
        (40, "S., Vishwanathan, S., Smola, A.J., Kriegel, H.-P., 2005. Protein function"
             " prediction via graph kernels. Bioinformatics 21, 47-56.")))
    assert [(r.first_author, r.year) for r in refs] == [
        ("Battaglia", 2016), ("Bojchevski", 2018), ("Borgwardt", 2005)]
    assert refs[1].title == "NetGAN: generating graphs via random walks"


def test_vancouver_entry_whose_last_initials_end_the_author_list():
    """``Harris JJ, Jolivet R, Attwell D. Title. Journal. 2012;75(5):762-77.``: the
    period after the last initials ends the author list, the title follows."""
    ref = parse_entry("Harris JJ, Jolivet R, Attwell D. Synaptic energy use and supply."
                      " Neuron. 2012;75(5):762–77. https://doi.org/10.1016/j.neuron.2012.08.019"
                      " PMID: 22958818", 3)
    assert (ref.authors, ref.year) == (("Harris", "Jolivet", "Attwell"), 2012)
    assert ref.title == "Synaptic energy use and supply"
    assert ref.doi == "10.1016/j.neuron.2012.08.019"
    other = parse_entry("Ponce-Alvarez A, Deco G, Hagmann P, Romani GL, Mantini D, Corbetta"
                        " M. Resting-state temporal synchronization networks emerge from"
                        " connectivity topology. PLoS Comput Biol. 2015;11(2):e1004100.", 3)
    assert (other.first_author, other.year) == ("Ponce-Alvarez", 2015)
    assert other.title.startswith("Resting-state temporal synchronization")


def test_accent_printed_apart_before_its_letter_joins_the_letter():
    """A combining accent after a space (``C ́el ́erier``) belongs to the next letter."""
    ref = parse_entry("C \u0301el \u0301erier M N, 2007 New Adv. Phys. 1 29", 14)
    assert (ref.first_author, ref.year, ref.title) == ("Célérier", 2007, "")
    ref = parse_entry("D. Beauquier, M. Nivat, E. R \u0301emila and M. Robson. Tiling figures"
                      " of the plane with two bars. Comput. Geom. 5 (1995), 1-25.", 2)
    assert ref.authors == ("Beauquier", "Nivat", "Rémila", "Robson")
    assert ref.title == "Tiling figures of the plane with two bars"


def test_works_grouped_under_one_label_are_entries_of_that_label():
    """JCAP groups several works under one label; each is its own entry (same label),
    with no title invented where the style prints none."""
    refs = read_references(_blocks(
        (48, "[1] Perlmutter S et al, 1997 Astrophys. J. 483 565 [SPIRES] Riess A G et al,"
             " 1998 Astrophys. J. 116 1009 [SPIRES]"),
        (48, "[2] Hinshaw G et al, 2008 Astrophys. J. Suppl. Ser. submitted arXiv:0803.0732"
             " Tegmark M et al, 2006 Phys. Rev. D 74 123507 [SPIRES] Alnes H, Amarzguioui M"
             " and Grøn Ø, 2006 Phys. Rev. D 73 083519 [SPIRES]")))
    assert [(r.label, r.first_author, r.year, r.arxiv_id) for r in refs] == [
        ("[1]", "Perlmutter", 1997, ""), ("[1]", "Riess", 1998, ""),
        ("[2]", "Hinshaw", 2008, "0803.0732"), ("[2]", "Tegmark", 2006, ""),
        ("[2]", "Alnes", 2006, "")]
    assert all(r.title == "" for r in refs)


def test_euro_sign_between_letters_reads_as_an_umlaut():
    """``Sch€onauer`` (an umlaut set as ``€``) is a surname inside an author list."""
    ref = parse_entry("Borgwardt, K.M., Ong, C.S., Sch€onauer, S., Vishwanathan, S., 2005."
                      " Protein function prediction via graph kernels. Bioinformatics 21.", 21)
    assert ref.authors == ("Borgwardt", "Ong", "Schönauer", "Vishwanathan")
    assert ref.title == "Protein function prediction via graph kernels"
