"""How close two caches' unit vectors are: the int8 model's against the fp32 model's.

    python bench/vectors.py --reference CACHE_FP32 --candidate CACHE_INT8 [FOLDER] [--json PATH]

Both caches must hold the same folder indexed with the same unit plan (the candidate made
from a copy of the reference, re-embedded with another model file: e.g.
``PDFTUI_EMBED_INT8=1 pdftui index FOLDER --cache-dir COPY``). Units are matched by
(content, page, position in the content); for each matched unit the cosine of the two
vectors is taken. Prints units matched, mean / median / 1st percentile / min cosine and the
share of units under 0.98 (issue 14's acceptance: mean >= 0.98), and writes them as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pdftui.cache import SECTION_HEAD_PAGE  # noqa: E402
from pdftui.store.reader import read_embedding_states, read_units  # noqa: E402
from pdftui.search.engine import Engine  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_FOLDER = HERE.parents[1] / "shared" / "corpus"


def unit_vectors(folder: Path, cache_dir: Path) -> dict[tuple, np.ndarray]:
    """Every embedded unit of ``cache_dir`` as (content id, page, position) -> its stored
    float32 vector, as the cache holds it (the search holds int8 codes of it:
    pdftui.search.quantized); content ids agree between a cache and its copy."""
    eng = Engine(folder, cache_dir)
    try:
        out = {}
        for cid in sorted(read_embedding_states(eng.db, eng.model_id)):
            u = read_units(eng.db, cid, eng.model_id)
            pos = 0
            for page, vec in zip(u.pages, u.vectors):
                if page != SECTION_HEAD_PAGE:
                    out[(cid, page, pos)] = np.frombuffer(vec, dtype=np.float32)
                    pos += 1
        return out
    finally:
        eng.close()


def compare(ref: dict, cand: dict) -> dict:
    """Cosine statistics over the units both runs hold (vectors are unit-normalised, so the
    dot product is the cosine; normalised here again to be sure)."""
    common = sorted(ref.keys() & cand.keys())
    a = np.stack([ref[k] for k in common]).astype(np.float64)
    b = np.stack([cand[k] for k in common]).astype(np.float64)
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return {"units_reference": len(ref), "units_candidate": len(cand),
            "units_matched": len(common), "cosine_mean": float(cos.mean()),
            "cosine_median": float(np.median(cos)), "cosine_p1": float(np.percentile(cos, 1)),
            "cosine_min": float(cos.min()), "share_below_0.98": float((cos < 0.98).mean())}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", nargs="?", type=Path, default=DEFAULT_FOLDER)
    ap.add_argument("--reference", type=Path, required=True, help="cache with fp32 vectors")
    ap.add_argument("--candidate", type=Path, required=True, help="cache with int8 vectors")
    ap.add_argument("--json", dest="json_path", type=Path)
    args = ap.parse_args()
    out = compare(unit_vectors(args.folder, args.reference),
                  unit_vectors(args.folder, args.candidate))
    for k, v in out.items():
        print(f"{k:18} {v:.4f}" if isinstance(v, float) else f"{k:18} {v}")
    if args.json_path:
        args.json_path.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
