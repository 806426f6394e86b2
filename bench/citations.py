"""Citation benchmark: link precision / recall and per-field accuracy of reference entries
against a hand-checked truth, and the time the citation step adds to an index.

    python bench/citations.py --cache-dir CACHE [--folder ../shared/corpus] [--json OUT]
                              [--cold-index [--cold-subset LIST]] [--repeat N]
                              [--list-doc DOC]
                              [--replica N [--replica-work DIR]]

CACHE is a writable copy of an indexed corpus cache (e.g. ``cp -r /work/cache-v24 X``);
the citation tables of the folder are rebuilt in it. Truth: ``bench/citations_links.json``
(``{"citing": {doc: {"cites": [doc, ...], "checked_pages": [a, b]}}}``, versions listed
each) and ``bench/citations_fields.json`` (``[{"doc", "page", "label", "entry_start",
"first_author", "year", "title", "arxiv_id", "doi"}]``), written from the PDFs apart from
this code; ``bench/citations_fields_heldout.json`` (the same shape, other documents, written
from the PDF pages before the parser's output on them was read) is scored apart, as a check
of the parser off the set it was tuned on.

Links: a predicted link is (citing doc, cited doc) from an entry on the truth's checked
pages of a citing document the truth lists; precision and recall over those pairs.
Fields: each truth entry is found among the document's entries on its page by the start of
its text (its label, else its first 25 normalised characters); per field, ``right`` /
``wrong`` (a value shown that is not the truth's) / ``missing``; accuracy = right / truth
entries (an empty truth value is right when nothing is shown); ``wrong_shown`` = wrong /
values shown.

Time: the citation step (reference lists read from the stored blocks, then links) on the
folder from nothing (what it adds to a cold index), with nothing changed (a re-index), and
with one document changed; medians of ``--repeat`` runs. ``--cold-index`` also indexes the
folder text-only (no embedding) into fresh caches with and without the step, interleaved,
and reports the ratio. ``--replica N``: the step on N replicas of the corpus cache built as
bench/scale.py builds them. Lists: the warm time to read each TUI citation list of
``--list-doc`` and the documents pane's "cited by" counts.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
HERE = Path(__file__).resolve().parent


def _norm(s: str) -> str:
    from pdftui.citations import norm

    return norm(s or "")


def _clear(db: sqlite3.Connection, root: str, cids: list[int] | None = None) -> None:
    """Forget the folder's reference entries and link state (all, or of ``cids``)."""
    if cids is None:
        db.execute("DELETE FROM references_read")
        db.execute("DELETE FROM citation_state WHERE root = ?", (root,))
    else:
        for cid in cids:
            db.execute("DELETE FROM references_read WHERE content_id = ?", (cid,))
            db.execute("DELETE FROM citation_state WHERE root = ? AND content_id = ?",
                       (root, cid))
    db.commit()


def _step(cache_dir: str, root: str) -> float:
    """Seconds of one citation step (:func:`pdftui.index._cite`'s two calls)."""
    from pdftui.index.citations import fill_references, update_links
    from pdftui.store.database import Cache

    cache = Cache(cache_dir)
    try:
        t0 = time.perf_counter()
        read: dict = {}
        fill_references(cache, root, None, read)
        update_links(cache, root, read)
        return time.perf_counter() - t0
    finally:
        cache.close()


def timings(cache_dir: str, root: str, repeat: int) -> dict:
    """Medians of the step from nothing, with nothing changed and with one document
    changed (the one with the most entries)."""
    db = sqlite3.connect(os.path.join(cache_dir, "index.sqlite3"))
    cold, same, one = [], [], []
    try:
        for _ in range(repeat):
            _clear(db, root)
            cold.append(_step(cache_dir, root))
            same.append(_step(cache_dir, root))
            big = db.execute("SELECT content_id FROM reference_entries GROUP BY content_id"
                             " ORDER BY COUNT(*) DESC LIMIT 1").fetchone()[0]
            _clear(db, root, [big])
            one.append(_step(cache_dir, root))
    finally:
        db.close()
    return {"step_from_nothing_s": statistics.median(cold),
            "step_nothing_changed_s": statistics.median(same),
            "step_one_document_changed_s": statistics.median(one)}


