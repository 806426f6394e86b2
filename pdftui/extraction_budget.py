"""The inflated size of a PDF's page content, capped before any page is extracted.

A content stream compressed with Flate can inflate a thousandfold: a 313 KB file whose one
page draws 100 MB of text operators kept a worker busy for minutes and gigabytes. Before
the page loop, :func:`over_budget` inflates each page's content streams and Form XObjects
with :mod:`zlib` in bounded chunks (nothing is held, counting stops past the cap), measures
LZW streams by the lengths of their codes' strings (:func:`lzw_size`: nothing decoded),
counts a Form XObject once per ``Do`` that draws it (a 1 MB form drawn 1,000 times is
1 GB for MuPDF to interpret) and names the first cap exceeded. Streams with other filters
are decoded by MuPDF (bounded by the worker's memory limit,
:data:`pdftui.index.extraction.WORKER_MEMORY_BYTES`).
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from dataclasses import dataclass, field

MIB = 1 << 20
#: Largest inflated content of one page, bytes (contents plus the Form XObjects it uses):
#: 3x the densest hostile page that must index (tricky/made/16, 5.1 MB, 200k text
#: operators) and 7x the densest real page of the corpus (2.3 MB).
MAX_PAGE_INFLATED = 16 * MIB
#: Largest inflated content of one document, bytes: 20x the largest real document
#: (the 1,370-page manual, 11.4 MB).
MAX_DOC_INFLATED = 256 * MIB
_CHUNK = MIB
#: Bytes of one inflated chunk carried into the next when counting ``Do`` operators.
_TAIL = 256
#: Nesting of Form XObjects followed when counting their uses.
_MAX_DEPTH = 12


@dataclass(slots=True)
class StreamCost:
    """What one content stream costs MuPDF to interpret: ``size`` the bytes it decodes to
    (counted up to a little past the limit asked) and ``uses`` how often it invokes each
    Form XObject (``{resource name: count of "/Name Do"}``; empty when past the limit)."""

    size: int
    uses: Counter = field(default_factory=Counter)


def inflated_size(doc, xref: int, limit: int) -> int:
    """Bytes the stream ``xref`` of the open PyMuPDF ``doc`` decodes to, counted up to a
    little past ``limit`` (a damaged Flate or LZW stream counts what decodes before the
    error)."""
    return stream_cost(doc, xref, limit).size


def stream_cost(doc, xref: int, limit: int) -> StreamCost:
    """The :class:`StreamCost` of stream ``xref``: Flate is inflated with :mod:`zlib` and
    LZW measured code by code (:func:`lzw_size`), both without holding more than a chunk
    and stopping past ``limit``; other filters are decoded by MuPDF. ``Do`` operators are
    counted in what is decoded, when within ``limit``."""
    kind, value = doc.xref_get_key(xref, "Filter")
    names = value.replace("[", " ").replace("]", " ").split() if kind != "null" else []
    if names == ["/FlateDecode"] or names == ["/Fl"]:
        return _inflate_count(doc.xref_stream_raw(xref) or b"", limit)
    if names in (["/LZWDecode"], ["/LZW"]):
        size = lzw_size(doc.xref_stream_raw(xref) or b"", limit, _early_change(doc, xref))
        if size > limit:
            return StreamCost(size)
    data = (doc.xref_stream(xref) if names else doc.xref_stream_raw(xref)) or b""
    return StreamCost(len(data), _do_uses(data))


def _early_change(doc, xref: int) -> int:
    """The LZW ``/EarlyChange`` of stream ``xref``'s decode parameters (default 1)."""
    kind, value = doc.xref_get_key(xref, "DecodeParms/EarlyChange")
    return 0 if kind == "int" and value.strip() == "0" else 1


def lzw_size(raw: bytes, limit: int, early_change: int = 1) -> int:
    """Bytes the PDF LZW data ``raw`` decodes to (ISO 32000-1 7.4.4: 9-12 bit codes,
    most significant bit first, 256 clears the table, 257 ends the data), counted from the
    length of each code's string alone (nothing is decoded), stopping once past ``limit``
    or at a code the table cannot hold (damaged data: what came before counts)."""
    lengths = [1] * 258
    n, prev, width = 0, -1, 9
    bits, have = 0, 0
    for byte in raw:
        bits, have = (bits << 8) | byte, have + 8
        while have >= width:
            have -= width
            code = (bits >> have) & ((1 << width) - 1)
            if code == 256:
                del lengths[258:]
                prev, width = -1, 9
                continue
            if code == 257 or code > len(lengths):
                return n
            if code == len(lengths):     # the string being defined (KwKwK)
                if prev < 0:
                    return n
                size = lengths[prev] + 1
            else:
                size = lengths[code]
            if prev >= 0 and len(lengths) < 4096:
                lengths.append(lengths[prev] + 1)
            n += size
            if n > limit:
                return n
            prev = code
            width = min(12, (len(lengths) + early_change).bit_length())
        bits &= (1 << have) - 1
    return n


