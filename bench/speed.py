"""Warm search latency per mode over the eval queries, with the floor components.

Usage::

    PDFTUI_CACHE_DIR=/work/cache-bench python bench/speed.py [--corpus DIR] [--repeat N]
        [--json PATH]

The corpus must already be indexed. After one warm-up pass (which loads the model and the
vector matrix), every eval query is searched ``--repeat`` times in each mode and p50/p95
of the end-to-end time (``Engine.search``: parsing, both arms, fusion, excerpts, section
paths) are reported in milliseconds. In the same run it times the floor components:

- ``embed``: the query embedding alone (``Embedder.embed_query``);
- ``fts_match``: one FTS5 MATCH over ``pages_fts`` (the OR of the query's tokens, top 10 by
  bm25(), the cost of the simplest corpus-wide keyword search);
- ``matmul``: the matrix product ``units @ q`` alone.

and prints end-to-end p50 / floor p50 per mode (keyword floor = fts_match, semantic floor =
embed + matmul, hybrid floor = embed + matmul + fts_match). Bar: warm hybrid p50 <= 100 ms.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pdftui.search import keyword  # noqa: E402
from pdftui.search.engine import Engine  # noqa: E402

DEFAULT_QUERIES = Path(__file__).resolve().parents[2] / "shared" / "eval" / "queries.json"


def pct(xs: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of xs, in the same unit."""
    xs = sorted(xs)
    if not xs:
        return float("nan")
    i = max(0, min(len(xs) - 1, int(round(p / 100 * len(xs) + 0.5)) - 1))
    return xs[i]


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=None)
    ap.add_argument("--queries", default=str(DEFAULT_QUERIES))
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--modes", default="keyword,semantic,hybrid")
    ap.add_argument("--granularities", default="page",
                    help="page,section: time section searches too, interleaved with the"
                         " pages' (the TUI's `p`), and their p50 over the pages'")
    ap.add_argument("--json", dest="json_path", default=None)
    args = ap.parse_args(argv)
    grans = args.granularities.split(",")

    data = json.loads(Path(args.queries).read_text())
    corpus = args.corpus or str(Path(args.queries).resolve().parents[1] / data["corpus"])
    queries = [q["query"] for q in data["queries"]]
    engine = Engine(corpus, args.cache_dir)
    modes = args.modes.split(",")

    t_cold = time.perf_counter()
    engine.search(queries[0], mode="hybrid")
    cold_ms = (time.perf_counter() - t_cold) * 1000
    for q in queries:  # warm-up: every code path and page cache once
        for mode in modes:
            for g in grans:
                engine.search(q, mode=mode, granularity=g)

    e2e: dict[str, list[float]] = {m: [] for m in modes}
    sect: dict[str, list[float]] = {m: [] for m in modes if "section" in grans}
    floors: dict[str, list[float]] = {"embed": [], "fts_match": [], "matmul": []}
    m = engine.matrix()
    emb = engine._embedder
    for _ in range(args.repeat):
        for q in queries:
            for mode in modes:
                e2e[mode].append(timed(lambda: engine.search(q, mode=mode)))
                if mode in sect:
                    sect[mode].append(timed(lambda: engine.search(q, mode=mode,
                                                                  granularity="section")))
            vec = emb.embed_query(q)
            floors["embed"].append(timed(lambda: emb.embed_query(q)))
            floors["matmul"].append(timed(lambda: m.matrix @ vec))
            toks = keyword.tokenize(q, stem=False)
            match = " OR ".join('"' + t.replace('"', '""') + '"' for t in dict.fromkeys(toks))
            if match:
                floors["fts_match"].append(timed(lambda: engine.db.execute(
                    "SELECT rowid FROM pages_fts WHERE pages_fts MATCH ? ORDER BY bm25(pages_fts)"
                    " LIMIT 10", (match,)).fetchall()))
    summary = {
        "n_queries": len(queries), "repeat": args.repeat, "units": int(m.matrix.shape[0]),
        "cold_first_hybrid_ms": round(cold_ms, 1),
        "modes": {k: {"p50": round(pct(v, 50), 2), "p95": round(pct(v, 95), 2)}
                  for k, v in e2e.items()},
        "floors": {k: {"p50": round(pct(v, 50), 3), "p95": round(pct(v, 95), 3)}
                   for k, v in floors.items()},
    }
    if sect:
        summary["sections"] = {k: {"p50": round(pct(v, 50), 2), "p95": round(pct(v, 95), 2),
                                   "over_pages_p50": round(pct(v, 50) / pct(e2e[k], 50), 2)}
                               for k, v in sect.items()}
    f = {k: v["p50"] for k, v in summary["floors"].items()}
    floor = {"keyword": f["fts_match"], "semantic": f["embed"] + f["matmul"],
             "hybrid": f["embed"] + f["matmul"] + f["fts_match"]}
    summary["ratio_p50"] = {k: round(summary["modes"][k]["p50"] / floor[k], 2)
                            for k in modes if floor.get(k)}
    print(f"{len(queries)} queries x {args.repeat}, {summary['units']} units; "
          f"cold first hybrid {cold_ms:.0f} ms")
    print(f"{'mode':<10}{'p50 ms':>9}{'p95 ms':>9}{'floor p50':>11}{'ratio':>7}")
    for k in modes:
        print(f"{k:<10}{summary['modes'][k]['p50']:>9.1f}{summary['modes'][k]['p95']:>9.1f}"
              f"{floor[k]:>11.2f}{summary['ratio_p50'].get(k, float('nan')):>7.2f}")
    for k, v in summary.get("sections", {}).items():
        print(f"{k + ' sect':<15}{v['p50']:>9.1f}{v['p95']:>9.1f}   sections / pages p50 "
              f"{v['over_pages_p50']:.2f}")
    for k, v in summary["floors"].items():
        print(f"floor {k:<10} p50 {v['p50']:.3f} ms  p95 {v['p95']:.3f} ms")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(summary, indent=1))
    engine.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
