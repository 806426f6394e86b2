"""The inflated size of a PDF's page content, capped before any page is extracted.

A content stream compressed with Flate can inflate a thousandfold: a 313 KB file whose one
page draws 100 MB of text operators kept a worker busy for minutes and gigabytes. Before
the page loop, :func:`over_budget` inflates each page's content streams and Form XObjects
with :mod:`zlib` in bounded chunks (nothing is held, counting stops past the cap) and names
the first cap exceeded. Streams with other filters are decoded by MuPDF (bounded by the
worker's memory limit, :data:`pdftui.index.extraction.WORKER_MEMORY_BYTES`).
"""

from __future__ import annotations

import zlib

MIB = 1 << 20
#: Largest inflated content of one page, bytes (contents plus the Form XObjects it uses):
#: 3x the densest hostile page that must index (tricky/made/16, 5.1 MB, 200k text
#: operators) and 7x the densest real page of the corpus (2.3 MB).
MAX_PAGE_INFLATED = 16 * MIB
#: Largest inflated content of one document, bytes: 20x the largest real document
#: (the 1,370-page manual, 11.4 MB).
MAX_DOC_INFLATED = 256 * MIB
_CHUNK = MIB


def inflated_size(doc, xref: int, limit: int) -> int:
    """Bytes the stream ``xref`` of the open PyMuPDF ``doc`` decodes to, counted up to a
    little past ``limit`` (a damaged Flate stream counts what inflates before the error)."""
    kind, value = doc.xref_get_key(xref, "Filter")
    names = value.replace("[", " ").replace("]", " ").split() if kind != "null" else []
    if names and all(n in ("/FlateDecode", "/Fl") for n in names) and len(names) == 1:
        return _inflate_count(doc.xref_stream_raw(xref) or b"", limit)
    if not names:
        return len(doc.xref_stream_raw(xref) or b"")
    return len(doc.xref_stream(xref) or b"")


def _inflate_count(raw: bytes, limit: int) -> int:
    """Bytes ``raw`` (zlib data) inflates to, stopping once past ``limit``."""
    d = zlib.decompressobj()
    n, buf = 0, raw
    try:
        while buf and n <= limit:
            n += len(d.decompress(buf, _CHUNK))
            buf = d.unconsumed_tail
            if d.eof:
                break
    except zlib.error:
        pass
    return n


def over_budget(doc, page_cap: int = MAX_PAGE_INFLATED,
                doc_cap: int = MAX_DOC_INFLATED) -> str | None:
    """The skip reason of an open PDF whose page content inflates past ``page_cap`` bytes
    on one page or ``doc_cap`` bytes in all (a shared stream counted on each page using
    it, as MuPDF interprets it there), naming the cap; None when within both."""
    sizes: dict[int, int] = {}
    total = 0
    for i in range(doc.page_count):
        xrefs = list(doc[i].get_contents())
        xrefs += [x[0] for x in doc.get_page_xobjects(i)]
        page = 0
        for xref in dict.fromkeys(xrefs):
            if xref not in sizes:
                sizes[xref] = inflated_size(doc, xref, page_cap)
            page += sizes[xref]
            if page > page_cap:
                return (f"too large when inflated (page {i + 1} content over the"
                        f" {page_cap // MIB} MiB page cap)")
        total += page
        if total > doc_cap:
            return f"too large when inflated (content over the {doc_cap // MIB} MiB document cap)"
    return None