def list_times(cache_dir: str, root: str, doc: str, repeat: int = 5) -> dict:
    """Warm median milliseconds to read each TUI citation list of ``doc`` (rows made, as
    the list's worker makes them) and the documents pane's cited counts, on one open
    library (the TUI's gate keeps one); the first (cold) read is left out."""
    from pdftui.citation_graph import CitationGraph
    from pdftui.library import Library
    from pdftui.tui.citations_screen import ListKind, read_rows

    lib = Library(root, cache_dir)
    out = {}
    try:
        jobs = {kind.value: (lambda k=kind: read_rows(lib, k, doc)) for kind in ListKind}
        jobs["cited counts"] = lambda: CitationGraph.read(lib).cited_counts()
        for name, job in jobs.items():
            job()
            times = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                job()
                times.append(1000 * (time.perf_counter() - t0))
            out[name] = statistics.median(times)
    finally:
        lib.close()
    return out


def score_links(cache_dir: str, root: str, truth: dict) -> dict:
    """Link precision and recall over the truth's citing documents (see the module doc)."""
    from pdftui.citation_graph import CitationGraph
    from pdftui.library import Library

    lib = Library(root, cache_dir)
    try:
        graph = CitationGraph.read(lib)
        tp = fp = fn = 0
        wrong, missed = [], []
        for citing, t in truth["citing"].items():
            lo, hi = t["checked_pages"]
            got: set[str] = set()
            for row in graph.references(citing):
                if lo <= row.reference.page <= hi:
                    got.update(row.matches)
            want = set(t["cites"])
            tp += len(got & want)
            fp += len(got - want)
            fn += len(want - got)
            wrong += [f"{citing} -> {d}" for d in sorted(got - want)]
            missed += [f"{citing} -> {d}" for d in sorted(want - got)]
    finally:
        lib.close()
    return {"citing_documents": len(truth["citing"]), "links_true": tp + fn,
            "links_found": tp + fp, "precision": tp / (tp + fp) if tp + fp else 1.0,
            "recall": tp / (tp + fn) if tp + fn else 1.0, "wrong": wrong, "missed": missed}


def _find(entries, t: dict):
    """The predicted entry the truth entry ``t`` is: on its page first, the one with its
    printed label, else the one whose text starts as its text does (first 25 normalised
    characters after the label); None when none is."""
    label = (t.get("label") or "").strip()
    body = t["entry_start"]
    if label and body.startswith(label):
        body = body[len(label):]
    key = _norm(body)[:25]
    for pool in ([e for e in entries if e.page == t["page"]], entries):
        for e in pool:
            if label and e.label == label:
                return e
        for e in pool:
            if key and _norm(e.raw).startswith(key):
                return e
    return None


def _same(field: str, got, want) -> bool:
    if field == "year":
        return got == want
    if field == "first_author":
        from pdftui.citations import surname_key

        return surname_key(got or "") == surname_key(want or "")
    if field == "title":
        import difflib

        a, b = _norm(got), _norm(want)
        return a == b or (bool(a) and difflib.SequenceMatcher(None, a, b).ratio() >= 0.9)
    if field == "doi":
        return (got or "").lower().rstrip(".") == (want or "").lower().rstrip(".")
    return (got or "") == (want or "")


