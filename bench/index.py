"""Cold-index benchmark: the current embedding path, the earlier one and a naive pipeline,
over the same folder in one run.

    python bench/index.py [FOLDER | --subset FILE] [--limit N] [--paths new,earlier,naive]
                          [--json PATH]

FOLDER defaults to ../shared/corpus; ``--subset`` names a file listing PDF names in it (e.g.
../shared/corpus/SMALL.txt). Each path runs in its own child process, into a fresh cache:

- ``new``: ``index_folder`` as it is now (int8 model built into the fresh cache, each unit
  its own run, every document's opening first, the default unit plan;
  :class:`pdftui.index.EmbedPipeline` defaults);
- ``earlier``: ``index_folder`` with :data:`pdftui.index.EARLIER` (fp32 model, runs of 16 in
  page order), the path before issue 14;
- ``naive``: PyMuPDF page text, each page cut into 256-token windows without overlap,
  fastembed with the bundled fp32 model at batch 16, vectors kept in memory: no sections, no
  FTS, no cache.

Per path: wall seconds, CPU seconds (user + system of the child and its extraction workers:
less sensitive than wall time to other processes on a shared machine), seconds until the
text (keyword search) was ready, units, tokens embedded (special tokens included), units/s,
peak RSS of the child, tokens per CPU-second, and how far the embedding ETA was from the
finish (``eta_finish_err``, ``eta_left_err``: :func:`eta_errors`). Then the ratios of the
medians (``--repeat N`` runs the paths N times, interleaved) new / earlier and new / naive
of wall, CPU, tokens, units, tokens per CPU-second and peak RSS
(goals: new / earlier <= 0.35, new / naive <= 0.7). The machine's load average is printed
before and after: quote it with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

PATHS = ("new", "earlier", "naive")
#: Also measurable: "default" (the product's pipeline with the fp32 model), "int8" (with
#: the int8 copy: "new"), "plan1" / "plan2" / "plan3" (the int8 copy cutting units by
#: that plan, :mod:`pdftui.embed.units`), and "previous" (the product before embedding
#: streams: one run at a time on onnxruntime's default intra-op threads, not niced;
#: "plan4" ... "plan9" units that follow the paragraphs; "plan10" ... "plan12" tile pairs;
#: any "planN" runs :data:`pdftui.embed.units` ``PLAN_N``, its ratios to naive and new
#: printed).
EXTRA_PATHS = ("default", "int8", "plan1", "plan2", "plan3", "plan4", "plan5", "plan6",
               "plan7", "plan8", "plan9", "plan10", "plan11", "plan12", "previous")


def _cpu_s() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_index(folder: Path, cache: Path, which: str) -> dict:
    """One ``index_folder`` run (``which``: "new", "earlier" or one of
    :data:`EXTRA_PATHS`) into ``cache``."""
    from pdftui import embed
    from pdftui.index import index_folder
    from pdftui.index.embedding import EARLIER, EmbedPipeline

    marks: dict[str, float] = {}
    samples: list[tuple[float, float | None, int, int]] = []
    lock = threading.Lock()
    t0 = time.monotonic()

    def progress(p) -> None:
        with lock:
            if p.phase == "extract" and p.docs_done == p.docs_total:
                marks.setdefault("text_ready_s", time.monotonic() - t0)
            if p.phase == "embed" and not p.following:
                samples.append((time.monotonic() - t0, p.eta_s, p.tokens_done,
                                p.tokens_total))

    pipeline = {"earlier": EARLIER, "default": EmbedPipeline(int8=False),
                "previous": EmbedPipeline(int8=True, threads=None, streams=1, nice=0)}.get(
                    which, EmbedPipeline(int8=True))
    if which.startswith("plan"):
        pipeline = EmbedPipeline(int8=True, plan=getattr(embed, f"PLAN_{which[4:]}"))
    summary = index_folder(folder, cache, progress=progress, pipeline=pipeline)
    wall = time.monotonic() - t0
    return {"documents": summary.documents, "pages": summary.pages, "units": summary.units,
            "tokens": summary.tokens_embedded, "wall_s": wall,
            "text_ready_s": marks.get("text_ready_s", wall), **eta_errors(samples)}


def eta_errors(samples: list[tuple[float, float | None, int, int]]) -> dict:
    """How well the embedding ETA told the finish: ``samples`` are ``(seconds since start,
    eta_s, tokens done, tokens planned)`` of every "embed" report. The finish ``T`` is the
    last report's time. Over the reports after the first 10 % of the final tokens:
    ``eta_finish_err``, the largest |t + eta - T| / T (the predicted finish against the
    real one, as a share of the whole run); over those up to 90 %: ``eta_left_err``, the
    largest |eta - (T - t)| / (T - t) (the time left against the real time left);
    ``eta_samples``: every 10th sample ``(t, eta, tokens done)`` for the record."""
    if not samples:
        return {}
    end, total = samples[-1][0], max(samples[-1][3], 1)
    finish, left = [], []
    for t, eta, done, _planned in samples:
        if eta is None or done < 0.1 * total:
            continue
        finish.append(abs(t + eta - end) / max(end, 1e-9))
        if done <= 0.9 * total and end - t > 0:
            left.append(abs(eta - (end - t)) / (end - t))
    return {"eta_finish_err": round(max(finish), 3) if finish else None,
            "eta_left_err": round(max(left), 3) if left else None,
            "eta_samples": [(round(t, 2), None if e is None else round(e, 2), d)
                            for t, e, d, _ in samples[::10]]}


def run_naive(folder: Path, cache: Path) -> dict:
    """PyMuPDF page text -> 256-token windows, no overlap -> fastembed fp32, batch 16."""
    import pymupdf
    from fastembed import TextEmbedding
    from tokenizers import Tokenizer

    from pdftui.embed import DEFAULT_MODEL, assemble_default_model

    t0 = time.monotonic()
    folder_m = assemble_default_model(cache)
    model = TextEmbedding(DEFAULT_MODEL, cache_dir=str(cache / "fastembed"),
                          specific_model_path=str(folder_m), local_files_only=True)
    tok = Tokenizer.from_file(str(folder_m / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    texts: list[str] = []
    pages = docs = 0
    for pdf in sorted(folder.glob("*.pdf")):
        try:
            doc = pymupdf.open(pdf)
        except Exception:  # noqa: BLE001 - a broken file is skipped, as any tool would
            continue
        docs += 1
        for page in doc:
            pages += 1
            text = page.get_text()
            offs = tok.encode(text, add_special_tokens=False).offsets
            for i in range(0, len(offs), 254):
                w = offs[i:i + 254]
                texts.append(text[w[0][0]:w[-1][1]])
        doc.close()
    text_ready = time.monotonic() - t0
    tokens = sum(min(256, len(e.ids)) for e in tok.encode_batch(texts))
    vectors = list(model.passage_embed(texts, batch_size=16))
    return {"documents": docs, "pages": pages, "units": len(vectors), "tokens": tokens,
            "wall_s": time.monotonic() - t0, "text_ready_s": text_ready}


def child(which: str, folder: Path, cache: Path) -> None:
    """Run one path in this process and print its figures as one JSON line."""
    cpu0 = _cpu_s()
    row = run_naive(folder, cache) if which == "naive" else run_index(folder, cache, which)
    row["cpu_s"] = _cpu_s() - cpu0
    row["peak_rss_mb"] = _rss_mb()
    row["units_per_s"] = row["units"] / max(row["wall_s"], 1e-9)
    row["tokens_per_cpu_s"] = row["tokens"] / max(row["cpu_s"], 1e-9)
    print(json.dumps(row))


def _folder(args, tmp: Path) -> Path:
    folder = Path(args.folder)
    names = sorted(p.name for p in folder.glob("*.pdf"))
    if args.subset:
        want = [ln.strip() for ln in Path(args.subset).read_text().splitlines()
                if ln.strip() and not ln.startswith("#")]
        names = [n for n in want if (folder / n).exists()]
    if args.limit:
        names = names[: args.limit]
    if not args.subset and not args.limit:
        return folder
    sub = tmp / "docs"
    sub.mkdir()
    for n in names:
        os.symlink((folder / n).resolve(), sub / n)
    return sub


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", nargs="?", default=str(REPO.parent / "shared" / "corpus"))
    ap.add_argument("--subset", default=None, help="file listing the PDF names to index")
    ap.add_argument("--limit", type=int, default=0, help="only the first N PDFs (by name)")
    ap.add_argument("--paths", default=",".join(PATHS))
    ap.add_argument("--repeat", type=int, default=1,
                    help="run the --paths sequence this many times, interleaved")
    ap.add_argument("--json", dest="json_path", default=None)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--cache", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, Path(args.folder), Path(args.cache))
        return

    tmp = Path(tempfile.mkdtemp(prefix="pdftui-bench-"))
    try:
        folder = _folder(args, tmp)
        load0 = os.getloadavg()
        results: dict[str, dict] = {}
        order = [p for p in args.paths.split(",") if p] * max(1, args.repeat)
        for n, which in enumerate(order):
            cache = tmp / f"cache-{n}-{which}"   # a path named twice runs twice, cold
            out = subprocess.run(
                [sys.executable, __file__, str(folder), "--child", which, "--cache", str(cache)],
                capture_output=True, text=True, check=True).stdout
            key = which if which not in results else f"{which}#{n}"
            results[key] = json.loads(out.strip().splitlines()[-1])
            print(f"{key}: done ({results[key]['wall_s']:.1f} s)", file=sys.stderr)
        load1 = os.getloadavg()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report(results, load0, load1, args.json_path)


def medians(results: dict) -> dict[str, dict]:
    """Per path (runs ``new``, ``new#3`` ... together), the median of each figure."""
    import statistics

    groups: dict[str, list[dict]] = {}
    for key, row in results.items():
        groups.setdefault(key.split("#")[0], []).append(row)
    return {name: {c: statistics.median(r[c] for r in rows)
                   for c in rows[0] if isinstance(rows[0][c], (int, float))
                   and all(isinstance(r.get(c), (int, float)) for r in rows)}
            for name, rows in groups.items()}


RATIO_COLS = ("wall_s", "cpu_s", "tokens", "units", "tokens_per_cpu_s", "peak_rss_mb")


def report(results: dict, load0, load1, json_path: str | None) -> None:
    """Print the table, the medians' ratios and the ETA errors; write JSON when asked."""
    cols = ("documents", "pages", "units", "tokens", "wall_s", "cpu_s", "text_ready_s",
            "units_per_s", "tokens_per_cpu_s", "peak_rss_mb", "eta_finish_err",
            "eta_left_err")
    print(f"{'path':<9}" + "".join(f"{c[:13]:>14}" for c in cols))
    for which, row in results.items():
        cells = "".join(f"{row.get(c):>14.3f}" if isinstance(row.get(c), float)
                        else f"{str(row.get(c, '')):>14}" for c in cols)
        print(f"{which:<9}{cells}")
    med = medians(results)
    ratios = {}
    for base, others in (("new", ("earlier", "naive", "previous", "plan1")),
                         ("default", ("int8", "new", "plan1", "plan2", "plan3", "plan4",
                                      "plan5"))):
        for other in others:
            if base in med and other in med and other != base:
                num, den = (med[base], med[other]) if base == "new" else (med[other],
                                                                           med[base])
                name = f"new/{other}" if base == "new" else f"{other}/default"
                for c in RATIO_COLS:
                    if c in num and c in den:
                        ratios[f"{name} {c}"] = round(num[c] / max(den[c], 1e-9), 3)
    for name in sorted(p for p in med if p.startswith("plan") and p != "plan1"):
        for base in ("naive", "new"):   # a plan's path against naive and the product
            if base in med:
                for c in RATIO_COLS:
                    if c in med[name] and c in med[base]:
                        ratios[f"{name}/{base} {c}"] = round(
                            med[name][c] / max(med[base][c], 1e-9), 3)
    for k, v in ratios.items():
        print(f"{k:<30} {v}")
    print(f"load average before {load0[0]:.1f}, after {load1[0]:.1f} (1 min)")
    if json_path:
        Path(json_path).write_text(json.dumps(
            {"paths": results, "medians": med, "ratios": ratios,
             "load_average": {"before": load0, "after": load1}}, indent=2) + "\n")


if __name__ == "__main__":
    main()
