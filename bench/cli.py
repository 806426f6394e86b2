"""One-shot CLI commands timed as whole processes, cold and warm, old and new code in one run.

Usage::

    .venv/bin/python bench/cli.py --old /path/to/a/worktree/of/main --cache-dir DIR
        [--folder ../shared/corpus] [--runs 5] [--only search-hybrid,read]
        [--json bench/results/cli.json]

Each command of :data:`COMMANDS` (``search`` in every mode and granularity, ``read``,
``docs``, ``mark``, ``export``, ``clips``) runs as ``python -m pdftui ...`` in a new
process, in three variants: ``old`` (the tree ``--old`` on ``PYTHONPATH``), ``new``
(``--new``, default: this checkout, with its background search service,
:mod:`pdftui.warm`) and ``inproc`` (the new tree with ``PDFTUI_SERVICE=0``: everything in
the command's process), interleaved run by run (the order reversed every other run, so a
drift of the machine's speed falls on all alike). Figures per command and variant: wall
time (``time.perf_counter`` around the process), CPU seconds of the process (user + sys,
``os.wait4``; a service's own CPU is not counted) and peak resident memory, each as min /
median / max; then the ratios of medians to ``old``.

- *cold*: the first run after an install or an upgrade: no bytecode cache
  (``PYTHONPYCACHEPREFIX`` points at a new empty folder each run, so every module, the
  libraries' too, is compiled from source), no service (``PDFTUI_SERVICE=0``: a first
  call answers in-process). The OS page cache is not dropped.
- *warm*: ``--runs`` runs after one run that is not counted (which starts the ``new``
  variant's service), with a bytecode cache of their own per variant (outside the trees).

The cache is copied to a scratch folder first (``--cache-dir`` is only read: every command
brings the index up to date, which takes a lease in the cache), and ``mark`` writes to a
scratch user-data folder. Before timing, every command's output of the old and the new
tree is compared (``search --json`` with ``elapsed_ms`` removed): a difference is printed
and recorded (``"same_output": false``). ``--check-queries N`` also compares ``search
--json`` for the first N queries of ``../shared/eval/queries.json`` in every mode and
granularity (one process per mode, the queries on stdin).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
DEFAULT_FOLDER = HERE.parent / "shared" / "corpus"
DEFAULT_QUERIES = HERE.parent / "shared" / "eval" / "queries.json"

#: name -> the command's arguments after ``pdftui`` ({F}: the folder).
COMMANDS: dict[str, list[str]] = {
    "search-keyword": ["search", "{F}", "attention heads", "--mode", "keyword", "--json"],
    "search-keyword-table": ["search", "{F}", "attention heads", "--mode", "keyword",
                             "--width", "100"],
    "search-semantic": ["search", "{F}", "attention heads", "--mode", "semantic", "--json"],
    "search-hybrid": ["search", "{F}", "attention heads", "--json"],
    "search-hybrid-table": ["search", "{F}", "attention heads", "--width", "100"],
    "search-keyword-section": ["search", "{F}", "attention heads", "--mode", "keyword",
                               "--granularity", "section", "--json"],
    "search-hybrid-section": ["search", "{F}", "attention heads", "--granularity", "section",
                              "--json"],
    "read": ["read", "{F}", "word2vec", "--page", "2"],
    "read-section": ["read", "{F}", "word2vec", "--section", "1", "--json"],
    "docs": ["docs", "{F}"],
    "mark": ["mark", "{F}", "word2vec", "keep", "--note", "bench"],
    "export": ["export", "{F}", "--format", "bibtex", "--marked", "all"],
    "clips": ["clips", "{F}"],
}


def run_once(tree: Path, args: list[str], env: dict[str, str],
             stdin: str | None = None) -> dict:
    """One process of ``python -m pdftui.cli ARGS`` with ``tree`` first on the path, fed
    ``stdin``: ``{"wall_s", "rc", "out", "err"}`` (``out``, ``err``: the streams as text)."""
    env = {**env, "PYTHONPATH": str(tree)}
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pdftui", *args], cwd=tree, env=env,
                          input=stdin, capture_output=True, text=True)
    return {"wall_s": time.perf_counter() - t0, "rc": done.returncode, "out": done.stdout,
            "err": done.stderr}


def timed_run(tree: Path, args: list[str], env: dict[str, str]) -> dict:
    """Like :func:`run_once`, with CPU seconds and peak memory from ``os.wait4``."""
    env = {**env, "PYTHONPATH": str(tree)}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "pdftui", *args], cwd=tree, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime,
            "rss_mb": usage.ru_maxrss / 1024, "rc": proc.returncode}


def normalised(out: str) -> str:
    """A command's stdout with what changes run to run removed: ``elapsed_ms`` of each
    JSON line (a text table's head line with "ms" is dropped)."""
    lines = []
    for line in out.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            if not line.rstrip().endswith(" ms"):
                lines.append(line)
            continue
        if isinstance(obj, dict):
            obj.pop("elapsed_ms", None)
        lines.append(json.dumps(obj, sort_keys=True))
    return "\n".join(lines)


def summary(xs: list[float]) -> dict:
    """``{"min", "median", "max"}`` of ``xs``."""
    return {"min": min(xs), "median": statistics.median(xs), "max": max(xs)}


def bench_command(args: list[str], variants: dict[str, tuple[Path, dict]],
                  env: dict[str, str], runs: int, scratch: Path) -> dict:
    """Cold and warm figures of one command for each variant (see the module docstring);
    ``variants``: name -> (tree, environment added)."""
    out: dict = {"args": args}
    for phase in ("cold", "warm"):
        figures: dict[str, list[dict]] = {v: [] for v in variants}
        pyc = {v: scratch / f"pyc-{v}" for v in variants}
        n = runs if phase == "warm" else max(1, min(runs, 2))

        def one(v: str, prefix: Path) -> dict:
            tree, extra = variants[v]
            run_env = {**env, **extra, "PYTHONPYCACHEPREFIX": str(prefix)}
            if phase == "cold":
                run_env["PDFTUI_SERVICE"] = "0"
            return timed_run(tree, args, run_env)

        if phase == "warm":   # one run not counted: bytecode written, a service started
            for v in variants:
                one(v, pyc[v])
        for i in range(n):
            for v in (list(variants) if i % 2 == 0 else list(reversed(variants))):
                prefix = pyc[v] if phase == "warm" else Path(
                    tempfile.mkdtemp(prefix=f"pyc-cold-{v}-", dir=scratch))
                figures[v].append(one(v, prefix))
                if phase == "cold":
                    shutil.rmtree(prefix, ignore_errors=True)
        out[phase] = {v: {k: summary([r[k] for r in rs]) for k in ("wall_s", "cpu_s", "rss_mb")}
                      | {"rc": sorted({r["rc"] for r in rs})}
                      for v, rs in figures.items()}
        for v in variants:
            if v != "old":
                out[phase][f"ratio_wall_{v}"] = (out[phase][v]["wall_s"]["median"]
                                                 / out[phase]["old"]["wall_s"]["median"])
    return out


def same_output(args: list[str], variants: dict[str, tuple[Path, dict]],
                env: dict[str, str]) -> bool:
    """True when every variant prints the same (:func:`normalised`) for ``args``."""
    outs = {v: normalised(run_once(tree, args, {**env, **extra})["out"])
            for v, (tree, extra) in variants.items()}
    return len(set(outs.values())) == 1


def check_queries(n: int, variants: dict[str, tuple[Path, dict]], env: dict[str, str],
                  folder: str) -> dict:
    """Compare ``search --json`` of each variant with ``old`` on the first ``n`` eval
    queries in each mode and granularity, one process per query (so the ``new``
    variant's answers come from its service): ``{"variant mode/granularity": number of
    queries whose answers differ}``."""
    queries = [q["query"] for q in json.loads(DEFAULT_QUERIES.read_text())["queries"]][:n]
    diffs = {}
    for mode in ("keyword", "semantic", "hybrid"):
        for gran in ("page", "section"):
            outs = {v: [normalised(run_once(tree, ["search", folder, q, "--mode", mode,
                                                   "--granularity", gran, "--json"],
                                            {**env, **extra})["out"]) for q in queries]
                    for v, (tree, extra) in variants.items()}
            for v in variants:
                if v != "old":
                    diffs[f"{v} {mode}/{gran}"] = sum(
                        a != b or not a for a, b in zip(outs["old"], outs[v]))
    return diffs


def print_table(results: dict, variants: list[str]) -> None:
    """Medians of wall time (ms) per command and variant, cold then warm, with the ratio
    of each to ``old``; the warm CPU seconds of the command's process."""
    others = [v for v in variants if v != "old"]
    head = f"{'command':<24}"
    for phase in ("cold", "warm"):
        head += f" {phase + ' old':>9}" + "".join(f" {phase + ' ' + v:>12} {'x':>5}"
                                                   for v in others)
    print(head + "  warm cpu ms (old/" + "/".join(others) + ")  same")
    for name, r in results.items():
        row = f"{name:<24}"
        for phase in ("cold", "warm"):
            p = r[phase]
            row += f" {p['old']['wall_s']['median'] * 1000:>9.0f}"
            for v in others:
                row += (f" {p[v]['wall_s']['median'] * 1000:>12.0f}"
                        f" {p[f'ratio_wall_{v}']:>5.2f}")
        row += "  " + "/".join(f"{r['warm'][v]['cpu_s']['median'] * 1000:.0f}"
                               for v in variants)
        print(row + ("  yes" if r.get("same_output") else "  NO"))


def stop_services(run_dir: Path) -> None:
    """Stop the background search services started under ``run_dir`` (their pids are in
    the lock files next to their sockets)."""
    import signal

    for lock in run_dir.glob("pdftui/*.lock"):
        try:
            os.kill(int(lock.read_text().split()[0]), signal.SIGTERM)
        except (OSError, ValueError, IndexError):
            pass


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", required=True, help="a checkout of the code to compare with")
    ap.add_argument("--new", default=str(HERE))
    ap.add_argument("--folder", default=str(DEFAULT_FOLDER))
    ap.add_argument("--cache-dir", default=os.environ.get("PDFTUI_CACHE_DIR"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="", help="comma-separated names of COMMANDS")
    ap.add_argument("--check-queries", type=int, default=0)
    ap.add_argument("--json", dest="json_path", default=None)
    a = ap.parse_args(argv)
    if not a.cache_dir:
        ap.error("--cache-dir (or PDFTUI_CACHE_DIR): a cache holding the indexed folder")
    new = Path(a.new).resolve()
    variants = {"old": (Path(a.old).resolve(), {}), "new": (new, {}),
                "inproc": (new, {"PDFTUI_SERVICE": "0"})}
    names = [n for n in (a.only.split(",") if a.only else COMMANDS) if n]
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        scratch = Path(tmp)
        cache, run_dir = scratch / "cache", scratch / "run"
        shutil.copytree(a.cache_dir, cache, symlinks=True)
        run_dir.mkdir(mode=0o700)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update({"PDFTUI_CACHE_DIR": str(cache), "PDFTUI_DATA_DIR": str(scratch / "data"),
                    "XDG_RUNTIME_DIR": str(run_dir), "COLUMNS": "100"})
        load = os.getloadavg()
        print(f"load average {load[0]:.1f}, {os.cpu_count()} cpus, "
              f"python {platform.python_version()}, {a.runs} warm runs", flush=True)
        results: dict = {}
        try:
            for name in names:
                args = [x.replace("{F}", a.folder) for x in COMMANDS[name]]
                same = same_output(args, variants, env)
                results[name] = bench_command(args, variants, env, a.runs, scratch)
                results[name]["same_output"] = same
                w = results[name]["warm"]
                print(f"  {name}: warm " + ", ".join(
                    f"{v} {w[v]['wall_s']['median'] * 1000:.0f} ms" for v in variants),
                    flush=True)
            checked = check_queries(a.check_queries, variants, env, a.folder) \
                if a.check_queries else {}
        finally:
            stop_services(run_dir)
    print_table(results, list(variants))
    if checked:
        print("queries whose search --json differs from old:", checked)
    if a.json_path:
        Path(a.json_path).write_text(json.dumps({
            "load_average_start": load, "load_average_end": os.getloadavg(),
            "cpus": os.cpu_count(), "runs": a.runs, "folder": a.folder,
            "commands": results, "query_check": checked}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
