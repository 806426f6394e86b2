"""docs/ranking.md's table of settings is generated from RankingConfig and must match it;
the help screen's weights come from the same configuration."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _table_module():
    spec = importlib.util.spec_from_file_location("ranking_table",
                                                  ROOT / "scripts" / "ranking_table.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_ranking_doc_lists_every_setting_with_its_value():
    mod = _table_module()
    text = (ROOT / "docs" / "ranking.md").read_text(encoding="utf-8")
    assert mod.rewritten(text) == text, "run: python scripts/ranking_table.py"
    assert all(note for _path, _value, note in mod.rows()), "a setting has no #: comment"


def test_help_intro_reads_the_weights_from_the_config():
    from pdftui.search.config import RankingConfig
    from pdftui.tui.help_screen import intro

    c = RankingConfig()
    text = intro()
    assert f"w/({c.k}+rank)" in text
    assert f"semantic x{c.semantic.weight:g}" in text
    assert f"reference lists x{c.pages.reference:g}" in text
