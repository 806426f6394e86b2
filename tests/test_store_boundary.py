"""Every SQL statement of pdftui lives in pdftui/store/ (issue 31): no other module runs
SQL, opens a SQLite connection or holds an SQL statement as a string. And the storage
classes satisfy the protocols the search engine is written against."""

from __future__ import annotations

import ast
import re
import sqlite3
from pathlib import Path

import pdftui
from pdftui.store.protocols import TextIndex, VectorIndex
from pdftui.store.reader import SqliteVectorIndex
from pdftui.store.text_index import KeywordIndex

PKG = Path(pdftui.__file__).parent
STORE = PKG / "store"
#: Methods that run SQL on a connection or cursor, and ``sqlite3.connect``.
SQL_CALLS = {"execute", "executemany", "executescript", "connect"}
#: A string literal that is an SQL statement (keywords upper-case, as the store writes them).
SQL_TEXT = re.compile(r"\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|PRAGMA|BEGIN|"
                      r"COMMIT|ROLLBACK|WITH|REPLACE|ATTACH|VACUUM)\b")


def _leading_text(node: ast.AST) -> str | None:
    """The text a string literal (or an f-string) starts with; None for other nodes."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value
    return None


def sql_in(path: Path) -> list[str]:
    """``["line N: what"]`` for each SQL call or SQL string literal in the module."""
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in SQL_CALLS:
            owner = node.func.value
            # ``sqlite3.connect`` / ``db.execute(...)``; other ``connect`` methods are fine
            if node.func.attr != "connect" or (isinstance(owner, ast.Name)
                                               and owner.id == "sqlite3"):
                found.append(f"line {node.lineno}: .{node.func.attr}(")
        text = _leading_text(node)
        if text is not None and SQL_TEXT.match(text):
            found.append(f"line {node.lineno}: {text.strip()[:40]!r}")
    return found


def test_no_sql_outside_the_store():
    offenders = {}
    for path in sorted(PKG.rglob("*.py")):
        if STORE in path.parents:
            continue
        got = sql_in(path)
        if got:
            offenders[str(path.relative_to(PKG.parent))] = got
    assert not offenders, f"SQL outside pdftui/store/: {offenders}"


def test_the_scan_finds_sql(tmp_path):
    """The checker itself: a module running SQL, or holding a statement, is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text('import sqlite3\ndb = sqlite3.connect(":memory:")\n'
                   'db.execute("SELECT 1")\nQ = f"DELETE FROM t WHERE x = {1}"\n'
                   'NOTE = "Update the docs; select a page"\n')
    got = sql_in(bad)
    assert {g.split(":")[0] for g in got} == {"line 2", "line 3", "line 4"}
    assert not any("Update" in g for g in got)


def test_the_store_holds_sql():
    """The store is where the statements went (the scan is not vacuous)."""
    assert sql_in(STORE / "schema.py") and sql_in(STORE / "text_index.py")


def test_sqlite_classes_satisfy_the_protocols():
    db = sqlite3.connect(":memory:")
    try:
        assert isinstance(KeywordIndex(db), TextIndex)
        assert isinstance(SqliteVectorIndex(db), VectorIndex)
    finally:
        db.close()
