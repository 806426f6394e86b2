"""Bench for pdftui.headings and pdftui.sections: heading detector quality and the page-walk cost.

Usage::

    python bench/sections.py [--corpus DIR] [--verbose] [--json PATH] [--fit]
                             [--loader auto|extract|local] [--workers 2]
                             [--run-in sections|on|off]

For every corpus PDF with an outline (MANIFEST.tsv has_toc == yes, else get_toc non-empty):

* Detector quality. The detector runs with the outline hidden; its headings are
  matched one-to-one (greedy, in outline order) to outline entries when the normalised
  titles match (``headings.titles_match``: equal ignoring case/punctuation/spacing, a
  >= 60% prefix, or difflib ratio >= 0.8) AND the pages differ by at most the tolerance
  (0 and 1, reported separately). Two truths are reported:
    - ``visible``: outline entries whose title is printed as a line on their own page
      (entries such as "Title", figure anchors or bookmarks that print nothing cannot
      be detected from the page and are left out of recall);
    - ``all``: every outline entry.
  Precision counts every detected heading that matches no outline entry as a false
  positive, even when it is a real heading that the outline omits; so it is a lower bound.
  A row "run-in headings apart" (visible truth, tolerance 0) leaves the detected run-in
  headings matching no entry out of the count: outlines seldom list a paragraph's run-in
  heading ("Residual Dropout."), so those say nothing of precision.
  Micro = pooled counts; macro = mean of per-document figures.
* Page-walk cost. For each outline section (from ``build_sections`` over the outline):
  a page-mode search lands on the page holding most of the section's tokens and walks
  outward, each step adding the neighbouring page that adds most tokens, until 95% of
  the section's tokens are covered; the cost is the pages read beyond the first.
  Section mode reads the section itself: cost 0.
* Hand truth (``--truth``, default ``bench/sections_truth.json``, the development set;
  ``sections_truth_2.json`` and ``sections_truth_3.json`` are held out): headings as printed in corpus PDFs that have
  no outline, labelled by hand before the detector ran on them. A detected heading matches
  a true one (one-to-one, greedy in truth order) when it is on the same page and the
  titles' words agree, numbering aside (:func:`words_agree`). Precision, recall and F1
  per document and pooled, over every true heading and over those printed on a line of
  their own (``run_in`` ones left out of the truth and the detected headings matching
  them left out of the count); ``parents`` is the share of matched headings whose
  true parent was matched too that sit under that parent's match (a missing parent
  must not swallow its children).
* The detector's headings are what the sections are built from:
  ``detect_headings`` plus an unlisted "References" heading (``reference_headings``); its
  run-in headings count as ``sections.RUN_IN_SECTIONS`` says (``--run-in on`` / ``off``
  to count them or not whatever the sections do).
* ``--fit`` refits the detector weights: logistic regression (numpy, L2) over candidate
  rows labelled by the outline, on a by-document train split; the threshold maximises
  train F1; held-out figures are from the validation documents.

Documents are loaded with ``pdftui.extract.extract_document`` when it exists (``--loader
auto``), else with a small PyMuPDF loader below producing the same shapes. Loads are
cached as pickles in $TMPDIR/pdftui-bench-sections.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import pickle
import re
import statistics
import sys
import tempfile
import time
import unicodedata
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pdftui import headings as H  # noqa: E402
from pdftui import sections as S  # noqa: E402
from pdftui.document import Block, Extraction, Line, OutlineEntry, Page  # noqa: E402

CORPUS = Path("/work/shared/corpus")
TRUTH = ROOT / "bench" / "sections_truth.json"
RESULTS = ROOT / "bench" / "results" / "sections.json"
CACHE = Path(tempfile.gettempdir()) / "pdftui-bench-sections"
_BOLD_NAME = re.compile(r"bold|black|heavy|demi|semibold|medi|[-.,]b$|[-.,]bd", re.I)
_WORD = re.compile(r"\w+")

# --------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------


def _norm(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("\u00ad", "")
    return "".join(c for c in text if c >= " " or c == "\n")


def load_local(path: str) -> Extraction:
    """Stand-in for extract_document: blocks/lines from get_text('dict'), outline with y."""
    import pymupdf

    doc = pymupdf.open(path)
    pages: list[Page] = []
    for i, pg in enumerate(doc):
        d = pg.get_text("dict", flags=pymupdf.TEXTFLAGS_TEXT)
        blocks: list[Block] = []
        lines: list[Line] = []
        for b in d["blocks"]:
            if b.get("type") != 0:
                continue
            texts: list[str] = []
            bi = len(blocks)
            for ln in b["lines"]:
                spans = [s for s in ln["spans"] if s["text"].strip()]
                if not spans:
                    continue
                t = _norm("".join(s["text"] for s in ln["spans"])).strip()
                dom = max(spans, key=lambda s: len(s["text"].strip()))
                bold = bool(dom["flags"] & 16) or bool(_BOLD_NAME.search(dom["font"]))
                x0, y0, x1, y1 = ln["bbox"]
                lines.append(Line(t, x0, y0, x1, y1, dom["font"], dom["size"], bold, bi))
                texts.append(t)
            if not texts:
                continue
            joined = ""
            for t in texts:
                if joined.endswith("-") and t[:1].islower():
                    joined = joined[:-1] + t
                else:
                    joined = f"{joined} {t}" if joined else t
            x0, y0, x1, y1 = b["bbox"]
            blocks.append(Block(joined, x0, y0, x1, y1))
        pages.append(
            Page(
                number=i + 1,
                label="",
                text="\n".join(b.text for b in blocks),
                blocks=blocks,
                lines=lines,
                width=pg.rect.width,
                height=pg.rect.height,
            )
        )
    outline: list[OutlineEntry] = []
    dropped = 0
    for e in doc.get_toc(simple=False):
        level, title, pno = e[0], e[1], e[2]
        if not (1 <= pno <= len(pages)):
            dropped += 1
            continue
        y = None
        dest = e[3] if len(e) > 3 else {}
        to = dest.get("to") if isinstance(dest, dict) else None
        if to is not None and dest.get("kind") == pymupdf.LINK_GOTO:
            h = pages[pno - 1].height
            yy = h - float(to.y) if h else None
            if yy is not None and 0 <= yy <= h:
                y = yy
        outline.append(OutlineEntry(level, title, pno, y))
    n = len(pages)
    doc.close()
    return Extraction(title="", page_count=n, pages=pages, outline=outline, outline_dropped=dropped)


def load(path: str, loader: str = "auto") -> Extraction:
    if loader in ("auto", "extract"):
        try:
            from pdftui.extract import extract_document  # type: ignore
        except ImportError:
            if loader == "extract":
                raise
        else:
            return extract_document(path)
    st = os.stat(path)
    key = hashlib.sha1(f"{path}:{st.st_size}:{st.st_mtime}:v1".encode()).hexdigest()[:16]
    CACHE.mkdir(parents=True, exist_ok=True)
    f = CACHE / f"{Path(path).stem[:60]}-{key}.pkl"
    if f.exists():
        try:
            return pickle.loads(f.read_bytes())
        except Exception:
            pass
    ex = load_local(path)
    f.write_bytes(pickle.dumps(ex))
    return ex


def outlined_pdfs(corpus: Path) -> list[Path]:
    manifest = corpus / "MANIFEST.tsv"
    out: list[Path] = []
    if manifest.exists():
        with manifest.open() as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                if row.get("has_toc", "").strip().lower() in ("yes", "true", "1"):
                    out.append(corpus / row["file"])
        return [p for p in out if p.exists()]
    import pymupdf

    for p in sorted(corpus.glob("*.pdf")):
        try:
            with pymupdf.open(p) as d:
                if d.get_toc():
                    out.append(p)
        except Exception:
            pass
    return out


# --------------------------------------------------------------------------------------
# Evaluation
# --------------------------------------------------------------------------------------


def visible_entries(ex: Extraction, rows) -> list[bool]:
    """Is each outline entry's title printed as a row (or two) on its page?"""
    by_page: dict[int, list[str]] = {}
    for r in rows:
        by_page.setdefault(r.page, []).append(r.text)
    vis = []
    for e in ex.outline:
        texts = by_page.get(e.page - 1, [])
        ok = any(H.titles_match(t, e.title) for t in texts)
        if not ok:  # heading wrapped over two rows
            ok = any(H.titles_match(a + " " + b, e.title) for a, b in zip(texts, texts[1:]))
        vis.append(ok)
    return vis


