"""Ruled tables on the corpus: how many pages pass the prefilter, tables and rows found, what
the prefilter and the lattice finder cost, how often the lattice finder agrees with PyMuPDF's
``find_tables`` (``--finder``), and the cost of tables in extraction, old (no tables) and new
in one run: per document (``extract_document``, alternating which goes first) and a whole
``index_folder(..., embed=False)`` into a fresh temporary cache per round (``--rounds``),
with the median of the per-round ratios. ``--sample N`` prints N tables (seeded) with their
first records, to read by eye for false tables in prose.

    nice -n 10 .venv/bin/python bench/tables.py [--docs small|all] [--sample 30] [--finder]
                                                [--rounds 3] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from pdftui import tables  # noqa: E402
from pdftui.extract import extract_document  # noqa: E402
from pdftui.page_text import normalize_text  # noqa: E402

SHARED = Path(os.environ.get("PDFTUI_SHARED", REPO.parent / "shared"))
CORPUS = SHARED / "corpus"


def corpus_docs(which: str) -> list[Path]:
    """The corpus PDFs: all of them, or the SMALL.txt subset."""
    if which == "small":
        names = [ln.strip() for ln in (CORPUS / "SMALL.txt").read_text().splitlines()
                 if ln.strip() and not ln.startswith("#")]
        return [CORPUS / n for n in names]
    return sorted(CORPUS.glob("*.pdf"))


def _same(a: list, b: list) -> bool:
    """Do two lists of grids have the same shapes and bboxes (within 2 points)?"""
    return len(a) == len(b) and all(
        len(x.rows) == len(y.rows) and len(x.rows[0]) == len(y.rows[0])
        and all(abs(p - q) <= 2 for p, q in zip(x.bbox, y.bbox)) for x, y in zip(a, b))


def scan_tables(path: Path, finder: bool = False) -> dict:
    """Prefilter and lattice finder over every page of one PDF: counts, CPU seconds, the tables
    (with their records), and with ``finder`` PyMuPDF's find_tables on the same pages."""
    import pymupdf

    doc = pymupdf.open(path)
    out = {"doc": path.name, "pages": doc.page_count, "gated": 0, "tables": [],
           "gate_s": 0.0, "find_s": 0.0, "finder_s": 0.0, "agree": 0}
    try:
        for page in doc:
            d = page.get_text("dict")
            boxes = [tuple(ln["bbox"]) for b in d["blocks"] if b["type"] == 0
                     for ln in b["lines"]]
            heads = ["".join(s["text"] for s in b["lines"][0]["spans"])
                     for b in d["blocks"] if b["type"] == 0 and b["lines"]]
            t1 = time.process_time()
            paths = tables.table_drawings(page, boxes, heads)
            out["gate_s"] += time.process_time() - t1
            if paths is None:
                continue
            out["gated"] += 1
            t0 = time.process_time()
            found = tables.grids(paths, boxes)
            out["find_s"] += time.process_time() - t0
            if finder:
                t0 = time.process_time()
                ref = tables.finder_grids(page)
                out["finder_s"] += time.process_time() - t0
                out["agree"] += _same(found, ref)
            lines = []
            for b in d["blocks"]:
                for ln in b.get("lines", ()):
                    text = normalize_text("".join(s["text"] for s in ln["spans"]))
                    if text:
                        lines.append((text, tuple(ln["bbox"])))
            for g in found:
                inside = [ln for ln in lines if g.holds(ln[1])]
                got = tables.fill(g, inside)
                recs = tables.records(got[0]) if got else []
                if recs:
                    out["tables"].append({"page": page.number + 1, "rows": len(recs),
                                          "cols": max(len(r) for r in g.rows),
                                          "records": [t for _i, t in recs]})
    finally:
        doc.close()
    return out


def extraction_times(paths: list[Path]) -> tuple[float, float]:
    """Total extraction CPU seconds without and with tables, alternating which goes first."""
    off = on = 0.0
    for k, p in enumerate(paths):
        order = (False, True) if k % 2 == 0 else (True, False)
        for with_tables in order:
            t0 = time.process_time()
            extract_document(p, tables=with_tables)
            dt = time.process_time() - t0
            if with_tables:
                on += dt
            else:
                off += dt
    return off, on


_INDEX = """
import json, resource, sys, time
sys.path.insert(0, {repo!r})
from pdftui.index import index_folder
t0 = time.monotonic()
s = index_folder({folder!r}, {cache!r}, embed=False)
wall = time.monotonic() - t0
ru = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
print(json.dumps({{"wall_s": wall, "cpu_s": sum(r.ru_utime + r.ru_stime for r in ru),
                  "indexed": s.indexed, "pages": s.pages}}))
"""


