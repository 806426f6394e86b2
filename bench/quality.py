"""Search quality on the graded queries (../shared/eval/queries.json).

Usage::

    PDFTUI_CACHE_DIR=/work/cache-bench python bench/quality.py [--corpus DIR]
        [--queries FILE] [--modes keyword,semantic,hybrid] [--json PATH]
        [--set PATH=VALUE ...]   (any pdftui.search.config.RankingConfig setting, e.g. k, sections.overview)

The corpus must already be indexed into the cache (``pdftui index``). For every mode it
prints, per query class and overall, page NDCG@10, doc NDCG@10, gold doc in the top 3 and
MRR@10 over the page queries, and section MRR@10 / NDCG@10 over the section queries
(and over ``section_probes.json``, section queries of our own that nothing was tuned on, and
``section_paraphrases.json``, section queries in the reader's own words sharing no content word
with the section's title, halves a and b reported apart; and ``section_titled.json``, queries
naming what a section's title states in other forms of its words; ``section_named.json``,
held out, queries naming their paper by a word of its title; and ``lookup_queries.json``,
held out, fact, term and section lookups as a researcher asks them, MRR@10). Side by
side it runs the two simple designs of the eval README: "corpus_bm25" (the design the seeds
warn against), one corpus-wide FTS5 table over every page (built here in a temporary database
from the cached page text) sorted by raw bm25(), queried with the OR of the query's tokens;
and "semantic_first256", one vector per page (its first embedding unit, i.e. its first 256
tokens) ranked by exhaustive cosine. It then checks, per query class, hybrid against the
better of the two on doc NDCG, top-3 and page NDCG. The README's two other references run
too: "rrf_alphabetical" (per-document BM25 ranks fused by RRF with ties broken by path, the
"ls" failure) and "rrf_bm25_first256" (RRF of the two simple designs' lists).

Metrics (eval README; the reference system's definitions), over the first 10 hits:

- page NDCG@10: DCG = sum grade / log2(i + 1), i 1-based; divided by the ideal DCG of all
  labelled grades sorted.
- doc NDCG@10: hits collapsed to documents in order of first appearance, a document's gain
  the highest grade among its labelled pages; ideal = documents by that gain.
- top-3 gold doc: one of the first 3 distinct documents has a page graded >= 2.
- MRR@10: 1 / rank of the first hit graded >= 2 (0 if none).
- section hits (strict): a hit earns a labelled section's grade when the document
  matches, the start page equals the labelled start page and its title holds at least
  half of the labelled title's words (numbering aside); each labelled section gains once,
  at its first place, so NDCG <= 1 (a parent or sibling on the same page earns nothing).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sqlite3
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import excerpt as excerpt_bench  # noqa: E402  (bench/excerpt.py)
import short as short_bench  # noqa: E402  (bench/short.py)
from options import changed as changed_options, options  # noqa: E402  (bench/options.py)
from pdftui.store.tokenizer import fts_text  # noqa: E402
from pdftui.search import keyword  # noqa: E402
from pdftui.search.query import parse  # noqa: E402
from pdftui.search.engine import Engine  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_QUERIES = HERE.parents[1] / "shared" / "eval" / "queries.json"
DEFAULT_SCOPED = HERE / "scoped_queries.json"
DEFAULT_PROBES = HERE / "section_probes.json"
DEFAULT_TITLED = HERE / "section_titled.json"
DEFAULT_NAMED = HERE / "section_named.json"
DEFAULT_PARAPHRASES = HERE / "section_paraphrases.json"
DEFAULT_PARAPHRASES_2 = HERE / "section_paraphrases_2.json"
DEFAULT_PARAPHRASES_3 = HERE / "section_paraphrases_3.json"
DEFAULT_HELDOUT = HERE / "section_heldout.json"
DEFAULT_HELDOUT_2 = HERE / "section_heldout_2.json"
DEFAULT_HELDOUT_3 = HERE / "section_heldout_3.json"
DEFAULT_SHORT_SECTIONS = HERE / "section_short_heldout.json"
DEFAULT_LOOKUP = HERE / "lookup_queries.json"
BASELINES = {  # eval README: doc NDCG@10 / top-3 gold doc / page NDCG@10 (82 page queries)
    "corpus_bm25 (README)": (0.740, 0.780, 0.532),
    "semantic first-256 (README)": (0.790, 0.854, 0.458),
}


def dcg(gains: list[float]) -> float:
    """Discounted cumulative gain: sum g_i / log2(i + 1), i 1-based."""
    return sum(g / math.log2(i + 1) for i, g in enumerate(gains, start=1))


def ndcg(gains: list[float], ideal: list[float], k: int = 10) -> float:
    """NDCG@k of a gain list against the ideal gains (sorted here)."""
    best = dcg(sorted(ideal, reverse=True)[:k])
    return dcg(gains[:k]) / best if best > 0 else 0.0


def page_metrics(hits: list[tuple[str, int]], labels: dict[str, dict[str, int]],
                 k: int = 10) -> dict[str, float]:
    """page_ndcg, doc_ndcg, top3, mrr for one page query; ``hits`` = [(doc, page)]."""
    hits = hits[:k]
    grade = lambda d, p: labels.get(d, {}).get(str(p), 0)  # noqa: E731
    gains = [grade(d, p) for d, p in hits]
    ideal = [g for pages in labels.values() for g in pages.values()]
    doc_gain = {d: max(pages.values()) for d, pages in labels.items() if pages}
    docs: list[str] = []
    for d, _p in hits:
        if d not in docs:
            docs.append(d)
    mrr = 0.0
    for i, g in enumerate(gains, start=1):
        if g >= 2:
            mrr = 1.0 / i
            break
    return {
        "page_ndcg": ndcg(gains, ideal, k),
        "doc_ndcg": ndcg([doc_gain.get(d, 0) for d in docs], list(doc_gain.values()), k),
        "top3": 1.0 if any(doc_gain.get(d, 0) >= 2 for d in docs[:3]) else 0.0,
        "mrr": mrr,
    }


NUMBERING = re.compile(r"^\s*(?:§\s*)?(?:\d+|[A-Z]|[IVXLC]+)(?:[.\-](?:\d+|[A-Z]))*\.?(?=\s)")


def title_words(title: str) -> set[str]:
    """The lower-cased words of a section title, its leading numbering (``3.2``, ``A.6``,
    ``§ 1.``, ``II.``, ``V-D``) left out."""
    return set(re.findall(r"[^\W_]+", NUMBERING.sub("", title or "").lower()))


def same_title(hit_title: str | None, labelled: str) -> bool:
    """Whether ``hit_title`` holds at least half of the words of the ``labelled`` title
    (numbering aside; eval README "Metrics"); a labelled title of numbering alone asks
    for nothing more."""
    want = title_words(labelled)
    return 2 * len(want & title_words(hit_title or "")) >= len(want)


def section_metrics(hits: list[tuple[str, int, str | None]], sections: list[dict],
                    k: int = 10) -> dict[str, float]:
    """section_mrr, section_ndcg for one section query; ``hits`` = [(doc, start_page,
    title)] best first. Strict (eval README "Metrics"): a hit earns a labelled section's
    grade when its document and start page match and its title holds at least half of the
    labelled title's words (:func:`same_title`), so a parent or sibling starting on the
    same page earns nothing; each labelled section gains once, at its first place (the
    best-graded one still unearned when a hit matches several), so NDCG <= 1."""
    left = sorted(range(len(sections)), key=lambda i: -int(sections[i].get("grade", 3)))
    gains = []
    for doc, page, title in hits[:k]:
        got = next((i for i in left if sections[i]["doc"] == doc
                    and int(sections[i]["start_page"]) == page
                    and same_title(title, sections[i]["title"])), None)
        if got is not None:
            left.remove(got)
        gains.append(int(sections[got].get("grade", 3)) if got is not None else 0)
    ideal = [int(s.get("grade", 3)) for s in sections]
    mrr = next((1.0 / i for i, g in enumerate(gains, start=1) if g >= 2), 0.0)
    return {"section_mrr": mrr, "section_ndcg": ndcg(gains, ideal, k)}


def section_hits(res) -> list[tuple[str, int, str | None]]:
    """``[(doc, start_page, title)]`` of a section search result's hits."""
    return [(h.doc, h.page, h.section) for h in res.hits]


