"""Excerpt choice on real page blocks: the paragraph that holds the match."""

from __future__ import annotations

from pdftui.search.excerpt import EXTRA_WEIGHT, choose
from pdftui.search.page_passages import MIN_CHARS, grow
from pdftui.search import excerpt
from pdftui.search.keyword import parse_query


def test_a_match_in_a_short_block_is_shown_with_its_paragraph():
    """A term found only in a heading or a one-letter line used to be the whole excerpt
    ('C', 'relu'); it is now shown with the blocks that follow it."""
    blocks = ["Intro text that does not hold the query term at all, but is long enough to be"
              " a paragraph of its own in the page.", "C", "The interface is written in the"
              " language named above and compiled with the usual tool chain on every system."]
    i, text = choose(blocks, parse_query("C"))
    assert i == 1 and text.startswith("C The interface") and len(text) >= MIN_CHARS


def test_grow_goes_backwards_at_the_end_of_a_page():
    blocks = ["A long closing paragraph of the page, well over the minimum size of an excerpt"
              " so that it can stand alone.", "15 Bugs"]
    assert grow(blocks, 1).endswith("15 Bugs") and grow(blocks, 1).startswith("A long")
    assert grow(blocks, 0) == blocks[0]


# -- passages on real pages (issue 18) ----------------------------------------------------
import functools  # noqa: E402

from pdftui.extract import extract_document  # noqa: E402
from pdftui.sections import sections_for  # noqa: E402
from pdftui.search.page_passages import (continues, kind_weight, passages,  # noqa: E402
                                         table_groups)

from .conftest import CORPUS, shared_file  # noqa: E402


@functools.cache
def _blocks(name: str, page: int) -> list[str]:
    return [b.text for b in extract_document(shared_file(CORPUS / name)).pages[page - 1].blocks]


def test_a_table_is_one_passage_with_its_caption_and_header():
    """The ResNet-50 error used to come back as the paragraph citing Table 3, or one row
    without the column names; the table is now one passage, caption first, its rows
    records with their headers (two columns under one rule told apart)."""
    blocks = _blocks("arxiv-1512.03385-resnet.pdf", 6)
    assert "model: ResNet-50; top-1 err.: 22.85; top-5 err.: 6.71" in blocks
    groups = table_groups(blocks)
    assert any(blocks[g.seed].startswith("Table 3.") and len(g.members) >= 10 for g in groups)
    _i, text = choose(blocks, parse_query("ImageNet validation top-1 error of a ResNet-50"))
    assert text.startswith("Table 3.") and "model: ResNet-50; top-1 err.: 22.85" in text


def test_a_closed_compound_matches_its_hyphenated_form():
    """'frameskip' matches 'frame-skipping' in the excerpt as in the keyword arm, so the
    paragraph with the answer (k = 3 for Space Invaders) beats one naming the game only."""
    blocks = _blocks("arxiv-1312.5602-playing-atari-deep-rl.pdf", 6)
    _i, text = choose(blocks, parse_query("why Space Invaders needed a different frameskip"))
    assert "except Space Invaders" in text


def test_a_paragraph_broken_by_the_page_end_is_joined_with_its_continuation():
    p3 = _blocks("openai-2019-gpt2-language-models-unsupervised-multitask.pdf", 3)
    p4 = _blocks("openai-2019-gpt2-language-models-unsupervised-multitask.pdf", 4)
    last = max(i for i, b in enumerate(p3) if len(b) >= MIN_CHARS)
    assert continues(p3[last], p4[1])
    _i, text = choose(p3, parse_query("removed all Wikipedia documents from WebText"),
                      next_blocks=p4[:3])
    assert "Wikipedia documents" in text and "lapping training data" in text
    _i, alone = choose(p3, parse_query("removed all Wikipedia documents from WebText"))
    assert "lapping" not in alone
    assert all(m < len(p3) for p in passages(p3) for m in p.members)


def test_captions_pointers_and_reference_entries_weigh_less_than_prose():
    prose = "The model is trained with a batch size of 32 and the loss described above."
    assert kind_weight(prose) == 1.0
    assert kind_weight("Figure 3: The model trained with batch size 32.") < 1.0
    assert kind_weight("For an example, see Section 4.2 (p. 144).") < 1.0
    assert kind_weight("[12] A. Vaswani, N. Shazeer and N. Parmar. Attention is all you"
                       " need. In NIPS, 2017.") < kind_weight("Table 2: Results.")
    # a statement with a pointer in passing is still prose
    assert kind_weight("For overlays, you must use both the semlayer and semcolor style"
                       " options (see page 37).") == 1.0


