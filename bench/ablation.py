"""What each ranking signal is worth: quality with it off, set by set, against the full
configuration (hybrid), with a paired bootstrap interval.

Usage::

    PDFTUI_CACHE_DIR=/work/cache-corpus python bench/ablation.py [--only NAME,...]
        [--sets SET,...] [--draws 1000] [--seed 0] [--partial-cache DIR] [--json PATH]

For each variant of :data:`VARIANTS` (a signal off, or a constant at its neutral value: a
list off, a score factor 1, a parameter at the value that makes its
signal plain), every query of every set runs in hybrid mode with that configuration and is
scored as ``bench/quality.py`` scores it; per set the table prints the mean paired
difference variant - full (negative: the signal was worth that much), ``*`` when the
bootstrap 95 % interval (queries resampled with replacement, ``--draws`` times, fixed seed)
excludes 0, and ``t`` when the signal was tuned on that set (:data:`TUNED`, from
docs/ranking.md and git history: the sets whose figures were recorded when it was added).
A signal is "removable" when no set it was not tuned on loses beyond its interval.

Affordable on a busy 2-core machine: the engine (cache, corpus view, unit matrix, model) is
built once and only its query-time :class:`~pdftui.search.config.RankingConfig` changes per
variant; query vectors are embedded once (a memo in front of ``Engine.embed_query``); each
dev page query runs once to depth 100, its first 10 hits scored and its hits read for the
excerpt sets.

Sets (``--sets``): dev_doc, dev_top3, dev_page (doc NDCG@10, gold document in the top 3,
page NDCG@10 of the 82 dev page queries), dev_sections (strict section MRR@10), probes,
para1, para2, para3, titled, named, heldout, heldout_2, heldout_3, short_sections (section
MRR@10 of bench/section_*.json; heldout_3 in no TUNED), scoped (page
NDCG@10 inside one document), short (MRR@10 of bench/short_queries.json), lookup (MRR@10
of the page or section of bench/lookup_queries.json, held out: in no TUNED), excerpts,
excerpts_heldout (containment), and with ``--partial-cache`` partial_page / partial_sections
(dev page NDCG@10 / section MRR@10 on a cache where part of the corpus is not embedded,
as ``bench/partial.py`` makes one).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import excerpt as excerpt_bench  # noqa: E402  (bench/excerpt.py)
import quality  # noqa: E402  (bench/quality.py)
import short as short_bench  # noqa: E402  (bench/short.py)
from pdftui.search.config import RankingConfig  # noqa: E402
from pdftui.search.engine import Engine  # noqa: E402

HERE = Path(__file__).resolve().parent

#: Each variant: the settings that turn one signal off (or put a constant at its neutral
#: value). A signal's parameters (windows, places, shares) have no variant of their own:
#: with the signal off they do nothing, so its variant measures them with it.
VARIANTS: dict[str, dict[str, Any]] = {
    "lists.document_order=off": {"lists.document_order": False},
    "keyword.proximity=0": {"keyword.proximity": 0.0},
    "lists.doc_proximity=off": {"lists.doc_proximity": False},
    "keyword.coverage_power=0": {"keyword.coverage_power": 0.0},
    "semantic.weight=1": {"semantic.weight": 1.0},
    "lists.page_head=off": {"lists.page_head": False},
    "semantic.doc_context=0": {"semantic.doc_context": 0.0},
    "lists.stand_in=off": {"lists.stand_in": False},
    "lists.head_field=off": {"lists.head_field": False},
    "pages.reference=1": {"pages.reference": 1.0},
    "pages.reference=.5": {"pages.reference": 0.5},
    "lists.arms_agree=off": {"lists.arms_agree": False},
    "lists.phrase=off": {"lists.phrase": False},
    "short_terms=0": {"short_terms": 0},
    "few_docs=0": {"few_docs": 0},
    "lists.section_heads=off": {"lists.section_heads": False},
    "sections.overview=1": {"sections.overview": 1.0},
    "lists.named_docs=off": {"lists.named_docs": False},
    "lists.named=off": {"lists.named": False},
    "lists.named_max=off": {"lists.named_max": False},
    "lists.title=off": {"lists.title": False},
    # merges: one constant doing two constants' job (the verdict reads the same way)
    "keyword.proximity+doc_proximity=0": {"keyword.proximity": 0.0,
                                          "lists.doc_proximity": False},
    "sections.name_share=field_share": {"sections.name_share": 0.5},
}

DEV = ("dev_doc", "dev_top3", "dev_page")
SECTIONS_ALL = ("dev_sections", "probes", "para1", "para2", "para3", "titled", "named",
                "heldout", "heldout_2", "heldout_3", "short_sections")
#: The sets each signal was tuned on: those whose figures were recorded when it was added
#: or last set (docs/ranking.md, git log -- bench/README.md). Page-side signals measured
#: on "dev pages" count the three dev page figures.
TUNED: dict[str, tuple[str, ...]] = {
    "lists.document_order=off": DEV + ("dev_sections", "probes", "para1"),
    "keyword.proximity=0": DEV + ("para1", "para2", "scoped"),
    "lists.doc_proximity=off": DEV + ("para1", "para2", "para3"),
    "keyword.coverage_power=0": DEV + ("dev_sections",),
    "semantic.weight=1": DEV,
    "lists.page_head=off": DEV,
    "semantic.doc_context=0": DEV,
    "lists.stand_in=off": ("partial_page", "partial_sections"),
    "lists.head_field=off": DEV,
    "pages.reference=1": DEV,
    "pages.reference=.5": DEV,
    "lists.arms_agree=off": DEV,
    "lists.phrase=off": ("short",),
    "short_terms=0": ("short",),
    "few_docs=0": ("scoped",),
    "lists.section_heads=off": ("dev_sections",),
    "sections.overview=1": ("dev_sections", "probes", "para1", "para2", "para3", "titled"),
    "lists.named_docs=off": ("dev_sections", "titled", "named"),
    "lists.named=off": ("dev_sections",),
    "lists.named_max=off": ("dev_sections", "titled"),
    "lists.title=off": SECTIONS_ALL[:SECTIONS_ALL.index("heldout") + 1],
    "keyword.proximity+doc_proximity=0": DEV + ("para1", "para2", "para3", "scoped"),
    "sections.name_share=field_share": ("dev_sections", "titled", "named"),
}

SECTION_FILES = {"probes": "section_probes.json", "para1": "section_paraphrases.json",
                 "para2": "section_paraphrases_2.json", "para3": "section_paraphrases_3.json",
                 "titled": "section_titled.json", "named": "section_named.json",
                 "heldout": "section_heldout.json", "heldout_2": "section_heldout_2.json",
                 "heldout_3": "section_heldout_3.json",
                 "short_sections": "section_short_heldout.json"}
#: Held out, no signal tuned on it: page and section lookups (bench/lookup_queries.json).
LOOKUP = "lookup"
SETS = DEV + SECTIONS_ALL + ("scoped", "short", LOOKUP, "excerpts", "excerpts_heldout")
PARTIAL_SETS = ("partial_page", "partial_sections")
PAGE_SETS = DEV + ("scoped", "short", LOOKUP, "excerpts", "excerpts_heldout", "partial_page")
SECTION_SETS = SECTIONS_ALL + (LOOKUP, "partial_sections")


#: The lists only section search reads, and those only page search reads.
SECTION_LISTS = {"lists.section_heads", "lists.named_docs", "lists.named",
                 "lists.named_max", "lists.title"}
PAGE_LISTS = {"lists.head_field", "lists.arms_agree", "lists.phrase"}


def reaches(changes: dict[str, Any]) -> set[str]:
    """The sets a variant can move: ``sections.*`` settings are read by section search
    only, ``pages.*`` by page search only (the head field and its share included: the
    keyword arm lists heads for pages alone); the others by both. A set a variant cannot
    move keeps the full configuration's scores, delta 0 by construction."""
    if all(k.startswith("sections.") or k in SECTION_LISTS for k in changes):
        return set(SECTION_SETS)
    if all(k.startswith("pages.") or k in PAGE_LISTS for k in changes):
        return set(PAGE_SETS)
    return set(PAGE_SETS) | set(SECTION_SETS)