class CorpusBM25:
    """The warned-against design: one FTS5 table over all pages, raw bm25() order."""

    def __init__(self, engine: Engine):
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE p USING fts5(text, doc UNINDEXED,"
                        " page UNINDEXED, tokenize='porter unicode61 remove_diacritics 2')")
        engine.refresh()
        rows = []
        for d in engine._docs:
            if d.reason is not None:
                continue
            for number, text in engine.db.execute(
                    "SELECT number, text FROM pages WHERE content_id=?", (d.content_id,)):
                rows.append((fts_text(text), d.doc, number))
        self.db.executemany("INSERT INTO p(text, doc, page) VALUES(?,?,?)", rows)

    def search(self, text: str, k: int = 10) -> list[tuple[str, int]]:
        toks = keyword.tokenize(text, stem=False)
        if not toks:
            return []
        q = " OR ".join('"' + t.replace('"', '""') + '"' for t in dict.fromkeys(toks))
        return [(d, int(p)) for d, p in self.db.execute(
            "SELECT doc, page FROM p WHERE p MATCH ? ORDER BY bm25(p) LIMIT ?", (q, k))]


def rrf_alphabetical(engine: Engine, text: str, k: int = 10,
                     scope: list[str] | None = None) -> list[tuple[str, int]]:
    """The eval README's "ls" failure: per-document BM25 page ranks fused by RRF alone, so
    every document's best page ties at 1/61 and the tie goes to the path, alphabetically."""
    engine.refresh()
    docs = {d.doc: d.content_id for d in engine._docs if d.reason is None
            and (scope is None or d.doc in scope)}
    terms = keyword.parse_query(text)
    if not terms:
        return []
    ranking = engine.kw.rank(terms, set(docs.values()), "pages")
    scored = []
    for doc, cid in docs.items():
        for r, row in enumerate(ranking.per_doc.get(cid, []), start=1):
            scored.append((-1.0 / (60 + r), doc, engine.kw.page_number(row)))
    scored.sort()
    return [(d, p) for _s, d, p in scored[:k]]


