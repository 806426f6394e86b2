"""A small set of PDFs made with PyMuPDF, so the core suite runs without ``../shared``.

``python tests/pdfs.py DEST`` writes them into DEST; tests call :func:`make_pdfs`. Each
document has real text (sentences, headings, a few distinctive words a test can search
for) and one trait the pipeline handles:

- ``bridges.pdf``: 4 pages with an outline (nested sections), a title in the metadata;
- ``orchards.pdf``: 3 pages without an outline (bold numbered headings for the detector)
  and printed page labels ``i``, ``1``, ``2``;
- ``syntax.pdf``: 2 pages holding preformatted text: a monospaced syntax summary and a
  table whose columns are aligned with spaces.

The words are made up where a test needs them to be unique (``zorvane``, ``quillet``).
"""

from __future__ import annotations

import sys
from pathlib import Path

#: File name -> what it is (also the order :func:`make_pdfs` writes them in).
PDFS = {
    "bridges.pdf": "outlined, 4 pages, nested sections",
    "orchards.pdf": "no outline, bold headings, page labels i 1 2",
    "syntax.pdf": "a monospaced syntax block and a space-aligned table",
}

_BRIDGE_SECTIONS = [
    (1, "1 Introduction", 1, [
        "Suspension bridges carry a deck on vertical hangers that hang from two main cables.",
        "The cables pass over tall towers and are held at each end by heavy anchorages.",
        "This guide describes how the parts share the load and how engineers inspect them.",
    ]),
    (1, "2 Cables", 2, [
        "Each main cable is spun on site from thousands of parallel galvanised steel wires.",
        "Under its own weight a free cable hangs as a catenary; under a uniform deck load",
        "it takes the shape of a parabola, which is why the sag ratio matters so much.",
    ]),
    (2, "2.1 Anchorages", 2, [
        "The zorvane anchorage is a block of concrete that resists the pull of the cable.",
        "Strands are splayed inside the chamber and tied to eyebars cast into the rock.",
        "Moisture in the chamber is the main enemy, so the air is kept dry all year round.",
    ]),
    (1, "3 Decks", 3, [
        "The deck is a stiffening truss or a closed steel box shaped against the wind.",
        "Aerodynamic flutter destroyed a famous bridge in 1940 and changed deck design.",
        "Modern decks are tested in wind tunnels before a single segment is lifted.",
    ]),
    (1, "4 Maintenance", 4, [
        "Inspectors open a cable every few years and measure the broken wires inside it.",
        "Dehumidification wraps the cable and blows dry air along its whole length.",
        "Paint, bearings and expansion joints are renewed on a fixed maintenance cycle.",
    ]),
]

_ORCHARD_PAGES = [
    ("Preface", [
        "This handbook collects advice for growers who plant and tend small apple orchards.",
        "It was written for a cooperative of farmers and covers soil, pruning and harvest.",
        "Readers who know the basics can skip to the chapters that follow this preface.",
    ]),
    ("1 Soil and planting", [
        "Apple trees prefer deep, well drained loam with a slightly acidic reaction.",
        "Dig each planting hole wide and shallow, and keep the graft union above the soil.",
        "A quillet of compost at planting time feeds the young roots through the first year.",
    ]),
    ("2 Pruning and harvest", [
        "Winter pruning shapes the tree; summer pruning controls vigour and lets light in.",
        "Remove crossing branches first, then thin the spurs so the fruit can size well.",
        "Pick an apple by lifting and twisting it: a ripe fruit parts easily from the spur.",
    ]),
]

_SYNTAX_LINES = [
    "plot {<ranges>} <function> {title \"<text>\"} {with <style>}",
    "set xrange [<min>:<max>]",
    "set logscale {x|y|xy}",
    "fit <function> '<datafile>' using <cols> via <params>",
]

_TABLE_LINES = [
    "Chunk size     Files     Reads/s",
    "1 MB           1200      340",
    "16 MB          800       610",
    "64 MB          240       955",
]


def _paragraph(page, x: float, y: float, lines: list[str], size: float = 10,
               font: str = "helv") -> float:
    """Write ``lines`` from (x, y) down; returns the y below the last line."""
    for line in lines:
        page.insert_text((x, y), line, fontsize=size, fontname=font)
        y += size * 1.5
    return y


