"""Document patterns (pdftui/doc_pattern.py): one rule for the query's ``doc:`` field,
``--doc`` of ``pdftui search`` and DOC of ``read`` / ``mark``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pdftui.doc_pattern import (AmbiguousDocument, doc_pattern_matches, match_docs,
                                resolve_doc)
from pdftui.errors import NotFound
from pdftui.search import restrict
from pdftui.search.query import parse

KNOWN = ["arxiv-1706.03762v5-attention-is-all-you-need.pdf",
         "arxiv-1706.03762v7-attention-is-all-you-need.pdf",
         "arxiv-2205.14135-flashattention.pdf",
         "sub/Data.pdf", "a.pdf", "paper[1].pdf"]
PATTERNS = ["attention", "ATTENTION-is", "flash", "arxiv-1706*", "*v7*", "1706*", "a.pdf",
            "./a.pdf", "sub/", "data", "*.PDF", "nothing", "paper[1].pdf", "[", "v?-att"]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_the_doc_field_and_the_doc_option_name_the_same_documents(pattern):
    """The query's doc: field admits exactly the documents match_docs (--doc) names."""
    admitted = restrict.admit_docs(parse(f'doc:"{pattern}" x'),
                                   {d: i for i, d in enumerate(KNOWN)}, {})
    assert sorted(admitted) == sorted(match_docs(KNOWN, pattern))


def test_the_rule():
    assert match_docs(KNOWN, "attention") == KNOWN[:2]   # a word's start, any case
    assert match_docs(KNOWN, "*attention*") == KNOWN[:3]   # a glob: inside words too
    assert match_docs(KNOWN, "ATTENTION-is") == KNOWN[:2]
    assert match_docs(KNOWN, "1706*") == KNOWN[:2]        # a glob from anywhere in the path
    assert match_docs(KNOWN, "data") == ["sub/Data.pdf"]
    assert match_docs(KNOWN, "nothing") == []
    assert doc_pattern_matches("paper[1].pdf", "paper[1].pdf")   # its own name, not a class


def test_a_plain_pattern_names_a_word_start_never_the_inside_of_a_word():
    """Fresh-user finding: "raft" named the Raft paper and papermage's "draft" (`search
    --doc raft` searched both; only `read` / `mark` preferred a word start). A plain
    pattern names the documents holding it where a word starts (after - _ . / or a
    space), for a filter (doc:, --doc) and for a command on one document alike; one
    starting with such a character is its own boundary; a glob is a glob."""
    known = ["raft-2014-consensus.pdf", "papermage-2023-08-draft.pdf",
             "arxiv-2108.09084-fastformer.pdf", "arxiv-2006.04768-linformer.pdf",
             "notes/my raft.pdf", "a_raft_b.pdf"]
    assert match_docs(known, "raft") == [known[0], known[4], known[5]]
    assert match_docs(known, "*raft*") == [known[0], known[1], known[4], known[5]]
    assert match_docs(known, "former") == []
    assert match_docs(known, "-draft") == [known[1]]
    with pytest.raises(NotFound) as e:   # inside words only: not found, the glob named
        resolve_doc(known, "former")
    assert not isinstance(e.value, AmbiguousDocument)
    assert "'*former*' matches" in str(e.value)
    assert "'*former*' matches 2: arxiv-2108.09084-fastformer.pdf, arxiv-2006" in str(e.value)
    with pytest.raises(AmbiguousDocument):   # a glob is a glob
        resolve_doc(known, "*raft*")


def test_a_glob_starts_where_a_word_starts():
    """Fresh-user finding: ``raft*`` named papermage's "draft" too (a glob matched from
    any character of the path), so ``--doc raft*``, ``read`` and ``mark`` refused the Raft
    paper as ambiguous. A glob matches from a word's start, as a plain pattern does; one
    that starts with ``*`` still matches anywhere."""
    known = ["raft-2014-consensus.pdf", "papermage-2023-08-draft.pdf", "notes/my raft.pdf",
             "arxiv-1706.03762v7-attention.pdf"]
    assert match_docs(known, "raft*") == [known[0], known[2]]
    assert resolve_doc(known[:2], "raft*") == known[0]
    assert match_docs(known, "raft*.pdf") == [known[0], known[2]]
    assert match_docs(known, "*raft*") == known[:3]
    assert match_docs(known, "v?-att*") == [known[3]]    # a letter after a digit starts a word
    assert match_docs(known, "1706*") == [known[3]]      # after '-'
    assert match_docs(known, "706*") == []               # inside a number


def test_an_arxiv_version_names_its_file_letters_after_digits_start_a_word():
    """Fresh-user finding: ``--doc v7`` named nothing (it follows a digit in
    ``1706.03762v7``); a letter after a digit starts a word, a digit after a letter and a
    letter after a letter do not."""
    known = ["arxiv-1706.03762v5-attention.pdf", "arxiv-1706.03762v7-attention.pdf",
             "papermage-2023-08-draft.pdf", "resnet50.pdf"]
    assert resolve_doc(known, "v7") == known[1]
    assert match_docs(known, "v5") == [known[0]]
    assert match_docs(known, "raft") == [] and match_docs(known, "50") == []
    assert match_docs(known, "03762v") == known[:2]


