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
    runs = [read_references(_blocks((72, text))) for text in (
        "x. " + ("Aa B, " * 30 + "Aa B. 2001. Title. ") * 150,   # Vancouver run-ins
        "Louis J. Billera, " * 3000, "(1982a), " + "Title, " * 7000, ". Aa B" * 8000)]
    assert time.monotonic() - t0 < 30   # bounded, not a timing goal
    assert len(huge[0].raw) <= MAX_RAW_CHARS
    assert "\x1b" not in huge[1].raw and "[bold]" in huge[1].raw
    assert all(len(r.raw) <= MAX_RAW_CHARS and len(r.given) == len(r.authors)
               for refs in runs for r in refs)


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


def test_numbered_list_run_in_few_blocks_is_split_at_each_label():
    """A column set as one block (``References 1. Kudsk KA ... 2. Geerts WH ...``) among
    the page's running heads and publisher's boxes: the labels that count up decide the
    style, though few blocks open with one (BMC). The running head, alone on one page and
    joined to the text under it on the next, is cut from the entries."""
    head = ("Datta et al. Journal of Trauma Management & Outcomes 2010, 4:1"
            " http://www.traumamanagement.org/content/4/1/1")
    refs = read_references([
        RefBlock(2, 305, "References 1. Kudsk KA, Fabian TC, Baum S, Gold RE, Mangiante E,"
                         " Voeller G: Silent deep vein thrombosis in immobilized multiple"
                         " trauma patients. Am J Surg 1989, 158:515-9. 2. Geerts WH, Code KI,"
                         " Jay RM, Chen E, Szalai JP: A prospective study of venous"
                         " thromboembolism after major trauma. N Engl J Med 1994,"
                         " 331:1601-6. 3. Knudson MM, Ikossi DG: Venous thromboembolism after"
                         " trauma. Curr Opin Crit Care 2004, 10:539-48. 4. Acosta JA, Yang JC,"
                         " Winchell RJ: Lethal injuries and time to death in a level I trauma"
                         " center. J Am Coll Surg 1998, 186:528-33. 5. O’Malley KF, Ross SE:"
                         " Pulmonary embolism in major trauma patients. J Trauma 1990,"
                         " 30:748-50."),
        RefBlock(3, 57, head),
        RefBlock(3, 57, "6. Meissner MH, Chandler WL, Elliott JS: Venous thromboembolism in"
                        " trauma: a local manifestation of systemic"),
        RefBlock(3, 491, "Page 10 of 11"),
        RefBlock(4, 57, head + " hypercoagulability? J Trauma 2003, 54:224-31. 7. Darcy MD,"
                        " Smith TP, Hunter DW: Complications of percutaneous filters. Radiology"
                        " 1991, 181:96-9."),
        RefBlock(4, 491, "Page 11 of 11"),
        RefBlock(4, 310, "doi:10.1186/1752-2897-4-1 Cite this article as: Datta et al.:"
                         " Complications. Journal of Trauma Management & Outcomes 2010 4:1."),
        RefBlock(4, 330, "Publish with BioMed Central and every scientist can read your work"),
        RefBlock(4, 333, "available free of charge to the entire biomedical community"),
        RefBlock(4, 333, "peer reviewed and published immediately upon acceptance"),
        RefBlock(4, 333, "cited in PubMed and archived on PubMed Central")])
    assert [(r.label, r.first_author, r.year) for r in refs[:7]] == [
        ("1.", "Kudsk", 1989), ("2.", "Geerts", 1994), ("3.", "Knudson", 2004),
        ("4.", "Acosta", 1998), ("5.", "O’Malley", 1990), ("6.", "Meissner", 2003),
        ("7.", "Darcy", 1991)]
    assert refs[3].title == "Lethal injuries and time to death in a level I trauma center"
    assert "Datta" not in refs[4].raw + refs[5].raw
    assert refs[5].raw.endswith("local manifestation of systemic hypercoagulability? J Trauma"
                                " 2003, 54:224-31.")


