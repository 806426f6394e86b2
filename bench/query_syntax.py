"""The query syntax end to end, through the CLI, on the whole corpus (issue 13's "done when").

Usage::

    python bench/query_syntax.py --cache-dir DIR [--corpus DIR] [--json PATH]

The corpus must already be indexed and embedded into the cache (``pdftui index``). It runs
``pdftui search FOLDER - --json`` (one process per mode and granularity, the queries on
stdin) and checks, on every hit of every mode (keyword, semantic, hybrid) and granularity
(page, section):

- phrases: each hit holds the phrase (a page's text; a section's title or own text) and,
  when its body holds it, the excerpt shows it;
- exclusions: no hit holds the excluded word or phrase, the coverage says so, and the same
  query without the exclusion does list hits holding it (the check could fail);
- fields and identifiers: ``author:vaswani`` and ``title:simple`` put the authored /
  titled paper first, ``1706.03762`` puts both Attention papers first;
- typos: ``dropuot rate`` suggests ``dropout``;
- weak answers: nonsense is called weak, real questions are not.

"Holds" is judged by SQLite: an FTS5 phrase query with the index's tokenizer against an
in-memory table holding that one text, not by the search code. Prints one line per check
and a summary; exits 1 when a check fails.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.harness import holds  # noqa: E402
from pdftui.library import Library  # noqa: E402
from pdftui.search.query import phrase_regex  # noqa: E402

HERE = Path(__file__).resolve().parent
PDFTUI = Path(sys.executable).with_name("pdftui")
V5 = "arxiv-1706.03762v5-attention-is-all-you-need.pdf"
V7 = "arxiv-1706.03762v7-attention-is-all-you-need.pdf"
PAXOS = "lamport-2001-paxos-made-simple.pdf"

PHRASES = ["scaled dot-product attention", "multi-head attention", "chunk server",
           "dropout rate", "gradient descent"]
EXCLUSIONS = [("attention -transformer", "transformer"),
              ('attention -"multi-head"', "multi-head"),
              ("vaswani attention -transformer", "transformer"),
              ("speaker verification -ecapa", "ecapa"),
              ("chunk replication -gfs", "gfs"),
              ("consensus leader election -paxos", "paxos"),
              ("language model pretraining -bert", "bert"),
              ("residual learning -imagenet", "imagenet"),
              ('attention -"scaled dot-product"', "scaled dot-product"),
              ("regularization -dropout*", "dropout*")]
NONSENSE = ["lorem ipsum dolor sit amet", "qwxz plorf vrenk", "best way to cook pasta carbonara",
            "how do I fix a flat bicycle tyre", "zzzz yyyy xxxx"]
REAL = ["what dropout rate did the base model use", "how does GFS handle chunk server failure",
        "speaker verification with channel attention", "how does Raft elect a leader",
        "scaled dot-product attention"]
MODES = ("keyword", "semantic", "hybrid")
GRANULARITIES = ("page", "section")


def hit_text(lib: Library, hit: dict) -> tuple[str, str]:
    """``(title, body)`` of a hit: "" and its page's text, or a section's title and own
    text (before its first subsection: what its excerpt comes from)."""
    if hit.get("section_id") is None:
        return "", lib.page(hit["doc"], hit["page"]).text
    title, text, own = lib.db.execute("SELECT title, text, own_chars FROM sections"
                                      " WHERE id=?", (hit["section_id"],)).fetchone()
    return title, text if own < 0 else text[:own]


def run_cli(corpus: str, cache: str, mode: str, granularity: str, queries: list[str],
            top_k: int) -> dict[str, dict]:
    """``{query: its --json result}`` from one ``pdftui search FOLDER -`` process."""
    cmd = [str(PDFTUI), "search", corpus, "-", "--json", "--cache-dir", cache,
           "--mode", mode, "--granularity", granularity, "--top-k", str(top_k)]
    out = subprocess.run(cmd, input="\n".join(queries) + "\n", capture_output=True,
                         text=True, check=True).stdout
    got = [json.loads(ln) for ln in out.splitlines() if ln.strip()]
    return {q: r for q, r in zip(queries, got)}


def check_phrases(lib, res, checks) -> None:
    for phrase in PHRASES:
        r = res[f'"{phrase}"']
        rx = re.compile(phrase_regex(phrase), re.IGNORECASE)
        bad = [h for h in r["hits"] if not holds(" ".join(hit_text(lib, h)), phrase)]
        miss = [h for h in r["hits"] if rx.search(hit_text(lib, h)[1])
                and not rx.search(h["excerpt"])]
        checks.append((f'"{phrase}": hits hold it, excerpts show it',
                       f"{len(r['hits'])} hits, {len(bad)} without, {len(miss)} excerpts miss",
                       bool(r["hits"]) and not bad and not miss))


def check_exclusions(lib, res, checks) -> None:
    for query, what in EXCLUSIONS:
        r, plain = res[query], res[query.rsplit(" -", 1)[0]]
        leak = [h for h in r["hits"] if holds(" ".join(hit_text(lib, h)), what)]
        before = sum(holds(" ".join(hit_text(lib, h)), what) for h in plain["hits"])
        said = "excluded" in r["coverage"] and "excluded" in r["coverage"].get("note", "")
        checks.append((f"{query}: no hit holds {what}",
                       f"{len(r['hits'])} hits, {len(leak)} leak; {before} of "
                       f"{len(plain['hits'])} without the exclusion hold it",
                       bool(r["hits"]) and not leak and said))


def check_rest(res, mode, checks) -> None:
    """Fields, identifiers, typos and weak answers (page search)."""
    first = lambda q: [h["doc"] for h in res[q]["hits"]]  # noqa: E731
    docs = first("author:vaswani")
    checks.append(("author:vaswani first: an Attention paper", str(docs[:2]),
                   bool(docs) and docs[0] in (V5, V7)))
    docs = first("title:simple")
    checks.append(("title:simple first: Paxos Made Simple", str(docs[:1]),
                   bool(docs) and docs[0] == PAXOS))
    if mode != "semantic":
        docs = list(dict.fromkeys(first("1706.03762")))
        checks.append(("1706.03762: both Attention papers first", str(docs[:3]),
                       set(docs[:2]) == {V5, V7}))
        sugg = res["dropuot rate"].get("suggestions", {}).get("dropuot", [])
        checks.append(("dropuot rate suggests dropout", str(sugg[:3]),
                       bool(sugg) and sugg[0] == "dropout"))
    weak = [q for q in NONSENSE if res[q]["weak"]]
    checks.append(("nonsense is weak", f"{len(weak)}/{len(NONSENSE)}",
                   len(weak) == len(NONSENSE)))
    strong = [q for q in REAL if not res[q]["weak"]]
    checks.append(("real questions are not weak", f"{len(strong)}/{len(REAL)}",
                   len(strong) == len(REAL)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=str(HERE.parents[1] / "shared" / "corpus"))
    ap.add_argument("--cache-dir", required=True)
    ap.add_argument("--top-k", type=int, default=50)
    ap.add_argument("--json", dest="json_path", default=None)
    args = ap.parse_args()
    queries = ([f'"{p}"' for p in PHRASES] + [q for q, _ in EXCLUSIONS]
               + [q.rsplit(" -", 1)[0] for q, _ in EXCLUSIONS]
               + ["author:vaswani", "title:simple", "1706.03762", "dropuot rate"]
               + NONSENSE + REAL)
    queries = list(dict.fromkeys(queries))
    lib = Library(args.corpus, args.cache_dir)
    report = []
    t0 = time.perf_counter()
    for mode in MODES:
        for gran in GRANULARITIES:
            res = run_cli(args.corpus, args.cache_dir, mode, gran, queries, args.top_k)
            checks: list[tuple[str, str, bool]] = []
            check_phrases(lib, res, checks)
            check_exclusions(lib, res, checks)
            if gran == "page":
                check_rest(res, mode, checks)
            for name, got, ok in checks:
                print(f"{mode:<9}{gran:<8}{'ok  ' if ok else 'FAIL'} {name}: {got}")
                report.append({"mode": mode, "granularity": gran, "check": name,
                               "got": got, "ok": ok})
    lib.close()
    failed = [c for c in report if not c["ok"]]
    print(f"\n{len(report) - len(failed)}/{len(report)} checks ok "
          f"({time.perf_counter() - t0:.0f} s, top-k {args.top_k})")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps({"checks": report}, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
