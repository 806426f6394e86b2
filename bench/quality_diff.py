"""bench/quality.py runs side by side: the headline figures, their change from the first
run, whether each candidate holds the rule for a cheaper embedding to become the default,
and paired per-query deltas with a bootstrap interval.

    python bench/quality_diff.py BASE.json CANDIDATE.json [...] [--names a,b,..]
                                 [--tolerance 0.005] [--json PATH]

Each file is ``bench/quality.py --json`` of one cache, run with the same code (one sitting).
Headline figures, per mode (hybrid, semantic, keyword; those every run has): doc NDCG@10, top-3, page NDCG@10
and MRR@10 over every page query ("ALL"), section MRR@10 over the section queries, and
page NDCG@10 / MRR@10 over the scoped set; section MRR@10 of the section probes, the
paraphrase, titled, named and held-out section sets; short MRR@10; lookup MRR@10; excerpt
containment (hybrid). The rule: no headline figure falls by more than ``--tolerance``
(0.005) from the base; a rise always holds.

Per figure and candidate it also prints the mean per-query delta (the same as the change
of the mean), a 95 % bootstrap interval of that mean (4,000 resamples of the queries, a
fixed seed), and how many queries rose and fell: a change whose interval spans zero is
within what the query set can resolve.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

MODES = ("hybrid", "semantic", "keyword")
PAGE_KEYS = ("doc_ndcg", "top3", "page_ndcg", "mrr")
RESAMPLES = 4000


def headline(run: dict) -> dict[str, tuple[float, dict[str, float]]]:
    """``{figure: (value, {query id: that query's value})}`` of one quality.py run (the
    excerpt containment has no per-query values: an empty dict)."""
    out: dict[str, tuple[float, dict[str, float]]] = {}
    for mode in MODES:
        if mode not in run["results"]:   # a run of fewer modes (--modes semantic,hybrid)
            continue
        res = run["results"][mode]
        page_q = {q: m for q, m in res["per_query"].items() if "page_ndcg" in m}
        for key in PAGE_KEYS:
            out[f"{mode} ALL {key}"] = (res["all"][key], {q: m[key] for q, m in page_q.items()})
        sec_q = {q: m["section_mrr"] for q, m in res["per_query"].items()
                 if "section_mrr" in m}
        out[f"{mode} section MRR"] = (res["classes"]["section"]["section_mrr"], sec_q)
        scoped = run["scoped"][mode]
        for key in ("page_ndcg", "mrr"):
            out[f"{mode} scoped {key}"] = (scoped["all"][key], {
                q: m[key] for q, m in scoped["per_query"].items()})
        probes = run["probes"][mode]
        out[f"{mode} probes section MRR"] = (probes["all"]["section_mrr"], {
            q: m["section_mrr"] for q, m in probes.get("per_query", {}).items()})
        for name in ("paraphrases", "paraphrases_2"):   # runs before they existed lack them
            par = (run.get(name) or {}).get(mode)
            if not par:
                continue
            per = par.get("per_query", {})
            for part in sorted(k for k in par if k == "all" or k.startswith("half_")):
                half = part[len("half_"):]
                ids = {q for q in per if part == "all" or _half_of(run, name, q) == half}
                out[f"{mode} {name} {part} MRR"] = (par[part]["section_mrr"], {
                    q: m["section_mrr"] for q, m in per.items() if q in ids})
        for name in ("paraphrases_3", "titled", "named", "heldout", "heldout_2",
                     "heldout_3", "short_sections"):
            got = (run.get(name) or {}).get(mode)
            if got:
                out[f"{mode} {name} MRR"] = (got["all"]["section_mrr"], {
                    q: m["section_mrr"] for q, m in got.get("per_query", {}).items()})
        got = (run.get("short") or {}).get(mode)
        if got:
            out[f"{mode} short MRR"] = (got["all"]["mrr"], {
                q: m["mrr"] for q, m in got.get("per_query", {}).items()})
        got = (run.get("lookup") or {}).get(mode)
        if got:
            out[f"{mode} lookup MRR"] = (got["all"]["mrr"], {
                q: m["score"] for q, m in got["per_query"].items()})
    out["excerpt containment"] = (run["excerpt"]["containment"], {})
    return out


_HALVES: dict[str, dict[str, str]] = {}


def _half_of(run: dict, name: str, qid: str) -> str | None:
    """The half (``"a"``, ``"c"`` ...) of paraphrase query ``qid``, read from the bench's
    query file (``paraphrases`` -> section_paraphrases.json, ``paraphrases_2`` ->
    section_paraphrases_2.json)."""
    if name not in _HALVES:
        path = Path(__file__).with_name("section_paraphrases.json" if name == "paraphrases"
                                        else "section_paraphrases_2.json")
        _HALVES[name] = {q["id"]: q.get("half") for q in json.loads(path.read_text())[
            "queries"]} if path.is_file() else {}
    return _HALVES[name].get(qid)


def paired(base: dict[str, float], cand: dict[str, float]) -> dict | None:
    """Mean per-query delta, its 95 % bootstrap interval, queries up / down; None without
    per-query values."""
    qs = sorted(set(base) & set(cand))
    if not qs:
        return None
    d = [cand[q] - base[q] for q in qs]
    rnd = random.Random(1)
    n = len(d)
    means = sorted(sum(rnd.choice(d) for _ in range(n)) / n for _ in range(RESAMPLES))
    lo, hi = means[int(0.025 * RESAMPLES)], means[int(0.975 * RESAMPLES) - 1]
    return {"n": n, "delta": round(sum(d) / n, 4), "ci95": [round(lo, 4), round(hi, 4)],
            "up": sum(x > 1e-9 for x in d), "down": sum(x < -1e-9 for x in d)}


def compare(runs: dict[str, dict], tolerance: float) -> dict:
    """Every candidate against the first run: figures, changes, rule verdict, paired
    statistics."""
    names = list(runs)
    heads = {n: headline(r) for n, r in runs.items()}
    # the figures every run has (a mode one of them did not run is left out)
    base = {f: v for f, v in heads[names[0]].items() if all(f in heads[n] for n in names)}
    table: dict[str, dict] = {}
    for fig, (b, b_q) in base.items():
        row: dict = {names[0]: round(b, 4)}
        for n in names[1:]:
            v, q = heads[n][fig]
            row[n] = round(v, 4)
            row[f"{n} change"] = round(v - b, 4)
            row[f"{n} paired"] = paired(b_q, q)
        table[fig] = row
    verdict = {n: [f for f in table if table[f][f"{n} change"] < -tolerance]
               for n in names[1:]}
    return {"base": names[0], "tolerance": tolerance, "figures": table,
            "fails": verdict, "holds": {n: not v for n, v in verdict.items()}}


def print_report(rep: dict, names: list[str]) -> None:
    """The figures table, then the paired statistics of each candidate."""
    width = max(18, *(len(n) + 2 for n in names))
    print(f"{'figure':<28}{names[0]:>8}" + "".join(f"{n:>{width}}" for n in names[1:]))
    for fig, row in rep["figures"].items():
        cells = f"{row[names[0]]:>8.4f}"
        for n in names[1:]:
            mark = "!" if row[f"{n} change"] < -rep["tolerance"] else " "
            cells += f"{row[n]:.4f} {row[f'{n} change']:+.4f}{mark}".rjust(width)
        print(f"{fig:<28}{cells}")
    print("(value, change from the first; ! falls by more than the tolerance)")
    for n in names[1:]:
        fails = rep["fails"][n]
        print(f"\n{n} vs {names[0]}: " + ("holds every headline figure within "
              f"{rep['tolerance']}" if not fails else f"falls by more than {rep['tolerance']}"
              f" on {len(fails)}: {', '.join(fails)}"))
        for fig, row in rep["figures"].items():
            p = row[f"{n} paired"]
            if p and row[f"{n} change"] != 0:
                print(f"  {fig:<28} n={p['n']:<3} {p['delta']:+.4f}  95% [{p['ci95'][0]:+.4f},"
                      f" {p['ci95'][1]:+.4f}]  up {p['up']:>2} down {p['down']:>2}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", help="bench/quality.py --json files; the first is the base")
    ap.add_argument("--names", default=None, help="comma-separated names (default: file stems)")
    ap.add_argument("--tolerance", type=float, default=0.005)
    ap.add_argument("--json", dest="json_path", default=None)
    args = ap.parse_args(argv)
    if len(args.runs) < 2:
        print("quality_diff.py: give a base run and at least one candidate", file=sys.stderr)
        return 2
    names = args.names.split(",") if args.names else [Path(p).stem for p in args.runs]
    runs = {n: json.loads(Path(p).read_text()) for n, p in zip(names, args.runs)}
    rep = compare(runs, args.tolerance)
    print_report(rep, names)
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(rep, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