def test_vancouver_author_year_entries_run_in_and_their_broken_lines():
    """PeerJ sets ``Surname II, ... Year. Title. Journal`` entries as running blocks: each
    starts after the sentence before it, also when its names run to a block's end; a
    block opening with the year, a DOI or a journal's volume continues the entry."""
    refs = read_references(_blocks(
        (186, "Afgan E, Baker D, van den Beek M, Blankenberg D, Bouvier D, Čech M, Chilton J,"),
        (186, "Clements D, Coraor N, Eberhard C, Grüning B, Guerler A, Hillman-Jackson J,"
              " Von Kuster G, Rasche E, Soranzo N, Turaga N, Taylor J, Nekrutenko A, Goecks J."
              " 2016. The Galaxy platform for accessible, reproducible and collaborative"
              " biomedical analyses: 2016 update. Nucleic Acids Research 44(W1):W3–W10 DOI"
              " 10.1093/nar/gkw343. Altschul SF, Madden TL, Schaffer AA, Lipman DJ. 1997."),
        (186, "Gapped BLAST and PSI-BLAST: a new generation of protein database search"
              " programs. Nucleic Acids Research 25(17):3389–3402 DOI 10.1093/nar/25.17.3389."
              " Alvarez-Ponce D, Aguade M, Rozas J. 2009. Network-level molecular evolutionary"
              " analysis of the insulin/TOR signal transduction pathway across 12 Drosophila"
              " genomes. Genome Research 19(2):234–242 DOI 10.1101/gr.084038.108."),
        (186, "Eddy SR. 1998. Profile hidden Markov models. Bioinformatics 14(9):755–763"),
        (186, "DOI 10.1093/bioinformatics/14.9.755. Kosiol C, Vinar T, Da Fonseca RR, Hubisz"
              " MJ, Siepel A."),
        (186, "2008. Patterns of positive selection in six Mammalian genomes. PLOS Genetics"
              " 4(8):e1000144 DOI 10.1371/journal.pgen.1000144. Pond SL, Frost SD, Muse SV."
              " 2005. HyPhy: hypothesis testing using phylogenies."),
        (186, "Bioinformatics 21(5):676–679 DOI 10.1093/bioinformatics/bti079.")))
    assert [(r.first_author, r.year) for r in refs] == [
        ("Afgan", 2016), ("Altschul", 1997), ("Alvarez-Ponce", 2009), ("Eddy", 1998),
        ("Kosiol", 2008), ("Pond", 2005)]
    assert refs[0].authors[2] == "van den Beek" and refs[0].authors[5] == "Čech"
    assert refs[1].title == ("Gapped BLAST and PSI-BLAST: a new generation of protein"
                             " database search programs")
    assert refs[3].doi == "10.1093/bioinformatics/14.9.755"
    assert refs[4].title == "Patterns of positive selection in six Mammalian genomes"
    assert refs[5].doi == "10.1093/bioinformatics/bti079"


def test_an_entry_repeating_the_authors_before_it_takes_theirs():
    """``(1982a), Title, ...`` under ``P. Benioff (1980), ...`` (SIAM): an entry of its
    own, though set indented like a continuation line, by the same authors."""
    refs = read_references(_blocks(
        (116, "P. Benioff (1980), The computer as a physical system: A microscopic quantum"
              " mechanical Hamiltonian model of computers as represented by Turing machines,"
              " J. Statist. Phys., 22, pp. 563–591."),
        (132, "(1982a), Quantum mechanical Hamiltonian models of Turing machines, J. Statist."
              " Phys., 29, pp. 515–546."),
        (116, "C. H. Bennett, G. Brassard, S. Popescu, B. Schumacher, J. A. Smolin, and W. K."
              " Wooters"),
        (132, "(1995), Purification of noisy entanglement, and faithful teleportation via"
              " noisy channels, Phys. Rev. Lett., to appear."),
        (116, "C. H. Bennett (1973), Logical reversibility of computation, IBM J. Res."
              " Develop., 17, pp. 525–532."),
        (141, "(1989), Time/space trade-offs for reversible computation, SIAM J. Comput., 18,"
              " pp. 766–776.")))
    assert [(r.first_author, r.year, r.label) for r in refs] == [
        ("Benioff", 1980, "Benioff, 1980"), ("Benioff", 1982, "Benioff, 1982"),
        ("Bennett", 1995, "Bennett et al., 1995"), ("Bennett", 1973, "Bennett, 1973"),
        ("Bennett", 1989, "Bennett, 1989")]
    assert refs[1].title == "Quantum mechanical Hamiltonian models of Turing machines"
    assert refs[3].title == "Logical reversibility of computation"
    assert refs[4].title == "Time/space trade-offs for reversible computation"