def test_one_document_exact_name_first_then_the_only_match_else_an_error():
    assert resolve_doc(KNOWN, "a.pdf") == "a.pdf"   # "sub/Data.pdf" holds it inside a word
    assert resolve_doc(KNOWN, "./A.PDF") == "a.pdf"
    assert resolve_doc(KNOWN, "flash") == KNOWN[2]
    with pytest.raises(AmbiguousDocument, match=r"'attention' matches 2 documents .*name one"):
        resolve_doc(KNOWN, "attention")
    with pytest.raises(NotFound, match="did you mean 'a.pdf'") as e:
        resolve_doc(KNOWN, "b.pdf")
    assert not isinstance(e.value, AmbiguousDocument)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "pdftui.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def test_search_doc_takes_a_part_of_the_name_as_the_doc_field_does(small_folder, cache_dir):
    """Fresh-user finding: ``--doc ecapa`` said "no document matches" while the query
    ``doc:ecapa`` found the paper; now both scope to it (and read takes it too)."""
    from pdftui.index import index_folder

    index_folder(small_folder, cache_dir, embed=False)
    ecapa = "arxiv-2005.07143-ecapa-tdnn-speaker-verification.pdf"
    base = ("--cache-dir", cache_dir, "--mode", "keyword", "--json")
    by_option = json.loads(_cli("search", small_folder, "speaker", "--doc", "ECAPA",
                                *base).stdout)
    by_field = json.loads(_cli("search", small_folder, "speaker doc:ECAPA", *base).stdout)
    assert by_option["coverage"]["total"] == 1
    assert by_field["coverage"]["fields"]["documents"] == 1
    assert {h["doc"] for h in by_option["hits"]} == {h["doc"] for h in by_field["hits"]} \
        == {ecapa}
    r = _cli("read", small_folder, "ecapa", "--cache-dir", cache_dir, "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["doc"] == ecapa
    r = _cli("read", small_folder, "arxiv", "--cache-dir", cache_dir)
    assert r.returncode == 2 and "'arxiv' matches 2 documents" in r.stderr


RAFT = "raft-2014-understandable-consensus-algorithm.pdf"
DRAFT = "papermage-2023-08-draft.pdf"


def test_search_doc_raft_leaves_the_draft_out_and_every_command_agrees(tmp_path):
    """Fresh-user finding: ``search --doc raft`` also searched papermage's "draft". Now
    --doc, the query's doc: field, read and mark name the Raft paper alone; '*raft*'
    still takes both, and a pattern found only inside words is not found, with the glob
    that would find it named."""
    from pdftui.index import index_folder

    from .conftest import copy_docs

    folder, cache = copy_docs(tmp_path / "papers", [RAFT, DRAFT]), tmp_path / "cache"
    index_folder(folder, cache, embed=False)
    base = ("--cache-dir", cache, "--mode", "keyword", "--json")

    def search(*args):
        r = _cli("search", folder, *args, *base)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    by_option = search("the", "--doc", "raft")
    assert by_option["coverage"]["total"] == 1
    assert {h["doc"] for h in by_option["hits"]} == {RAFT}
    by_field = search("the doc:raft")
    assert by_field["coverage"]["fields"]["documents"] == 1
    assert {h["doc"] for h in by_field["hits"]} == {RAFT}
    assert search("the", "--doc", "*raft*")["coverage"]["total"] == 2
    r = _cli("read", folder, "aft", "--cache-dir", cache)
    assert r.returncode == 2 and "'*aft*' matches 2" in r.stderr, r.stderr
    r = _cli("mark", folder, "aft", "keep", "--cache-dir", cache, "--data-dir",
             tmp_path / "data", "--json")
    assert r.returncode == 2 and json.loads(r.stdout)["error"]["kind"] == "not_found"


def test_an_ambiguity_lists_every_candidate_up_to_eight():
    """Fresh-user finding: ``'*attention*' matches 4 (a, b, c, …)`` hid the fourth name
    the user needed. Up to eight candidates are all listed; past that the rest are
    counted."""
    four = [f"paper-{i}-attention.pdf" for i in range(4)]
    with pytest.raises(AmbiguousDocument) as e:
        resolve_doc(four, "*attention*")
    assert all(name in str(e.value) for name in four) and "…" not in str(e.value)
    twelve = [f"paper-{i:02d}-attention.pdf" for i in range(12)]
    with pytest.raises(AmbiguousDocument) as e:
        resolve_doc(twelve, "*attention*")
    assert "paper-07-attention.pdf and 4 more" in str(e.value)
    assert "paper-08" not in str(e.value)