def score_fields(cache_dir: str, root: str, truth: list[dict]) -> dict:
    """Per-field accuracy of the parsed entries (see the module doc)."""
    from pdftui.library import Library
    from pdftui.store.citations import read_references

    fields = ("first_author", "year", "title", "arxiv_id", "doi")
    counts = {f: {"right": 0, "wrong": 0, "missing": 0} for f in fields}
    lib = Library(root, cache_dir)
    not_found, wrongs = [], []
    try:
        for t in truth:
            entries = read_references(lib.db, lib.content_id(t["doc"]))
            e = _find(entries, t)
            if e is None:
                not_found.append(f"{t['doc']} p.{t['page']} {t['entry_start'][:40]}")
            for f in fields:
                want = t.get(f)
                got = None if e is None else (e.first_author if f == "first_author"
                                              else getattr(e, f))
                if not got:
                    counts[f]["right" if not want else "missing"] += 1
                elif _same(f, got, want):
                    counts[f]["right"] += 1
                else:
                    counts[f]["wrong"] += 1
                    wrongs.append(f"{t['doc'][:30]} {t['label']} {f}: {got!r} != {want!r}")
    finally:
        lib.close()
    n = len(truth)
    out = {f: {**c, "accuracy": c["right"] / n,
               "wrong_shown": c["wrong"] / max(1, c["right"] + c["wrong"] - sum(
                   1 for t in truth if not t.get(f)))} for f, c in counts.items()}
    return {"entries": n, "not_found": not_found, "fields": out, "wrong": wrongs}


def subset_folder(folder: str, listing: str, into: str) -> str:
    """A folder in ``into`` of symbolic links to the PDFs of ``folder`` that ``listing``
    names (one per line, ``#`` comments), e.g. ../shared/corpus/SMALL.txt."""
    dest = Path(into) / "subset"
    dest.mkdir(parents=True, exist_ok=True)
    for line in Path(listing).read_text().splitlines():
        name = line.strip()
        if name and not name.startswith("#"):
            (dest / name).symlink_to(Path(folder) / name)
    return str(dest)


def cold_index(folder: str, repeat: int) -> dict:
    """Text-only cold index wall seconds with and without the citation step, interleaved
    ``repeat`` times, the order alternating, after one untimed index (medians)."""
    import pdftui.index as index

    with_s, without_s = [], []
    real = index._cite
    with tempfile.TemporaryDirectory() as tmp:   # a first index, not timed: imports, caches
        index.index_folder(folder, tmp, embed=False)
    for i in range(repeat):
        for on in ((True, False) if i % 2 == 0 else (False, True)):
            index._cite = real if on else (lambda *a, **k: None)
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.perf_counter()
                index.index_folder(folder, tmp, embed=False)
                (with_s if on else without_s).append(time.perf_counter() - t0)
    index._cite = real
    w, wo = statistics.median(with_s), statistics.median(without_s)
    return {"folder": folder, "runs": repeat, "with_step_s": w, "without_step_s": wo,
            "added": w / wo - 1, "with_runs_s": with_s, "without_runs_s": without_s}


def replica_step(src: str, n: int, work: str | None) -> dict:
    """The citation step from nothing on ``n`` replicas of the corpus cache ``src``
    (:func:`bench.scale.build`: copies with fresh hashes, vectors and blocks copied, 0-20 %
    of pages dropped), in ``work`` (a temporary folder when None)."""
    sys.path.insert(0, str(HERE))
    import scale

    with tempfile.TemporaryDirectory() as tmp:
        dst = Path(work or tmp)
        built = scale.build(Path(src), dst, 0, n) if not (dst / "index.sqlite3").exists() \
            or scale._count(dst) < n else 0.0
        root = scale._root(dst)
        db = sqlite3.connect(dst / "index.sqlite3")
        try:
            _clear(db, root)
        finally:
            db.close()
        t = _step(str(dst), root)
        again = _step(str(dst), root)
    return {"documents": n, "build_s": built, "step_from_nothing_s": t,
            "step_nothing_changed_s": again}