Scores = dict[str, dict[str, float]]   # {set: {query id: value}}


def memo_embed(engine: Engine) -> None:
    """Embed each query text once for the engine's life (ranking does not change it)."""
    plain, seen = engine.embed_query, {}

    def embed(text: str):
        if text not in seen:
            seen[text] = plain(text)
        return seen[text]
    engine.embed_query = embed


class Sets:
    """Every query set, loaded once: dev page and section queries, the section files,
    scoped, short, lookup and the excerpt answers."""

    def __init__(self, queries_path: Path = quality.DEFAULT_QUERIES):
        data = json.loads(queries_path.read_text())
        self.corpus = str(queries_path.resolve().parents[1] / data["corpus"])
        qs = data["queries"]
        self.dev_pages = [q for q in qs if q.get("granularity") != "section"]
        self.sections = {"dev_sections": [q for q in qs if q.get("granularity") == "section"]}
        for name, file in SECTION_FILES.items():
            self.sections[name] = json.loads((HERE / file).read_text())["queries"]
        self.scoped = json.loads(quality.DEFAULT_SCOPED.read_text())["queries"]
        self.short = json.loads(short_bench.DEFAULT.read_text())["queries"]
        self.lookup = json.loads(quality.DEFAULT_LOOKUP.read_text())["queries"]
        by_id = {q["id"]: q for q in qs}
        self.answers = {"excerpts": excerpt_bench.load(excerpt_bench.DEFAULT_ANSWERS,
                                                       queries_path)[0],
                        "excerpts_heldout": [a for p in excerpt_bench.HELDOUT_ANSWERS
                                             for a in excerpt_bench.load(p, queries_path)[0]]}
        self.by_id = by_id


