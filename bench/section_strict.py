"""Strict section MRR@10 / NDCG@10 over every section set, and the dev page metrics.

Usage::

    python bench/section_strict.py --cache-dir /work/cache-corpus [--modes hybrid]
        [--set PATH=VALUE ...] [--sets dev,heldout,...] [--per-query] [--json PATH]

A section hit counts (../shared/eval/README.md, "Metrics") when its document matches, its
start page equals the labelled start page and its title holds at least half of the labelled
title's words, numbering (``3.2``, ``A.``, ``§ 1.``, roman numerals) aside; each labelled
section gains once, at its first place. Sets: the dev section queries of
../shared/eval/queries.json and every ``bench/section_*.json``. The dev page queries are
scored with bench/quality.py's page metrics (doc NDCG@10, top-3 gold doc, page NDCG@10).
This scorer stands in until bench/quality.py scores sections strictly.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from options import options  # noqa: E402
from quality import ndcg, page_metrics  # noqa: E402

from pdftui.search.engine import Engine  # noqa: E402

DEV = HERE.parents[1] / "shared" / "eval" / "queries.json"
SETS = {"dev": DEV} | {p.stem.removeprefix("section_"): p
                       for p in sorted(HERE.glob("section_*.json"))}
_NUMBERING = re.compile(r"^(§\s*)?([0-9]+(\.[0-9]+)*|[A-Za-z]|[ivxlcdmIVXLCDM]+)[.):]?(\s+|$)")
_WORD = re.compile(r"\w+")


def title_words(title: str) -> set[str]:
    """The lower-case words of a section title, its leading numbering (digits, a letter, a
    roman numeral, ``§``) aside."""
    text = (title or "").strip()
    for _ in range(2):
        m = _NUMBERING.match(text)
        if m and m.end() < len(text):
            text = text[m.end():]
    return set(_WORD.findall(text.lower()))


def same_section(hit_title: str, label_title: str) -> bool:
    """True when ``hit_title`` holds at least half of ``label_title``'s words."""
    want = title_words(label_title)
    if not want:
        return True
    have = _WORD.findall((hit_title or "").lower())
    return len(want & set(have)) * 2 >= len(want)


def strict_metrics(hits: list[tuple[str, int, str]], sections: list[dict], k: int = 10) -> dict:
    """section_mrr, section_ndcg for one query; ``hits`` = [(doc, start_page, title)]."""
    gains: list[float] = []
    used: set[int] = set()
    for doc, page, title in hits[:k]:
        g = 0
        for i, s in enumerate(sections):
            if i in used or s["doc"] != doc or int(s["start_page"]) != page:
                continue
            if same_section(title, s["title"]):
                g = int(s.get("grade", 3))
                used.add(i)
                break
        gains.append(g)
    mrr = next((1.0 / i for i, g in enumerate(gains, start=1) if g >= 2), 0.0)
    ideal = [int(s.get("grade", 3)) for s in sections]
    return {"section_mrr": mrr, "section_ndcg": ndcg(gains, ideal, k)}


def section_queries(path: Path) -> list[dict]:
    """The section queries of one set file."""
    return [q for q in json.loads(path.read_text())["queries"]
            if q.get("granularity") == "section" or "sections" in q]


def score_sets(engine: Engine, names: list[str], mode: str, per_query: bool) -> dict:
    """``{set: {section_mrr, section_ndcg, n, per_query}}`` for one mode."""
    out = {}
    for name in names:
        per: dict[str, dict] = {}
        for q in section_queries(SETS[name]):
            res = engine.search(q["query"], mode=mode, granularity="section", top_k=10)
            hits = [(h.doc, h.start_page or h.page, h.section or "") for h in res.hits]
            per[q["id"]] = strict_metrics(hits, q["sections"]) | {
                "top": [f"{d} p{p} {t}" for d, p, t in hits[:3]]}
        n = len(per)
        out[name] = {m: sum(v[m] for v in per.values()) / n
                     for m in ("section_mrr", "section_ndcg")} | {"n": n}
        if per_query:
            out[name]["per_query"] = per
    return out


def score_pages(engine: Engine, mode: str) -> dict:
    """Mean doc NDCG@10, top-3 gold doc and page NDCG@10 over the dev page queries."""
    qs = [q for q in json.loads(DEV.read_text())["queries"]
          if q.get("granularity") != "section"]
    sums: dict[str, float] = {}
    for q in qs:
        res = engine.search(q["query"], mode=mode, granularity="page", top_k=10)
        m = page_metrics([(h.doc, h.page) for h in res.hits], q["labels"], 10)
        for key in ("doc_ndcg", "top3", "page_ndcg"):
            sums[key] = sums.get(key, 0.0) + m[key]
    return {key: v / len(qs) for key, v in sums.items()} | {"n": len(qs)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--corpus", default=str(HERE.parents[1] / "shared" / "corpus"))
    ap.add_argument("--modes", default="hybrid")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--no-pages", action="store_true", help="skip the dev page queries")
    ap.add_argument("--per-query", action="store_true")
    ap.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE")
    ap.add_argument("--json", dest="json_path", default=None)
    args = ap.parse_args(argv)
    engine = Engine(args.corpus, args.cache_dir, config=options(args.set))
    names = args.sets.split(",")
    result: dict = {"set": args.set}
    for mode in args.modes.split(","):
        sec = score_sets(engine, names, mode, args.per_query)
        result[mode] = {"sections": sec}
        print(f"{mode}: strict section MRR@10 / NDCG@10")
        for name, r in sec.items():
            print(f"  {name:<16}{r['n']:>4}{r['section_mrr']:>8.3f}{r['section_ndcg']:>8.3f}")
            for qid, v in (r.get("per_query") or {}).items():
                if v["section_mrr"] < 1:
                    print(f"      {qid:<14}{v['section_mrr']:.2f}  {' | '.join(v['top'])[:160]}")
        if not args.no_pages:
            pages = score_pages(engine, mode)
            result[mode]["pages"] = pages
            print(f"  dev pages doc NDCG@10 {pages['doc_ndcg']:.3f} top-3 {pages['top3']:.3f}"
                  f" page NDCG@10 {pages['page_ndcg']:.3f}")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