def test_a_page_found_by_meaning_only_shows_its_defining_passage():
    """A described query sharing no word with the page used to show whichever passage
    overlapped the best embedding unit most (an aside about 'note text' effects, the
    introduction's second paragraph); the page's abstract, else the opening of a section
    starting on it, is what it states."""
    q = parse_query("dictation software warming up on piles of voice recordings nobody typed out")
    wav = _blocks("arxiv-1904.05862-wav2vec.pdf", 1)
    _i, text = choose(wav, q)
    assert text.lower().startswith("abstract") and "unlabeled audio data" in text
    beamer = _blocks("texlive-beamer-user-guide.pdf", 196)
    head = next(i for i, b in enumerate(beamer) if b.startswith("19 Adding Notes"))
    q = parse_query("private cue cards for the speaker that the crowd never gets to view")
    _i, text = choose(beamer, q, section_starts={head})
    assert "reminder to yourself of what you should say" in text
    # a page holding a query term still shows the passage that holds it
    _i, text = choose(beamer, parse_query("note text appended to the current slide"),
                      section_starts={head})
    assert "appends" in text or "note text" in text.lower()


def test_equal_scores_go_to_the_earlier_passage_with_the_lead_in():
    """The display '\\newindex{aut}{adx}{and}{Name Index}' and the paragraph explaining it
    hold the same query terms; the explanation alone was shown (a longer first block won
    the tie), now the passage that starts earlier, with the command, is."""
    blocks = _blocks("texlive-index.pdf", 2)
    _i, text = choose(blocks, parse_query("separate author name index in a LaTeX book"))
    assert "\\newindex{aut}" in text


def test_a_table_cited_by_the_matching_paragraph_is_shown_with_its_values():
    """'how many layers ... largest GPT-2' showed the paragraph saying the architectures
    'are summarized in Table 2'; the table it cites is shown, with the row of values."""
    blocks = _blocks("openai-2019-gpt2-language-models-unsupervised-multitask.pdf", 4)
    q = parse_query("how many layers and what width does the largest GPT-2 have")
    _i, text = choose(blocks, q)
    assert text.startswith("Table 2.") and "1542M 48 1600" in text


def test_an_abbreviation_the_page_defines_matches_its_long_form():
    """The ECAPA-TDNN results table heads its column 'EER(%)'; the page defines 'Equal
    Error Rate (EER)', so the table matches the query's 'equal error rate'."""
    from pdftui.search.excerpt import acronyms
    blocks = _blocks("arxiv-2005.07143-ecapa-tdnn-speaker-verification.pdf", 4)
    assert acronyms(blocks).get("EER", "").lower() == "equal error rate"
    assert acronyms(["the Equal Error Rate (EER) and a Rate Error (EER)"]) == \
        {"EER": "Equal Error Rate"}
    assert acronyms(["a model (GPT) of text"]) == {}
    q = parse_query("ResNet34 speaker embedding baseline equal error rate on VoxCeleb")
    _i, text = choose(blocks, q)
    assert "ResNet34 23.9M 1.19" in text


@functools.lru_cache(maxsize=4)
def _indexed(name: str) -> tuple:
    """The pages of a corpus PDF as the index stores them: blocks split at the headings
    of its sections (:func:`pdftui.sections.sections_for`), and the sections."""
    ex = extract_document(shared_file(CORPUS / name))
    return ex.pages, sections_for(ex)


def _page(name: str, page: int) -> tuple[list[str], set[int]]:
    """``(block texts, indexes of the blocks where a section starts)`` of a page."""
    pages, secs = _indexed(name)
    return ([b.text for b in pages[page - 1].blocks],
            {s.start_block for s in secs if s.start_page == page})