def match(truth: list[OutlineEntry], found: list[OutlineEntry], tol: int) -> int:
    """Greedy one-to-one matches: same title (normalised, fuzzy) and |page diff| <= tol."""
    return len(match_pairs(truth, found, tol))


def match_pairs(truth: list[OutlineEntry], found: list[OutlineEntry],
                tol: int) -> dict[int, int]:
    """:func:`match` as {truth index: found index}."""
    pairs: dict[int, int] = {}
    used = [False] * len(found)
    by_page: dict[int, list[int]] = {}
    for j, f in enumerate(found):
        by_page.setdefault(f.page, []).append(j)
    for i, e in enumerate(truth):
        cands = []
        for p in range(e.page - tol, e.page + tol + 1):
            cands.extend(by_page.get(p, []))
        cands.sort(key=lambda j: (abs(found[j].page - e.page), j))
        for j in cands:
            if not used[j] and H.titles_match(found[j].title, e.title):
                used[j] = True
                pairs[i] = j
                break
    return pairs


def _misses(visible: list[OutlineEntry], found: list[OutlineEntry]) -> dict:
    """The visible outline entries missed and the detected headings matching none
    (tolerance 0), as "p<page> <title>" strings."""
    pairs = match_pairs(visible, found, 0)
    hit = set(pairs.values())
    return {"missed": [f"p{e.page} {e.title}" for i, e in enumerate(visible) if i not in pairs],
            "extra": [f"p{f.page} {f.title}" for j, f in enumerate(found) if j not in hit]}