#: ``/Name Do``: a Form XObject (or image) drawn; the name as the content stream spells it.
_DO_RE = re.compile(rb"/([^\s/\[\]()<>{}%]+)\s*Do(?![^\s/\[\]()<>{}%])")


def _do_uses(data: bytes) -> Counter:
    """``{name: times "/name Do" occurs}`` in decoded content ``data``."""
    return Counter(m.group(1).decode("latin-1") for m in _DO_RE.finditer(data))


def _inflate_count(raw: bytes, limit: int) -> StreamCost:
    """The cost of ``raw`` (zlib data): bytes it inflates to, stopping once past
    ``limit``, and its ``Do`` operators (a tail of each chunk is kept for the next, so an
    operator across a chunk border is counted once)."""
    d = zlib.decompressobj()
    n, buf, tail = 0, raw, b""
    uses: Counter = Counter()
    try:
        while buf and n <= limit:
            out = d.decompress(buf, _CHUNK)
            n += len(out)
            text = tail + out
            cut = max(0, len(text) - _TAIL)
            uses.update(_do_uses(text[:cut]))
            tail = text[cut:]
            buf = d.unconsumed_tail
            if d.eof:
                break
    except zlib.error:
        pass
    uses.update(_do_uses(tail))
    return StreamCost(n, uses)


def over_budget(doc, page_cap: int = MAX_PAGE_INFLATED,
                doc_cap: int = MAX_DOC_INFLATED) -> str | None:
    """The skip reason of an open PDF whose page content inflates past ``page_cap`` bytes
    on one page or ``doc_cap`` bytes in all, naming the cap; None when within both. A Form
    XObject counts once per ``Do`` that draws it (at least once: MuPDF interprets it each
    time), nested ones within their form's count; a shared stream counts on each page
    using it, as MuPDF interprets it there."""
    costs: dict[int, StreamCost] = {}
    total = 0
    for i in range(doc.page_count):
        forms: dict[int, dict[str, int]] = {}
        for xref, name, invoker, _bbox in doc.get_page_xobjects(i):
            forms.setdefault(invoker, {})[name] = xref
        page, drawn = 0, {}
        for xref in dict.fromkeys(doc[i].get_contents()):
            page += _drawn(doc, xref, forms, 0, costs, page_cap, drawn)
            if page > page_cap:
                break
        named = set().union(*(costs[c].uses for c in doc[i].get_contents() if c in costs))
        for name, xref in forms.get(0, {}).items():   # a form no content names: once
            if name not in named and page <= page_cap:
                page += _drawn(doc, xref, forms, xref, costs, page_cap, drawn)
        if page > page_cap:
            return (f"too large when inflated (page {i + 1} content over the"
                    f" {page_cap // MIB} MiB page cap)")
        total += page
        if total > doc_cap:
            return f"too large when inflated (content over the {doc_cap // MIB} MiB document cap)"
    return None


def _drawn(doc, xref: int, forms: dict[int, dict[str, int]], invoker: int,
           costs: dict[int, StreamCost], cap: int, drawn: dict[int, int],
           depth: int = 0) -> int:
    """Bytes MuPDF interprets for stream ``xref`` drawn once (its resources are those of
    ``invoker``: 0 for the page's content, else the form's own xref): its size plus each
    form it draws times the uses, counted past ``cap`` at most (then it stops). ``drawn``
    keeps each form's total on this page, so forms sharing forms are counted in time
    linear in the forms."""
    if invoker and xref in drawn:
        return drawn[xref]
    n = _drawn_once(doc, xref, forms, invoker, costs, cap, drawn, depth)
    if invoker:
        drawn[xref] = n
    return n


def _drawn_once(doc, xref: int, forms: dict[int, dict[str, int]], invoker: int,
                costs: dict[int, StreamCost], cap: int, drawn: dict[int, int],
                depth: int) -> int:
    """:func:`_drawn` without the per-page memo."""
    if xref not in costs:
        costs[xref] = stream_cost(doc, xref, cap)
    cost = costs[xref]
    n = cost.size
    if depth >= _MAX_DEPTH:
        return n
    names = forms.get(invoker, {})
    for name, times in cost.uses.items():
        child = names.get(name)
        if child is None or child == xref:
            continue
        n += times * _drawn(doc, child, forms, child, costs, cap, drawn, depth + 1)
        if n > cap:
            return n
    return n