def test_a_short_paragraph_is_shown_with_the_one_after_it_in_its_section():
    """'why GFS uses 64 MB chunks' showed the two-line opening of 2.5 Chunk Size ('We have
    chosen 64 MB ...') without the paragraph giving the reasons; a passage shorter than
    PASSAGE_CHARS now runs on into the next paragraph of its section, never into the next
    section or a caption."""
    blocks, starts = _page("google-2003-file-system.pdf", 3)
    _i, text = choose(blocks, parse_query("why GFS uses 64 MB chunks"), section_starts=starts)
    assert text.startswith("2.5 Chunk Size") and "need to interact with the master" in text
    for p in passages(blocks, section_starts=starts):
        assert not any(j in starts for j in p.extra)
        assert not any(blocks[j].startswith("Figure") for j in p.extra)
    # without the sections, a dotted section number still stops it
    assert not any(blocks[j].startswith("2.6 Metadata") for p in passages(blocks)
                   for j in p.extra)
    # the image-inclusion syntax under 4.4, below the two-line lead-in that matched
    blocks, starts = _page("texlive-graphics-grfguide.pdf", 9)
    _i, text = choose(blocks, parse_query("insert and scale an external PDF, PNG or EPS image "
                                          "in LaTeX"), section_starts=starts)
    assert "\\includegraphics*[⟨key val list⟩]{⟨file⟩}" in text


def test_blocks_added_to_a_short_paragraph_count_at_half_weight(monkeypatch):
    """A passage run on into the next paragraph must not beat the paragraph that holds the
    rarest query word by gathering its neighbours' common ones: 'appends' is shown (at
    full weight the section's opening, run on, won)."""
    beamer = _blocks("texlive-beamer-user-guide.pdf", 196)
    head = next(i for i, b in enumerate(beamer) if b.startswith("19 Adding Notes"))
    for weight, want in ((1.0, False), (EXTRA_WEIGHT, True)):
        monkeypatch.setattr(excerpt, "EXTRA_WEIGHT", weight)
        _i, text = choose(beamer, parse_query("note text appended to the current slide"),
                          section_starts={head})
        assert ("appends" in text) is want


def test_a_paragraph_about_what_a_figure_shows_yields_to_the_one_stating_the_thing():
    """'make the model show its working before answering maths questions' showed 'Figure 1
    shows an example of a model producing a chain of thought ...' (the same query words
    as the paragraph listing what chain of thought allows, earlier on the page); a
    paragraph opening with what a figure shows now weighs 0.9."""
    name = "arxiv-2201.11903-chain-of-thought-prompting.pdf"
    blocks, starts = _page(name, 3)
    _i, text = choose(blocks, parse_query("make the model show its working before answering "
                                          "maths questions"), section_starts=starts)
    assert "decompose multi-step problems into intermediate steps" in text
    assert kind_weight("Figure 1 shows an example of a model producing a chain of thought "
                       "to solve a math word problem.") == 0.9
    assert kind_weight("Table 2 shows that the model reaches 58.1% on GSM8K, above the "
                       "prior best of 55% by a wide margin.") == 1.0


# -- issue 18, session 10: the block that answers -------------------------------------------
from pdftui.search.excerpt import FRONT_CHARS, _aside_numbers, block_spans  # noqa: E402
from pdftui.search.page_passages import heading_at, joined  # noqa: E402
from pdftui.search.head_field import head_text  # noqa: E402


def _head(name: str) -> str:
    """The document's head field (title, authors) as the engine passes it to choose()."""
    return head_text(_page(name, 1)[0])


def test_a_semantic_hit_holding_query_terms_shows_the_passage_scoring_best_on_them():
    """In semantic mode every hit is one only the semantic arm found; its excerpt was the
    passage under the best embedding unit (~256 tokens), which held the answer for 34 of
    76 dev answers. A page holding query terms now shows the passage scoring best on
    them; the unit's passage is kept for a page holding none and having no defining
    passage."""
    name = "google-2003-file-system.pdf"
    blocks, starts = _page(name, 3)
    text = "\n".join(blocks)
    spans = block_spans(text, blocks)
    far = max(range(len(blocks)), key=lambda j: (spans[j][0] > spans[-1][0] // 2,
                                                 len(blocks[j])))
    assert "need to interact with the master" not in blocks[far]
    q = parse_query("why GFS uses 64 MB chunks")
    _i, got = choose(blocks, q, unit_span=spans[far], page_text=text, section_starts=starts)
    assert "need to interact with the master" in got
    # no query term and no defining passage: what lies under the best unit
    q = parse_query("zzzq")
    i, got = choose(blocks, q, unit_span=spans[far], page_text=text)
    assert blocks[far][:40] in got


