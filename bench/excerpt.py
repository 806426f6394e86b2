"""Excerpt containment on the graded queries: does the excerpt shown for the right page hold
the answer?

Usage::

    python bench/excerpt.py --cache-dir DIR [--answers bench/excerpt_answers.json]
        [--queries ../shared/eval/queries.json] [--mode hybrid] [--per-query] [--json PATH]

``excerpt_answers.json`` holds, for graded page queries of the development set, a short
substring of the answering text on one of the query's grade-3 pages (copied from that page's
extracted text). For each one the query runs as the user would run it (whole corpus, top 100
hits of ``--mode``); the hit on the answer's page is found and its excerpt checked:
containment = the excerpt holds the answer, compared case-insensitively after NFKC, quote and
dash folding and whitespace collapsing. When that page is not among the first 100 hits the
query is run again scoped to the answer's document (the excerpt of a page depends on the
query and on which arm found the page, not on the other documents), and the row says so.

Each miss names the block the excerpt came from (its first words), so kinds of failure
(caption chosen, cross-reference, one table cell) can be read off the table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pdftui.search.engine import Engine  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_ANSWERS = HERE / "excerpt_answers.json"
#: Answer sets on other grade-3 pages than the development set's, reported apart.
HELDOUT_ANSWERS = (HERE / "excerpt_answers_heldout.json", HERE / "excerpt_answers_heldout_2.json")
DEFAULT_QUERIES = HERE.parents[1] / "shared" / "eval" / "queries.json"
_FOLD = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"',
                       "\u2212": "-", "\u2013": "-", "\u2014": "-"})
DEPTH = 100


def fold(text: str) -> str:
    """Text as compared: NFKC, curly quotes and dashes folded, lower case, one space."""
    return " ".join(unicodedata.normalize("NFKC", text).translate(_FOLD).lower().split())


def contains(excerpt: str, answer: str | list[str]) -> bool:
    """True when the folded excerpt holds the folded answer (or one of the alternatives
    when ``answer`` is a list: a page that states the answer in two places)."""
    alts = [answer] if isinstance(answer, str) else answer
    return any(fold(a) in fold(excerpt) for a in alts)


def run(engine: Engine, answers: list[dict], queries: dict[str, dict], mode: str = "hybrid"
        ) -> dict:
    """Containment over ``answers``: ``{"containment", "n", "scoped", "per_query": {id:
    {"doc", "page", "found": "corpus"|"scoped"|"missing", "contains", "excerpt"}}}``; a query
    id answered on more than one page keys its rows ``id:doc:pN``."""
    per_q: dict[str, dict] = {}
    repeated = {i for i in (a["id"] for a in answers)
                if sum(1 for b in answers if b["id"] == i) > 1}
    for a in answers:
        q = queries.get(a["id"])
        if q is None:
            continue
        # a query answered on two pages is one row per page
        key = f"{a['id']}:{a['doc'][:24]}:p{a['page']}" if a["id"] in repeated else a["id"]
        found, hit = "corpus", None
        for docs in (None, [a["doc"]]):
            res = engine.search(q["query"], mode=mode, top_k=DEPTH, docs=docs)
            hit = next((h for h in res.hits if h.doc == a["doc"] and h.page == a["page"]),
                       None)
            if hit is not None:
                break
            found = "scoped"
        if hit is None:
            per_q[key] = {"doc": a["doc"], "page": a["page"], "found": "missing",
                          "contains": False, "excerpt": ""}
            continue
        per_q[key] = {"doc": a["doc"], "page": a["page"], "found": found,
                      "contains": contains(hit.excerpt, a["answer"]),
                      "excerpt": hit.excerpt, "answer": a["answer"]}
    n = len(per_q)
    hits = sum(1 for r in per_q.values() if r["contains"])
    return {"containment": round(hits / n, 4) if n else 0.0, "n": n, "contained": hits,
            "scoped": sum(1 for r in per_q.values() if r["found"] == "scoped"),
            "missing": sum(1 for r in per_q.values() if r["found"] == "missing"),
            "per_query": per_q}


def load(answers_path: str | Path, queries_path: str | Path) -> tuple[list[dict], dict]:
    """``(answers, {query id: query})`` from the two JSON files."""
    answers = json.loads(Path(answers_path).read_text())["answers"]
    queries = {q["id"]: q for q in json.loads(Path(queries_path).read_text())["queries"]}
    return answers, queries


def print_table(result: dict, mode: str, per_query: bool = False) -> None:
    """One summary line, then each miss (or every row with ``per_query``)."""
    print(f"excerpt containment ({mode}): {result['contained']}/{result['n']} = "
          f"{result['containment']:.3f}  (page beyond the first {DEPTH} hits, run scoped: "
          f"{result['scoped']}; not found: {result['missing']})")
    for qid, r in result["per_query"].items():
        if r["contains"] and not per_query:
            continue
        mark = "ok  " if r["contains"] else "MISS"
        print(f"  {mark} {qid:<14.50} {r['doc'][:38]:<38} p{r['page']:<4} {r['found']:<7} "
              f"want {str(r.get('answer', ''))[:40]!r}  got {r['excerpt'][:70]!r}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--corpus", default=None)
    ap.add_argument("--answers", default=str(DEFAULT_ANSWERS))
    ap.add_argument("--queries", default=str(DEFAULT_QUERIES))
    ap.add_argument("--mode", default="hybrid")
    ap.add_argument("--per-query", action="store_true")
    ap.add_argument("--json", dest="json_path", default=None)
    args = ap.parse_args(argv)
    answers, queries = load(args.answers, args.queries)
    corpus = args.corpus or str(Path(args.queries).resolve().parents[1] / "corpus")
    engine = Engine(corpus, args.cache_dir)
    t0 = time.perf_counter()
    result = run(engine, answers, queries, args.mode)
    print_table(result, args.mode, args.per_query)
    print(f"({time.perf_counter() - t0:.1f} s)")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(result, indent=1, ensure_ascii=False))
    engine.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
