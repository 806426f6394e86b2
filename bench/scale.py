"""Scale benchmark: search latency, first answer, TUI first paint and memory at 1,000 and
10,000 documents, built by replicating an indexed corpus (vectors copied, no re-embedding).

    python bench/scale.py --cache-dir SRC [--sizes 1000,10000] [--work DIR] [--queries N]
                          [--profile PATH] [--json PATH] [--baseline REV]
                          [--only search|paint] [--repeat N]

SRC is a cache holding the indexed and embedded corpus (e.g. a copy of the lead's cache).
The replicas grow one cache in ``--work`` (default: a temporary folder, removed afterwards):
document k is a copy of the corpus's content k mod 105 under the name
``copyNNN/<name>.pdf``, a fresh sha256, and 0-20 % of its pages after the first dropped at
random (seeded by k), so every copy has its own page count, document frequencies and
average page length (its own BM25 statistics) while its vectors are the source's.

At each size a fresh child process measures, over ``--queries`` graded queries of
../shared/eval/queries.json:

- ``first_answer_s``: from a new ``SearchService`` to the first answered hybrid query (the
  cache is in the OS page cache: the build just wrote it), and the peak RSS after all queries;
- warm p50 / p95 (ms) per mode (keyword, semantic, hybrid) and granularity (page, section),
  and the p50 of each query's process CPU milliseconds (``cpu_p50_ms``, every thread: what
  a quiet machine's wall clock would be at most, robust to the load of a shared box);
- in another child, the TUI's first paint: from ``PdftuiApp(...)`` (no indexing, no watching)
  to the documents pane showing the document list (its first rows), under Textual's
  headless test driver: ``list_shown_s`` when the screen is drawn with them,
  ``first_paint_s`` when the process is idle after that (the older figure), and
  ``list_complete_s``: until the list holds every document; ``import_s`` is the import
  of the TUI before ``PdftuiApp(...)``.

``--only search`` or ``--only paint`` runs one child (on replicas already built in
``--work``); ``--repeat N`` runs the search and the paint child N times per code, each
interleaved with the baseline's (a load that drifts during the run hits both alike), and
reports the medians (and the single first-paint values).

``--profile`` writes a cProfile of the largest size's warm hybrid page queries (cumulative
order, top 40). ``--baseline REV`` measures, in the same run and on the same caches, the
code of git revision REV too (its ``pdftui/`` exported to a temporary folder), at the sizes
up to ``--baseline-max`` documents (on ``--baseline-work``, its own copy of the replicas,
when its cache schema is not this one's): the table gets a "base" column and a "new/base" ratio
column per size. Goals (issue 14): hybrid p50 <= 100 ms at 1,000 documents and <= 400 ms at
10,000, first paint <= 1 s and RSS <= 1.5 GB at 10,000.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

QUERIES = REPO.parent / "shared" / "eval" / "queries.json"


def _root(work: Path) -> str:
    """The replicas' folder: an empty directory (the service checks that it exists); its
    documents live only in the cache."""
    root = work / "library"
    root.mkdir(parents=True, exist_ok=True)
    return os.path.realpath(root)


def rehome(work: Path) -> int:
    """Point every file row of the replicas in ``work`` at ``_root(work)`` (a copied
    --work or --baseline-work folder keeps its original's root, and would search an empty
    folder); returns the rows moved."""
    db = sqlite3.connect(work / "index.sqlite3")
    try:
        n = db.execute("UPDATE files SET root = ? WHERE root != ?",
                       (_root(work), _root(work))).rowcount
        db.commit()
    finally:
        db.close()
    return n


def _sources(src: Path) -> list[tuple[int, str, int]]:
    """``[(content_id, doc, page_count)]`` of the source cache, by document name."""
    db = sqlite3.connect(f"file:{src / 'index.sqlite3'}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT c.id, f.doc, c.page_count FROM files f JOIN contents c ON c.id ="
            " f.content_id WHERE c.skip_reason IS NULL GROUP BY c.id ORDER BY f.doc").fetchall()
    finally:
        db.close()
    return [(int(c), str(d), int(n)) for c, d, n in rows]


def drop_pages(k: int, page_count: int) -> list[int]:
    """The pages copy ``k`` leaves out: 0-20 % of pages 2..n, seeded by ``k``."""
    rng = random.Random(k)
    pages = list(range(2, page_count + 1))
    return sorted(rng.sample(pages, int(len(pages) * rng.uniform(0.0, 0.2))))


def build(src: Path, dst: Path, start: int, stop: int) -> float:
    """Add replicas ``start`` .. ``stop - 1`` to the cache in ``dst``; returns seconds."""
    from pdftui.store.database import Cache
    from pdftui.store.replicate import replicate_content

    t0 = time.monotonic()
    sources = _sources(src)
    cache = Cache(dst)
    try:
        for k in range(start, stop):
            cid, doc, pages = sources[k % len(sources)]
            copy = k // len(sources)
            new = replicate_content(cache, src / "index.sqlite3", cid,
                                    f"replica-{k:06d}-{cid}", drop_pages(k, pages))
            cache.set_file(_root(dst), f"copy{copy:03d}/{doc}", 1, k, new)
    finally:
        cache.close()
    return time.monotonic() - t0


def _queries(n: int) -> list[str]:
    data = json.loads(QUERIES.read_text())
    items = data["queries"] if isinstance(data, dict) else data
    return [q["query"] for q in items][:n]


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def child_search(cache: Path, n_queries: int, profile: str | None) -> dict:
    """First answer, warm p50 / p95 per mode and granularity, peak RSS (this process)."""
    from pdftui.search.service import SearchService

    queries = _queries(n_queries)
    t0 = time.monotonic()
    svc = SearchService(_root(cache), cache)
    first = svc.search_sync(queries[0], "hybrid")
    out: dict = {"first_answer_s": time.monotonic() - t0,
                 "documents": first.coverage.total,
                 "semantic_documents": first.coverage.semantic_searched}
    for gran in ("page", "section"):
        for mode in ("keyword", "semantic", "hybrid"):
            svc.search_sync(queries[-1], mode, gran)  # warm this path
            times, cpu = [], []
            for q in queries:
                t, c = time.perf_counter(), time.process_time()
                svc.search_sync(q, mode, gran)
                times.append((time.perf_counter() - t) * 1000)
                cpu.append((time.process_time() - c) * 1000)
            out[f"{mode}/{gran} p50_ms"] = _pct(times, 50)
            out[f"{mode}/{gran} p95_ms"] = _pct(times, 95)
            out[f"{mode}/{gran} cpu_p50_ms"] = _pct(cpu, 50)
    if profile:
        import cProfile
        import pstats

        engine = svc._get_engine()
        prof = cProfile.Profile()
        prof.enable()
        for q in queries:
            engine.search(q, "hybrid", "page")
        prof.disable()
        with open(profile, "w") as f:
            pstats.Stats(prof, stream=f).sort_stats("cumulative").print_stats(40)
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    svc.close()
    return out


def child_paint(cache: Path) -> dict:
    """Seconds from ``PdftuiApp(...)`` to the documents pane listing the documents: the
    screen drawn with them (``list_shown_s``), then the process idle too
    (``first_paint_s``: Textual's ``wait_for_idle``, a 20 ms window with under 1 ms of
    CPU, so background work such as the version groups counts, up to 1 s); until the list
    holds every document (``list_complete_s``); the process CPU seconds (all threads)
    until the first two (``*_cpu_s``: what a quiet machine's wall clock would be, the
    waits for disk aside); and the seconds of importing the TUI before it
    (``import_s``, in none of the others)."""
    t_import = time.monotonic()
    from pdftui.tui.app import PdftuiApp
    from pdftui.tui.corpus_pane import CorpusPane, DocList
    import_s = time.monotonic() - t_import

    async def go() -> tuple[float, ...]:
        t0, c0 = time.monotonic(), time.process_time()
        app = PdftuiApp(_root(cache), cache, index=False, watch=False)
        async with app.run_test(size=(160, 48)) as pilot:
            lst = app.query_one(CorpusPane).query_one(DocList)   # an OptionList before
            while not (app.main_screen.folder.documents and lst.option_count):  # virtual list
                await pilot.pause(0.005)
                if time.monotonic() - t0 > 120:
                    break
            await pilot.pause(0)   # what is queued handled, the screen laid out and drawn
            shown, shown_cpu = time.monotonic() - t0, time.process_time() - c0
            await pilot.pause()    # then until the process is idle (up to 1 s more)
            paint, paint_cpu = time.monotonic() - t0, time.process_time() - c0
            folder = app.main_screen.folder
            while lst.option_count < len(folder.documents) and time.monotonic() - t0 < 300:
                await pilot.pause(0.01)
            return shown, paint, time.monotonic() - t0, shown_cpu, paint_cpu

    shown, paint, listed, shown_cpu, paint_cpu = asyncio.run(go())
    return {"list_shown_s": shown, "first_paint_s": paint, "list_complete_s": listed,
            "list_shown_cpu_s": shown_cpu, "first_paint_cpu_s": paint_cpu,
            "import_s": import_s, "paint_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _child(kind: str, cache: Path, n_queries: int, profile: str | None,
           code: str | None = None) -> dict:
    cmd = [sys.executable, __file__, "--child", kind, "--work", str(cache),
           "--queries", str(n_queries)] + (["--profile", profile] if profile else []) + \
        (["--code", code] if code else [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def _export(rev: str, into: Path) -> str:
    """``pdftui/`` of git revision ``rev`` exported under ``into``; returns the folder."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "pdftui"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return str(into)


