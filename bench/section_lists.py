"""How far fusion can take section search: each hybrid list alone, the best of them per
query, and the fused run, on every section set.

Usage::

    python bench/section_lists.py --cache-dir DIR [--json PATH]

Hybrid section search fuses three lists (docs/ranking.md "Section fusion"): the keyword
sections (per-document BM25 ranks fused across documents), the sections by their best own
unit (``section_body``) and by their head unit (``section_head``). For every query of the
dev sections and of each ``bench/section_*.json`` set, the labelled section's rank in each
list is read from the hit's contributions (a hybrid search to 400 hits; strict match as
``bench/quality.py`` scores it: document, start page and half the title's words) and
scored as MRR@10 (1 / rank within 10, else 0). ``best list`` takes, per query, the best of
the three lists: what a fusion choosing the right list for each query would score.
``best or fused`` takes the better of that and the fused run. A figure below a goal in
``best or fused`` means no reweighting of these three lists reaches it: it needs evidence
none of them holds.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import quality  # noqa: E402  (bench/quality.py)
from ablation import SECTION_FILES  # noqa: E402  (bench/ablation.py)
from pdftui.search.engine import Engine  # noqa: E402

HERE = Path(__file__).resolve().parent
LISTS = ("keyword", "section_body", "section_head")
#: Hits read per query: the labelled section's ranks in the lists come with its hit.
READ = 400


def section_sets() -> dict[str, list[dict]]:
    """``{set name: [query]}``: the dev section queries and each set of SECTION_FILES."""
    dev = json.loads(quality.DEFAULT_QUERIES.read_text())["queries"]
    out = {"dev_sections": [q for q in dev if q.get("granularity") == "section"]}
    for name, file in SECTION_FILES.items():
        out[name] = [q for q in json.loads((HERE / file).read_text())["queries"]
                     if "sections" in q]
    return out


def ranks(engine: Engine, q: dict) -> dict[str, int | None]:
    """The labelled section's best rank in the fused run and in each list (None: not
    among the first READ hits, or not in that list's first ``depth``)."""
    labels = [s for s in q["sections"] if int(s.get("grade", 3)) >= 2]
    got: dict[str, int | None] = {"fused": None} | {a: None for a in LISTS}
    for h in engine.search(q["query"], mode="hybrid", granularity="section", top_k=READ).hits:
        if not any(h.doc == s["doc"] and h.page == int(s["start_page"])
                   and quality.same_title(h.section, s["title"]) for s in labels):
            continue
        got["fused"] = got["fused"] or h.rank
        for c in h.arms:
            arm, rank = c.to_json()["arm"], c.to_json().get("rank")
            if arm in got and rank is not None and (got[arm] is None or rank < got[arm]):
                got[arm] = rank
    return got


def rr(rank: int | None, k: int = 10) -> float:
    """Reciprocal rank within the first ``k`` (0 beyond or absent)."""
    return 1.0 / rank if rank is not None and rank <= k else 0.0


def score(engine: Engine, queries: list[dict]) -> dict[str, float]:
    """MRR@10 of the fused run, of each list, of the best list per query and of the
    better of that and the fused run, over ``queries``."""
    sums = dict.fromkeys(("fused",) + LISTS + ("best list", "best or fused"), 0.0)
    for q in queries:
        r = {a: rr(v) for a, v in ranks(engine, q).items()}
        for a in ("fused",) + LISTS:
            sums[a] += r[a]
        sums["best list"] += max(r[a] for a in LISTS)
        sums["best or fused"] += max(r.values())
    return {a: round(v / len(queries), 4) for a, v in sums.items()} | {"n": len(queries)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache-dir", required=True, help="the cache of the indexed corpus")
    ap.add_argument("--json", dest="json_path", type=Path, help="write the results here")
    args = ap.parse_args(argv)
    # as bench/quality.py finds it: queries.json names the corpus beside its folder
    data = json.loads(quality.DEFAULT_QUERIES.read_text())
    corpus = quality.DEFAULT_QUERIES.resolve().parents[1] / data["corpus"]
    engine = Engine(corpus, args.cache_dir)
    out = {}
    cols = ("fused",) + LISTS + ("best list", "best or fused")
    print(f"{'set':<15}{'n':>4}" + "".join(f"{c:>15}" for c in cols))
    try:
        for name, queries in section_sets().items():
            out[name] = s = score(engine, queries)
            print(f"{name:<15}{s['n']:>4}" + "".join(f"{s[c]:>15.3f}" for c in cols),
                  flush=True)
    finally:
        engine.close()
    if args.json_path:
        args.json_path.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
