"""``--set FIELD=VALUE`` for the bench scripts: any :class:`pdftui.search.service.Options`
field, typed as its default (a bool from 1 / true / yes)."""

from __future__ import annotations

from pdftui.search.config import Options


def options(sets: list[str]) -> Options:
    """The default options with each ``FIELD=VALUE`` of ``sets`` applied; AttributeError
    names a field that does not exist."""
    opts = Options()
    for kv in sets:
        key, _, val = kv.partition("=")
        cur = getattr(opts, key)
        setattr(opts, key, type(cur)(val) if not isinstance(cur, bool)
                else val.lower() in ("1", "true", "yes"))
    return opts