def test_a_running_head_with_its_page_number_is_no_part_of_an_entry():
    refs = read_references([
        RefBlock(6, 135, "References"),
        RefBlock(6, 140, "[1] M. J. Cardoso, W. Li, R. Brown, N. Ma, E. Kerfoot, Y. Wang,"
                         " B. Murray, A. Myronenko, C. Zhao, D. Yang, V. Nath, Y. He, Z. Xu,"
                         " A. Hatamizadeh, W. Zhu, Y. Liu, M. Zheng, Y. Tang, I. Yang, M."
                         " Zephyr, B. Hashemian, S. Alle, M. Zalbagi Darestani, C. Budd, M."
                         " Modat, T. Vercauteren, G. Wang, Y. Li, Y. Hu, Y. Fu, B. Gorman, H."
                         " Johnson, B. Genereaux, B. S. Erdal, V. Gupta, A. Diaz-Pinto, A."
                         " Dourson, L. Maier-Hein, P. F. Jaeger,"),
        RefBlock(7, 277, "Title Suppressed Due to Excessive Length 7"),
        RefBlock(7, 135, "M. Baumgartner, J. Kalpathy-Cramer, M. Flores, J. Kirby, L. A."
                         " Cooper, H. R. Roth, D. Xu, D. Bericat, R. Floca, S. K. Zhou, H."
                         " Shuaib, K. Farahani, K. H. Maier-Hein, S. Aylward, P. Dogra, S."
                         " Ourselin and A. Feng. MONAI: An open-source framework for deep"
                         " learning in healthcare. 2022. doi: https://doi.org/10.48550/arXiv."
                         "2211.02701."),
        RefBlock(8, 135, "8 L. Beveridge, L. Zhang"),
        RefBlock(8, 135, "[2] K. He, X. Zhang, S. Ren and J. Sun. “Deep Residual Learning for"
                         " Image Recognition”. In: CVPR. 2016.")])
    assert len(refs) == 2 and "Suppressed" not in refs[0].raw and "Beveridge" not in refs[1].raw
    assert (refs[0].first_author, refs[0].year, refs[0].arxiv_id) == ("Cardoso", 2022,
                                                                      "2211.02701")
    assert len(refs[0].authors) == 56 and refs[0].authors[-1] == "Feng"
    assert refs[0].title == "MONAI: An open-source framework for deep learning in healthcare"


def test_names_given_first_ended_by_a_comma_then_a_comma_ended_title():
    """AMS (``Louis J. Billera, Susan P. Holmes, and Karen Vogtmann, Title, Journal 27
    (2001)``) and IEEE books (``S. Pinker, The Language Instinct: ... Viking, 2014``)."""
    r = parse_entry("Louis J. Billera, Susan P. Holmes, and Karen Vogtmann, Geometry of the"
                    " space of phylogenetic trees, Adv. in Appl. Math. 27 (2001), no. 4,"
                    " 733–767.", 17)
    assert (r.authors, r.given, r.year) == (("Billera", "Holmes", "Vogtmann"),
                                            ("Louis J.", "Susan P.", "Karen"), 2001)
    assert r.title == "Geometry of the space of phylogenetic trees"
    r = parse_entry("David Bayer and Ian Morrison, Standard bases and geometric invariant"
                    " theory. I. Initial ideals and state polytopes, J. Symbolic Comput. 6"
                    " (1988), no. 2-3, 209–217, Computational aspects of commutative algebra.",
                    17)
    assert (r.authors, r.year) == (("Bayer", "Morrison"), 1988)
    assert r.title == ("Standard bases and geometric invariant theory. I. Initial ideals and"
                       " state polytopes")
    r = parse_entry("Peter Butkovi\u02c7c, Max-linear systems: theory and algorithms, Springer"
                    " Monographs in Mathematics, Springer-Verlag London Ltd., London, 2010.", 18)
    assert (r.authors, r.year) == (("Butkovič",), 2010)
    assert r.title == "Max-linear systems: theory and algorithms"
    r = parse_entry("Corrado De Concini and Claudio Procesi, Wonderful models of subspace"
                    " arrangements, Selecta Math. (N.S.) 1 (1995), no. 3, 459–494.", 18)
    assert (r.first_author, r.title) == ("De Concini", "Wonderful models of subspace"
                                                       " arrangements")
    r = parse_entry("S. Pinker, The Language Instinct: How the Mind Creates Language. Viking,"
                    " 2014.", 32)
    assert (r.first_author, r.year) == ("Pinker", 2014)
    assert r.title == "The Language Instinct: How the Mind Creates Language"


