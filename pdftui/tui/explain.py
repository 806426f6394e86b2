"""Why a hybrid hit is where it is, in one or two lines (compare view, hit detail).

Reads the hit's ``arms`` (each arm's rank, weight in force and contribution
``weight / (k + rank)``), its ``factors`` (reference-page demotion, identifier pin, the
place first of the document both arms rank first) and the search's weights in force
(:class:`pdftui.search.run.Weights`), all from the typed
:class:`~pdftui.search.hits.SearchResult`; plain strings, no markup (callers wrap them in
``Text``). Numbers are rounded to 6 places first, as the JSON answer gives them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..search.run import Weights
    from ..search.hits import Hit

ARM_NAMES = {"keyword": "keyword", "semantic": "semantic", "section_body": "body",
             "section_head": "heading", "head": "byline", "named": "named document",
             "stand_in": "keyword for semantic", "title": "section title", "phrase": "phrase"}


def _num(x: float) -> str:
    """``0.0133`` -> ``.0133``, ``0.9`` -> ``.9``, ``2.0`` -> ``2``, ``1.625`` -> ``1.63``."""
    if x == int(x) and abs(x) >= 1:
        return str(int(x))
    s = (f"{x:.4f}" if abs(x) < 1 else f"{x:.2f}").rstrip("0").rstrip(".")
    return s[1:] if s.startswith("0.") else s


def _r(x: float | None) -> float | None:
    """``x`` rounded to 6 places (None stays None): the figures the JSON answer gives."""
    return None if x is None else round(x, 6)


def arms_line(hit: Hit | None) -> str:
    """``"keyword #3 w.25 +.0040 · semantic #1 w1.62 +.0266 = .0306"`` (then ``×.9
    reference list`` when a factor applied); '' for a hit without arm evidence (or None)."""
    # an arm in force at weight 0 adds nothing
    arms = [a for a in (hit.arms if hit is not None else ()) if _r(a.weight)]
    if not arms:
        return ""
    parts = [f"{ARM_NAMES.get(a.arm.value, a.arm.value)} #{a.rank} w{_num(_r(a.weight))}"
             f" +{_num(_r(a.score))}" for a in arms]
    line = " · ".join(parts)
    if len(arms) > 1 or hit.factors:
        line += f" = {_num(sum(_r(a.score) for a in arms))}"
    for f in hit.factors:
        line += f" ×{_num(f.factor)} {f.name}" if f.factor != 1.0 else \
            f" · {f.name} first" if f.name == "identifier" else f" · {f.name}"
    return line


def weights_line(weights: Weights | None) -> str:
    """The weights in force of a hybrid search: ``"hybrid = Σ w/(60+rank): keyword 1 ×
    coverage² · semantic .2 (×.1 confidence) · byline 1 × share² · reference lists ×.9"``;
    '' without them (keyword or semantic mode)."""
    if weights is None:
        return ""
    w = weights
    parts = []
    if w.keyword is not None:
        p = f"keyword {_num(_r(w.keyword))}"
        if _r(w.coverage_power):
            p += f" × coverage^{_num(_r(w.coverage_power))}"
        parts.append(p)
    if w.semantic is not None:
        conf = _r(w.semantic_confidence)
        p = f"semantic {_num(_r(w.semantic))}"
        if conf is not None and conf < 1.0:
            p += f" (×{_num(conf)} confidence)"
        parts.append(p)
    if _r(w.stand_in):
        parts.append(f"keyword for semantic {_num(_r(w.stand_in))} where not embedded yet")
    if w.section_head is not None:
        parts.append(f"heading {_num(_r(w.section_head))}")
    if w.head is not None:
        parts.append(f"byline {_num(_r(w.head))} × share²")
    if _r(w.named):
        parts.append(f"named document {_num(_r(w.named))} × share²")
    if _r(w.title):
        parts.append(f"section title {_num(_r(w.title))}")
    if _r(w.phrase):
        parts.append(f"phrase {_num(_r(w.phrase))}")
    if w.reference is not None and _r(w.reference) < 1.0:
        parts.append(f"reference lists ×{_num(_r(w.reference))}")
    line = f"hybrid = Σ w/({w.k}+rank): " + " · ".join(parts)
    if w.few:
        line += " (a few documents: no coverage gate or byline)"
    return line