def test_query_words_naming_the_document_weigh_half():
    """'how sure a worldwide database can be about what time it is' showed the Spanner
    schema paragraph, the only block with 'databases' (a title word); with the head's
    words at half weight the TrueTime section's opening, holding 'time', is shown."""
    name = "google-2012-spanner.pdf"
    blocks, starts = _page(name, 5)
    q = parse_query("how sure a worldwide database can be about what time it is")
    _i, got = choose(blocks, q, section_starts=starts, head=_head(name))
    assert "TrueTime explicitly represents" in " ".join(got.split())
    _i, alone = choose(blocks, q, section_starts=starts)
    assert "TrueTime explicitly represents" not in " ".join(alone.split())


def test_the_tail_of_a_code_example_grows_back_not_across_the_next_heading():
    """'data = worm.counts)', the last line of a glm() example, grew into the heading
    'Quasi-likelihood models' and its paragraph, and won with their words; it now grows
    back into the example and the paragraph introducing it."""
    blocks, starts = _page("debian-r-intro.pdf", 70)
    tail = next(j for j, b in enumerate(blocks) if b.strip() == "data = worm.counts)")
    assert heading_at(blocks, tail + 1) and not heading_at(blocks, tail)
    assert "Quasi-likelihood" not in grow(blocks, tail)
    assert grow(blocks, tail).endswith("family = poisson(link=sqrt), data = worm.counts)")
    q = parse_query("modelling random counts or arrival times with a Poisson distribution")
    _i, got = choose(blocks, q, section_starts=starts)
    assert "genuinely Poisson data" in got


def test_a_subsection_of_background_is_not_a_defining_passage():
    """A page sharing no word with the query showed '2.1 RNNs', the first section
    starting on it, a subsection of '2 Background'; the next section's opening, the
    paper's claim, is shown."""
    name = "arxiv-2401.06104-transformers-are-multi-state-rnns.pdf"
    blocks, starts = _page(name, 2)
    assert _aside_numbers(blocks, starts) == {"2"}
    q = parse_query("are modern chatbots secretly looping machines with an endless scratchpad")
    _i, got = choose(blocks, q, section_starts=starts)
    assert "MSRNNs with an unbounded number of states" in got and "2.1 RNNs" not in got


def test_a_pointer_in_parentheses_is_prose():
    """A paragraph's continuation opening 'a bypass of the layer normalization unit (see
    Figure 1(a)).' was weighed as a cross-reference (0.6)."""
    assert kind_weight("a bypass of the layer normalization unit (see Figure 1(a)). Instead,"
                       " gradients have to be passed through LN of each sub-layer.") == 1.0
    assert kind_weight("For an example, see Section 4.2 (p. 144).") < 1.0
    assert kind_weight("A worked example: see page 144.") < 1.0


def test_a_paragraph_split_around_an_inline_formula_is_one_passage():
    """The paragraph on pre-norm gradients is split by the extractor around '∂LN(yk)';
    its second half (the 20-layer pre-norm system) counted as run-on text at half weight
    and the paragraph above won. It is now one passage, its words its own."""
    name = "arxiv-1906.01787-learning-deep-transformer-models-mt.pdf"
    blocks, starts = _page(name, 3)
    a = next(j for j, b in enumerate(blocks) if b.startswith("a bypass of the layer"))
    got = joined(blocks, [a])
    assert got[-1] > a + 1 and blocks[got[-1]].startswith("∂yk into the right hand side")
    assert joined(blocks, [a - 1]) == [a - 1] or not blocks[a - 1].rstrip().endswith(".")
    q = parse_query("putting layer normalization before versus after each transformer sublayer")
    _i, text = choose(blocks, q, section_starts=starts, head=_head(name))
    assert "pre-norm Transformer system with a 20-layer encoder" in text