def _dev_pages(engine: Engine, sets: Sets, want: set[str], out: Scores) -> None:
    """The dev page queries once each to depth 100: page figures of the first 10, and
    each excerpt answer's hit (run scoped to its document when beyond the 100)."""
    hits_of = {}
    for q in sets.dev_pages:
        res = engine.search(q["query"], mode="hybrid", top_k=excerpt_bench.DEPTH)
        hits_of[q["id"]] = res.hits
        m = quality.page_metrics([(h.doc, h.page) for h in res.hits], q["labels"])
        for name, key in zip(DEV, ("doc_ndcg", "top3", "page_ndcg")):
            if name in want:
                out.setdefault(name, {})[q["id"]] = m[key]
    for name, answers in sets.answers.items():
        if name not in want:
            continue
        for i, a in enumerate(answers):
            q = sets.by_id.get(a["id"])
            if q is None or a["id"] not in hits_of:
                continue
            hits = hits_of[a["id"]]
            hit = next((h for h in hits if h.doc == a["doc"] and h.page == a["page"]), None)
            if hit is None:
                res = engine.search(q["query"], mode="hybrid", top_k=excerpt_bench.DEPTH,
                                    docs=[a["doc"]])
                hit = next((h for h in res.hits if h.doc == a["doc"]
                            and h.page == a["page"]), None)
            ok = hit is not None and excerpt_bench.contains(hit.excerpt, a["answer"])
            out.setdefault(name, {})[f"{a['id']}:{a['doc']}:{a['page']}:{i}"] = float(ok)


def score(engine: Engine, sets: Sets, want: set[str]) -> Scores:
    """``{set: {query id: value}}`` of the engine's current configuration over the sets
    of ``want``."""
    out: Scores = {}
    if want & set(DEV + ("excerpts", "excerpts_heldout")):
        _dev_pages(engine, sets, want, out)
    for name, qs in sets.sections.items():
        if name in want:
            out[name] = {q["id"]: quality.section_metrics(quality.section_hits(
                engine.search(q["query"], mode="hybrid", granularity="section", top_k=10)),
                q["sections"])["section_mrr"] for q in qs}
    if "scoped" in want:
        out["scoped"] = {q["id"]: quality.page_metrics(
            [(h.doc, h.page) for h in engine.search(q["query"], mode="hybrid", top_k=10,
                                                    docs=[q["scope"]]).hits],
            q["labels"])["page_ndcg"] for q in sets.scoped}
    if "short" in want:
        out["short"] = {q["id"]: short_bench.score(
            [h.doc for h in engine.search(q["query"], mode="hybrid", top_k=10).hits],
            q["docs"])[0] for q in sets.short}
    if LOOKUP in want:
        got = quality.run_lookup(engine, sets.lookup, ["hybrid"])["hybrid"]["per_query"]
        out[LOOKUP] = {qid: m["score"] for qid, m in got.items()}
    return out