def _run_in_counts(visible: list[OutlineEntry], found: list[OutlineEntry],
                   run_in: set[int]) -> dict:
    """How many detected headings are run-in ones and how many of those match a visible
    outline entry (tolerance 0): outlines seldom list a paragraph's run-in heading, so
    the unmatched ones are reported apart from the other extra headings."""
    hit = set(match_pairs(visible, found, 0).values())
    return {"run_in": len(run_in), "run_in_matched": len(run_in & hit)}


def page_walk(ex: Extraction) -> list[dict]:
    """Pages beyond the first that page mode reads to cover 95% of each section's tokens."""
    secs = S.build_sections(ex.pages, ex.outline, "outline")
    out = []
    idx = {p.number: i for i, p in enumerate(ex.pages)}
    for s in secs:
        if s.ordinal == 0 and s.start_page == ex.pages[0].number and s.start_block == 0 and not any(
            e.page == s.start_page and H.titles_match(e.title, s.title) for e in ex.outline
        ):
            continue  # the leading (front matter) section is not an outline section
        counts = []
        for pno in range(s.start_page, s.end_page + 1):
            blocks = ex.pages[idx[pno]].blocks
            lo = s.start_block if pno == s.start_page else 0
            hi = s.end_block if pno == s.end_page else len(blocks)
            counts.append(sum(len(_WORD.findall(b.text)) for b in blocks[lo:hi]))
        total = sum(counts)
        if total == 0:
            continue
        best = max(range(len(counts)), key=lambda i: counts[i])
        lo = hi = best
        covered = counts[best]
        while covered < 0.95 * total:
            left = counts[lo - 1] if lo > 0 else -1
            right = counts[hi + 1] if hi + 1 < len(counts) else -1
            if right >= left:
                hi += 1
                covered += right
            else:
                lo -= 1
                covered += left
        out.append(
            {
                "level": s.level,
                "pages_spanned": len(counts),
                "extra_pages": hi - lo,
                "tokens": total,
            }
        )
    return out


#: whether the detected headings include the run-in ones (``--run-in``; by default as
#: ``sections.sections_for`` builds sections: ``sections.RUN_IN_SECTIONS``)
RUN_IN = S.RUN_IN_SECTIONS


def detector_headings(pages: list[Page], run_in: bool | None = None) -> list[OutlineEntry]:
    """The headings sections are built from when there is no outline (as
    ``sections.sections_for``): the detector's plus an unlisted "References" heading;
    with ``run_in`` (default :data:`RUN_IN`) the detector's run-in headings too."""
    found = H.detect_headings(pages, run_in=RUN_IN if run_in is None else run_in)
    return found + S.reference_headings(pages, found)