def _schema(code: Path) -> int:
    """``SCHEMA_VERSION`` of the code under ``code`` (``pdftui/store/schema.py``, or
    ``pdftui/cache.py`` in code older than the store package)."""
    for name in ("store/schema.py", "cache.py"):
        path = code / "pdftui" / name
        for line in path.read_text().splitlines() if path.is_file() else []:
            if line.startswith("SCHEMA_VERSION"):
                return int(line.split("=")[1].split("#")[0])
    raise ValueError(f"no SCHEMA_VERSION in {code}")


def _search_runs(codes: list[tuple[Path, str | None]], n_queries: int,
                 profile: str | None, repeat: int) -> list[dict]:
    """The search child ``repeat`` times for each ``(replicas, code)`` of ``codes``,
    interleaved (new, base, new, base: a falling or rising load hits both alike); per code
    the median of each figure. Only the first run of the first code is profiled."""
    runs: list[list[dict]] = [[] for _ in codes]
    for r in range(repeat):
        for i, (work, code) in enumerate(codes):
            prof = profile if r == 0 and i == 0 else None
            runs[i].append(_child("search", work, n_queries, prof, code))
    return [{k: statistics.median(x[k] for x in rs) for k in rs[0]} for rs in runs]


def _paint_runs(codes: list[tuple[Path, str | None]], repeat: int) -> list[dict]:
    """The paint child ``repeat`` times for each ``(replicas, code)`` of ``codes``
    (interleaved: new, base, new, base, ... so load drifts hit both alike); per code the
    median of each figure, and ``first_paint_runs`` the single values (s)."""
    runs: list[list[dict]] = [[] for _ in codes]
    for _ in range(repeat):
        for i, (work, code) in enumerate(codes):
            runs[i].append(_child("paint", work, 0, None, code))
    out = []
    for rs in runs:
        med = {k: statistics.median(r[k] for r in rs) for k in rs[0]}
        med["first_paint_runs"] = " ".join(f"{r['first_paint_s']:.2f}" for r in rs)
        out.append(med)
    return out


