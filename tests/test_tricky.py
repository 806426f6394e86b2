"""Every file of ../shared/tricky/made and ../shared/tricky/real is indexed with the right
text (the search words of made/README.md and real/MANIFEST.tsv are found by keyword search)
or listed as skipped / flagged with the right reason. Expectations: tests/builders.py EXPECT.

Both folders are indexed once per test session (without embeddings) into one cache that
pytest-xdist workers share under a file lock.
"""

from __future__ import annotations

import fcntl
import json
import os

import pytest

from pdftui.index import index_folder

from . import builders, harness
from .conftest import TRICKY, needs_shared
from .harness import cli

pytestmark = needs_shared(TRICKY / "made")

KINDS = ("made", "real")


@pytest.fixture(scope="session")
def tricky_cache(tmp_path_factory):
    """(cache dir, {kind: summary json}) with tricky/made and tricky/real indexed."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # shared by the workers of this run
    cache = base / "tricky-cache"
    done = base / "tricky-summaries.json"
    with open(base / "tricky.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not done.exists():
                summaries = {k: index_folder(TRICKY / k, cache, embed=False).to_json()
                             for k in KINDS}
                done.write_text(json.dumps(summaries))
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return cache, json.loads(done.read_text())


CASES = [(kind, p.name) for kind in KINDS for p in builders.tricky_files(kind)] \
    if (TRICKY / "made").is_dir() else []


@pytest.mark.parametrize("kind,name", CASES, ids=[f"{k}/{n}" for k, n in CASES])
def test_tricky_file(tricky_cache, kind, name):
    cache, summaries = tricky_cache
    exp = builders.EXPECT.get(f"{kind}/{name}")
    assert exp is not None, f"no expectation written for {kind}/{name}"
    db = harness.cache_db(cache)
    try:
        outcome, problem = harness.judge(db, str(TRICKY / kind), name, exp)
    finally:
        db.close()
    assert problem is None, f"{outcome}: {problem}"
    # the summary lists every skip with its reason and every flagged text layer as a note
    summary = summaries[kind]
    skipped = {s["doc"]: s["reason"] for s in summary["skipped"]}
    notes = {n["doc"]: n["note"] for n in summary["notes"]}
    if exp.status in builders.SKIP_REASONS:
        assert skipped.get(name, "").startswith(exp.status), skipped.get(name)
    elif exp.status != "ok":
        assert notes.get(name) == exp.status and name not in skipped
    else:
        assert name not in skipped


def _counted_once(s: dict) -> None:
    docs = [d["doc"] for d in s["skipped"] if not d["doc"].endswith("/")]
    assert len(set(docs)) == len(docs)  # each listed once
    assert s["documents"] == s["indexed"] + s["unchanged"] + len(docs), s


def test_tricky_summary_counts_are_honest(tricky_cache):
    """Every document is counted once: indexed, unchanged or skipped (a password-protected
    file counted as both 'indexed' and 'skipped' before), on the first run and the next."""
    cache, summaries = tricky_cache
    for kind in KINDS:
        s = summaries[kind]
        assert s["documents"] == len(builders.tricky_files(kind))
        _counted_once(s)
        again = index_folder(TRICKY / kind, cache, embed=False).to_json()
        _counted_once(again)
        assert again["indexed"] == 0
        assert sorted(map(str, again["skipped"])) == sorted(map(str, s["skipped"]))


def test_tricky_words_through_search_cli(tricky_cache):
    """The search words of made/README.md through `pdftui search` (keyword mode)."""
    cache, _ = tricky_cache
    folder = TRICKY / "made"
    queries = {"financial": "01_ligatures.pdf", "zeppelinophile": "02_hyphenation.pdf",
               "xrefjunk": "10_bad_startxref.pdf", "needleword": "14_huge_and_sliver_pages.pdf",
               "pg05000": "15_five_thousand_pages.pdf", "Quarrington": "20_form_field_value.pdf",
               "天气": "21_accents_cjk_rtl.pdf", "cafe": "21_accents_cjk_rtl.pdf"}
    r = cli("search", folder, "-", "--mode", "keyword", "--cache-dir", cache, "--json",
            stdin="\n".join(queries) + "\n")
    assert r.rc == 0, r.err
    answers = [json.loads(line) for line in r.out.splitlines()]
    assert len(answers) == len(queries)
    for (q, doc), a in zip(queries.items(), answers):
        assert a["hits"] and a["hits"][0]["doc"] == doc, (q, [h["doc"] for h in a["hits"]])
