"""Re-embed an indexed cache with another unit plan, for bench/quality.py to compare plans.

    python bench/replan.py --cache-dir COPY --plan 4 [FOLDER] [--json PATH]

COPY is a copy of an indexed cache of FOLDER (default ../shared/corpus): the plan is part of
the embeddings' identity, so every content is embedded again with it (int8 model, the
product's pipeline otherwise). Prints units, tokens (special tokens included), wall and CPU
seconds (this process and its workers) and tokens per CPU-second.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def _cpu_s() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    from pdftui.embed import units
    from pdftui.index import index_folder
    from pdftui.index.embedding import EmbedPipeline

    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", nargs="?", default=str(REPO.parent / "shared" / "corpus"))
    ap.add_argument("--cache-dir", required=True)
    ap.add_argument("--plan", type=int, required=True, help="unit plan number (units.PLAN_N)")
    ap.add_argument("--nice", type=int, default=10,
                    help="the embedding thread's nice increment (the product's 10; 0 competes"
                         " evenly with other processes on a shared machine)")
    ap.add_argument("--json", dest="json_path", default=None)
    args = ap.parse_args()
    plan = getattr(units, f"PLAN_{args.plan}")
    t0, c0 = time.monotonic(), _cpu_s()
    s = index_folder(Path(args.folder), Path(args.cache_dir),
                     pipeline=EmbedPipeline(int8=True, plan=plan, nice=args.nice))
    row = {"plan": args.plan, "units": s.units, "tokens": s.tokens_embedded,
           "wall_s": round(time.monotonic() - t0, 1), "cpu_s": round(_cpu_s() - c0, 1),
           "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}
    row["tokens_per_cpu_s"] = round(row["tokens"] / max(row["cpu_s"], 1e-9))
    print(json.dumps(row))
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(row, indent=2) + "\n")


if __name__ == "__main__":
    main()
