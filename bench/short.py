"""Short technical-term queries (``bench/short_queries.json``): "label smoothing", "frame
skipping", "vector clocks", as people type them into a search box.

Usage::

    python bench/short.py --cache-dir DIR [--modes keyword,semantic,hybrid]
        [--set FIELD=VALUE ...] [--per-query] [--json F]

For each query and mode, over the whole corpus: MRR@10 of the first hit whose document is
one the query means (file-name prefixes in the file), and whether such a document is among
the first 3 documents of the list; per half (a: the rule was chosen on it, b: checks it).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from options import options  # noqa: E402  (bench/options.py)
from pdftui.search.engine import Engine  # noqa: E402

DEFAULT = Path(__file__).resolve().parent / "short_queries.json"
DEFAULT_QUERIES = Path(__file__).resolve().parents[2] / "shared" / "eval" / "queries.json"


def score(docs: list[str], want: list[str], k: int = 10) -> tuple[float, float]:
    """``(reciprocal rank of the first hit in a wanted document, 1.0 when one is among the
    first 3 distinct documents)`` for the hits' documents ``docs`` in order."""
    ok = [any(d.startswith(w) for w in want) for d in docs[:k]]
    rr = next((1.0 / i for i, hit in enumerate(ok, 1) if hit), 0.0)
    first3: list[str] = []
    for d in docs:
        if d not in first3:
            first3.append(d)
    top3 = float(any(any(d.startswith(w) for w in want) for d in first3[:3]))
    return rr, top3


def run(engine: Engine, queries: list[dict], modes: list[str]) -> dict:
    """``{mode: {"all"|"half_a"|"half_b": {"mrr", "top3", "n"}, "per_query": {...}}}``."""
    out: dict = {}
    for mode in modes:
        per = {}
        for q in queries:
            res = engine.search(q["query"], mode=mode, top_k=10)
            rr, t3 = score([h.doc for h in res.hits], q["docs"])
            per[q["id"]] = {"mrr": rr, "top3": t3, "half": q["half"],
                            "first": f"{res.hits[0].doc} p{res.hits[0].page}" if res.hits
                            else ""}
        parts = {"all": list(per.values())}
        for h in sorted({q["half"] for q in queries}):
            parts[f"half_{h}"] = [m for m in per.values() if m["half"] == h]
        out[mode] = {p: {"mrr": round(sum(m["mrr"] for m in ms) / len(ms), 4),
                         "top3": round(sum(m["top3"] for m in ms) / len(ms), 4),
                         "n": len(ms)} for p, ms in parts.items()} | {"per_query": per}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache-dir", required=True)
    ap.add_argument("--queries", default=str(DEFAULT_QUERIES),
                    help="the dev queries file (only to find the corpus beside it)")
    ap.add_argument("--short", default=str(DEFAULT))
    ap.add_argument("--corpus", default=None)
    ap.add_argument("--modes", default="keyword,semantic,hybrid")
    ap.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE")
    ap.add_argument("--per-query", action="store_true")
    ap.add_argument("--json", dest="json_path", default=None)
    args = ap.parse_args(argv)
    data = json.loads(Path(args.queries).read_text())
    corpus = args.corpus or str(Path(args.queries).resolve().parents[1] / data["corpus"])
    opts = options(args.set)
    queries = json.loads(Path(args.short).read_text())["queries"]
    eng = Engine(corpus, args.cache_dir, config=opts)
    got = run(eng, queries, args.modes.split(","))
    eng.close()
    print(f"short term queries ({len(queries)}): MRR@10 / top-3 document, all, half a, half b")
    for mode, r in got.items():
        print(f"  {mode:<10}" + "".join(f"{r[p]['mrr']:>8.3f}{r[p]['top3']:>7.3f}  "
                                         for p in ("all", "half_a", "half_b")))
    if args.per_query:
        for q in queries:
            print(f"  {q['query']:<36}" + "  ".join(
                f"{m[0]} {got[m]['per_query'][q['id']]['mrr']:.2f} "
                f"{got[m]['per_query'][q['id']]['first'][:30]:<33}" for m in got))
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(got, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
