"""How right is the document metadata? Authors, year, arXiv id, DOI and title against a
truth file written by hand (bench/metadata.truth.tsv: first-author surname, year, arXiv id,
DOI and title of the corpus papers).

For each field, over the papers that have one: right, wrong, missing (left empty; for the
title: the file name standing in); and, over the papers that have none, extra (a value
given where the paper shows none: a guess). A title is right when it equals the truth
with case, spaces and punctuation folded. The goal is >= 0.9 right and <= 0.05 wrong per
field.

    .venv/bin/python bench/metadata.py [--cache-dir DIR] [--corpus DIR] [--json PATH]

The corpus is indexed first without embeddings (metadata missing from an older cache, or
of an older METADATA_VERSION, is read then with the titles, from the first pages only).
Prints a table and, with --json, writes the figures and every miss.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import time
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from pdftui.index import index_folder  # noqa: E402
from pdftui.library import Library  # noqa: E402

FIELDS = ("first_author", "year", "arxiv_id", "doi", "title")


def squash(s: str) -> str:
    """Letters and digits only, case-folded (for comparing names)."""
    return re.sub(r"\W+", "", unicodedata.normalize("NFKC", s)).casefold()


def load_truth(path: Path) -> dict[str, dict[str, str]]:
    """``{doc: {field: value}}`` from the TSV (comment lines start with #)."""
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines()
             if ln.strip() and not ln.startswith("#")]
    return {row["doc"]: row for row in csv.DictReader(lines, delimiter="\t")}


def found_title(info) -> str:
    """The document's title, '' when the file name stands in for one."""
    stem = Path(info.doc).stem
    title = (info.title or "").strip()
    return "" if squash(title) in ("", squash(stem), squash(Path(info.doc).name)) else title


def found_values(info) -> dict[str, str]:
    """The extracted value of each field for one DocumentInfo ('' when empty)."""
    return {"first_author": info.authors[0] if info.authors else "",
            "year": str(info.year or ""), "arxiv_id": info.arxiv_id, "doi": info.doi,
            "title": found_title(info)}


def verdict(field: str, truth: str, got: str) -> str:
    """right / wrong / missing (the paper has one) or extra / none (it has none)."""
    if not truth:
        return "extra" if got else "none"
    if not got:
        return "missing"
    if field == "first_author":
        return "right" if squash(got).endswith(squash(truth)) else "wrong"
    if field == "title":
        return "right" if squash(got) == squash(truth) else "wrong"
    return "right" if got.casefold() == truth.casefold() else "wrong"


def measure(truth: dict, infos: dict) -> dict:
    """Counts per field and the list of misses."""
    counts = {f: {"right": 0, "wrong": 0, "missing": 0, "extra": 0, "none": 0} for f in FIELDS}
    misses = []
    for doc, row in sorted(truth.items()):
        info = infos.get(doc)
        got = found_values(info) if info else dict.fromkeys(FIELDS, "")
        for f in FIELDS:
            v = verdict(f, row.get(f) or "", got[f])
            counts[f][v] += 1
            if v in ("wrong", "missing", "extra"):
                misses.append({"doc": doc, "field": f, "verdict": v, "truth": row.get(f) or "",
                               "found": got[f]})
    for c in counts.values():
        have = c["right"] + c["wrong"] + c["missing"]
        c["papers_with_value"] = have
        c["right_rate"] = round(c["right"] / have, 3) if have else None
        c["wrong_rate"] = round(c["wrong"] / have, 3) if have else None
    return {"fields": counts, "misses": misses}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--corpus", default=str(HERE.parent.parent / "shared" / "corpus"))
    ap.add_argument("--truth", default=str(HERE / "metadata.truth.tsv"))
    ap.add_argument("--json", dest="json_path", default=None)
    args = ap.parse_args()
    truth = load_truth(Path(args.truth))
    t0 = time.monotonic()
    index_folder(args.corpus, args.cache_dir, embed=False)
    index_s = time.monotonic() - t0
    lib = Library(args.corpus, args.cache_dir)
    try:
        infos = {d.doc: d for d in lib.documents()}
    finally:
        lib.close()
    result = measure(truth, infos)
    result.update(papers=len(truth), index_s=round(index_s, 2))
    print(f"{len(truth)} papers · index (text only, metadata filled) {index_s:.1f} s")
    print(f"{'field':<13}{'have':>5}{'right':>7}{'wrong':>7}{'miss':>6}{'extra':>7}"
          f"{'right%':>8}{'wrong%':>8}")
    for f, c in result["fields"].items():
        print(f"{f:<13}{c['papers_with_value']:>5}{c['right']:>7}{c['wrong']:>7}"
              f"{c['missing']:>6}{c['extra']:>7}{(c['right_rate'] or 0):>8.3f}"
              f"{(c['wrong_rate'] or 0):>8.3f}")
    for m in result["misses"]:
        print(f"  {m['verdict']:<8}{m['field']:<13}{m['doc'][:48]:<49}"
              f"truth={m['truth']!r} found={m['found']!r}")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(result, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
