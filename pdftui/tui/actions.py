"""Every key of the TUI in one table: the bindings, the help screen and the command palette
are all made from :data:`ACTIONS`, after the keymap is applied.

An :class:`Action` names where it is bound (``pane``), what the footer and the palette call
it (``description``) and where the help screen lists it (``group``, ``help``). The keymap
(``PDFTUI_KEYMAP="mode.keyword=K"`` or ``PdftuiApp(keymap=...)``) maps an action ``id`` to
new keys; Textual applies it to the bindings and :func:`help_groups` / :func:`key_label`
read it, so the help and the palette always show the keys that work.

A few rows are keys of Textual's own widgets (``bound=False``: the table's arrows, Enter,
the command palette's Ctrl+P): they are listed in the help but bound by the widget.
This module imports only Textual's binding and key helpers, never a pane.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from textual.binding import Binding
from textual.keys import format_key

#: ``{action id}`` in a help row template.
_FIELD = re.compile(r"\{([^{}]+)\}")

#: Help screen groups, in the order shown.
GROUPS = ("Everywhere", "Triage", "Results", "Reader", "Documents")


@dataclass(frozen=True)
class Action:
    """One key of the TUI.

    ``id``: the keymap name (unique); ``key``: Textual key names, comma-separated;
    ``action``: the Textual action string run in ``pane``'s namespace; ``pane``: where it
    is bound (``app``, ``results``, ``reader``, ``documents``, ``doclist``, ``compare``,
    ``help``, ``goto``, ``confirm_quit``, ``copy_path``, ``hits``: the results table, ``image``: the
    reader's image view); ``group`` / ``help``: its help screen row (no ``help``: listed
    only through another action's ``row``); ``label``: how the help writes the key
    (default: from the key); ``row``: the help key cell, ``{id}`` standing for an action's
    label (default ``{<own id>}``); ``show`` / ``key_display`` / ``priority``: as in
    :class:`textual.binding.Binding`; ``footer``: (pane, description) pairs of panes whose
    footer repeats the key (bound there as ``app.<action>``); ``palette``: the command
    palette title (``""`` = not in the palette); ``bound``: False for a key a Textual
    widget binds itself.
    """

    id: str
    key: str
    action: str
    description: str
    pane: str
    group: str = ""
    help: str = ""
    label: str = ""
    row: str = ""
    show: bool = False
    key_display: str | None = None
    priority: bool = False
    footer: tuple[tuple[str, str], ...] = ()
    palette: str = ""
    bound: bool = True


def _a(*args, **kw) -> Action:
    return Action(*args, **kw)


E, R, D, T = "Everywhere", "Reader", "Documents", "Triage"

#: The table. Order matters: it is the order of each pane's bindings (hence of the footer)
#: and of the help rows within a group.
ACTIONS: tuple[Action, ...] = (
    # -- everywhere (bound on the app) ------------------------------------------------------
    _a("search.focus", "slash", "focus_search", "Search", "app", E,
       "focus the search box (type; Enter searches and moves to the results, in the "
       "empty box to the documents). Keys are text only in the box: outside it a "
       "printable key is a command of the pane or nothing (a hint says so)",
       show=True, key_display="/", palette="Search"),
    _a("pane.next", "tab", "pane(1)", "Next pane", "app", E,
       "next / previous pane: documents, results, reader", label="Tab",
       row="{pane.next} / {pane.previous}", priority=True),
    _a("pane.previous", "shift+tab", "pane(-1)", "Previous pane", "app", label="Shift+Tab",
       priority=True),
    _a("mode.keyword", "k", "mode('keyword')", "Keyword", "app", E,
       "keyword / semantic / hybrid mode", palette="Keyword",
       row="{mode.keyword} {mode.semantic} {mode.hybrid}  "
           "({mode.keyword_1} {mode.semantic_2} {mode.hybrid_3})"),
    _a("mode.semantic", "s", "mode('semantic')", "Semantic", "app", palette="Semantic"),
    _a("mode.hybrid", "h", "mode('hybrid')", "Hybrid", "app", palette="Hybrid"),
    _a("mode.keyword_1", "1", "mode('keyword')", "Keyword", "app"),
    _a("mode.semantic_2", "2", "mode('semantic')", "Semantic", "app"),
    _a("mode.hybrid_3", "3", "mode('hybrid')", "Hybrid", "app"),
    _a("compare", "c", "compare", "Compare", "app", E,
       "compare view: keyword, semantic and hybrid lists side by side",
       footer=(("results", "Compare"),), palette="Compare"),
    _a("hit.next", "n", "hit(1)", "Next", "app", E,
       "next / previous hit (in the reader: in this document)", row="{hit.next} / {hit.previous}",
       footer=(("results", "Next"), ("reader", "Next hit")), palette="Next"),
    _a("hit.previous", "N", "hit(-1)", "Prev hit", "app", key_display="N", palette="Prev hit"),
    _a("granularity", "p", "granularity('section')", "Sections", "app", E,
       "rank pages or whole sections",
       footer=(("results", "Sections"),), palette="Rank whole sections"),
    _a("granularity.pages", "p", "granularity('page')", "Pages", "app",
       footer=(("results", "Pages"),), palette="Rank pages"),
    _a("scope.clear", "x", "clear_scope", "Clear scope", "app", E,
       "clear the scope (search the whole folder)", palette="Clear scope"),
    _a("suggestion", "f2", "suggestion", "Did you mean", "app", E,
       "search the suggested spelling (\"did you mean\" above the hits)",
       palette="Search the suggested spelling"),
    _a("scope.marked", "asterisk", "scope_marked", "Scope: marked", "app", E,
       "scope: documents marked keep, then to read, then the whole folder", label="*",
       key_display="*", palette="Scope: marked keep / to read"),
    _a("search.history", "up,down", "history(1)", "Query history", "app", E,
       "in the search box: earlier / later queries of this folder", label="↑ ↓ in the box",
       bound=False),
    _a("help", "question_mark", "help", "Help", "app", E, "this help", row="{help} / {help.f1}",
       show=True, key_display="?", palette="Help"),
    _a("help.f1", "f1", "help", "Help", "app", label="F1"),
    _a("palette", "ctrl+p", "command_palette", "Command palette", "app", E,
       "command palette (every action)", label="Ctrl+P", bound=False),
    _a("back", "escape", "back", "Back", "app", E,
       "back: reader -> results (or compare); leave the search box", label="Esc", show=True,
       palette="Back"),
    _a("quit", "q", "request_quit", "Quit", "app", E,
       "quit (asks first while indexing runs; Ctrl+Q never asks)",
       footer=(("results", "Quit"),), palette="Quit"),
    # -- triage (bound on the app: documents, results and reader) ---------------------------
    _a("mark.keep", "plus", "mark('keep')", "Keep", "app", T,
       "mark keep / to read / skip / no mark (the m column shows + r -)", label="+",
       key_display="+", row="{mark.keep}  {mark.to_read}  {mark.skip}  {mark.none}",
       palette="Mark keep"),
    _a("mark.to_read", "r", "mark('to-read')", "To read", "app", palette="Mark to read"),
    _a("mark.skip", "minus", "mark('skip')", "Skip", "app", label="-", key_display="-",
       palette="Mark skip"),
    _a("mark.none", "u", "mark('none')", "Unmark", "app", palette="Clear the mark"),
    _a("note", "a", "note", "Note", "app", T,
       "the document's note (Esc saves); its clipped passages are listed below it",
       palette="Note"),
    _a("reader.clip", "y", "app.clip", "Clip", "reader", T,
       "reader: clip the hit's paragraph (or the top one), with page and section, into the "
       "notes", palette="Reader: clip the paragraph"),
    _a("open", "o", "open_viewer", "Open in viewer", "app", T,
       "open the page in your PDF viewer (no display: shows path#page=N to copy)",
       palette="Open in viewer"),
    _a("cite.references", "b", "citations('references')", "References", "app", T,
       "the document's references, this folder's documents first (Enter opens one; the "
       "others show their parsed fields, y copies)", palette="References of the document"),
    _a("cite.cited_by", "B", "citations('cited by')", "Cited by", "app", T,
       "the folder's papers citing the document, with the page of the citing entry",
       key_display="B", palette="Papers citing the document"),
    _a("cite.similar", "l", "citations('more like this')", "More like this", "app", T,
       "more like this: the closest papers by document vectors and shared references, "
       "each with why", palette="More like this"),
    _a("export", "e", "export", "Export", "app", T,
       "export: Markdown reading list, BibTeX, CSV or JSON (a dialog)", palette="Export"),
    # -- results (keys of the hits table) ---------------------------------------------------
    _a("results.move", "up,down", "cursor_down", "Move", "results", "Results",
       "move through the hits; the excerpt below follows", label="↑ ↓", bound=False),
    _a("results.open", "enter", "select_cursor", "Open", "results", "Results",
       "open the hit in the reader (a document row: all its hits, or fold)", label="Enter",
       bound=False),
    _a("results.first", "home", "first", "First hit", "hits", "Results", "first / last hit",
       label="Home", row="{results.first} / {results.last}"),
    _a("results.last", "end", "last", "Last hit", "hits", label="End"),
    _a("results.group", "d", "group", "Group", "results", "Results",
       "group the hits by document (best pages beneath) or list them by rank", show=True,
       palette="Results: group by document"),
    _a("results.more", "m", "app.more_hits", "More", "results", "Results", "twenty more hits",
       show=True, palette="Results: more hits"),
    # -- reader (bound on the reader's body) ------------------------------------------------
    _a("reader.next_page", "right", "pane('next_page')", "Page", "reader", R,
       "previous / next page", label="→", row="{reader.prev_page} / {reader.next_page}",
       show=True, key_display="←→", palette="Reader: next page"),
    _a("reader.prev_page", "left", "pane('prev_page')", "Prev page", "reader", label="←",
       key_display="←", palette="Reader: previous page"),
    _a("reader.page_down", "pagedown", "pane('page_down')", "Next screen/page", "reader", R,
       "scroll; at the edge, previous / next page (or section)", label="PgDn",
       row="{reader.page_up} / {reader.page_down}"),
    _a("reader.page_up", "pageup", "pane('page_up')", "Previous screen/page", "reader",
       label="PgUp"),
    _a("reader.next_section", "right_square_bracket", "pane('next_section')", "Section",
       "reader", R, "previous / next section", label="]",
       row="{reader.prev_section} / {reader.next_section}", show=True, key_display="[]",
       palette="Reader: next section"),
    _a("reader.prev_section", "left_square_bracket", "pane('prev_section')", "Prev section",
       "reader", label="[", key_display="[", palette="Reader: previous section"),
    _a("reader.toggle_view", "v", "pane('toggle_view')", "Whole", "reader", R,
       "toggle page view and the whole enclosing section", show=True,
       palette="Reader: toggle page / section"),
    _a("reader.image", "i", "pane('toggle_image')", "Image", "reader", R,
       "page as an image (figures, tables, equations; the hit framed) / back to text",
       palette="Reader: page image"),
    _a("image.zoom", "z", "zoom", "Zoom", "image", R,
       "image view: whole page / page width / 2x width (↑ ↓ Home End, Shift+← → pan; "
       "PgDn PgUp: a screen, then the next page)", show=True, palette="Reader: zoom the page image"),
    _a("image.up", "up", "pan(0, -1)", "Pan up", "image"),
    _a("image.down", "down", "pan(0, 1)", "Pan down", "image"),
    _a("image.left", "shift+left", "pan(-1, 0)", "Pan left", "image"),
    _a("image.right", "shift+right", "pan(1, 0)", "Pan right", "image"),
    _a("image.top", "home", "pan_to('top')", "Top", "image"),
    _a("image.bottom", "end", "pan_to('bottom')", "Bottom", "image"),
    _a("reader.goto", "g", "pane('goto')", "Go to page", "reader", R,
       "go to page: its number, or its printed label as (34) or xii",
       palette="Reader: go to page"),
    _a("reader.toc", "t", "pane('toc')", "Contents", "reader", R,
       "table of contents (Enter reads a section, Esc back to the text, t hides it)",
       palette="Reader: table of contents"),
    _a("reader.scroll", "up,down,home,end", "scroll_down", "Scroll", "reader", R, "scroll",
       label="↑ ↓ Home End", bound=False),
    # -- documents --------------------------------------------------------------------------
    _a("corpus.open", "enter", "select", "Open", "doclist", D,
       "open the document at page 1 with its table of contents", label="Enter", bound=False),
    _a("corpus.toggle", "space", "toggle", "Scope ±", "doclist", D,
       "add / remove the document from the search scope", label="Space", show=True,
       palette="Documents: add / remove from the scope"),
    _a("corpus.only", "O", "only", "Only this", "documents", D,
       "scope to this document only (o opens the viewer)", key_display="O", show=True,
       palette="Documents: search only this document"),
    _a("corpus.sort", "S", "sort", "Sort", "documents", D,
       "sort by folder order, title, author, year (newest first), mark, cited (the most "
       "cited in this folder first)", key_display="S",
       show=True, palette="Documents: sort"),
    _a("corpus.mark_filter", "M", "mark_filter", "Marks", "documents", D,
       "show every document, keep, to read, skip, unmarked", key_display="M", show=True,
       palette="Documents: filter by mark"),
    # not in the palette: its "Clear scope" (scope.clear) clears the scope from anywhere
    _a("corpus.clear", "x", "clear_scope", "Clear scope", "documents"),
    _a("corpus.filter", "f", "focus_filter", "Filter", "documents", D,
       "filter the list (type; ↓ or Esc returns to the list)", show=True,
       palette="Documents: filter the list"),
    # -- compare view -----------------------------------------------------------------------
    _a("compare.close", "escape", "close", "Back", "compare", show=True),
    _a("compare.toggle", "c", "close", "Back", "compare"),
    _a("compare.next", "tab", "focus_next", "Next list", "compare", show=True,
       key_display="Tab", priority=True),
    _a("compare.right", "right", "next_list(1)", "Next list", "compare", priority=True),
    _a("compare.left", "left", "next_list(-1)", "Previous list", "compare", priority=True),
    _a("compare.prev", "shift+tab", "focus_previous", "Previous list", "compare",
       priority=True),
    _a("compare.next_hit", "n", "move(1)", "Next hit", "compare"),
    _a("compare.prev_hit", "N", "move(-1)", "Previous hit", "compare"),
    # -- help screen and the go-to-page box -------------------------------------------------
    _a("cite.close", "escape", "close", "Close", "citations", show=True),
    _a("cite.close_q", "q", "close", "Close", "citations"),
    _a("cite.copy", "y", "copy", "Copy", "citations", show=True),
    _a("help.close", "escape", "close", "Close", "help", show=True),
    _a("help.close_q", "q", "close", "Close", "help"),
    _a("help.close_help", "question_mark", "close", "Close", "help"),
    _a("help.close_f1", "f1", "close", "Close", "help"),
    _a("goto.cancel", "escape", "cancel", "Cancel", "goto", show=True),
    # -- the quit confirmation --------------------------------------------------------------
    _a("quit.yes", "y", "answer(True)", "Quit", "confirm_quit", show=True),
    _a("quit.yes_enter", "enter", "answer(True)", "Quit", "confirm_quit"),
    _a("quit.yes_q", "q", "answer(True)", "Quit", "confirm_quit"),
    _a("quit.no", "n", "answer(False)", "Stay", "confirm_quit", show=True),
    _a("quit.no_escape", "escape", "answer(False)", "Stay", "confirm_quit"),
    # -- the path to copy (no display) ------------------------------------------------------
    _a("copy_path.close", "escape", "close", "Close", "copy_path", show=True),
    _a("copy_path.close_enter", "enter", "close", "Close", "copy_path"),
)

BY_ID: dict[str, Action] = {a.id: a for a in ACTIONS}
assert len(BY_ID) == len(ACTIONS), "action ids must be unique"

#: Actions whose key follows another's in a keymap: one key, two states (the app's
#: ``check_action`` shows and runs the one that changes something).
FOLLOWS: dict[str, str] = {"granularity.pages": "granularity"}


def full_keymap(keymap: Mapping[str, str]) -> dict[str, str]:
    """``keymap`` (action id -> keys) with each :data:`FOLLOWS` action given the keys of
    the action it follows (unless remapped itself)."""
    out = dict(keymap)
    for follower, leader in FOLLOWS.items():
        if leader in out and follower not in out:
            out[follower] = out[leader]
    return out


def keymap_from_env() -> dict[str, str]:
    """The keymap of env ``PDFTUI_KEYMAP`` ("mode.keyword=K,help=f1": action id -> keys)."""
    out = {}
    for item in os.environ.get("PDFTUI_KEYMAP", "").split(","):
        if "=" in item:
            k, v = item.split("=", 1)
            out[k.strip()] = v.strip()
    return out


#: Actions whose key opens a text field (the documents filter, the note, go to page, the
#: export dialog): the keys typed right after it belong to that field (:mod:`.key_router`).
OPENERS = frozenset({"corpus.filter", "note", "reader.goto", "export"})


def bindings(pane: str) -> list[Binding]:
    """The Textual ``BINDINGS`` of ``pane``: its own bound actions, then the app's actions
    its footer repeats (shown, running ``app.<action>``, same id so a keymap remaps both)."""
    out = [Binding(a.key, a.action, a.description, show=a.show, key_display=a.key_display,
                   priority=a.priority, id=a.id)
           for a in ACTIONS if a.pane == pane and a.bound]
    for a in ACTIONS:
        for where, description in a.footer:
            if where == pane:
                out.append(Binding(a.key, f"app.{a.action}", description, show=True,
                                   key_display=a.key_display, id=a.id))
    return out


def format_keys(keys: str) -> str:
    """Textual key names ("shift+k,question_mark") as a person reads them ("K / ?")."""
    out = []
    for key in keys.split(","):
        *mods, name = key.strip().split("+")
        shown = format_key(name)
        if mods == ["shift"] and len(shown) == 1:
            out.append(shown.upper())
            continue
        out.append("+".join([m.capitalize() for m in mods] + [shown]))
    return " / ".join(out)


def key_label(action: Action | str, keymap: Mapping[str, str] | None = None) -> str:
    """How the help and the palette write the key of ``action`` (an id or an Action) under
    ``keymap`` (action id -> keys): the remapped keys, else the table's label."""
    a = BY_ID[action] if isinstance(action, str) else action
    if keymap and keymap.get(a.id):
        return format_keys(keymap[a.id])
    return a.label or a.key_display or format_keys(a.key)


#: The query syntax (pdftui.search.query), shown in the help after "Everywhere".
QUERY_SYNTAX = [
    ('"exact phrase"', "only pages holding the words adjacent, in order"),
    ('-word  -"a phrase"', "leave out every page holding it (all arms)"),
    ("word*", "prefix (while typing, the last word is one)"),
    ("title:WORD  author:NAME", "documents with it in their title / authors"),
    ("year:2017  year:2015..2019", "published then (also year:>2018, year:<2000)"),
    ("doc:GLOB  section:WORD", "file names matching / pages in sections titled"),
    ("1706.03762  C++  RFC 7231", "identifiers match as typed (arXiv, DOI, versions)"),
    ("-field:VALUE", "leave those documents out; other x: words stay text"),
]


def help_groups(keymap: Mapping[str, str] | None = None
                ) -> list[tuple[str, list[tuple[str, str]]]]:
    """The help screen's rows, ``[(group, [(keys, what)])]``, with ``keymap`` applied
    (the query syntax is a group of its own after "Everywhere")."""
    labels = {a.id: key_label(a, keymap) for a in ACTIONS}
    groups = []
    for group in GROUPS:
        rows = [(_FIELD.sub(lambda m: labels[m.group(1)], a.row or "{%s}" % a.id), a.help)
                for a in ACTIONS if a.group == group and a.help]
        groups.append((group, rows))
        if group == "Everywhere":
            groups.append(("Query syntax", list(QUERY_SYNTAX)))
    return groups


def palette_actions() -> Iterator[Action]:
    """The actions the command palette lists, in table order."""
    return (a for a in ACTIONS if a.palette)
