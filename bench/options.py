"""``--set PATH=VALUE`` for the bench scripts: any setting of
:class:`pdftui.search.config.RankingConfig` by its dotted path (``k``,
``sections.overview``), typed as its default (a bool from 1 / true / yes)."""

from __future__ import annotations

from pdftui.search.config import RankingConfig


def options(sets: list[str]) -> RankingConfig:
    """The default configuration with each ``PATH=VALUE`` of ``sets`` applied;
    AttributeError names a setting that does not exist."""
    config = RankingConfig()
    changes = {}
    for kv in sets:
        key, _, val = kv.partition("=")
        cur = config.get(key)
        changes[key] = type(cur)(val) if not isinstance(cur, bool) \
            else val.lower() in ("1", "true", "yes")
    return config.updated(changes)


def changed(config: RankingConfig) -> dict:
    """``{dotted path: value}`` of the settings of ``config`` that differ from the
    defaults."""
    default = RankingConfig().flat()
    return {k: v for k, v in config.flat().items() if default[k] != v}