def run_in_indexes(pages: list[Page], found: list[OutlineEntry]) -> set[int]:
    """Indexes into ``found`` (:func:`detector_headings`) of the run-in headings: those
    the detector finds only with its run-in headings."""
    own = {(e.page, e.y, e.title) for e in detector_headings(pages, run_in=False)}
    return {j for j, f in enumerate(found) if (f.page, f.y, f.title) not in own}


_LEAD_NUMBER = re.compile(
    r"^\s*(?:§\s*)?(?:(?:chapter|section|part|appendix)\s+)?"
    r"(?:\d{1,3}(?:\.\d{1,3})*|[A-Z](?:\.\d{1,3})*|[IVXLC]{1,6})?[.:)]?\s+", re.I)


_NON_WORD = re.compile(r"[\W_]+")


def title_words(title: str) -> list[str]:
    """The words of a heading without its numbering ("§ 2." "3.1" "IV." "A.6"), lower
    case, NFKC; letters of any script count (``H.normalise_title`` keeps ASCII only, which
    left a Chinese heading without words)."""
    t = unicodedata.normalize("NFKC", title).strip()
    t = re.sub(r"^\s*§\s*\d+\.?\s*", "", t)
    stripped = _LEAD_NUMBER.sub("", t, count=1)
    return _NON_WORD.sub(" ", (stripped or t).lower()).split()


def words_agree(found: str, true: str) -> bool:
    """A detected title is the true heading: numbering aside, at least 70% of each
    one's distinct words are in the other (or the titles match as whole strings)."""
    a, b = set(title_words(found)), set(title_words(true))
    if a and b:
        common = len(a & b)
        if common >= 0.7 * len(a) and common >= 0.7 * len(b):
            return True
    return H.titles_match(" ".join(title_words(found)), " ".join(title_words(true)), 0.9)


def match_hand(truth: list[dict], found: list[OutlineEntry]) -> list[int | None]:
    """For each true heading, the index of its detected match (same page, words agree;
    one-to-one, greedy in truth order, nearest in document order first), or None."""
    used: set[int] = set()
    out: list[int | None] = []
    for t in truth:
        hit = None
        for j, f in enumerate(found):
            if j not in used and f.page == t["page"] and words_agree(f.title, t["title"]):
                hit = j
                break
        if hit is not None:
            used.add(hit)
        out.append(hit)
    return out


def _parents(levels: list[int]) -> list[int | None]:
    """For each heading, the index of the nearest earlier heading of a lower level."""
    stack: list[int] = []
    out: list[int | None] = []
    for i, lvl in enumerate(levels):
        while stack and levels[stack[-1]] >= lvl:
            stack.pop()
        out.append(stack[-1] if stack else None)
        stack.append(i)
    return out


def evaluate_hand(args: tuple) -> dict:
    """Detector vs the hand truth of one document: counts for every heading and for
    the headings on a line of their own, missed and extra titles, parent agreement."""
    path, loader, truth, run_in = args
    global RUN_IN
    RUN_IN = run_in
    ex = load(str(path), loader)
    found = detector_headings(ex.pages)
    m = match_hand(truth, found)
    tp = sum(j is not None for j in m)
    run_in_matches = {j for t, j in zip(truth, m) if t.get("run_in") and j is not None}
    display = [(t, j) for t, j in zip(truth, m) if not t.get("run_in")]
    tparent = _parents([t["level"] for t in truth])
    fparent = _parents([f.level for f in found])
    judged = agree = 0
    for i, j in enumerate(m):
        p = tparent[i]
        if j is None or p is None or m[p] is None:
            continue
        judged += 1
        agree += fparent[j] == m[p]
    return {
        "file": Path(path).name,
        "truth": len(truth),
        "detected": len(found),
        "tp": tp,
        "truth_display": len(display),
        "detected_display": len(found) - len(run_in_matches),
        "tp_display": sum(j is not None for _, j in display),
        "parents_judged": judged,
        "parents_agree": agree,
        "missed": [f"p{t['page']} {t['title']}" for t, j in zip(truth, m) if j is None],
        "extra": [f"p{f.page} {f.title}" for j, f in enumerate(found) if j not in set(m)],
    }