def first256(engine: Engine, text: str, k: int = 100,
             scope: list[str] | None = None) -> list[tuple[str, int]]:
    """The eval README's "semantic first-256" design: one vector per page (its first
    embedding unit, i.e. its first 256 tokens) ranked by exhaustive cosine; ``[(doc,
    page)]`` best first, the first ``k``."""
    engine.refresh()
    docs_of: dict[int, list[str]] = {}
    for d in engine._docs:
        if d.reason is None and (scope is None or d.doc in scope):
            docs_of.setdefault(d.content_id, []).append(d.doc)
    sem_text = parse(keyword.clean_query(text)).semantic_text
    if not sem_text:
        return []
    ranked = engine.matrix().rank_pages(engine.embed_query(sem_text), set(docs_of), 1.0)
    return [(d, page) for cid, page in ranked.keys(k) for d in docs_of[cid]][:k]


def run(engine: Engine, queries: list[dict], modes: list[str], baseline: bool = True,
        k: int = 10, scope: list[str] | None = None) -> dict:
    """Score every mode on every query: ``{mode: {"classes": {cls: {metric: mean}},
    "all": {...}, "sections": {...}, "per_query": {id: {...}}}}``."""
    out: dict = {}
    systems = list(modes) + (["corpus_bm25", "semantic_first256", "rrf_alphabetical",
                              "rrf_bm25_first256"] if baseline else [])
    bm25 = CorpusBM25(engine) if baseline else None
    lists: dict[tuple[str, str], list] = {}   # (system, query id) -> hits, for the fused one
    evidence: dict[tuple[str, str], dict] = {}
    for mode in systems:
        per_q: dict[str, dict] = {}
        for q in queries:
            sec = q.get("granularity") == "section"
            if mode == "corpus_bm25":
                if sec:
                    continue
                hits = bm25.search(q["query"], k)
                lists[(mode, q["id"])] = bm25.search(q["query"], 100)
            elif mode == "rrf_alphabetical":
                if sec:
                    continue
                hits = rrf_alphabetical(engine, q["query"], k, scope)
            elif mode == "rrf_bm25_first256":
                if sec:
                    continue
                score: dict = {}
                for sys_ in ("corpus_bm25", "semantic_first256"):
                    for i, key in enumerate(lists.get((sys_, q["id"]), []), start=1):
                        score[key] = score.get(key, 0.0) + 1.0 / (60 + i)
                hits = sorted(score, key=lambda x: -score[x])[:k]
            elif mode == "semantic_first256":
                if sec:
                    continue
                lists[(mode, q["id"])] = first256(engine, q["query"], 100, scope)
                hits = lists[(mode, q["id"])][:k]
            else:
                res = engine.search(q["query"], mode=mode,
                                    granularity="section" if sec else "page", top_k=k,
                                    docs=scope)
                hits = section_hits(res) if sec else [(h.doc, h.page) for h in res.hits]
                evidence[(mode, q["id"])] = (res.coverage.evidence.to_json() if res.coverage.evidence else {})
            m = section_metrics(hits, q["sections"], k) if sec else \
                page_metrics(hits, q["labels"], k)
            m["class"] = q["class"]
            if (mode, q["id"]) in evidence:
                m["weak"] = float(res.weak)
            per_q[q["id"]] = m
        out[mode] = summarise(per_q)
        if mode in modes:
            out[mode]["evidence"] = {qid: evidence[(mode, qid)] for qid in per_q}
    return out