def _ratios(new: dict, base: dict) -> dict:
    return {k: (v / base[k] if isinstance(v, float) and base.get(k) else "")
            for k, v in new.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache-dir", default=None, help="the source cache (indexed corpus)")
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--work", default=None, help="build the replicas here (kept)")
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--profile", default=None)
    ap.add_argument("--json", dest="json_path", default=None)
    ap.add_argument("--baseline", default=None, help="git revision measured alongside")
    ap.add_argument("--baseline-max", type=int, default=1000,
                    help="largest size the baseline is measured at")
    ap.add_argument("--baseline-work", default=None,
                    help="the baseline's own copy of the replicas (for a baseline of another"
                         " cache schema: built or copied beforehand, never written here)")
    ap.add_argument("--only", choices=("search", "paint"), default=None,
                    help="run only this child (the replicas must be built)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="search and paint child runs per code (medians; interleaved with"
                         " --baseline)")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--code", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.code:
        sys.path.insert(0, args.code)
    if args.child:
        fn = child_paint(Path(args.work)) if args.child == "paint" else \
            child_search(Path(args.work), args.queries, args.profile)
        print(json.dumps(fn))
        return
    src = Path(args.cache_dir or os.environ.get("PDFTUI_CACHE_DIR", ""))
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="pdftui-scale-"))
    sizes = sorted(int(x) for x in args.sizes.split(","))
    rows: dict[str, dict] = {}
    built = _count(work)
    code_dir = tempfile.mkdtemp(prefix="pdftui-base-") if args.baseline else None
    base = _export(args.baseline, Path(code_dir)) if args.baseline else None
    if base and _schema(Path(base)) != _schema(REPO) and not args.baseline_work:
        # the other revision's Cache would rebuild (empty) a cache of another schema
        shutil.rmtree(code_dir, ignore_errors=True)
        sys.exit(f"--baseline {args.baseline}: its cache schema {_schema(Path(base))} is not"
                 f" this one's ({_schema(REPO)}); measuring it would empty the cache")
    for w in (work, Path(args.baseline_work) if args.baseline_work else None):
        if w is not None and (w / "index.sqlite3").exists():
            rehome(w)
    try:
        for n in sizes:
            secs = build(src, work, built, n) if n > built else 0.0
            built = max(built, n)
            prof = args.profile if n == sizes[-1] else None
            with_base = bool(base) and n <= args.baseline_max
            bwork = Path(args.baseline_work) if args.baseline_work else work
            row = {"build_s": secs}
            old = {"build_s": secs}
            if args.only != "paint":
                found = _search_runs([(work, None)] + ([(bwork, base)] if with_base else []),
                                     args.queries, prof, args.repeat)
                row.update(found[0])
                if with_base:
                    old.update(found[1])
            if args.only != "search":
                paints = _paint_runs([(work, None)] + ([(bwork, base)] if with_base else []),
                                     args.repeat)
                row.update(paints[0])
                if with_base:
                    old.update(paints[1])
            row["units"], row["pages"] = _units_pages(work)
            rows[str(n)] = row
            if with_base:
                old["units"], old["pages"] = row["units"], row["pages"]
                rows[f"{n} base"] = old
                rows[f"{n} new/base"] = _ratios(row, old)
            print(f"{n} documents measured", file=sys.stderr)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
        if code_dir:
            shutil.rmtree(code_dir, ignore_errors=True)
    report(rows, args.json_path)


