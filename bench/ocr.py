"""OCR time per page: the scanned tricky files (../shared/tricky/real/scanned-*) recognised
page by page at one or more resolutions, each page in a forked child (as the indexer does).

    nice -n 10 .venv/bin/python bench/ocr.py [--dpi 150,200] [--pages N] [--json PATH]

Per resolution: pages, CPU seconds per page (the child's user + system time, from its
rusage: what the page costs whatever the machine's load), wall seconds per page (median and
p95; these grow with the load), characters per page, and the share of the words of the
highest resolution's text that the lower one also read (``word_recall``: a check that the
lower resolution still reads the page). The load average is printed before and after:
quote it with the wall figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from pdftui import ocr  # noqa: E402

SHARED = Path(os.environ.get("PDFTUI_SHARED", REPO.parent / "shared"))
SCANS = sorted((SHARED / "tricky" / "real").glob("scanned-*.pdf"))
_WORD = re.compile(r"[A-Za-z]{3,}")


def _words(d: dict) -> list[str]:
    """The words (3+ letters, lower case) of an ``extractDICT`` dict."""
    text = " ".join(s["text"] for b in d.get("blocks", ()) for ln in b.get("lines", ())
                    for s in ln.get("spans", ()))
    return [w.lower() for w in _WORD.findall(text)]


def run(dpis: list[int], limit: int | None) -> list[dict]:
    """One row per (file, page, dpi): cpu_s, wall_s, chars, words."""
    import pymupdf

    rows = []
    for path in SCANS:
        doc = pymupdf.open(path)
        try:
            for number in range(min(doc.page_count, limit or doc.page_count)):
                page = doc[number]
                for dpi in dpis:
                    t0 = time.monotonic()
                    res = ocr.recognise(page, 0, dpi=dpi)
                    rows.append({"doc": path.name, "page": number + 1, "dpi": dpi,
                                 "cpu_s": round(res.cpu_s, 3),
                                 "wall_s": round(time.monotonic() - t0, 3),
                                 "chars": sum(len(w) for w in _words(res.page)),
                                 "words": _words(res.page)})
        finally:
            doc.close()
    return rows


def summarise(rows: list[dict], dpis: list[int]) -> list[dict]:
    """Per dpi: pages, CPU and wall seconds per page (median, p95, total), word recall."""
    top = max(dpis)
    ref = {(r["doc"], r["page"]): set(r["words"]) for r in rows if r["dpi"] == top}
    out = []
    for dpi in dpis:
        mine = [r for r in rows if r["dpi"] == dpi]
        cpu = sorted(r["cpu_s"] for r in mine)
        wall = sorted(r["wall_s"] for r in mine)
        hit = tot = 0
        for r in mine:
            want = ref[(r["doc"], r["page"])]
            hit += len(want & set(r["words"]))
            tot += len(want)
        out.append({"dpi": dpi, "pages": len(mine),
                    "cpu_s_median": round(statistics.median(cpu), 2),
                    "cpu_s_p95": round(cpu[int(0.95 * (len(cpu) - 1))], 2),
                    "cpu_s_total": round(sum(cpu), 1),
                    "wall_s_median": round(statistics.median(wall), 2),
                    "wall_s_p95": round(wall[int(0.95 * (len(wall) - 1))], 2),
                    "wall_s_total": round(sum(wall), 1),
                    "chars_per_page": round(statistics.mean(r["chars"] for r in mine)),
                    "word_recall": round(hit / tot, 3) if tot else None})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dpi", default=f"{ocr.OCR_DPI}",
                    help="comma-separated resolutions (the highest is the word reference)")
    ap.add_argument("--pages", type=int, help="at most N pages per file")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if not ocr.available():
        sys.exit("Tesseract is not installed (apt-get install tesseract-ocr tesseract-ocr-eng)")
    dpis = [int(x) for x in args.dpi.split(",")]
    load0 = os.getloadavg()[0]
    rows = run(dpis, args.pages)
    load1 = os.getloadavg()[0]
    table = summarise(rows, dpis)
    cols = list(table[0])
    print(" ".join(f"{c:>14}" for c in cols))
    for t in table:
        print(" ".join(f"{t[c]!s:>14}" for c in cols))
    print(f"load average {load0:.1f} before, {load1:.1f} after; files: "
          + ", ".join(p.name for p in SCANS))
    if args.json:
        res = {"load_before": round(load0, 2), "load_after": round(load1, 2),
               "default_dpi": ocr.OCR_DPI, "by_dpi": table,
               "pages": [{k: v for k, v in r.items() if k != "words"} for r in rows]}
        args.json.write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
