"""Cold-index benchmark: wall time split into extraction+FTS and embedding, pages/s, peak RSS,
and the bare embedding time of the same units measured in the same run (overhead ratio).

    python bench/index.py [FOLDER] [--limit N] [--no-embed] [--json PATH]

FOLDER defaults to ../shared/corpus. The cold index runs into a fresh temporary cache. The
"bare embedding" pass then re-embeds exactly the units the index stored (same texts, same
batch size) with a fresh model in this process: the floor that indexing cannot beat. The
ratio cold-wall / bare-embedding is the overhead figure (goal <= 1.2, bar <= 1.3).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pdftui.index import EMBED_BATCH, index_folder, section_head_text  # noqa: E402


def _rss_mb() -> tuple[float, float]:
    """Peak RSS (MiB) of this process and of its largest waited-for child."""
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return me, kids


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", nargs="?", default=str(REPO.parent / "shared" / "corpus"))
    ap.add_argument("--limit", type=int, default=0, help="only the first N PDFs (by name)")
    ap.add_argument("--no-embed", action="store_true")
    ap.add_argument("--keep-cache", default=None, help="write the cache here and keep it")
    ap.add_argument("--json", dest="json_path", default=None)
    args = ap.parse_args()

    folder = Path(args.folder)
    tmp = Path(tempfile.mkdtemp(prefix="pdftui-bench-"))
    if args.limit:
        sub = tmp / "docs"
        sub.mkdir()
        for p in sorted(folder.glob("*.pdf"))[: args.limit]:
            os.symlink(p.resolve(), sub / p.name)
        folder = sub
    cache_dir = Path(args.keep_cache) if args.keep_cache else tmp / "cache"
    if cache_dir.exists() and args.keep_cache:
        shutil.rmtree(cache_dir)

    marks: dict[str, float] = {}
    lock = threading.Lock()
    t0 = time.monotonic()

    def progress(p):
        with lock:
            now = time.monotonic() - t0
            if p.phase == "extract" and p.docs_done == p.docs_total:
                marks.setdefault("text_ready_s", now)
            if p.phase == "embed":
                marks.setdefault("first_units_s", now)

    summary = index_folder(folder, cache_dir, embed=not args.no_embed, progress=progress)
    wall = time.monotonic() - t0
    rss_self, rss_child = _rss_mb()

    rows: dict[str, object] = {
        "documents": summary.documents,
        "pages": summary.pages,
        "units": summary.units,
        "cold_wall_s": round(wall, 2),
        "text_ready_s": round(marks.get("text_ready_s", wall), 2),
        "pages_per_s_text": round(summary.pages / max(marks.get("text_ready_s", wall), 1e-9), 1),
        "peak_rss_main_mb": round(rss_self, 1),
        "peak_rss_extract_worker_mb": round(rss_child, 1),
    }

    if not args.no_embed and summary.units:
        from pdftui.embed import Embedder

        db = sqlite3.connect(cache_dir / "index.sqlite3")
        texts = [t[s:e] for t, s, e in db.execute(
            "SELECT p.text, u.char_start, u.char_end FROM units u JOIN pages p"
            " ON p.content_id = u.content_id AND p.number = u.page ORDER BY u.id")]
        emb = Embedder(None, tmp / "bare-cache")
        # section head units (page 0): rebuilt from their sections as the index does
        texts += [section_head_text(emb, *r) for r in db.execute(
            "SELECT s.title, s.text, s.own_chars FROM units u JOIN sections s"
            " ON s.content_id = u.content_id AND s.ordinal = u.ordinal"
            " WHERE u.page = 0 ORDER BY u.id")]
        db.close()
        emb.embed(["warm up"])
        t1 = time.monotonic()
        for b in range(0, len(texts), EMBED_BATCH):
            emb.embed(texts[b:b + EMBED_BATCH])
        bare = time.monotonic() - t1
        rows["bare_embed_s"] = round(bare, 2)
        rows["units_per_s_bare"] = round(len(texts) / bare, 1)
        rows["overhead_ratio"] = round(wall / bare, 3)
        rows["peak_rss_main_mb"] = round(_rss_mb()[0], 1)

    width = max(len(k) for k in rows)
    print(f"{'metric':<{width}}  value")
    for k, v in rows.items():
        print(f"{k:<{width}}  {v}")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(rows, indent=2) + "\n")
    if not args.keep_cache:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