def summarise_hand(results: list[dict]) -> dict:
    """Pooled (micro) and per-document mean (macro) P/R/F1 over the hand truth."""
    out: dict = {"documents": len(results)}
    for key, suffix in (("all", ""), ("display", "_display")):
        tp = sum(r["tp" + suffix] for r in results)
        nt = sum(r["truth" + suffix] for r in results)
        nf = sum(r["detected" + suffix] for r in results)
        per = [prf(r["tp" + suffix], r["truth" + suffix], r["detected" + suffix]) for r in results]
        macro = tuple(statistics.fmean(x[i] for x in per) for i in range(3)) if per else (0, 0, 0)
        out[key] = {"micro": dict(zip("prf", prf(tp, nt, nf))), "macro": dict(zip("prf", macro)),
                    "tp": tp, "truth": nt, "detected": nf}
    judged = sum(r["parents_judged"] for r in results)
    out["parents"] = sum(r["parents_agree"] for r in results) / judged if judged else 1.0
    return out


def print_hand(summary: dict, results: list[dict], verbose: bool,
               truth: Path = TRUTH) -> None:
    """The hand-truth table (``truth``: the file it came from): per document, then pooled."""
    full = truth.resolve()
    name = full.relative_to(ROOT) if full.is_relative_to(ROOT) else truth
    print(f"\nHeading detector vs hand truth ({name}, same page, words agree)")
    print(f"{'document':55s} {'truth':>5s} {'det':>4s} {'tp':>4s} {'P':>5s} {'R':>5s}  "
          f"{'P disp':>6s} {'R disp':>6s}")
    for r in sorted(results, key=lambda r: r["file"]):
        p, rc, _ = prf(r["tp"], r["truth"], r["detected"])
        pd, rd, _ = prf(r["tp_display"], r["truth_display"], r["detected_display"])
        print(f"{r['file'][:55]:55s} {r['truth']:5d} {r['detected']:4d} {r['tp']:4d} "
              f"{p:5.2f} {rc:5.2f}  {pd:6.2f} {rd:6.2f}")
        if verbose:
            for t in r["missed"]:
                print(f"      missed  {t[:100]}")
            for t in r["extra"]:
                print(f"      extra   {t[:100]}")
    for key, label in (("all", "every heading"), ("display", "headings on their own line")):
        s = summary[key]
        print(f"hand truth, {label}: P {s['micro']['p']:.3f} R {s['micro']['r']:.3f} "
              f"F1 {s['micro']['f']:.3f} (macro P {s['macro']['p']:.3f} R {s['macro']['r']:.3f}); "
              f"{s['tp']}/{s['truth']} of {s['detected']}")
    print(f"parents kept: {summary['parents']:.3f} of matched headings whose parent matched")


def evaluate(args: tuple) -> dict:
    path, loader, weights, *flags = args
    global RUN_IN
    RUN_IN = flags[0] if flags else S.RUN_IN_SECTIONS
    if weights is not None:
        H.WEIGHTS[:] = weights["weights"]
        H.BIAS = weights["bias"]
        H.THRESHOLD = weights["threshold"]
    t0 = time.perf_counter()
    ex = load(str(path), loader)
    t1 = time.perf_counter()
    rows = H.candidate_rows(ex.pages)
    vis = visible_entries(ex, rows)
    t2 = time.perf_counter()
    found = detector_headings(ex.pages)
    t3 = time.perf_counter()
    visible = [e for e, v in zip(ex.outline, vis) if v]
    res = {
        "file": Path(path).name,
        "pages": len(ex.pages),
        "outline": len(ex.outline),
        "visible": len(visible),
        "detected": len(found),
        "tp_vis": {t: match(visible, found, t) for t in (0, 1)},
        "tp_all": {t: match(ex.outline, found, t) for t in (0, 1)},
        "walk": page_walk(ex),
        **_misses(visible, found),
        **_run_in_counts(visible, found, run_in_indexes(ex.pages, found)),
        "secs_detect": t3 - t2,
        "secs_load": t1 - t0,
    }
    t4 = time.perf_counter()
    S.build_sections(ex.pages, ex.outline, "outline")
    res["secs_build"] = time.perf_counter() - t4
    return res