def test_names_then_year_then_a_title_ended_by_a_comma():
    """``Names (Year), Title, Journal, Volume, pp.``: the title ends before the first part
    that reads as a venue, a publisher or an edition."""
    cases = [
        ("C. H. Bennett (1973), Logical reversibility of computation, IBM J. Res. Develop., 17,"
         " pp. 525–532.", "Logical reversibility of computation"),
        ("I. L. Chuang, R. Laflamme, P. W. Shor, and W. H. Zurek (1995), Quantum computers,"
         " factoring and decoherence, Science, 270, pp. 1635–1637.",
         "Quantum computers, factoring and decoherence"),
        ("G. H. Hardy and E. M. Wright (1979), An Introduction to the Theory of Numbers, Fifth"
         " ed., Oxford University Press, New York.", "An Introduction to the Theory of Numbers"),
        ("R. Landauer (1995a), Is quantum mechanics useful? Philos. Trans. Roy. Soc. London"
         " Ser. A, to appear.", "Is quantum mechanics useful?"),
        ("A. M. Turing (1936), On computable numbers, with an application to the"
         " Entscheidungsproblem, Proc. London Math. Soc. (2), 42, pp. 230–265.",
         "On computable numbers, with an application to the Entscheidungsproblem")]
    for text, title in cases:
        assert parse_entry(text, 25).title == title, text
    assert parse_entry("E. Knill (1995), personal communication.", 27).title == ""


def test_a_book_title_without_its_volume_and_a_question_with_its_subtitle():
    r = parse_entry("András Bátkai and Susanna Piazzera. Semigroups for Delay Equations,"
                    " volume 10 of Research Notes in Mathematics. A K Peters, Wellesley, MA,"
                    " 2005.", 25, 0, "[5]")
    assert (r.first_author, r.year, r.title) == ("Bátkai", 2005, "Semigroups for Delay"
                                                                 " Equations")
    r = parse_entry("Groenewegen PP, et al: What is important in evaluating health care"
                    " quality? An international comparison of user views. BMC Health Serv Res"
                    " 2005, 5(1):16.", 9, 0, "27.")
    assert r.title == ("What is important in evaluating health care quality? An international"
                       " comparison of user views")
    assert (r.first_author, r.year, r.et_al) == ("Groenewegen", 2005, True)


def test_name_forms_particles_accents_and_et_al_variants():
    r = parse_entry("Bowman, S. R., Pavlick, E., Grave, E., Van Durme, B., Wang, A., Hula, J.,"
                    " et al. Looking for elmo’s friends: Sentence-level pretraining beyond"
                    " language modeling. arXiv preprint arXiv:1812.10860, 2018.", 10)
    assert r.authors[3] == "Van Durme" and r.et_al
    assert r.title.startswith("Looking for elmo’s friends")
    r = parse_entry("L’Abbe \u0301 KA, Detsky AS, O’Rourke K. Meta-analysis in clinical"
                    " research. Ann Intern Med. 1987;107:224e33.", 7)
    assert (r.first_author, r.title) == ("L’Abbé", "Meta-analysis in clinical research")
    r = parse_entry("Lindsay, B.G., et. al., “Notes on Distributed Databases”, Research Report"
                    " RJ2571(33471), IBM Research, July 1979", 15)
    assert (r.first_author, r.title, r.year, r.et_al) == (
        "Lindsay", "Notes on Distributed Databases", 1979, True)
    r = parse_entry("P. van Emde Boas (1990), Machine models and simulations, in Handbook of"
                    " Theoretical Computer Science, Vol. A, Elsevier, pp. 3–66.", 28)
    assert (r.authors, r.given) == (("van Emde Boas",), ("P.",))


def test_given_names_and_et_al_parallel_to_the_surnames():
    r = parse_entry("Jimmy Lei Ba, Jamie Ryan Kiros, and Geoffrey E Hinton. Layer"
                    " normalization. arXiv preprint arXiv:1607.06450, 2016.", 10)
    assert r.given == ("Jimmy Lei", "Jamie Ryan", "Geoffrey E") and not r.et_al
    r = parse_entry("Vaswani, A., Shazeer, N., Parmar, N., et al. Attention is all you need."
                    " In NeurIPS, 2017.", 3)
    assert (r.authors, r.given, r.et_al) == (("Vaswani", "Shazeer", "Parmar"),
                                             ("A.", "N.", "N."), True)
    r = parse_entry("Volpi T, Silvestri E, et al. The brain’s “dark energy” puzzle. J"
                    " Neurosci. 2024;44(1):e1234.", 3)
    assert (r.given, r.et_al) == (("T.", "E."), True)
    r = parse_entry("Ba, J. L., Kiros, J. R., and Hinton, G. E. Layer normalization. arXiv"
                    " preprint arXiv:1607.06450, 2016.", 10)
    assert r.given == ("J. L.", "J. R.", "G. E.")   # the period the list's end took
    r = parse_entry("Aidan N Gomez, Ł ukasz Kaiser, and Illia Polosukhin. Attention is all you"
                    " need. In NIPS, 2017.", 10)
    assert (r.authors, r.given) == (("Gomez", "Kaiser", "Polosukhin"),
                                    ("Aidan N", "Łukasz", "Illia"))
    r = parse_entry("Together Computer. Redpajama: an open dataset. 2023.", 6)
    assert len(r.given) == len(r.authors)
    r = parse_entry("Phys. Rev. Lett. 85, 1158 - 1161 (2000), et al.", 4)
    assert (r.authors, r.given, r.et_al) == ((), (), False)


