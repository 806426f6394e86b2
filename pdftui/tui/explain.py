"""Why a hybrid hit is where it is, in one or two lines (compare view, hit detail).

Reads the hit's ``arms`` (each arm's rank, weight in force and contribution
``weight / (k + rank)``), its ``factors`` (reference-page demotion, identifier pin) and the
search's ``fusion`` weights (:class:`pdftui.search.run.Weights`), all from
``SearchResult.to_json()``; plain strings, no markup (callers wrap them in ``Text``).
"""

from __future__ import annotations

ARM_NAMES = {"keyword": "keyword", "semantic": "semantic", "section_head": "heading",
             "head": "byline", "document": "document", "subsections": "subsections"}


def _num(x: float) -> str:
    """``0.0133`` -> ``.0133``, ``0.9`` -> ``.9``, ``2.0`` -> ``2``, ``1.625`` -> ``1.63``."""
    if x == int(x) and abs(x) >= 1:
        return str(int(x))
    s = (f"{x:.4f}" if abs(x) < 1 else f"{x:.2f}").rstrip("0").rstrip(".")
    return s[1:] if s.startswith("0.") else s


def arms_line(hit: dict) -> str:
    """``"keyword #3 w.25 +.0040 · semantic #1 w1.62 +.0266 = .0306"`` (then ``×.9
    reference list`` when a factor applied); '' for a hit without arm evidence."""
    # an arm in force at weight 0 (the document arm for a query the pages hold) adds nothing
    arms = [a for a in hit.get("arms") or [] if a.get("weight")]
    if not arms:
        return ""
    parts = [f"{ARM_NAMES.get(a['arm'], a['arm'])} #{a['rank']} w{_num(a['weight'])}"
             f" +{_num(a['score'])}" for a in arms]
    line = " · ".join(parts)
    if len(arms) > 1 or hit.get("factors"):
        line += f" = {_num(sum(a['score'] for a in arms))}"
    for f in hit.get("factors") or []:
        line += f" ×{_num(f['factor'])} {f['name']}" if f["factor"] != 1.0 else \
            f" · {f['name']} first"
    return line


def weights_line(fusion: dict | None) -> str:
    """The weights in force of a hybrid search: ``"hybrid = Σ w/(60+rank): keyword 1 ×
    coverage² · semantic 2 × .81 confidence · document .12 · byline 1 × share² · reference
    lists ×.9"``; '' without them (keyword or semantic mode)."""
    if not fusion:
        return ""
    k = fusion.get("k", 60)
    parts = []
    if fusion.get("keyword") is not None:
        p = f"keyword {_num(fusion['keyword'])}"
        if fusion.get("coverage_power"):
            p += f" × coverage^{_num(fusion['coverage_power'])}"
        parts.append(p)
    if fusion.get("semantic") is not None:
        conf = fusion.get("semantic_confidence")
        p = f"semantic {_num(fusion['semantic'])}"
        if conf is not None and conf < 1.0:
            p += f" (×{_num(conf)} confidence)"
        parts.append(p)
    if fusion.get("section_head") is not None:
        parts.append(f"heading {_num(fusion['section_head'])}")
    if fusion.get("subsections"):
        parts.append(f"subsections {_num(fusion['subsections'])} × their scores")
    if fusion.get("document"):
        parts.append(f"document {_num(fusion['document'])}")
    if fusion.get("head") is not None:
        parts.append(f"byline {_num(fusion['head'])} × share²")
    if fusion.get("reference") is not None and fusion["reference"] < 1.0:
        parts.append(f"reference lists ×{_num(fusion['reference'])}")
    line = f"hybrid = Σ w/({k}+rank): " + " · ".join(parts)
    if fusion.get("few"):
        line += " (a few documents: no coverage gate, document arm or byline)"
    return line