def prf(tp: int, n_true: int, n_found: int) -> tuple[float, float, float]:
    p = tp / n_found if n_found else (1.0 if n_true == 0 else 0.0)
    r = tp / n_true if n_true else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def summarise(results: list[dict]) -> dict:
    out: dict = {"documents": len(results)}
    for truth in ("vis", "all"):
        n_key = "visible" if truth == "vis" else "outline"
        for tol in (0, 1):
            tp = sum(r[f"tp_{truth}"][tol] for r in results)
            nt = sum(r[n_key] for r in results)
            nf = sum(r["detected"] for r in results)
            micro = prf(tp, nt, nf)
            per = [prf(r[f"tp_{truth}"][tol], r[n_key], r["detected"]) for r in results]
            macro = tuple(statistics.fmean(x[i] for x in per) for i in range(3)) if per else (0, 0, 0)
            out[f"{truth}_tol{tol}"] = {
                "micro": dict(zip("prf", micro)),
                "macro": dict(zip("prf", macro)),
                "tp": tp,
                "truth": nt,
                "detected": nf,
            }
    # own-line headings: the run-in headings matching no outline entry left out of the
    # detected count (an outline does not list a paragraph's run-in heading)
    tp = sum(r["tp_vis"][0] for r in results)
    nt = sum(r["visible"] for r in results)
    nf = sum(r["detected"] - r.get("run_in", 0) + r.get("run_in_matched", 0) for r in results)
    out["vis_tol0_own_line"] = {"micro": dict(zip("prf", prf(tp, nt, nf))), "tp": tp,
                                "truth": nt, "detected": nf,
                                "run_in": sum(r.get("run_in", 0) for r in results),
                                "run_in_matched": sum(r.get("run_in_matched", 0)
                                                      for r in results)}
    walks = [w for r in results for w in r["walk"]]

    def wstats(ws: list[dict]) -> dict:
        if not ws:
            return {}
        e = sorted(w["extra_pages"] for w in ws)
        return {
            "sections": len(e),
            "mean_extra_pages": statistics.fmean(e),
            "median": e[len(e) // 2],
            "p90": e[min(len(e) - 1, int(0.9 * len(e)))],
            "max": e[-1],
            "share_needing_walk": sum(x > 0 for x in e) / len(e),
            "total_extra_pages": sum(e),
        }

    out["page_walk"] = {
        "all_sections": wstats(walks),
        "multi_page_sections": wstats([w for w in walks if w["pages_spanned"] > 1]),
        "section_mode_extra_pages": 0,
    }
    for lvl in sorted({w["level"] for w in walks})[:3]:
        out["page_walk"][f"level_{lvl}"] = wstats([w for w in walks if w["level"] == lvl])
    out["secs_detect_total"] = sum(r["secs_detect"] for r in results)
    out["secs_build_max"] = max((r["secs_build"] for r in results), default=0.0)
    return out


# --------------------------------------------------------------------------------------
# Fitting
# --------------------------------------------------------------------------------------


def is_validation(name: str) -> bool:
    """Deterministic by-document split: about one document in three is held out."""
    return int(hashlib.md5(name.encode()).hexdigest(), 16) % 3 == 0


def rows_labels(args: tuple) -> tuple[str, list[list[float]], list[int]]:
    path, loader = args
    ex = load(str(path), loader)
    rows = H.candidate_rows(ex.pages)
    by_page: dict[int, list[OutlineEntry]] = {}
    for e in ex.outline:
        by_page.setdefault(e.page - 1, []).append(e)
    X, y = [], []
    for r in rows:
        if r.rejected:
            continue
        pos = any(H.titles_match(r.text, e.title) for e in by_page.get(r.page, []))
        X.append(r.feats)
        y.append(1 if pos else 0)
    return Path(path).name, X, y


def fit_lr(X, y, l2: float = 1e-3, iters: int = 3000, lr: float = 0.5):
    import numpy as np

    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    # per-document balance is not attempted; positives are up-weighted to 1:1 overall
    wpos = (len(y) - y.sum()) / max(1.0, y.sum())
    sw = np.where(y > 0, wpos, 1.0)
    sw = sw / sw.mean()
    w = np.zeros(X.shape[1])
    b = 0.0
    for _ in range(iters):
        z = X @ w + b
        p = 1 / (1 + np.exp(-np.clip(z, -30, 30)))
        g = (p - y) * sw
        w -= lr * (X.T @ g / len(y) + l2 * w)
        b -= lr * g.mean()
    return w, b


def do_fit(paths: list[Path], loader: str, workers: int) -> dict:

    with Pool(workers) as pool:
        data = pool.map(rows_labels, [(p, loader) for p in paths])
    train = [d for d in data if not is_validation(d[0])]
    Xtr = [x for d in train for x in d[1]]
    ytr = [v for d in train for v in d[2]]
    w, b = fit_lr(Xtr, ytr)
    # threshold: maximise train F1 of the full detector (matching, tol 0), coarse grid
    best = None
    train_paths = [p for p in paths if not is_validation(p.name)]
    val_paths = [p for p in paths if is_validation(p.name)]
    with Pool(workers) as pool:
        for thr in (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95):
            wt = {"weights": list(map(float, w)), "bias": float(b), "threshold": thr}
            res = pool.map(evaluate, [(p, loader, wt) for p in train_paths])
            f = summarise(res)["vis_tol0"]["micro"]["f"]
            print(f"threshold {thr:.2f}: train micro F1 (visible, tol 0) {f:.3f}", flush=True)
            if best is None or f > best[0]:
                best = (f, thr)
        wt = {"weights": list(map(float, w)), "bias": float(b), "threshold": best[1]}
        res_val = pool.map(evaluate, [(p, loader, wt) for p in val_paths])
        res_tr = pool.map(evaluate, [(p, loader, wt) for p in train_paths])
    sv, st = summarise(res_val), summarise(res_tr)
    print("\nfitted on", len(train_paths), "train docs,", len(Xtr), "rows,", int(sum(ytr)), "positives")
    print("validation docs:", ", ".join(p.name for p in val_paths))
    for name, s in (("train", st), ("validation", sv)):
        for k in ("vis_tol0", "vis_tol1", "all_tol0"):
            m = s[k]["micro"]
            print(f"{name:10s} {k}: P {m['p']:.3f} R {m['r']:.3f} F1 {m['f']:.3f}  (macro F1 {s[k]['macro']['f']:.3f})")
    print("\nWEIGHTS = [")
    for n, v in zip(H.FEATURE_NAMES, w):
        print(f"    {v:+.3f},  # {n}")
    print(f"]\nBIAS = {b:+.3f}\nTHRESHOLD = {best[1]}")
    return {"weights": wt, "train": st, "validation": sv}


# --------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------


def print_report(summary: dict, results: list[dict], verbose: bool) -> None:
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # plain fallback
        Console = None
    rows = []
    for truth, label in (("vis", "visible outline entries"), ("all", "all outline entries")):
        for tol in (0, 1):
            s = summary[f"{truth}_tol{tol}"]
            rows.append(
                [label, str(tol), f"{s['micro']['p']:.3f}", f"{s['micro']['r']:.3f}", f"{s['micro']['f']:.3f}",
                 f"{s['macro']['p']:.3f}", f"{s['macro']['r']:.3f}", f"{s['macro']['f']:.3f}",
                 f"{s['tp']}/{s['truth']} of {s['detected']}"]
            )
    s = summary["vis_tol0_own_line"]
    rows.append(["visible, run-in headings apart", "0", f"{s['micro']['p']:.3f}",
                 f"{s['micro']['r']:.3f}", f"{s['micro']['f']:.3f}", "", "", "",
                 f"{s['tp']}/{s['truth']} of {s['detected']} (+{s['run_in'] - s['run_in_matched']}"
                 " run-in)"])
    head = ["truth", "page tol", "P micro", "R micro", "F1 micro", "P macro", "R macro", "F1 macro", "tp/truth of detected"]
    walk_rows = []
    for k, w in summary["page_walk"].items():
        if not isinstance(w, dict) or not w:
            continue
        walk_rows.append([k, str(w["sections"]), f"{w['mean_extra_pages']:.2f}", str(w["median"]), str(w["p90"]),
                          str(w["max"]), f"{w['share_needing_walk']:.1%}", "0"])
    whead = ["sections", "n", "mean extra pages", "median", "p90", "max", "share > 0", "section mode"]
    doc_rows = []
    if verbose:
        for r in sorted(results, key=lambda r: r["file"]):
            p0 = prf(r["tp_vis"][0], r["visible"], r["detected"])
            p1 = prf(r["tp_vis"][1], r["visible"], r["detected"])
            doc_rows.append([r["file"][:55], str(r["pages"]), str(r["outline"]), str(r["visible"]), str(r["detected"]),
                             f"{p0[0]:.2f}", f"{p0[1]:.2f}", f"{p0[2]:.2f}", f"{p1[2]:.2f}",
                             "val" if is_validation(r["file"]) else "train"])
    dhead = ["document", "pages", "outline", "visible", "detected", "P0", "R0", "F1 0", "F1 1", "split"]
    if Console is None:
        for h, rs in ((head, rows), (whead, walk_rows), (dhead, doc_rows)):
            if rs:
                print("\t".join(h))
                for r in rs:
                    print("\t".join(r))
                print()
        return
    con = Console(width=max(160, Console().width))
    for title, h, rs in (("Heading detector vs outline", head, rows),
                         ("Page-walk cost (page mode, 95% of section tokens)", whead, walk_rows),
                         ("Per document (visible truth)", dhead, doc_rows)):
        if not rs:
            continue
        t = Table(title=title)
        for c in h:
            t.add_column(c)
        for r in rs:
            t.add_row(*r)
        con.print(t)


def print_misses(results: list[dict]) -> None:
    """Per document, the visible outline entries missed and the extra headings."""
    print("\nMissed outline entries and extra headings (visible truth, tolerance 0)")
    for r in sorted(results, key=lambda r: r["file"]):
        if r["missed"] or r["extra"]:
            print(r["file"])
        for t in r["missed"]:
            print(f"      missed  {t[:100]}")
        for t in r["extra"]:
            print(f"      extra   {t[:100]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--fit", action="store_true")
    ap.add_argument("--loader", default="auto", choices=["auto", "extract", "local"])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--split", choices=["all", "train", "validation"], default="all")
    ap.add_argument("--truth", type=Path, default=TRUTH,
                    help="hand-labelled headings (JSON): sections_truth.json (development), "
                         "sections_truth_2.json or sections_truth_3.json (held out)")
    ap.add_argument("--only", choices=["both", "outline", "hand"], default="both")
    ap.add_argument("--run-in", choices=["sections", "on", "off"], default="sections",
                    help="count the detector's run-in headings: as sections_for does "
                         f"(sections.RUN_IN_SECTIONS = {S.RUN_IN_SECTIONS}), or on / off")
    a = ap.parse_args()
    run_in = {"sections": S.RUN_IN_SECTIONS, "on": True, "off": False}[a.run_in]
    paths = outlined_pdfs(a.corpus)
    t0 = time.perf_counter()
    if a.fit:
        out = do_fit(paths, a.loader, a.workers)
        if a.json:
            a.json.write_text(json.dumps(out, indent=2))
        return
    if a.split != "all":
        paths = [p for p in paths if is_validation(p.name) == (a.split == "validation")]
    out: dict = {"run_in": run_in}
    with Pool(a.workers) as pool:
        if a.only != "hand":
            results = pool.map(evaluate, [(p, a.loader, None, run_in) for p in paths])
            summary = summarise(results)
            summary["wall_seconds"] = time.perf_counter() - t0
            print_report(summary, results, a.verbose)
            if a.verbose:
                print_misses(results)
            print(f"{len(paths)} outlined PDFs, {sum(r['pages'] for r in results)} pages, "
                  f"{summary['wall_seconds']:.1f} s wall; detector "
                  f"{summary['secs_detect_total']:.1f} s total; slowest build_sections "
                  f"{summary['secs_build_max'] * 1000:.0f} ms")
            summary["per_document"] = [{k: v for k, v in r.items() if k != "walk"}
                                       for r in results]
            out["outline"] = summary
        if a.only != "outline" and a.truth.exists():
            docs = json.loads(a.truth.read_text())["documents"]
            jobs = [(a.corpus / f, a.loader, t, run_in) for f, t in docs.items()
                    if (a.corpus / f).exists()]
            hand = pool.map(evaluate_hand, jobs)
            hsum = summarise_hand(hand)
            print_hand(hsum, hand, a.verbose, a.truth)
            hsum["per_document"] = hand
            out["hand"] = hsum
    target = a.json or RESULTS
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(out, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