def _count(work: Path) -> int:
    if not (work / "index.sqlite3").exists():
        return 0
    db = sqlite3.connect(work / "index.sqlite3")
    try:
        return db.execute("SELECT count(*) FROM files WHERE root = ?",
                          (_root(work),)).fetchone()[0]
    finally:
        db.close()


def _units_pages(work: Path) -> tuple[int, int]:
    db = sqlite3.connect(work / "index.sqlite3")
    try:
        return (db.execute("SELECT count(*) FROM units WHERE page > 0").fetchone()[0],
                db.execute("SELECT count(*) FROM pages").fetchone()[0])
    finally:
        db.close()


def report(rows: dict[str, dict], json_path: str | None) -> None:
    """One column per size; write JSON when asked."""
    keys = list(next(iter(rows.values())).keys())
    runs = [k for k in keys if k.endswith("_runs")]
    print(f"{'metric':<24}" + "".join(f"{n:>14}" for n in rows))
    for k in keys:
        if k in runs:
            continue
        cells = "".join(
            (f"{r.get(k, ''):>14.2f}" if n.endswith("/base") or abs(r[k]) < 10
             else f"{r.get(k, ''):>14.1f}")
            if isinstance(r.get(k), float) else f"{r.get(k, ''):>14}"
            for n, r in rows.items())
        print(f"{k:<24}{cells}")
    for k in runs:
        for n, r in rows.items():
            if r.get(k):
                print(f"{k} ({n}): {r[k]}")
    print(f"load average {os.getloadavg()[0]:.1f} (1 min)")
    if json_path:
        Path(json_path).write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
