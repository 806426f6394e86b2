"""Search quality while embedding is still running (a first index of a large folder).

Usage::

    python bench/partial.py --cache-dir /work/caches/corpus-v19 [--shares 0.15,0.5,0.85]
        [--work /tmp/partial] [--modes keyword,hybrid] [--set FIELD=VALUE ...] [--json F]

An index embeds documents one after the other, so for a while only some of them have
vectors. This copies an indexed cache once per share, keeps the vectors of that share of
the documents (chosen by a hash of the file name, the same for every run) and drops the
others' (``Cache.drop_embeddings``: the state of a document not embedded yet), then scores
every mode on the development queries (``bench/quality.py``'s metrics) over the
whole folder, as a user searching during the index would. It prints doc NDCG@10 / top-3 /
page NDCG@10 / MRR@10 (page queries) and section MRR@10 per share and mode, and hybrid against keyword per share.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import quality  # noqa: E402  (bench/quality.py)
from pdftui.store.database import Cache  # noqa: E402
from options import options  # noqa: E402  (bench/options.py)
from pdftui.search.engine import Engine  # noqa: E402


def embedded_docs(docs: list[str], share: float) -> set[str]:
    """The ``share`` (0..1) of ``docs`` that keep their vectors: the first by sha1 of the
    file name, so every run and every share picks nested sets."""
    order = sorted(docs, key=lambda d: hashlib.sha1(d.encode()).hexdigest())
    return set(order[: round(share * len(order))])


def partial_cache(src: Path, dst: Path, corpus: str, share: float) -> tuple[int, int]:
    """Copy the cache at ``src`` to ``dst`` (once) and drop the vectors of the documents
    outside ``embedded_docs``; ``(embedded, total)`` documents."""
    if not (dst / "done").is_file():
        if dst.exists():
            shutil.rmtree(dst)
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*-wal", "*-shm"))
        eng = Engine(corpus, dst)
        eng.refresh()
        docs = [d for d in eng._docs if d.reason is None]
        keep = embedded_docs([d.doc for d in docs], share)
        cache = Cache(dst)
        for d in docs:
            if d.doc not in keep:
                cache.drop_embeddings(d.content_id, eng.model_id)
        cache.close()
        eng.close()
        (dst / "done").write_text(f"{len(keep)} {len(docs)}\n")
    a, b = (dst / "done").read_text().split()
    return int(a), int(b)


def sec_mrr(result: dict) -> float:
    """Section MRR@10 of one mode's ``quality.run`` result (0 without section queries)."""
    return result["classes"].get("section", {}).get("section_mrr", 0.0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache-dir", required=True, help="an indexed, fully embedded cache")
    ap.add_argument("--queries", default=str(quality.DEFAULT_QUERIES))
    ap.add_argument("--corpus", default=None)
    ap.add_argument("--shares", default="0.15,0.5,0.85")
    ap.add_argument("--work", default="/tmp/pdftui-partial")
    ap.add_argument("--modes", default="keyword,hybrid")
    ap.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE")
    ap.add_argument("--json", dest="json_path", default=None)
    args = ap.parse_args(argv)
    data = json.loads(Path(args.queries).read_text())
    corpus = args.corpus or str(Path(args.queries).resolve().parents[1] / data["corpus"])
    queries = data["queries"]
    opts = options(args.set)
    modes = args.modes.split(",")
    out: dict = {}
    print(f"{'share':>6} {'embedded':>9}  {'mode':<9}{'docNDCG':>8}{'top3':>7}{'pageNDCG':>9}"
          f"{'MRR':>7}{'secMRR':>8}")
    for share in [float(s) for s in args.shares.split(",")]:
        dst = Path(args.work) / f"share-{share:.2f}"
        n_emb, n = partial_cache(Path(args.cache_dir), dst, corpus, share)
        eng = Engine(corpus, dst, config=opts)
        t0 = time.perf_counter()
        res = quality.run(eng, queries, modes, baseline=False)
        eng.close()
        out[f"{share:.2f}"] = {"embedded": n_emb, "documents": n,
                               "seconds": round(time.perf_counter() - t0, 1),
                               **{m: res[m]["all"] | {"section_mrr": sec_mrr(res[m])}
                                  for m in modes}}
        for m in modes:
            a = res[m]["all"]
            print(f"{share:>6.2f} {n_emb:>4}/{n:<4}  {m:<9}{a['doc_ndcg']:>8.3f}"
                  f"{a['top3']:>7.3f}{a['page_ndcg']:>9.3f}{a['mrr']:>7.3f}"
                  f"{sec_mrr(res[m]):>8.3f}")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