def test_a_match_a_few_lines_into_a_long_passage_keeps_its_opening():
    """'5.4 Margin size' opens with 'The options specifying the size of the margins are
    listed below.' and a 2,600-character list; the excerpt was cut to start 120
    characters before the first 'page' (446 characters in), losing the heading and the
    lead-in. A match within FRONT_CHARS keeps the opening."""
    blocks, starts = _page("texlive-geometry.pdf", 9)
    q = parse_query("shrink the blank borders so more text fits on each page")
    _i, text = choose(blocks, q, section_starts=starts)
    assert "The options specifying the size of the margins" in text
    assert len(text) <= excerpt.MAX_CHARS + 2
    long = "Heading " + "word " * 60 + "target " + "word " * 600
    assert excerpt._capped(long, parse_query("target")).startswith("Heading")
    deep = "Heading " + "word " * (FRONT_CHARS // 5 + 20) + "target " + "word " * 600
    assert excerpt._capped(deep, parse_query("target")).startswith("…")


def test_a_first_page_sharing_few_query_words_shows_its_abstract():
    """A query describing a paper in other words matched one or two of them in a methods
    or introduction paragraph of the first page ('prevention', 'injury'); a first page
    whose best passage holds under a third of the query's terms shows its abstract."""
    blocks, starts = _page("bmc-2010-dvt-prophylaxis-trauma-review.pdf", 1)
    q = parse_query("risks of ways to prevent leg blood clots after severe injuries")
    _i, text = choose(blocks, q, section_starts=starts)
    assert "Three prophylactic modalities" in text
    blocks, starts = _page("arxiv-1706.03791-sz-lossy-compression-scientific-data.pdf", 1)
    q = parse_query("shrinking huge simulation outputs while keeping every value within a "
                    "tolerance")
    _i, text = choose(blocks, q, section_starts=starts)
    assert "error-controlled lossy compression algorithm" in " ".join(text.split())
    # a query whose words the page holds still gets the paragraph holding them
    _i, text = choose(blocks, parse_query("lossy compression prediction hitting rate"),
                      section_starts=starts)
    assert not text.lower().startswith("abstract")


def test_a_term_only_the_reference_list_holds_counts_as_a_reference_entry():
    """The DVT review's last page: a date line ('Received: 2 June 2009 ...') grown into
    the block opening the reference list ('References 1. Kudsk KA ...') beat the
    Conclusion, the terms of its cited titles counting as prose. A term only reference
    entries of a passage hold now counts REFERENCE_WEIGHT, and a block of entries (or
    the list's heading with its first entries) is a reference entry whatever its length."""
    from pdftui.search.page_passages import is_reference
    blocks, starts = _page("bmc-2010-dvt-prophylaxis-trauma-review.pdf", 2)
    first = next(b for b in blocks if b.startswith("References"))
    assert is_reference(first) and len(first) >= 600
    assert not is_reference("1. We introduce BiMamba, a parameter and hardware efficient "
                            "extension of the Mamba block (Gu & Dao, 2023), " + "which "
                            "supports bi-directional sequence modeling of long inputs " * 12)
    q = parse_query("risks of ways to prevent leg blood clots after severe injuries")
    _i, text = choose(blocks, q, section_starts=starts)
    assert "we calculated the risk of bleeding and HIT to be 3.9% and 0.7%" in text


# -- session 12: tables, section titles, subsections, the introduction -------------------
from pdftui.document import innermost  # noqa: E402


def _titles(name: str, page: int) -> dict[int, str]:
    """The section titles of a page as the search service passes them to :func:`choose`:
    by the block where each section starts, and -1 for the one the page opens inside."""
    _pages, secs = _indexed(name)
    out = {s.start_block: s.title for s in secs if s.start_page == page}
    before = innermost([s for s in secs if s.start_page < page], page, 0)
    out[-1] = before.title if before is not None else ""
    return out


def test_a_table_row_is_shown_as_the_table_not_as_a_text_passage():
    """wav2vec p. 6: the rows of Table 3 grown into its caption and run on into the next
    paragraph tied the ablation paragraph stating the answer and won as the earlier
    passage; a table's rows are now only shown as the table, whose caption and rows alone
    score less than the paragraph."""
    blocks, starts = _page("arxiv-1904.05862-wav2vec.pdf", 6)
    rows = {j for t in table_groups(blocks) for j in t.members if j != t.seed}
    assert rows and not any(p.seed in rows for p in passages(blocks, section_starts=starts)
                            if p.kind == "text")
    _i, text = choose(blocks, parse_query("how many negative samples in contrastive "
                                          "pretraining on raw audio"), section_starts=starts)
    assert "only helps up to ten samples" in text


def test_a_heading_after_a_table_caption_still_opens_its_section():
    """CTRL p. 9: "5 SOURCE ATTRIBUTION" follows Table 5's caption and reads as a row of
    it; it still seeds the section opening a page found by meaning only shows."""
    blocks, starts = _page("arxiv-1909.05858-ctrl-conditional-transformer-lm.pdf", 9)
    head = next(j for j in starts if blocks[j].strip() == "5 SOURCE ATTRIBUTION")
    assert any(head in t.members for t in table_groups(blocks))
    _i, text = choose(blocks, parse_query("guessing which forum or website a snippet of "
                                          "writing probably came from"), section_starts=starts)
    assert text.startswith("5 SOURCE ATTRIBUTION") and "compute a ranking of domains" in text


def test_equal_scores_go_to_the_section_titled_with_the_query_terms():
    """GFS p. 9 for "master replication": every paragraph of the page names the master
    and replicas, and the first (garbage collection) won the tie; the paragraph of "5.1.3
    Master Replication" now does, its section's title holding the query's terms."""
    name = "google-2003-file-system.pdf"
    blocks, starts = _page(name, 9)
    q = parse_query("master replication")
    _i, text = choose(blocks, q, section_starts=starts, section_titles=_titles(name, 9))
    assert text.startswith("5.1.3 Master Replication The master state is replicated")
    _i, untitled = choose(blocks, q, section_starts=starts)
    assert untitled.startswith("The garbage collection approach")


def test_equal_scores_go_to_the_subsection_not_its_parents_lead_in():
    """vLLM p. 5: "4 Method"'s lead-in ("we develop a new attention algorithm,
    PagedAttention, and build ...") tied "4.1 PagedAttention", which defines it, and won as
    the earlier passage; the more deeply numbered section now wins the tie."""
    name = "arxiv-2309.06180-pagedattention-vllm.pdf"
    blocks, starts = _page(name, 5)
    q = parse_query("juggling memory in pages so chatbot servers stop wasting GPU space")
    _i, text = choose(blocks, q, section_starts=starts, section_titles=_titles(name, 5))
    assert "an attention algorithm inspired by the classic idea of paging" in text
    _i, untitled = choose(blocks, q, section_starts=starts)
    assert untitled.startswith("4 Method")


def test_a_page_continuing_the_introduction_shows_its_paragraph():
    """REALM p. 2, found by meaning only, opens inside "1. Introduction" and starts only an
    aside ("2. Background"): it showed a later paragraph on prior work; it now shows the
    introduction's paragraph it opens with (a statement of purpose there first)."""
    name = "arxiv-2002.08909-realm.pdf"
    blocks, starts = _page(name, 2)
    titles = _titles(name, 2)
    assert titles[-1] == "1. Introduction"
    q = parse_query("machine that consults an encyclopedia while studying instead of "
                    "cramming trivia into its head")
    # the best embedding unit lies over the paragraph on prior work
    prior = next(j for j, b in enumerate(blocks) if b.startswith("Numerous prior works"))
    page = "\n\n".join(blocks)
    unit = (page.index(blocks[prior]), page.index(blocks[prior]) + len(blocks[prior]))
    _i, text = choose(blocks, q, unit, page, section_starts=starts, section_titles=titles)
    assert "Before making each prediction, the language model uses the retriever" in text
    _i, before = choose(blocks, q, unit, page, section_starts=starts)
    assert before.startswith("Numerous prior works")


def test_the_search_service_passes_the_page_s_section_titles(tmp_path):
    """End to end (keyword index of GFS): the hit on p. 9 for "master replication" shows
    the paragraph of 5.1.3."""
    from pdftui.index import index_folder
    from pdftui.search import SearchService
    from .conftest import copy_docs

    folder = copy_docs(tmp_path / "papers", ["google-2003-file-system.pdf"])
    index_folder(folder, cache_dir=tmp_path / "cache", embed=False)
    service = SearchService(folder, cache_dir=tmp_path / "cache")
    try:
        hits = service.search_sync("master replication", mode="keyword", top_k=20).hits
    finally:
        service.close()
    hit = next(h for h in hits if h.page == 9)
    assert hit.excerpt.startswith("5.1.3 Master Replication")


def test_a_paragraph_broken_by_a_footnote_at_the_column_end_is_joined():
    """Caduceus p. 3: "... Gu & Dao (2023) introduce" closes the left column above its
    footnote ("2The acronym SSM ..."), and "a selective SSM that enables dependence of the
    parameters ... on the input" opens the right one: one passage, the footnote left out."""
    from pdftui.search.page_passages import footnote_like
    blocks, starts = _page("arxiv-2403.03234-caduceus-dna-sequence-modeling.pdf", 3)
    intro = next(j for j, b in enumerate(blocks) if b.startswith("Selection Mechanisms"))
    note, rest = intro + 1, intro + 2
    assert footnote_like(blocks[note]) and blocks[rest].startswith("a selective SSM")
    assert not footnote_like("2D convolutions over the image are computed per channel.")
    assert any(intro in p.members and rest in p.members and note not in p.members
               for p in passages(blocks, section_starts=starts))
    q = parse_query("expressivity of selection mechanisms: parameters depending on the input")
    _i, text = choose(blocks, q, section_starts=starts)
    assert "Gu & Dao (2023) introduce a selective SSM that enables dependence" in text
    assert "The acronym SSM" not in text


# -- issue 18, session 13: kinds of blocks a passage is grown from ----------------------------
from pdftui.search.page_passages import lead_block  # noqa: E402


def test_the_ticks_of_a_figure_grown_into_its_caption_weigh_as_the_caption():
    """ASAP p. 5: the axis ticks of Figure 5 ("0.4", "Frequency", "0.3" ...) grew into its
    caption ("The plot shows two time series and histograms of the underlying ...") and
    the passage weighed as prose, its seed "0.4" being of no kind; it beat the paragraph
    stating that the moving average recovers the underlying trend. A fragment seed now
    takes the kind of the first block of its own it grew into: the caption's."""
    name = "arxiv-1703.00983-asap-time-series-smoothing.pdf"
    blocks, starts = _page(name, 5)
    q = parse_query("smoothing a noisy time series so the underlying trend shows in a plot")
    _i, text = choose(blocks, q, section_starts=starts, section_titles=_titles(name, 5))
    assert "optimal for recovering the underlying trend" in text
    tick = next(p for p in passages(blocks, section_starts=starts) if blocks[p.seed] == "0.4")
    assert blocks[lead_block(tick, blocks)].startswith("Figure 5")
    # a short caption and a heading over its paragraph keep their own kind
    tt = _blocks("google-2012-spanner.pdf", 5)
    caption = next(p for p in passages(tt) if tt[p.seed].startswith("Table 1: TrueTime API"))
    assert lead_block(caption, tt) == caption.seed


def test_a_page_found_by_meaning_shows_the_section_opening_under_its_best_unit():
    """FlashAttention p. 4, found by meaning only, opens "2.2 Standard Attention
    Implementation" and "3.1 An Efficient Attention Algorithm With Tiling ...", and the best
    embedding unit lies in 3.1 (tiling: "we split the inputs Q, K, V into blocks"); the page
    showed 2.2, the first opening on it. The opening of the section holding the unit is now
    shown, unless it is a subsection of the first opening (beamer p. 196: "19 Adding Notes
    for Yourself" states what "19.1 Specifying Note Contents" elaborates)."""
    q = parse_query("zzzq")   # no query word on the page: found by meaning only
    for name, page, unit_at, want in (
            ("arxiv-2205.14135-flashattention.pdf", 4, "We apply two established techniques",
             "3.1 An Efficient Attention Algorithm"),
            ("ploscompbiol-2026-whisker-stimulation-resting-state.pdf", 10,
             "In the current study", "Discussion"),
            ("texlive-beamer-user-guide.pdf", 196, "To add a note to a slide",
             "19 Adding Notes for Yourself")):
        blocks, starts = _page(name, page)
        text = "\n".join(blocks)
        spans = block_spans(text, blocks)
        unit = spans[next(j for j, b in enumerate(blocks) if b.startswith(unit_at))]
        _i, got = choose(blocks, q, unit_span=unit, page_text=text, section_starts=starts,
                         section_titles=_titles(name, page))
        assert got.startswith(want), (name, got[:60])


def test_a_reference_list_without_its_heading_is_no_section_opening_to_show():
    """The ULBDM paper does not print its "References" heading: the section opens on
    "[1] Hu W., ...". A page found by meaning only whose best embedding unit lies in that
    list showed the list as the opening under the unit; the section's title says it is an
    aside, as a printed "References" heading does, so the conclusions' opening is shown."""
    name, page = "arxiv-0908.0054-ultralight-bosonic-dark-matter-cmb.pdf", 4
    blocks, starts = _page(name, page)
    titles = _titles(name, page)
    ref = next(j for j, t in titles.items() if t == "References")
    assert blocks[ref].startswith("[1] Hu W.")
    text = "\n".join(blocks)
    unit = block_spans(text, blocks)[ref + 2]
    _i, got = choose(blocks, parse_query("zzzq"), unit_span=unit, page_text=text,
                     section_starts=starts, section_titles=titles)
    assert got.startswith("IV. CONCLUSIONS A universe dominated"), got[:60]