def score_partial(engine: Engine, sets: Sets, want: set[str]) -> Scores:
    """Dev page NDCG@10 and section MRR@10 on a partly embedded cache."""
    out: Scores = {}
    if "partial_page" in want:
        out["partial_page"] = {q["id"]: quality.page_metrics(
            [(h.doc, h.page) for h in engine.search(q["query"], mode="hybrid",
                                                    top_k=10).hits],
            q["labels"])["page_ndcg"] for q in sets.dev_pages}
    if "partial_sections" in want:
        out["partial_sections"] = {q["id"]: quality.section_metrics(quality.section_hits(
            engine.search(q["query"], mode="hybrid", granularity="section", top_k=10)),
            q["sections"])["section_mrr"] for q in sets.sections["dev_sections"]}
    return out


def paired(base: dict[str, float], other: dict[str, float], draws: int, seed: int
           ) -> dict[str, float]:
    """Mean of ``other - base`` over the queries both score, and its bootstrap 95 %
    percentile interval (queries resampled with replacement ``draws`` times, numpy
    generator seeded ``seed``): ``{"base", "delta", "lo", "hi", "n", "up", "down"}``."""
    ids = sorted(set(base) & set(other))
    d = np.array([other[i] - base[i] for i in ids])
    if not len(d):
        return {"base": 0.0, "delta": 0.0, "lo": 0.0, "hi": 0.0, "n": 0, "up": 0, "down": 0}
    rng = np.random.default_rng(seed)
    means = d[rng.integers(0, len(d), size=(draws, len(d)))].mean(axis=1)
    return {"base": round(float(np.mean([base[i] for i in ids])), 4),
            "delta": round(float(d.mean()), 4),
            "lo": round(float(np.percentile(means, 2.5)), 4),
            "hi": round(float(np.percentile(means, 97.5)), 4), "n": len(ids),
            "up": int((d > 1e-9).sum()), "down": int((d < -1e-9).sum())}


def verdict(row: dict[str, dict], tuned: tuple[str, ...]) -> str:
    """"keep" when some set the signal was not tuned on loses beyond its interval (hi <
    0) with it off; "removable" otherwise."""
    costs = [s for s, r in row.items() if s not in tuned and r["hi"] < 0]
    return ("keep: " + ", ".join(costs)) if costs else "removable"


def cell(r: dict, tuned: bool) -> str:
    """``+.012*t``: the delta, * when its interval excludes 0, t when tuned on the set."""
    sig = "*" if r["lo"] > 0 or r["hi"] < 0 else " "
    return f"{r['delta']:+.3f}{sig}{'t' if tuned else ' '}".replace("0.", ".")


def print_table(result: dict, sets: list[str]) -> None:
    """One row per variant: the delta per set, then its verdict; the base figures first."""
    base = result["base"]
    print(f"{'variant':<31}" + "".join(f"{s[:9]:>10}" for s in sets))
    print(f"{'full config (mean)':<31}" + "".join(f"{base[s]:>10.3f}" for s in sets))
    for name, v in result["variants"].items():
        if "error" in v:
            print(f"{name:<31} error: {v['error']}")
            continue
        print(f"{name:<31}" + "".join(
            f"{cell(v['sets'][s], s in v['tuned']):>10}" if s in v["sets"] else f"{'':>10}"
            for s in sets) + f"  {v['verdict']}")
    print("\ndelta = variant - full config (negative: the signal is worth that much); "
          "* its 95 % bootstrap interval excludes 0; t tuned on that set")
    print("\nintervals (variant, set: delta [lo, hi] up/down of n), where a query moved:")
    for name, v in result["variants"].items():
        moved = [f"{s} {r['delta']:+.3f} [{r['lo']:+.3f}, {r['hi']:+.3f}] "
                 f"{r['up']}/{r['down']} of {r['n']}"
                 for s, r in v.get("sets", {}).items() if r["up"] or r["down"]]
        print(f"  {name}: " + ("; ".join(moved) if moved else "no query moved"))


def markdown(result: dict) -> str:
    """docs/ranking.md's worth table: per variant, the sets it was tuned on and each set a
    query moved on, ``delta [lo, hi]`` (bold when the interval excludes 0)."""
    lines = ["| signal off | tuned on | moved: delta [95 % interval] (bold: beyond noise) "
             "| verdict |", "|---|---|---|---|"]
    for name, v in result["variants"].items():
        if "error" in v:
            continue
        moved = []
        for s, r in v["sets"].items():
            if r["up"] or r["down"]:
                text = f"{s} {r['delta']:+.3f} [{r['lo']:+.3f}, {r['hi']:+.3f}]"
                moved.append(f"**{text}**" if r["lo"] > 0 or r["hi"] < 0 else text)
        lines.append(f"| `{name}` | {', '.join(v['tuned']) or '-'} | "
                     f"{'; '.join(moved) or 'no query moved'} | {v['verdict']} |")
    return "\n".join(lines)