NONSENSE = HERE.parent / "tests" / "fixtures" / "nonsense_queries.txt"


def nonsense_queries(path: Path = NONSENSE, present: bool = False) -> list[str]:
    """The queries the corpus cannot answer (one per line; # comments), or with
    ``present`` those after the ``# == present ==`` line (found verbatim in the corpus)."""
    out: list[str] = []
    part = False
    for line in path.read_text().splitlines():
        if line.startswith("# == present =="):
            part = True
        elif line.strip() and not line.startswith("#") and part == present:
            out.append(line.strip())
    return out


def weak_calibration(engine: Engine, results: dict, modes: list[str],
                     scope: list[str] | None = None) -> dict:
    """Per mode: the share of the dev queries NOT called weak and the share of the
    nonsense queries called weak, with each query's evidence (for the threshold sweep):
    ``{mode: {"dev_not_weak", "nonsense_weak", "n_dev", "n_nonsense", "nonsense":
    {query: evidence}, "weak_nonsense": [...], "weak_dev": [...]}}``."""
    out = {}
    nonsense = nonsense_queries()
    present = nonsense_queries(present=True)
    for mode in modes:
        if mode not in results:
            continue
        per_q = results[mode]["per_query"]
        weak_dev = [qid for qid, m in per_q.items() if m.get("weak")]
        ns = {}
        for text in nonsense:
            res = engine.search(text, mode=mode, top_k=10, docs=scope)
            ns[text] = dict((res.coverage.evidence.to_json() if res.coverage.evidence else {}), weak=res.weak)
        out[mode] = {
            "dev_not_weak": round(1 - len(weak_dev) / max(1, len(per_q)), 4),
            "nonsense_weak": round(sum(v["weak"] for v in ns.values()) / max(1, len(ns)), 4),
            "n_dev": len(per_q), "n_nonsense": len(ns), "weak_dev": weak_dev,
            "strong_nonsense": [t for t, v in ns.items() if not v["weak"]], "nonsense": ns,
            "present": {t: engine.search(t, mode=mode, top_k=10, docs=scope).weak
                        for t in present}}
    return out


def print_weak(cal: dict) -> None:
    """One line per mode with both calibration figures."""
    for mode, c in cal.items():
        print(f"weak answers, {mode}: dev queries not weak {c['dev_not_weak']:.1%} "
              f"({c['n_dev'] - len(c['weak_dev'])}/{c['n_dev']}), nonsense called weak "
              f"{c['nonsense_weak']:.1%} ({c['n_nonsense'] - len(c['strong_nonsense'])}/"
              f"{c['n_nonsense']}); weak dev: {', '.join(c['weak_dev']) or '-'}; strong "
              f"nonsense: {'; '.join(c['strong_nonsense']) or '-'}; held verbatim by the "
              "corpus (not counted): " + ", ".join(f"{t!r} {'weak' if w else 'strong'}"
                                                   for t, w in c["present"].items()))


def simple_design_check(results: dict, system: str = "hybrid") -> list[str]:
    """Per class, ``system`` against the better of the two simple designs (corpus_bm25,
    semantic_first256) on doc NDCG, top-3 and page NDCG: one line per class, "ok" or the
    metrics where it falls short."""
    simple = [results[s]["classes"] for s in ("corpus_bm25", "semantic_first256")
              if s in results]
    if system not in results or not simple:
        return []
    lines = []
    for cls, m in results[system]["classes"].items():
        if "doc_ndcg" not in m:
            continue
        short = []
        for key in ("doc_ndcg", "top3", "page_ndcg"):
            best = max(c[cls][key] for c in simple if cls in c)
            if m[key] + 1e-9 < best:
                short.append(f"{key} {m[key]:.3f} < {best:.3f}")
        lines.append(f"{system} vs the better simple design (doc NDCG, top-3, page NDCG), "
                     f"{cls}: " + ("ok" if not short else "; ".join(short)))
    return lines


def run_scoped(engine: Engine, queries: list[dict], modes: list[str], k: int = 10) -> dict:
    """Single-document search: each query of the scoped set runs with ``docs`` set to its
    one document; ``{mode: {"all": {page_ndcg, mrr, n}, "per_query": {...}}}``."""
    out = {}
    for mode in modes:
        per_q = {}
        for q in queries:
            res = engine.search(q["query"], mode=mode, top_k=k, docs=[q["scope"]])
            m = page_metrics([(h.doc, h.page) for h in res.hits], q["labels"], k)
            per_q[q["id"]] = {"page_ndcg": m["page_ndcg"], "mrr": m["mrr"],
                              "class": q.get("class", "scoped")}
        n = len(per_q)
        out[mode] = {"all": {key: round(sum(m[key] for m in per_q.values()) / n, 4)
                             for key in ("page_ndcg", "mrr")} | {"n": n} if n else {},
                     "per_query": per_q}
    return out


