"""The query path's cost, old tree against new, in one interleaved run.

    python bench/query_cost.py --old-tree DIR --old-cache CACHE --new-cache CACHE
        [--rounds 5] [--repeat 2] [--modes hybrid] [--json OUT]

Each round runs ``bench/speed.py`` (warm search latency over the eval queries) once with
the old tree's code on its own cache (a cache the old code built: the layouts differ),
then once with this tree's code on its cache, in alternation, so both see the same
machine load. Per mode it prints the p50 of each round, the median of the rounds' p50s
per tree and their ratio (new / old); ``--json`` writes the same. Each tree's own
``bench/speed.py`` is run, with ``PYTHONPATH`` set to that tree.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def one_run(tree: Path, cache: str, modes: str, repeat: int) -> dict:
    """``bench/speed.py``'s summary (its ``--json``) for ``tree``'s code on ``cache``.

    Raises ``subprocess.CalledProcessError`` when the run fails."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        subprocess.run([sys.executable, str(tree / "bench" / "speed.py"), "--cache-dir",
                        cache, "--modes", modes, "--repeat", str(repeat), "--json",
                        out.name], env=env, check=True, stdout=subprocess.DEVNULL,
                       cwd=tree)
        return json.loads(Path(out.name).read_text())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old-tree", required=True)
    ap.add_argument("--old-cache", required=True)
    ap.add_argument("--new-cache", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--modes", default="hybrid")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    trees = {"old": (Path(args.old_tree).resolve(), args.old_cache),
             "new": (REPO, args.new_cache)}
    modes = args.modes.split(",")
    p50: dict[str, dict[str, list[float]]] = {t: {m: [] for m in modes} for t in trees}
    load = []
    for r in range(args.rounds):
        for name, (tree, cache) in trees.items():
            summary = one_run(tree, cache, args.modes, args.repeat)
            for m in modes:
                p50[name][m].append(summary["modes"][m]["p50"])
        load.append(os.getloadavg()[0])
        print(f"round {r + 1}: " + "  ".join(
            f"{m} old {p50['old'][m][-1]:.1f} new {p50['new'][m][-1]:.1f} ms" for m in modes)
            + f"  (load {load[-1]:.1f})", flush=True)
    out = {"old_tree": str(trees["old"][0]), "rounds": args.rounds, "repeat": args.repeat,
           "load_1min": load, "p50_ms": p50, "modes": {}}
    print(f"{'mode':<10}{'old p50':>10}{'new p50':>10}{'new/old':>9}")
    for m in modes:
        old, new = statistics.median(p50["old"][m]), statistics.median(p50["new"][m])
        out["modes"][m] = {"old_p50_ms": old, "new_p50_ms": new, "ratio": new / old}
        print(f"{m:<10}{old:>10.1f}{new:>10.1f}{new / old:>9.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