def run_variants(score_of: Callable[[RankingConfig, set[str]], Scores],
                 variants: dict[str, dict], draws: int, seed: int, log=print,
                 save: Callable[[dict], None] | None = None) -> dict:
    """The full configuration, then each variant, scored by ``score_of(config, sets)``
    over the sets it :func:`reaches` (the others keep the base scores) and compared
    pairwise: ``{"base": {set: mean}, "variants": {name: {"changes", "tuned", "sets":
    {set: paired()}, "verdict", "seconds"}}}``."""
    t0 = time.perf_counter()
    base = score_of(RankingConfig(), set(PAGE_SETS) | set(SECTION_SETS))
    log(f"full configuration scored ({time.perf_counter() - t0:.0f} s)")
    out = {"base": {s: round(float(np.mean(list(v.values()))), 4) for s, v in base.items()},
           "variants": {}}
    for name, changes in variants.items():
        t0 = time.perf_counter()
        try:
            got = base | score_of(RankingConfig().updated(changes), reaches(changes))
        except Exception as exc:   # a neutral value the code does not take: recorded
            out["variants"][name] = {"changes": changes, "error": repr(exc)}
            continue
        tuned = TUNED.get(name, ())
        rows = {s: paired(base[s], got[s], draws, seed) for s in base if s in got}
        out["variants"][name] = {"changes": changes, "tuned": list(tuned), "sets": rows,
                                 "verdict": verdict(rows, tuned),
                                 "seconds": round(time.perf_counter() - t0, 1)}
        log(f"{name}: {out['variants'][name]['seconds']} s")
        if save is not None:   # a long run interrupted keeps the variants done
            save(out)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache-dir", default=None, help="the indexed corpus (default: pdftui's)")
    ap.add_argument("--queries", default=str(quality.DEFAULT_QUERIES))
    ap.add_argument("--only", default=None, help="variants to run, comma-separated (a "
                    "name of VARIANTS or its prefix: 'sections.' runs every section one)")
    ap.add_argument("--sets", default=None, help="sets to score, comma-separated")
    ap.add_argument("--partial-cache", default=None,
                    help="a partly embedded cache (bench/partial.py): partial_* sets")
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", dest="json_path", default=None)
    ap.add_argument("--markdown", default=None, metavar="JSON",
                    help="print the worth table of a written run (docs/ranking.md) and exit")
    args = ap.parse_args(argv)
    if args.markdown:
        print(markdown(json.loads(Path(args.markdown).read_text())))
        return 0
    sets = Sets(Path(args.queries))
    want = set(args.sets.split(",")) if args.sets else set(SETS) | (
        set(PARTIAL_SETS) if args.partial_cache else set())
    variants = {n: c for n, c in VARIANTS.items() if not args.only or any(
        n == o or n.startswith(o) for o in args.only.split(","))}
    engine = Engine(sets.corpus, args.cache_dir)
    memo_embed(engine)
    partial = None
    if args.partial_cache and want & set(PARTIAL_SETS):
        partial = Engine(sets.corpus, args.partial_cache)
        partial.embed_query = engine.embed_query

    def score_of(config: RankingConfig, reach: set[str]) -> Scores:
        engine.config = config
        got = score(engine, sets, want & reach)
        if partial is not None:
            partial.config = config
            got |= score_partial(partial, sets, want & reach)
        return got

    def save(result: dict) -> None:
        if args.json_path:
            order = [s for s in SETS + PARTIAL_SETS if s in result["base"]]
            Path(args.json_path).write_text(json.dumps(
                result | {"draws": args.draws, "seed": args.seed, "sets": order,
                          "tuned": TUNED, "config": RankingConfig().flat()}, indent=1) + "\n")

    t0 = time.perf_counter()
    result = run_variants(score_of, variants, args.draws, args.seed,
                          log=lambda s: print(s, file=sys.stderr, flush=True), save=save)
    save(result)
    print_table(result, [s for s in SETS + PARTIAL_SETS if s in result["base"]])
    print(f"\n{len(variants)} variants, {args.draws} draws, seed {args.seed} "
          f"({time.perf_counter() - t0:.0f} s)")
    engine.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