def test_an_arxiv_doi_gives_the_arxiv_id_and_a_doi_broken_after_its_slash_is_joined():
    r = parse_entry("A. Paszke and S. Chintala. PyTorch: An Imperative Style Library. 2019."
                    " doi: https://doi.org/10.48550/arXiv.1912.01703.", 7)
    assert (r.doi, r.arxiv_id) == ("10.48550/arXiv.1912.01703", "1912.01703")
    r = parse_entry("Moher D, Cook DJ, Eastwood S, et al. Improving the quality of reports of"
                    " meta-analyses. Lancet 1999;354:1896e900. (PMID: 10584742), doi: 10.1016/"
                    " S0140-6736(99)04149-5.", 7)
    assert r.doi == "10.1016/S0140-6736(99)04149-5"


def test_more_name_forms_semicolons_dotless_i_editors_elided_particles_lower_initials():
    r = parse_entry("A \u0308\u0131meur, E.; Brassard, G. & Gambs, S. “Machine Learning in a"
                    " Quantum World”. In “Advances in Artificial Intelligence”, 431–442."
                    " Springer (2006)", 24, 0, "[5]")
    assert (r.authors, r.year) == (("Aïmeur", "Brassard", "Gambs"), 2006)
    assert r.title == "Machine Learning in a Quantum World"
    r = parse_entry("B. Beyer, C. Jones, et al., editors. Site Reliability Engineering: How"
                    " Google Runs Production Systems. O’Reilly, 2016.", 12, 0, "[19]")
    assert (r.first_author, r.et_al, r.year) == ("Beyer", True, 2016)
    assert r.title == "Site Reliability Engineering: How Google Runs Production Systems"
    r = parse_entry("S. d’Ascoli, J. Rapin, Y. Benchetrit, H. Banville, and J.-R. King. TRIBE:"
                    " TRImodal Brain Encoder for whole-brain fMRI response prediction."
                    " arXiv:2507.22229, 2025.", 7)
    assert (r.first_author, r.arxiv_id) == ("d’Ascoli", "2507.22229")
    r = parse_entry("A. Graves, A.-r. Mohamed, and G. Hinton. Speech recognition with deep"
                    " recurrent neural networks. In ICASSP, 2013.", 9)
    assert (r.authors, r.title) == (("Graves", "Mohamed", "Hinton"),
                                    "Speech recognition with deep recurrent neural networks")


def test_a_title_ending_in_a_capital_and_an_arxiv_id_without_its_dot():
    r = parse_entry("N. Alon. Problems and results in extremal combinatorics, Part I. Discrete"
                    " Math, 273:31–53, 2003.", 7, 0, "[4]")
    assert (r.title, r.year) == ("Problems and results in extremal combinatorics, Part I", 2003)
    r = parse_entry("Cho K, Van Merriënboer B, Bahdanau D, Bengio Y. On the properties of neural"
                    " machine translation: Encoder-decoder approaches. arXiv preprint"
                    " arXiv:14091259. 2014;.", 9, 0, "[2]")
    assert (r.arxiv_id, r.year, r.authors[1]) == ("1409.1259", 2014, "Van Merriënboer")


def test_a_hyphenated_name_broken_at_a_line_end_keeps_its_hyphen():
    refs = read_references(_blocks(
        (72, "Avsec, Z., Agarwal, V., Visentin, D., Ledsam, J. R., Grabska-"),
        (84, "Barwinska, A., Taylor, K. R., Assael, Y., Jumper, J., Kohli, P., and Kelley, D."
             " R. Effective gene expression prediction from sequence by integrating"
             " long-range interactions. Nature Methods, 18(10):1196–1203, 2021.")))
    assert refs[0].authors[4] == "Grabska-Barwinska"
    assert refs[0].title.startswith("Effective gene expression prediction")
    assert refs[0].year == 2021