def index_once(folder: Path, tables_on: bool) -> dict:
    """One ``index_folder(embed=False)`` of ``folder`` into a fresh temporary cache, in a
    child process (``PDFTUI_TABLES=0`` for the old way): wall and CPU seconds."""
    with tempfile.TemporaryDirectory(prefix="pdftui-tables-") as tmp:
        env = dict(os.environ, PDFTUI_TABLES="1" if tables_on else "0")
        code = _INDEX.format(repo=str(REPO), folder=str(folder), cache=str(Path(tmp) / "c"))
        out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                             capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def index_rounds(paths: list[Path], rounds: int) -> dict:
    """Old and new whole-folder extraction, ``rounds`` times, alternating which goes first:
    per-round wall and CPU ratios new / old and their medians."""
    with tempfile.TemporaryDirectory(prefix="pdftui-folder-") as tmp:
        folder = Path(tmp)
        for p in paths:
            (folder / p.name).symlink_to(p)
        runs = []
        for r in range(rounds):
            got = {}
            for on in ((False, True) if r % 2 == 0 else (True, False)):
                got[on] = index_once(folder, on)
            runs.append({"old_wall_s": round(got[False]["wall_s"], 2),
                         "new_wall_s": round(got[True]["wall_s"], 2),
                         "old_cpu_s": round(got[False]["cpu_s"], 2),
                         "new_cpu_s": round(got[True]["cpu_s"], 2),
                         "wall_ratio": round(got[True]["wall_s"] / got[False]["wall_s"], 3),
                         "cpu_ratio": round(got[True]["cpu_s"] / got[False]["cpu_s"], 3)})
    return {"rounds": runs,
            "index_wall_ratio_median": statistics.median(r["wall_ratio"] for r in runs),
            "index_cpu_ratio_median": statistics.median(r["cpu_ratio"] for r in runs),
            "index_old_wall_s_median": statistics.median(r["old_wall_s"] for r in runs),
            "index_new_wall_s_median": statistics.median(r["new_wall_s"] for r in runs)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", choices=("small", "all"), default="all")
    ap.add_argument("--sample", type=int, default=30)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--no-extract", action="store_true", help="skip the with/without run")
    ap.add_argument("--finder", action="store_true",
                    help="also run PyMuPDF's find_tables on the prefiltered pages")
    ap.add_argument("--rounds", type=int, default=0,
                    help="whole-folder index rounds, old and new (0: none)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    paths = corpus_docs(args.docs)
    load0 = os.getloadavg()[0]
    per_doc = [scan_tables(p, args.finder) for p in paths]
    pages = sum(d["pages"] for d in per_doc)
    gated = sum(d["gated"] for d in per_doc)
    found = [dict(t, doc=d["doc"]) for d in per_doc for t in d["tables"]]
    rows = sum(t["rows"] for t in found)
    gate_s = sum(d["gate_s"] for d in per_doc)
    find_s = sum(d["find_s"] for d in per_doc)
    res = {"docs": len(paths), "pages": pages, "gated_pages": gated, "tables": len(found),
           "rows": rows, "docs_with_tables": len({t["doc"] for t in found}),
           "gate_s": round(gate_s, 2), "find_s": round(find_s, 2),
           "gate_ms_per_page": round(1000 * gate_s / max(1, pages), 3),
           "find_ms_per_gated_page": round(1000 * find_s / max(1, gated), 1)}
    if args.finder:
        finder_s = sum(d["finder_s"] for d in per_doc)
        res.update(finder_ms_per_gated_page=round(1000 * finder_s / max(1, gated), 1),
                   finder_agree_pages=sum(d["agree"] for d in per_doc))
    if not args.no_extract:
        off, on = extraction_times(paths)
        res.update(extract_without_s=round(off, 2), extract_with_s=round(on, 2),
                   extract_ratio=round(on / off, 3) if off else None)
    if args.rounds:
        idx = index_rounds(paths, args.rounds)
        res.update({k: v for k, v in idx.items() if k != "rounds"})
    res.update(load_before=round(load0, 1), load_after=round(os.getloadavg()[0], 1))
    print(f"{'measure':<28}{'value':>12}")
    for k, v in res.items():
        print(f"{k:<28}{v!s:>12}")
    rng = random.Random(args.seed)
    sample = rng.sample(found, min(args.sample, len(found)))
    print(f"\nsample of {len(sample)} tables (doc, page, rows x cols, first records):")
    for t in sample:
        print(f"- {t['doc']} p.{t['page']} {t['rows']}x{t['cols']}")
        for r in t["records"][:2]:
            print(f"    {r[:160]}")
    if args.json:
        if args.rounds:
            res["index_rounds"] = idx["rounds"]
        res["sample"] = [{k: t[k] for k in ("doc", "page", "rows", "cols")} |
                         {"first": t["records"][:2]} for t in sample]
        res["rows_per_table_median"] = statistics.median([t["rows"] for t in found]) \
            if found else 0
        args.json.write_text(json.dumps(res, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