def half(links: dict | None, fields: list | None, which: str) -> tuple:
    """The truth restricted to half ``which`` ("A" or "B") of its documents: every document
    either file names, sorted by name, A the even positions (0, 2, ...), B the odd ones."""
    docs = sorted(set((links or {}).get("citing", {})) | {t["doc"] for t in fields or []})
    keep = set(docs[0 if which == "A" else 1::2])
    if links is not None:
        links = {**links, "citing": {d: v for d, v in links["citing"].items() if d in keep}}
    if fields is not None:
        fields = [t for t in fields if t["doc"] in keep]
    return links, fields


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache-dir", required=True)
    ap.add_argument("--folder", default=str(REPO.parent / "shared" / "corpus"))
    ap.add_argument("--json", default=None)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cold-index", action="store_true")
    ap.add_argument("--cold-subset", default=None,
                    help="--cold-index on the PDFs this list names (e.g. SMALL.txt)")
    ap.add_argument("--replica", type=int, default=0,
                    help="also time the step on N replicas of the corpus (bench/scale.py)")
    ap.add_argument("--replica-work", default=None)
    ap.add_argument("--half", choices=("A", "B"), default=None,
                    help="score only half of the truth's documents: all documents named in"
                         " either truth file, sorted by name; A the even positions, B odd")
    ap.add_argument("--list-doc", default="arxiv-1706.03762v7-attention-is-all-you-need.pdf",
                    help="the document whose lists are timed (default: the most cited)")
    args = ap.parse_args()
    root = os.path.realpath(args.folder)
    out: dict = {"time": timings(args.cache_dir, root, args.repeat),
                 "lists_ms": list_times(args.cache_dir, root, args.list_doc)}
    links = HERE / "citations_links.json"
    fields = HERE / "citations_fields.json"
    heldout = HERE / "citations_fields_heldout.json"
    link_truth = json.loads(links.read_text()) if links.exists() else None
    field_truth = json.loads(fields.read_text()) if fields.exists() else None
    if args.half:
        link_truth, field_truth = half(link_truth, field_truth, args.half)
    if link_truth is not None:
        out["links"] = score_links(args.cache_dir, root, link_truth)
    if field_truth is not None:
        out["fields"] = score_fields(args.cache_dir, root, field_truth)
    if heldout.exists() and not args.half:
        out["fields_heldout"] = score_fields(args.cache_dir, root,
                                             json.loads(heldout.read_text()))
    if args.cold_index:
        with tempfile.TemporaryDirectory() as tmp:
            where = subset_folder(root, args.cold_subset, tmp) if args.cold_subset else root
            out["cold_index"] = cold_index(where, args.repeat)
    if args.replica:
        out["replica"] = replica_step(args.cache_dir, args.replica, args.replica_work)
    report(out)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")


def report(out: dict) -> None:
    """The bench table on stdout."""
    t = out["time"]
    print("| measure | value | goal |\n|---|---|---|")
    if "links" in out:
        lk = out["links"]
        print(f"| link precision | {lk['precision']:.3f} ({lk['links_found']} found) | >= .97 |")
        print(f"| link recall | {lk['recall']:.3f} ({lk['links_true']} true, "
              f"{lk['citing_documents']} citing docs) | >= .92 |")
    goals = {"first_author": ">= .95", "year": ">= .95", "title": ">= .90"}
    for key, name in (("fields", "truth"), ("fields_heldout", "held-out")):
        if key not in out:
            continue
        for f, c in out[key]["fields"].items():
            print(f"| {f} accuracy, {name} ({out[key]['entries']} entries) |"
                  f" {c['accuracy']:.3f} (wrong where shown {c['wrong_shown']:.3f}) |"
                  f" {goals.get(f, '')}{' ' if f in goals else ''}(<= .02 wrong) |")
    print(f"| citation step, from nothing | {t['step_from_nothing_s']:.2f} s | |")
    print(f"| citation step, re-index, nothing changed | {t['step_nothing_changed_s']:.3f} s | |")
    print(f"| citation step, one document changed | {t['step_one_document_changed_s']:.3f} s | |")
    for name, ms in out.get("lists_ms", {}).items():
        print(f"| TUI list '{name}', warm | {ms:.0f} ms | <= 100 ms |")
    if "replica" in out:
        r = out["replica"]
        print(f"| citation step at {r['documents']:,} documents, from nothing / nothing"
              f" changed | {r['step_from_nothing_s']:.1f} s / {r['step_nothing_changed_s']:.2f}"
              " s | <= 60 s at 10,000 |")
    if "cold_index" in out:
        c = out["cold_index"]
        print(f"| text-only cold index ({c['runs']} interleaved runs) with / without the"
              f" step | {c['with_step_s']:.1f} s /"
              f" {c['without_step_s']:.1f} s (+{100 * c['added']:.1f} %) | <= 5 % |")


if __name__ == "__main__":
    main()