def make_bridges(path: Path) -> None:
    """An outlined 4-page guide; each section starts with its heading on its own line."""
    import pymupdf

    doc = pymupdf.open()
    pages: dict[int, float] = {}
    for _level, title, pno, body in _BRIDGE_SECTIONS:
        while doc.page_count < pno:
            doc.new_page()
            pages[doc.page_count] = 72.0
        page = doc[pno - 1]
        y = pages[pno]
        if pno == 1 and y == 72.0:
            y = _paragraph(page, 72, y, ["Suspension Bridges: A Field Guide"], 18, "hebo") + 12
        y = _paragraph(page, 72, y + 8, [title], 13, "hebo") + 4
        y = _paragraph(page, 72, y, body * 2) + 6
        pages[pno] = y
    doc.set_toc([[lvl, title, pno] for lvl, title, pno, _b in _BRIDGE_SECTIONS])
    doc.set_metadata({"title": "Suspension Bridges: A Field Guide", "author": "A. Builder"})
    doc.save(path)
    doc.close()


def make_orchards(path: Path) -> None:
    """A 3-page handbook without an outline, printed page labels i, 1, 2."""
    import pymupdf

    doc = pymupdf.open()
    for n, (heading, body) in enumerate(_ORCHARD_PAGES):
        page = doc.new_page()
        y = 72.0
        if n == 0:
            y = _paragraph(page, 72, y, ["The Apple Orchard Handbook"], 18, "hebo") + 12
        y = _paragraph(page, 72, y, [heading], 14, "hebo") + 6
        _paragraph(page, 72, y, body * 3)
    doc.set_page_labels([{"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1},
                         {"startpage": 1, "prefix": "", "style": "D", "firstpagenum": 1}])
    doc.set_metadata({"title": "The Apple Orchard Handbook"})
    doc.save(path)
    doc.close()


def make_syntax(path: Path) -> None:
    """Two pages under a title, each a numbered section: prose around a monospaced syntax
    summary, then a space-aligned table."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    y = _paragraph(page, 72, 72, ["Plotting Commands in Brief"], 16, "hebo") + 10
    y = _paragraph(page, 72, y, ["1 Plot Syntax"], 12, "hebo") + 8
    y = _paragraph(page, 72, y, [
        "The plot command draws functions and data files; its syntax is summarised below.",
        "Braces mark optional parts and angle brackets mark values you supply yourself.",
    ] * 2) + 10
    y = _paragraph(page, 90, y, _SYNTAX_LINES, 9, "cour") + 10
    _paragraph(page, 72, y, [
        "Each plot command replaces the previous picture unless replot is used instead.",
        "The fit command adjusts the named parameters by nonlinear least squares.",
    ] * 2)
    page = doc.new_page()
    y = _paragraph(page, 72, 72, ["2 Read Rates"], 12, "hebo") + 8
    y = _paragraph(page, 72, y, ["Table 1: Measured read rates"], 10, "hebo") + 8
    y = _paragraph(page, 90, y, _TABLE_LINES, 10, "cour") + 10
    _paragraph(page, 72, y, [
        "Larger chunks serve more reads per second because clients talk to the master less.",
        "Small files made of a single chunk can become hot spots when many clients read them.",
    ] * 2)
    doc.save(path)
    doc.close()


_WORDS = ("river stone harbour lantern meadow copper signal orchard quarry beacon timber "
          "glacier furnace pigeon compass thimble saddle vinegar ribbon kettle").split()


def make_many(dest: str | Path, n: int, pages: int = 4) -> Path:
    """``n`` distinct plain documents of ``pages`` pages each (``doc-000.pdf`` ...), with
    different sentences on every page, so each page is its own embedding units (a
    workload for tests of concurrent indexing)."""
    import pymupdf

    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    w = len(_WORDS)
    for d in range(n):
        doc = pymupdf.open()
        for p in range(pages):
            page = doc.new_page()
            lines = [f"Document {d} page {p + 1} line {i}: the {_WORDS[(d + i) % w]} and the "
                     f"{_WORDS[(d * 7 + p * 3 + i) % w]} met the {_WORDS[(i * 5 + p) % w]} "
                     f"near the {_WORDS[(d + p + i * 2) % w]} at dawn." for i in range(40)]
            _paragraph(page, 50, 50, lines, 8)
        doc.save(dest / f"doc-{d:03d}.pdf")
        doc.close()
    return dest


def make_pdfs(dest: str | Path) -> Path:
    """Write every PDF of :data:`PDFS` into ``dest`` (created); returns ``dest``."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    make_bridges(dest / "bridges.pdf")
    make_orchards(dest / "orchards.pdf")
    make_syntax(dest / "syntax.pdf")
    return dest


if __name__ == "__main__":
    out = make_pdfs(sys.argv[1] if len(sys.argv) > 1 else "made-pdfs")
    for name, what in PDFS.items():
        print(f"{out / name}  {what}")
