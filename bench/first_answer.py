"""How soon keyword search answers on a folder nobody has indexed yet.

    python bench/first_answer.py [FOLDER] [--query TEXT] [--json PATH]

Into a fresh cache, a child process runs ``pdftui index FOLDER`` (what ``pdftui FOLDER``
starts in the background). From the moment the child starts, this process asks the search
service a keyword query every 0.25 s, as a user typing in the TUI would, and records the
seconds until the first answer that searched at least one document, a quarter, half and
all of them (the answer's own coverage: ``searched`` of ``total``), and until that answer
held a hit. The child is stopped once every document is keyword-searchable (embedding, which
only the semantic arm needs, is not waited for). Issue 14's goal: keyword search usable
within 10 s on the cold 105-document corpus. The machine's load average is printed with the
figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pdftui.search.service import SearchService  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_FOLDER = HERE.parents[1] / "shared" / "corpus"
POLL_S = 0.25
LIMIT_S = 900.0
MARKS = (("first_document_s", 0.0), ("quarter_s", 0.25), ("half_s", 0.5), ("all_s", 1.0))


def _start_index(folder: Path, cache: Path) -> subprocess.Popen:
    pdftui = Path(sys.executable).with_name("pdftui")   # the console script beside python
    cmd = [str(pdftui), "index", str(folder), "--cache-dir", str(cache)]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _poll(folder: Path, cache: Path, query: str, t0: float) -> dict:
    """Seconds from ``t0`` to each coverage mark and to the first hit."""
    out: dict = {}
    svc = None
    while time.monotonic() - t0 < LIMIT_S and "all_s" not in out:
        time.sleep(POLL_S)
        try:
            svc = svc or SearchService(folder, cache)
            res = svc.search_sync(query, "keyword")
        except Exception:   # noqa: BLE001 - the cache is still being created
            svc = None
            continue
        now = time.monotonic() - t0
        total = max(1, res.coverage.total)
        share = res.coverage.searched / total
        for name, need in MARKS:
            if name not in out and res.coverage.searched > 0 and share >= need:
                out[name] = now
        if res.hits and "first_hit_s" not in out:
            out["first_hit_s"] = now
        out["documents"] = res.coverage.total
    if svc is not None:
        svc.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", nargs="?", type=Path, default=DEFAULT_FOLDER)
    ap.add_argument("--query", default="consensus protocol leader election")
    ap.add_argument("--json", dest="json_path", type=Path)
    args = ap.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="pdftui-first-") as tmp:
        t0 = time.monotonic()
        child = _start_index(args.folder.resolve(), Path(tmp))
        try:
            out = _poll(args.folder.resolve(), Path(tmp), args.query, t0)
        finally:
            child.terminate()
            child.wait(30)
    out["load_average"] = {"before": load_before, "after": os.getloadavg()}
    for k, v in out.items():
        print(f"{k:18} {v:.1f}" if isinstance(v, float) else f"{k:18} {v}")
    if args.json_path:
        args.json_path.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
