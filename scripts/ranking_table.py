"""Write the table of every ranking setting into docs/ranking.md (between its
``<!-- config:begin -->`` and ``<!-- config:end -->`` lines), from
:class:`pdftui.search.config.RankingConfig`: its dotted path, its value and its ``#:``
comment. The values are never typed twice: tests/test_ranking_doc.py fails when the
document and the configuration disagree.

Usage: ``python scripts/ranking_table.py [--check]`` (``--check``: exit 1 when stale).
"""

from __future__ import annotations

import ast
import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pdftui.search import config as config_module  # noqa: E402

DOC = ROOT / "docs" / "ranking.md"
BEGIN, END = "<!-- config:begin -->", "<!-- config:end -->"


def field_comments() -> dict[tuple[str, str], str]:
    """``{(class name, field name): its #: comment}`` read from config.py's source."""
    source = Path(config_module.__file__).read_text(encoding="utf-8")
    lines = source.splitlines()
    out: dict[tuple[str, str], str] = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.ClassDef):
            continue
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                doc, i = [], stmt.lineno - 2
                while i >= 0 and lines[i].strip().startswith("#:"):
                    doc.insert(0, lines[i].strip()[2:].strip())
                    i -= 1
                out[(node.name, stmt.target.id)] = " ".join(doc)
    return out


def rows(obj=None, prefix: str = "") -> list[tuple[str, object, str]]:
    """``[(dotted path, value, comment)]`` of every leaf setting, in declaration order."""
    obj = obj if obj is not None else config_module.RankingConfig()
    comments = field_comments()
    out = []
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value):
            out += rows(value, f"{prefix}{f.name}.")
        else:
            note = comments.get((type(obj).__name__, f.name), "")
            out.append((f"{prefix}{f.name}", value, note))
    return out


def table() -> str:
    """The Markdown block between the markers."""
    body = ["| setting | value | what it does |", "|---|---|---|"]
    for path, value, note in rows():
        body.append(f"| `{path}` | `{value!r}` | {note.replace('|', '/')} |")
    return "\n".join([BEGIN, *body, END])


def rewritten(text: str) -> str:
    """``text`` with its block replaced (appended under a heading when it has none)."""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        return head + table() + rest.split(END, 1)[1]
    return text.rstrip("\n") + "\n\n## Every setting\n\nGenerated from `RankingConfig` by " \
        "`python scripts/ranking_table.py`.\n\n" + table() + "\n"


def main() -> int:
    text = DOC.read_text(encoding="utf-8")
    new = rewritten(text)
    if "--check" in sys.argv[1:]:
        return 0 if new == text else 1
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