def run_probes(engine: Engine, queries: list[dict], modes: list[str], k: int = 10) -> dict:
    """Section queries of our own, never tuned on (bench/section_probes.json,
    bench/section_paraphrases.json), whole corpus: ``{mode: {"all": {section_mrr,
    section_ndcg, n}, "per_query": {...}}}``, plus ``"half_a"`` / ``"half_b"`` the same
    means over the queries of each ``half`` when the queries name one."""
    out = {}
    for mode in modes:
        per_q = {}
        for q in queries:
            res = engine.search(q["query"], mode=mode, granularity="section", top_k=k)
            per_q[q["id"]] = section_metrics(section_hits(res), q["sections"], k)
        out[mode] = {"all": _section_means(per_q), "per_query": per_q}
        for half in sorted({q["half"] for q in queries if "half" in q}):
            ids = {q["id"] for q in queries if q.get("half") == half}
            out[mode][f"half_{half}"] = _section_means(
                {i: m for i, m in per_q.items() if i in ids})
    return out


def section_set(engine: Engine, path: str | Path, modes: list[str], name: str,
                what: str = "") -> dict | None:
    """:func:`run_probes` over the section queries of ``path`` (None when there is no such
    file), printed as one line per mode: section MRR@10 / NDCG@10, all, then each half."""
    if not Path(path).is_file():
        return None
    qs = json.loads(Path(path).read_text())["queries"]
    got = run_probes(engine, qs, modes)
    halves = sorted({q["half"] for q in qs if "half" in q})
    print(f"\n{name} ({len(qs)} queries of {Path(path).name}{': ' + what if what else ''}):"
          " section MRR@10 / NDCG@10, all" + "".join(f", half {h}" for h in halves))
    for mode, r in got.items():
        print(f"  {mode:<10}" + "".join(
            f"{r[part]['section_mrr']:>8.3f}{r[part]['section_ndcg']:>8.3f}  "
            for part in ["all"] + [f"half_{h}" for h in halves] if r.get(part)))
    return got


def lookup_score(m: dict) -> float:
    """One figure per lookup query: MRR@10 of its labelled section, or of its labelled
    page (a hit graded 2 or more)."""
    return m["section_mrr"] if "section_mrr" in m else m["mrr"]


def run_lookup(engine: Engine, queries: list[dict], modes: list[str], k: int = 10) -> dict:
    """The held-out lookup set (bench/lookup_queries.json: page and section queries
    mixed), whole corpus: ``{mode: {"all": {"mrr", "n"}, "classes": {class: means},
    "per_query": {id: metrics + "score"}}}``; "mrr" is :func:`lookup_score`'s mean."""
    out = {}
    for mode in modes:
        per_q = {}
        for q in queries:
            sec = q.get("granularity") == "section"
            res = engine.search(q["query"], mode=mode, top_k=k,
                                granularity="section" if sec else "page")
            m = (section_metrics(section_hits(res), q["sections"], k) if sec else
                 page_metrics([(h.doc, h.page) for h in res.hits], q["labels"], k))
            per_q[q["id"]] = m | {"class": q["class"], "score": lookup_score(m)}
        classes = {}
        for cls in sorted({m["class"] for m in per_q.values()}):
            ms = [m for m in per_q.values() if m["class"] == cls]
            classes[cls] = {key: round(sum(m[key] for m in ms) / len(ms), 4)
                            for key in ms[0] if key != "class"} | {"n": len(ms)}
        n = len(per_q)
        out[mode] = {"all": {"mrr": round(sum(m["score"] for m in per_q.values()) / n, 4)
                             if n else 0.0, "n": n},
                     "classes": classes, "per_query": per_q}
    return out


def print_lookup(got: dict, n: int) -> None:
    """The lookup set's line per mode: MRR@10 of all, then per class (fact and term:
    page MRR / doc NDCG; section: section MRR)."""
    print(f"\nlookup, held out ({n} queries of {DEFAULT_LOOKUP.name}: fact, term and section "
          "lookups, never tuned on): MRR@10 all | per class MRR (doc NDCG)")
    for mode, r in got.items():
        parts = [f"{cls} {m.get('mrr', m.get('section_mrr', 0)):.3f}"
                 + (f" ({m['doc_ndcg']:.3f})" if "doc_ndcg" in m else "")
                 for cls, m in r["classes"].items()]
        print(f"  {mode:<10}{r['all']['mrr']:>8.3f}  | " + "; ".join(parts))


def _section_means(per_q: dict[str, dict]) -> dict:
    """``{section_mrr, section_ndcg, n}`` means over section query metrics ({} if none)."""
    n = len(per_q)
    return {key: round(sum(m[key] for m in per_q.values()) / n, 4)
            for key in ("section_mrr", "section_ndcg")} | {"n": n} if n else {}


def goal_check(results: dict, scoped: dict | None, excerpt: dict | None) -> list[str]:
    """The issue-18 goals, one line each with "ok" or what falls short: hybrid within .01
    of the better of keyword and semantic on doc NDCG and top-3 in every class; page NDCG
    >= .68, doc NDCG >= .92, top-3 >= .95 overall; section MRR >= .90; scoped hybrid page
    NDCG >= the better arm; excerpt containment >= .97."""
    lines = []
    if all(m in results for m in ("hybrid", "keyword", "semantic")):
        h, kw, se = (results[m]["classes"] for m in ("hybrid", "keyword", "semantic"))
        for cls, m in h.items():
            for key in ("doc_ndcg", "top3", "page_ndcg", "section_mrr"):
                if key not in m:
                    continue
                best = max(kw[cls][key], se[cls][key])
                ok = m[key] + 0.01 + 1e-9 >= best
                lines.append(f"hybrid {cls} {key} {m[key]:.3f} vs better arm {best:.3f}: "
                             + ("ok" if ok else "SHORT"))
        a = results["hybrid"]["all"]
        for key, goal in (("doc_ndcg", 0.92), ("top3", 0.95), ("page_ndcg", 0.68)):
            lines.append(f"hybrid ALL {key} {a[key]:.3f} (goal {goal}): "
                         + ("ok" if a[key] >= goal else "SHORT"))
        sec = h.get("section", {}).get("section_mrr")
        if sec is not None:
            lines.append(f"hybrid section MRR@10 {sec:.3f} (goal 0.90): "
                         + ("ok" if sec >= 0.9 else "SHORT"))
    if scoped and all(m in scoped for m in ("hybrid", "keyword", "semantic")):
        h = scoped["hybrid"]["all"]["page_ndcg"]
        best = max(scoped[m]["all"]["page_ndcg"] for m in ("keyword", "semantic"))
        lines.append(f"scoped hybrid page NDCG {h:.3f} vs better arm {best:.3f}: "
                     + ("ok" if h + 1e-9 >= best else "SHORT"))
    if excerpt:
        c = excerpt["containment"]
        lines.append(f"excerpt containment {c:.3f} (goal 0.97): " + ("ok" if c >= 0.97
                                                                       else "SHORT"))
    return lines


def summarise(per_q: dict[str, dict]) -> dict:
    by_class: dict[str, list[dict]] = defaultdict(list)
    for m in per_q.values():
        by_class[m["class"]].append(m)
    mean = lambda ms, key: sum(m[key] for m in ms) / len(ms) if ms else 0.0  # noqa: E731
    classes = {}
    page_all = [m for m in per_q.values() if "page_ndcg" in m]
    for cls, ms in sorted(by_class.items()):
        keys = [x for x in ms[0] if x != "class"]
        classes[cls] = {key: round(mean(ms, key), 4) for key in keys} | {"n": len(ms)}
    allm = {key: round(mean(page_all, key), 4) for key in
            ("doc_ndcg", "top3", "page_ndcg", "mrr")} | {"n": len(page_all)}
    return {"classes": classes, "all": allm, "per_query": per_q}


def print_table(results: dict) -> None:
    print(f"{'system':<19}{'class':<11}{'n':>3}  {'docNDCG':>8}{'top3':>7}{'pageNDCG':>9}"
          f"{'MRR':>7}   {'secMRR':>7}{'secNDCG':>8}")
    for mode, r in results.items():
        for cls, m in list(r["classes"].items()) + [("ALL pages", r["all"])]:
            if "section_mrr" in m:
                print(f"{mode:<19}{cls:<11}{m['n']:>3}  {'':>8}{'':>7}{'':>9}{'':>7}   "
                      f"{m['section_mrr']:>7.3f}{m['section_ndcg']:>8.3f}")
            else:
                print(f"{mode:<19}{cls:<11}{m['n']:>3}  {m['doc_ndcg']:>8.3f}{m['top3']:>7.3f}"
                      f"{m['page_ndcg']:>9.3f}{m['mrr']:>7.3f}")
        print()
    for name, (a, b, c) in BASELINES.items():
        print(f"{name}: doc NDCG {a:.3f}  top3 {b:.3f}  page NDCG {c:.3f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=None, help="corpus folder (default: from queries.json)")
    ap.add_argument("--queries", default=str(DEFAULT_QUERIES),
                    help="graded queries (default: ../shared/eval/queries.json)")
    ap.add_argument("--cache-dir", default=None,
                    help="the cache that holds the indexed corpus (default: pdftui's)")
    ap.add_argument("--modes", default="keyword,semantic,hybrid",
                    help="modes to score, comma-separated")
    ap.add_argument("--classes", default=None, help="only these classes (comma-separated)")
    ap.add_argument("--json", dest="json_path", default=None, help="write the results here")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip the simple designs of the eval README")
    ap.add_argument("--embedded-only", action="store_true",
                    help="while indexing: only fully embedded documents and their queries")
    ap.add_argument("--per-query", action="store_true", help="print each query's metrics")
    ap.add_argument("--scoped", default=str(DEFAULT_SCOPED),
                    help="single-document graded queries (default: bench/scoped_queries.json)")
    ap.add_argument("--probes", default=str(DEFAULT_PROBES),
                    help="section probe queries (default: bench/section_probes.json)")
    ap.add_argument("--paraphrases", default=str(DEFAULT_PARAPHRASES),
                    help="section queries in the reader's own words (default: "
                         "bench/section_paraphrases.json)")
    ap.add_argument("--paraphrases-2", dest="paraphrases_2", default=str(DEFAULT_PARAPHRASES_2),
                    help="more of them, reported apart: halves c / d (the first set's style), "
                         "e / f (plain words), g / h (naming the document) (default: "
                         "bench/section_paraphrases_2.json)")
    ap.add_argument("--paraphrases-3", dest="paraphrases_3", default=str(DEFAULT_PARAPHRASES_3),
                    help="a third set, held out: never tuned on, halves i / j (default: "
                         "bench/section_paraphrases_3.json)")
    ap.add_argument("--answers", default=str(excerpt_bench.DEFAULT_ANSWERS),
                    help="excerpt answer substrings (default: bench/excerpt_answers.json)")
    ap.add_argument("--heldout-answers", dest="heldout_answers", action="append",
                    default=None, help="held-out excerpt answer sets, a line each (default: "
                    "bench/excerpt_answers_heldout.json, bench/excerpt_answers_heldout_2.json)")
    ap.add_argument("--no-extras", action="store_true",
                    help="skip the scoped set, the section probes and the excerpt containment")
    ap.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                    help="set any RankingConfig setting by its dotted path (repeatable), "
                    "e.g. --set semantic.weight=1.5")
    args = ap.parse_args(argv)

    if not Path(args.queries).is_file():
        print(f"quality.py: no queries file at {args.queries}; pass --queries "
              "PATH/TO/shared/eval/queries.json (and --corpus if it is not beside it)",
              file=sys.stderr)
        return 2
    data = json.loads(Path(args.queries).read_text())
    corpus = args.corpus or str(Path(args.queries).resolve().parents[1] / data["corpus"])
    queries = data["queries"]
    if args.classes:
        wanted = set(args.classes.split(","))
        queries = [q for q in queries if q["class"] in wanted]
    opts = options(args.set)
    engine = Engine(corpus, args.cache_dir, config=opts)
    scope = None
    if args.embedded_only:
        engine.refresh()
        cov = engine.coverage(engine._docs, True)
        pending = set(cov.embedding)
        scope = [d.doc for d in engine._docs if d.reason is None and d.doc not in pending]
        ok = set(scope)
        queries = [q for q in queries if all(d in ok for d in (
            q.get("labels") or {s["doc"]: 1 for s in q.get("sections", [])}))]
        print(f"embedded-only: {len(scope)} documents, {len(queries)} queries")
    t0 = time.perf_counter()
    results = run(engine, queries, args.modes.split(","), not args.no_baseline, scope=scope)
    print_table(results)
    for line in simple_design_check(results):
        print(line)
    cal = weak_calibration(engine, results, [m for m in args.modes.split(",")
                                             if m in ("keyword", "semantic", "hybrid")], scope)
    print_weak(cal)
    scoped = excerpts = probes = paraphrases = paraphrases_2 = paraphrases_3 = None
    excerpts_heldout = short = titled = named = heldout = heldout_2 = lookup = None
    heldout_3 = short_sections = None
    if not args.no_extras and not args.classes:
        pq = json.loads(Path(args.probes).read_text())["queries"]
        probes = run_probes(engine, pq, args.modes.split(","))
        print(f"\nsection probes ({len(pq)} queries of {Path(args.probes).name}, never tuned "
              "on): section MRR@10 / NDCG@10")
        for mode, r in probes.items():
            print(f"  {mode:<10}{r['all']['section_mrr']:>8.3f}{r['all']['section_ndcg']:>8.3f}")
        modes = args.modes.split(",")
        paraphrases = section_set(engine, args.paraphrases, modes, "section paraphrases",
                                  "a section in the reader's words, no title word")
        paraphrases_2 = section_set(engine, args.paraphrases_2, modes,
                                    "section paraphrases, second set")
        paraphrases_3 = section_set(engine, args.paraphrases_3, modes,
                                    "section paraphrases, third set, held out")
        titled = section_set(engine, DEFAULT_TITLED, modes, "section titled",
                             "what a section's title states, in other forms of its words;"
                             " half a made from, half b held out")
        named = section_set(engine, DEFAULT_NAMED, modes, "section named, held out",
                            "the paper named by a word of its title, the section in other"
                            " words")
        heldout = section_set(engine, DEFAULT_HELDOUT, modes, "section held out",
                              "written from 16 PDFs before any ranking was run; never tuned"
                              " on")
        heldout_2 = section_set(engine, DEFAULT_HELDOUT_2, modes, "section held out, second set",
                                "written from 9 PDFs no other set uses, before any ranking was"
                                " run on them; never tuned on")
        heldout_3 = section_set(engine, DEFAULT_HELDOUT_3, modes, "section held out, third set",
                                "reader / parent / child, written from 13 PDFs (8 no other set"
                                " labels) before any ranking was run on them; never tuned on")
        short_sections = section_set(engine, DEFAULT_SHORT_SECTIONS, modes,
                                     "short section lookups, held out",
                                     "two or three words, written from 14+ PDFs' outlines"
                                     " before any ranking was run on them; never tuned on")
        lq = json.loads(DEFAULT_LOOKUP.read_text())["queries"]
        lookup = run_lookup(engine, lq, modes)
        print_lookup(lookup, len(lq))
        sq = json.loads(Path(args.scoped).read_text())["queries"]
        scoped = run_scoped(engine, sq, args.modes.split(","))
        print(f"\nsingle-document search ({len(sq)} queries of {Path(args.scoped).name}, "
              "scope = the query's document): page NDCG@10 / MRR@10")
        for mode, r in scoped.items():
            print(f"  {mode:<10}{r['all']['page_ndcg']:>8.3f}{r['all']['mrr']:>8.3f}")
        shq = json.loads(short_bench.DEFAULT.read_text())["queries"]
        short = short_bench.run(engine, shq, args.modes.split(","))
        print(f"\nshort term queries ({len(shq)} of {short_bench.DEFAULT.name}): MRR@10 / "
              "top-3 document, all, half a, half b")
        for mode, r in short.items():
            print(f"  {mode:<10}" + "".join(f"{r[p]['mrr']:>8.3f}{r[p]['top3']:>7.3f}  "
                                             for p in ("all", "half_a", "half_b")))
        answers, by_id = excerpt_bench.load(args.answers, args.queries)
        excerpts = excerpt_bench.run(engine, answers, by_id, "hybrid")
        print()
        excerpt_bench.print_table(excerpts, "hybrid")
        excerpts_heldout = {}
        for path in args.heldout_answers or excerpt_bench.HELDOUT_ANSWERS:
            held, by_id = excerpt_bench.load(path, args.queries)
            r = excerpt_bench.run(engine, held, by_id, "hybrid")
            excerpts_heldout[Path(path).name] = {k: r[k] for k in
                                                 ("containment", "contained", "n")}
            print(f"excerpt containment, held out ({Path(path).name}, hybrid): "
                  f"{r['contained']}/{r['n']} = {r['containment']:.3f}")
    print()
    for line in goal_check(results, scoped, excerpts):
        print(line)
    changed = changed_options(opts)
    print(f"{len(queries)} queries of {args.queries}: the development set these settings "
          f"were tuned on; options: {changed or 'defaults'} ({time.perf_counter() - t0:.1f} s)")
    if args.per_query:
        for mode, r in results.items():
            for qid, m in r["per_query"].items():
                print(mode, qid, {k: round(v, 3) for k, v in m.items() if k != "class"})
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(
            {"options": opts.flat(), "results": results, "scoped": scoped,
             "probes": probes, "paraphrases": paraphrases,
             "paraphrases_2": paraphrases_2, "paraphrases_3": paraphrases_3, "titled": titled,
             "named": named, "heldout": heldout, "heldout_2": heldout_2, "heldout_3": heldout_3, "short_sections": short_sections, "lookup": lookup, "excerpt": excerpts, "excerpt_heldout": excerpts_heldout, "short": short,
             "goals": goal_check(results, scoped, excerpts), "weak": cal},
            indent=1, ensure_ascii=False))
    engine.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
