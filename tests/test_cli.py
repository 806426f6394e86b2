"""The click commands as a script would use them: exit codes, JSON shapes, coverage."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

from pdftui.index import index_folder


def _cli(*args, input=None, env=None):
    return subprocess.run([sys.executable, "-m", "pdftui.cli", *map(str, args)],
                          capture_output=True, text=True, input=input, timeout=300,
                          env={**os.environ, **env} if env else None)


def test_search_answers_at_once_with_what_is_embedded(small_indexed):
    """Nothing embedded yet: a hybrid search does not stop to embed the folder, it answers
    from the keyword arm and says the semantic arm covered 0 documents."""
    small_folder, cache_dir = small_indexed
    index_folder(small_folder, cache_dir, embed=False)
    r = _cli("search", small_folder, "dark matter", "--cache-dir", cache_dir, "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["coverage"]["searched"] == 3 and d["coverage"]["semantic_searched"] == 0
    assert d["hits"] and all(h["semantic_rank"] is None for h in d["hits"])
    db = __import__("sqlite3").connect(cache_dir / "index.sqlite3")
    assert db.execute("SELECT count(*) FROM units").fetchone()[0] == 0
    db.close()


def test_search_doc_glob_that_matches_nothing_is_an_error(small_indexed):
    small_folder, cache_dir = small_indexed
    r = _cli("search", small_folder, "dark matter", "--cache-dir", cache_dir,
             "--mode", "keyword", "--doc", "nosuch*")
    assert r.returncode == 2 and "--doc: no indexed document matches 'nosuch*'" in r.stderr


def test_search_doc_takes_paths_as_a_shell_gives_them_and_ignores_case(small_indexed):
    small_folder, cache_dir = small_indexed
    name = "arxiv-0908.0054-ultralight-bosonic-dark-matter-cmb.pdf"
    for doc in (str(small_folder / name), f"./{name}", "ARXIV-0908*"):
        r = _cli("search", small_folder, "dark matter", "--cache-dir", cache_dir,
                 "--mode", "keyword", "--doc", doc, "--json")
        assert r.returncode == 0, (doc, r.stderr)
        assert {h["doc"] for h in json.loads(r.stdout)["hits"]} == {name}
    r = _cli("search", small_folder, "dark matter", "--cache-dir", cache_dir,
             "--mode", "keyword", "--doc", name.replace("-cmb", ""))
    assert r.returncode == 2 and f"did you mean '{name}'" in r.stderr


def test_search_stdin_json_lines_one_object_per_line(small_indexed):
    small_folder, cache_dir = small_indexed
    lines = ["dark matter", "", '"don\'t" AND (', "[/]", "NEAR(rock roll)"]
    r = _cli("search", small_folder, "-", "--cache-dir", cache_dir, "--mode", "keyword",
             "--json", input="\n".join(lines) + "\n")
    assert r.returncode == 0, r.stderr
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert [o["query"] for o in out] == lines
    assert out[0]["hits"] and out[1]["hits"] == []
    # a file with Windows line ends gives the same queries (no trailing carriage return)
    r = _cli("search", small_folder, "-", "--cache-dir", cache_dir, "--mode", "keyword",
             "--json", input="\r\n".join(lines[:2]) + "\r\n")
    assert [json.loads(x)["query"] for x in r.stdout.splitlines()] == lines[:2]
    # a PDF without page labels gives the page number as the label
    assert all(h["page_label"] == str(h["page"]) for h in out[0]["hits"]
               if "ultralight" in h["doc"])


def test_search_repeated_doc_scopes_to_all_of_them(small_indexed):
    """--doc is repeatable (it used to keep only the last one); a part of a name scopes
    to the documents whose path holds it, as the query's doc: field does."""
    small_folder, cache_dir = small_indexed
    r = _cli("search", small_folder, "the", "--cache-dir", cache_dir, "--mode", "keyword",
             "--doc", "arxiv-0908*", "--doc", "debian-*", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["coverage"]["total"] == 2
    assert {h["doc"][:6] for h in d["hits"]} <= {"arxiv-", "debian"}
    r = _cli("search", small_folder, "the", "--cache-dir", cache_dir, "--mode", "keyword",
             "--doc", "debian", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["coverage"]["total"] == 1


def test_search_without_hits_says_so(small_indexed):
    small_folder, cache_dir = small_indexed
    r = _cli("search", small_folder, "xyzzyqwertyfoo", "--cache-dir", cache_dir,
             "--mode", "keyword")
    assert r.returncode == 0 and "no hits" in r.stdout


def test_search_width_sets_the_tables_columns(small_indexed):
    """A fresh user had no way to widen the table but COLUMNS: ``--width`` sets it, and a
    pipe (not a terminal) gets 80 columns without it (terminal cells: an excerpt's
    combining accents take none)."""
    small_folder, cache_dir = small_indexed
    from rich.cells import cell_len

    args = ("search", small_folder, "dark matter", "--cache-dir", cache_dir, "--mode",
            "keyword")
    for width, env in ((None, {"COLUMNS": ""}), (120, None), (60, None)):
        r = _cli(*args, *(["--width", width] if width else []), env=env)
        assert r.returncode == 0, r.stderr
        widest = max(cell_len(line) for line in r.stdout.splitlines())
        assert widest == (width or 80), (width, widest)


def test_search_empty_query_is_a_usage_error(small_indexed):
    small_folder, cache_dir = small_indexed
    r = _cli("search", small_folder, "  ", "--cache-dir", cache_dir)
    assert r.returncode == 2 and "QUERY is empty" in r.stderr and not r.stdout


def test_read_rejects_page_zero_and_two_targets(small_indexed):
    small_folder, cache_dir = small_indexed
    name = "arxiv-2005.07143-ecapa-tdnn-speaker-verification.pdf"
    r = _cli("read", small_folder, name, "--page", "0", "--cache-dir", cache_dir)
    assert r.returncode == 2 and "--page" in r.stderr
    r = _cli("read", small_folder, name, "--page", "2", "--section", "1 Introduction",
             "--cache-dir", cache_dir)
    assert r.returncode == 2 and "use one of --page, --section and --sections" in r.stderr


def test_read_wraps_paragraphs_to_the_width_asked_and_not_when_piped(small_indexed):
    """Fresh-user finding: ``read`` printed each paragraph as one line, wider than the
    terminal. ``--width`` wraps at spaces; piped output (no terminal) stays one line per
    paragraph, and the words are the same either way."""
    small_folder, cache_dir = small_indexed
    name = "arxiv-2005.07143-ecapa-tdnn-speaker-verification.pdf"
    flat = _cli("read", small_folder, name, "--page", "2", "--cache-dir", cache_dir)
    wrapped = _cli("read", small_folder, name, "--page", "2", "--width", "60",
                   "--cache-dir", cache_dir)
    assert flat.returncode == 0 and wrapped.returncode == 0, wrapped.stderr
    body = wrapped.stdout.split("\n", 2)[2]   # after the header line and its blank line
    assert max(len(line) for line in flat.stdout.splitlines()) > 200
    assert max(len(line) for line in body.splitlines() if " " in line) <= 60
    assert wrapped.stdout.split() == flat.stdout.split()


def test_read_section_by_number_says_when_a_heading_has_that_number(small_indexed):
    """Fresh-user finding: ``--section 5`` is the 5th section of ``--sections``, which in
    a paper whose first entry is not numbered is not the heading numbered 5; the reader got
    another section without a word. It still prints the listed one and names the other."""
    small_folder, cache_dir = small_indexed
    name = "arxiv-2005.07143-ecapa-tdnn-speaker-verification.pdf"
    r = _cli("read", small_folder, name, "--section", "3", "--cache-dir", cache_dir)
    assert r.returncode == 0, r.stderr
    assert "2 DNN speaker recognition systems" in r.stdout.splitlines()[0]
    assert ("--section 3 is number 3 in --sections, '2 DNN speaker recognition systems';"
            " the heading numbered 3 is --section '3 Proposed ECAPA-TDNN architecture'"
            ) in " ".join(r.stderr.split())
    r = _cli("read", small_folder, name, "--section", "3 Proposed", "--cache-dir", cache_dir)
    assert r.returncode == 0 and "in --sections" not in r.stderr   # a title: no doubt
    assert "3 Proposed ECAPA-TDNN architecture" in r.stdout.splitlines()[0]


def test_index_logs_plain_progress_lines_when_stderr_is_not_a_terminal(small_folder, cache_dir):
    r = _cli("index", small_folder, "--cache-dir", cache_dir, "--no-embed", "--json")
    assert r.returncode == 0, r.stderr
    assert "pdftui: extracted" in r.stderr and "\x1b" not in r.stderr
    assert json.loads(r.stdout)["indexed"] == 3


def test_index_accepts_data_dir_as_every_command_does(small_folder, cache_dir, tmp_path):
    """Fresh-user finding: ``index --data-dir`` was "no such option" while every other
    command takes it; index needs no user data, so it accepts it and writes nothing there."""
    data = tmp_path / "data"
    r = _cli("index", small_folder, "--cache-dir", cache_dir, "--data-dir", data,
             "--no-embed", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["indexed"] == 3 and not data.exists()
    r = _cli("index", "--help")
    assert "--data-dir" in r.stdout and "needs no user data" in " ".join(r.stdout.split())


def test_read_takes_paths_and_globs_and_says_when_a_title_is_ambiguous(small_indexed):
    small_folder, cache_dir = small_indexed
    name = "arxiv-0908.0054-ultralight-bosonic-dark-matter-cmb.pdf"
    for doc in (str(small_folder / name), "arxiv-0908*"):
        r = _cli("read", small_folder, doc, "--cache-dir", cache_dir, "--json")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["doc"] == name
    r = _cli("read", small_folder, "arxiv-*", "--cache-dir", cache_dir)
    assert r.returncode == 2 and "matches 2 documents" in r.stderr
    r = _cli("read", small_folder, name, "--section", "nosuchtitle", "--cache-dir", cache_dir)
    assert r.returncode == 2 and "--sections" in r.stderr


def test_search_in_a_folder_without_pdfs_is_an_error(tmp_path, cache_dir):
    (tmp_path / "notes.txt").write_text("no pdf here")
    r = _cli("search", tmp_path, "anything", "--cache-dir", cache_dir)
    assert r.returncode == 2 and "no PDF files" in r.stderr


def test_search_stdin_tables_name_their_query(small_indexed):
    small_folder, cache_dir = small_indexed
    r = _cli("search", small_folder, "-", "--cache-dir", cache_dir, "--mode", "keyword",
             input="dark matter\nspeaker\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.index("query: dark matter") < r.stdout.index("query: speaker")


def test_a_weak_answer_says_so_once(small_indexed):
    """The human output of a weak answer has one "no strong match" line (the coverage
    note), not the note and a second line saying the same."""
    small_folder, cache_dir = small_indexed
    index_folder(small_folder, cache_dir, embed=False)
    q = "the results of the model"   # only words every document uses: weak, with hits
    d = json.loads(_cli("search", small_folder, q, "--mode", "keyword", "--cache-dir",
                        cache_dir, "--json").stdout)
    assert d["weak"] and d["hits"]
    r = _cli("search", small_folder, q, "--mode", "keyword", "--cache-dir", cache_dir)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("no strong match") == 1, r.stdout


def test_read_keeps_the_printed_lines_of_preformatted_blocks(tmp_path):
    """Fresh-user finding: ``pdftui read`` reflowed code listings and tables into one line
    (the TUI reader kept them). A page and a section, plain and --json: the syntax
    summary and the table keep their lines; prose stays one line per paragraph."""
    from .pdfs import make_syntax

    folder, cache = tmp_path / "papers", str(tmp_path / "cache")
    folder.mkdir()
    make_syntax(folder / "syntax.pdf")
    code = ['plot {<ranges>} <function> {title "<text>"} {with <style>}',
            "set xrange [<min>:<max>]", "set logscale {x|y|xy}",
            "fit <function> '<datafile>' using <cols> via <params>"]
    r = _cli("read", folder, "syntax.pdf", "--page", "1", "--cache-dir", cache)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    at = lines.index(code[0])
    assert lines[at:at + 4] == code, lines
    prose = next(ln for ln in lines if ln.startswith("The plot command"))
    assert prose.endswith("values you supply yourself."), lines   # one line, not cut
    r = _cli("read", folder, "syntax.pdf", "--page", "2", "--cache-dir", cache, "--json")
    text = json.loads(r.stdout)["text"]
    table = next(p for p in text.split("\n\n") if p.startswith("Chunk size"))
    assert len(table.splitlines()) == 4 and table.splitlines()[3].split() == \
        ["64", "MB", "240", "955"], table
    r = _cli("read", folder, "syntax.pdf", "--sections", "--cache-dir", cache, "--json")
    sections = json.loads(r.stdout)
    first = next(s for s in sections if s["title"] == "1 Plot Syntax")
    r = _cli("read", folder, "syntax.pdf", "--section", str(first["number"]),
             "--cache-dir", cache)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[lines.index(code[0]):lines.index(code[0]) + 4] == code, lines


def test_the_index_progress_bar_fits_80_columns():
    """Each progress line fits an 80-column terminal: a fresh user saw
    'embedding units ━╺━ 192… 3/8 documents done, ETA 15 s  0:0…' cut."""
    import io

    from rich.console import Console

    from pdftui.cli.indexing import IndexProgress
    from pdftui.index.report import Progress

    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=True, color_system=None)
    report = IndexProgress(False, console=console)
    report.bar.start()
    report(Progress("extract", docs_total=1000, docs_done=312, pages_done=12345,
                    current="a-very-long-folder-name/" + "x" * 80 + ".pdf"))
    report(Progress("embed", docs_total=1000, docs_done=312, units_total=158000,
                    units_done=19200, eta_s=4000))
    report.bar.refresh()
    report.bar.stop()
    text = out.getvalue()
    assert "312/1000 docs, ETA 1 h 07 min" in text and "19200/158000" in text
    assert "…" not in text   # rich cuts a line too long for the terminal with an ellipsis
    assert "x" * 10 + ".pdf" in text   # the name's end, cut to the room left


def test_every_json_command_answers_an_error_with_one_json_object(small_indexed, tmp_path):
    """Fresh-user finding: with --json an error left stdout empty (the message went to
    stderr only). Each command given --json (and export --format json) now prints one
    JSON object ``{"error": {"kind", "message"}}`` on stdout, exits non-zero, and still
    says the message on stderr."""
    small_folder, cache_dir = small_indexed
    index_folder(small_folder, cache_dir, embed=False)
    ecapa = "arxiv-2005.07143-ecapa-tdnn-speaker-verification.pdf"
    broken_cache = tmp_path / "broken-cache"
    broken_cache.mkdir()
    (broken_cache / "index.sqlite3").write_bytes(b"not a database" * 40)
    broken_data = tmp_path / "broken-data"
    broken_data.mkdir()
    (broken_data / "triage.sqlite3").write_bytes(b"garbage" * 50)
    cache = ("--cache-dir", cache_dir)
    cases = [
        ("folder", 2, ["search", tmp_path / "nowhere", "x", *cache]),
        ("folder", 2, ["docs", tmp_path / "nowhere", *cache]),
        ("folder", 2, ["index", tmp_path / "nowhere", "--no-embed", *cache]),
        ("usage", 2, ["search", small_folder, "  ", *cache]),
        ("usage", 2, ["search", small_folder, "x", "--mode", "fuzzy", *cache]),
        ("usage", 2, ["read", small_folder, ecapa, "--page", "1", "--sections", *cache]),
        ("not_found", 2, ["search", small_folder, "x", "--doc", "nosuch", *cache]),
        ("not_found", 2, ["read", small_folder, "nosuch.pdf", *cache]),
        ("not_found", 2, ["read", small_folder, ecapa, "--page", "99", *cache]),
        ("ambiguous", 2, ["read", small_folder, "arxiv-*", *cache]),
        ("not_found", 2, ["mark", small_folder, "nosuch.pdf", "keep", *cache]),
        ("cache", 2, ["search", small_folder, "x", "--cache-dir", broken_cache]),
        ("user_data", 1, ["mark", small_folder, ecapa, "keep", "--data-dir", broken_data,
                          *cache]),
        ("folder", 2, ["export", tmp_path / "nowhere", "--format", "json", *cache]),
    ]
    for kind, code, args in cases:
        flag = [] if args[0] == "export" else ["--json"]
        r = _cli(*args, *flag)
        assert r.returncode == code, (args, r.returncode, r.stderr)
        lines = r.stdout.splitlines()
        assert len(lines) == 1, (args, r.stdout)
        err = json.loads(lines[0])["error"]
        assert err["kind"] == kind, (args, err)
        assert err["message"] and err["message"] in r.stderr, (args, err, r.stderr)
    # without --json the error stays on stderr alone
    r = _cli("read", small_folder, "nosuch.pdf", *cache)
    assert r.returncode == 2 and r.stdout == "" and "nosuch.pdf" in r.stderr


def test_python_dash_m_pdftui_is_the_command(small_indexed):
    """``python -m pdftui`` said "No module named pdftui.__main__"."""
    small_folder, cache_dir = small_indexed
    r = subprocess.run([sys.executable, "-m", "pdftui", "read", str(small_folder), "ecapa",
                        "--cache-dir", str(cache_dir), "--json"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["doc"] == "arxiv-2005.07143-ecapa-tdnn-speaker-verification.pdf"


def test_a_long_excerpt_is_shown_from_the_sentence_that_matched():
    """Fresh-user finding: the search table cut ResNet's "3.4 Implementation" excerpt at
    320 characters, "... The standard …", one sentence before "We adopt batch
    normalization (BN) right after each convolution": no query word was shown."""
    from pdftui.cli.output import shorten
    from pdftui.tui.render import terms_pattern

    text = ("Our implementation for ImageNet follows the practice in [21, 41]. The image is "
            "resized with its shorter side randomly sampled in [256, 480] for scale "
            "augmentation [41]. A 224x224 crop is randomly sampled from an image or its "
            "horizontal flip, with the per-pixel mean subtracted [21]. The standard color "
            "augmentation in [21] is used. We adopt batch normalization (BN) [16] right "
            "after each convolution and before activation, following [16]. We initialize "
            "the weights as in [13] and train all plain/residual nets from scratch.")
    got = shorten(text, 320, terms_pattern("batch normalization placement in ResNet"))
    assert got.startswith("… We adopt batch normalization") and len(got) <= 330
    assert shorten(text, 320).startswith("Our implementation")   # no query: the start
    near = shorten(text, 320, terms_pattern("ImageNet crop"))    # matched early: as before
    assert near.startswith("Our implementation") and near.endswith(" …")


ATTENTION_V5 = "arxiv-1706.03762v5-attention-is-all-you-need.pdf"
ATTENTION_V7 = "arxiv-1706.03762v7-attention-is-all-you-need.pdf"


def test_search_folds_versions_found_at_one_place_and_json_keeps_every_hit(tmp_path):
    """arXiv v5 and v7 of one paper hit on the same page: the table shows one row naming
    both versions (as the TUI does); --json keeps both hits, each naming the other."""
    from .conftest import copy_docs

    folder = copy_docs(tmp_path / "papers", [ATTENTION_V5, ATTENTION_V7])
    cache = tmp_path / "cache"
    args = ("search", folder, "scaled dot-product attention", "--cache-dir", cache,
            "--mode", "keyword", "--top-k", "6")
    r = _cli(*args, "--json")
    assert r.returncode == 0, r.stderr
    hits = json.loads(r.stdout)["hits"]
    assert len(hits) == 6
    by_place: dict[int, list[dict]] = {}
    for h in hits:
        by_place.setdefault(h["page"], []).append(h)
    pairs = [hs for hs in by_place.values() if len(hs) == 2]
    assert pairs, [(h["doc"], h["page"]) for h in hits]
    for a, b in pairs:
        assert a["other_versions"] == [{"rank": b["rank"], "doc": b["doc"],
                                        "version": "v7" if "v7" in b["doc"] else "v5"}]
        assert b["other_versions"][0]["rank"] == a["rank"]
    r = _cli(*args, env={"COLUMNS": "200"})
    assert r.returncode == 0, r.stderr
    rows = [line for line in r.stdout.splitlines() if " p." in line]
    assert len(rows) == 6   # filled to --top-k (test_search_table_fills_top_k_rows_...)
    folded = [line for line in rows if "versions v" in line]
    assert len(folded) >= len(pairs)
    assert all("v5" in line.split("versions")[1] and "v7" in line.split("versions")[1]
               for line in folded)
    # rows are numbered 1, 2, ... as the TUI numbers them
    assert [line.split("│")[1].strip() for line in rows] == \
        [str(n) for n in range(1, len(rows) + 1)]


def test_search_table_fills_top_k_rows_after_folding_versions(tmp_path):
    """Fresh-user finding: ``--top-k 8`` gave 6 rows, two hits of v5 having folded into
    rows of v7, with no word about it. The table asks for more hits and shows 8 rows,
    the first ones the rows the 8 hits of --json fold into; --json keeps 8 hits."""
    from pdftui.versions import fold_versions, version_groups

    from .conftest import copy_docs

    folder = copy_docs(tmp_path / "papers", [ATTENTION_V5, ATTENTION_V7,
                                              "arxiv-2205.14135-flashattention.pdf"])
    cache = tmp_path / "cache"
    args = ("search", folder, "scaled dot-product attention", "--cache-dir", cache,
            "--mode", "keyword", "--top-k", "8")
    r = _cli(*args, "--json")
    assert r.returncode == 0, r.stderr
    hits = json.loads(r.stdout)["hits"]
    assert len(hits) == 8
    docs = [SimpleNamespace(doc=d, title="") for d in {h["doc"] for h in hits}]
    places = [SimpleNamespace(doc=h["doc"], page=h["page"], section=None) for h in hits]
    folds = fold_versions(places, version_groups(docs))
    assert len(folds) < 8, "the case needs hits that fold"
    r = _cli(*args, env={"COLUMNS": "200"})
    assert r.returncode == 0, r.stderr
    rows = [line.split("│")[4].split("  p.") for line in r.stdout.splitlines()
            if ".pdf  p." in line]
    shown = [(doc.strip(), int(rest.split()[0])) for doc, rest in rows]
    assert len(shown) == 8 and len(set(shown)) == 8, shown
    assert shown[:len(folds)] == [(hits[f.hit]["doc"], hits[f.hit]["page"]) for f in folds]


def test_search_head_and_file_names_keep_whole_at_80_columns(tmp_path):
    """Fresh-user finding: at 80 columns the coverage line broke inside its parts (a
    query field split over two lines, a dangling "·") and a long file name was cut with
    an ellipsis. Lines now break between parts, and the name folds whole."""
    import shutil

    from .conftest import corpus_pdf

    long_name = "arxiv-0908.0054-ultralight-bosonic-dark-matter-cmb-a-rather-long-file-name.pdf"
    (tmp_path / "papers").mkdir()
    shutil.copy(corpus_pdf("arxiv-0908.0054-ultralight-bosonic-dark-matter-cmb.pdf"),
                tmp_path / "papers" / long_name)
    field = "doc:arxiv-0908.0054-ultralight* -doc:*refcard-a4* -doc:*speaker-verification*"
    r = _cli("search", tmp_path / "papers", f"dark matter {field}", "--cache-dir",
             tmp_path / "cache", "--mode", "keyword", "--top-k", "1", env={"COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    head = lines[:next(i for i, ln in enumerate(lines) if ln.startswith("┏"))]
    assert all(len(ln) <= 80 and not ln.endswith("·") for ln in head), head
    assert any(field in ln for ln in head) and any("keyword" in ln for ln in head), head
    cells = "".join(ln.split("│")[4].strip() for ln in lines if ln.count("│") == 5)
    assert long_name in cells and "…" not in cells.split("p.1")[0], lines


def test_search_table_names_the_doc_scope(small_indexed):
    """The text head said "searched 2 of 2" after --doc without naming the scope that made
    the 2 (a query's doc: field is named); it names the --doc options now."""
    small_folder, cache_dir = small_indexed
    r = _cli("search", small_folder, "the", "--cache-dir", cache_dir, "--mode", "keyword",
             "--doc", "arxiv-0908*", "--doc", "debian-*")
    assert r.returncode == 0, r.stderr
    head = r.stdout.split("\n", 2)[:2]
    assert any("searched 2 of 2 · --doc arxiv-0908*, debian-*" in line for line in head), head


def test_a_query_starting_with_a_dash_is_told_to_go_after_the_end_of_options(small_indexed):
    """Fresh-user finding: ``pdftui search FOLDER "-foo bar"`` (a query excluding "foo")
    said only click's "No such option: -f". The error now says how to pass it: after
    ``--``; a mistyped option keeps click's error, and the query after -- is searched."""
    small_folder, cache_dir = small_indexed
    for query in ("-refcard dark matter", "-attention"):
        r = _cli("search", small_folder, query, "--cache-dir", cache_dir)
        assert r.returncode == 2, r.stderr
        assert "goes after --, the end of options" in r.stderr, r.stderr
        assert f'FOLDER [OPTIONS] -- "{query}"' in r.stderr, r.stderr
    r = _cli("search", small_folder, "-foo bar", "--cache-dir", cache_dir, "--json")
    err = json.loads(r.stdout)["error"]
    assert r.returncode == 2 and err["kind"] == "usage" and '-- "-foo bar"' in err["message"]
    r = _cli("search", small_folder, "dark matter", "--top-kk", "3", "--cache-dir", cache_dir)
    assert r.returncode == 2 and "Did you mean '--top-k'?" in r.stderr
    assert "end of options" not in r.stderr
    r = _cli("search", small_folder, "--mode", "keyword", "--cache-dir", cache_dir, "--json",
             "--", "-refcard dark matter")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["query"] == "-refcard dark matter" and d["hits"]


def _held_index_run(folder, cache_dir, tmp_path, phase: str):
    """``(process, go)``: a real index run of ``folder`` in another process, held at its
    first progress report of ``phase`` ("scan", "verify") until the file ``go`` exists."""
    import textwrap

    go = tmp_path / "go"
    script = textwrap.dedent(f"""
        import os, time
        from pdftui.index import index_folder

        def hold(p):
            if p.phase == {phase!r}:
                print("holding", flush=True)
                while not os.path.exists({str(go)!r}):
                    time.sleep(0.05)

        index_folder({str(folder)!r}, {str(cache_dir)!r}, embed=False, progress=hold)
    """)
    other = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                             text=True)
    assert other.stdout.readline().strip() == "holding"
    return other, go


def _wait_for_published_counts(cache_dir, folder, timeout: float = 30.0) -> None:
    """Until the index run holding ``folder``'s lease has published its final document
    counts, every document extracted (its heartbeat publishes them every couple of
    seconds: on a loaded machine a beat saying "1 of 3" can be the last one before the
    test's first search)."""
    import time

    from pdftui.corpus import check_folder
    from pdftui.lease import index_lease_name, live_holder

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        run = live_holder(cache_dir, index_lease_name(check_folder(folder)))
        if run is not None and run.units_total and run.units_done >= run.units_total:
            return
        time.sleep(0.1)
    raise AssertionError("the index run published no counts")


def test_a_search_while_the_folder_is_being_indexed_says_an_index_is_in_progress(
        small_folder, cache_dir, tmp_path):
    """Fresh-user finding: while ``pdftui index`` ran on a new folder, ``pdftui search``
    said "run `pdftui index` to embed them". Another process indexing the folder holds
    its index lease; a search now says an index is in progress and how far, --json
    names it in "index_in_progress", and a semantic search with nothing embedded yet
    is the error kind "indexing" rather than an empty list. The search does not extract
    the folder again beside the other run: it searches what that run indexed so far. The
    other process is a real index run, held before its end until the test lets it go."""
    import socket

    other, go = _held_index_run(small_folder, cache_dir, tmp_path, "verify")
    try:
        _wait_for_published_counts(cache_dir, small_folder)
        base = ("search", small_folder, "dark matter", "--cache-dir", cache_dir)
        r = _cli(*base)
        assert r.returncode == 0, r.stderr
        # the search leaves extraction to the other run (doing it twice at once doubled
        # the time) and searches what that run has indexed so far
        assert (f"an index of this folder is in progress (pid {other.pid}: 3 of 3 "
                "documents extracted): searching the 3 documents it has indexed so far"
                ) in r.stderr
        assert "run `pdftui index`" not in r.stderr
        # Fresh-user finding: the note printed on the table's bottom border. Both streams
        # into one pipe (`2>&1 | less`), through the service or not: the note has a line
        # of its own, before the table, and no line of the table holds it
        for service in ("0", "1"):
            merged = subprocess.run(
                [sys.executable, "-m", "pdftui.cli", *map(str, base), "--width", "90"],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300,
                env={**os.environ, "PDFTUI_SERVICE": service}).stdout
            lines = merged.splitlines()
            notes = [i for i, line in enumerate(lines) if "pdftui:" in line]
            table = [i for i, line in enumerate(lines) if line[:1] in "┏┃┡│├└"]
            assert notes and table, merged
            assert all(lines[i].startswith("pdftui: an index of this folder") for i in notes), merged
            assert max(notes) < min(table), merged
        d = json.loads(_cli(*base, "--json").stdout)
        assert d["hits"] and d["index_in_progress"] == {
            "pid": other.pid, "host": socket.gethostname(), "documents_extracted": 3,
            "documents_to_extract": 3, "units_embedded": None, "units_to_embed": None}
        r = _cli(*base, "--mode", "semantic", "--json")
        assert r.returncode == 1, r.stderr
        assert json.loads(r.stdout)["error"]["kind"] == "indexing"
    finally:
        go.touch()
        other.wait(120)
    r = _cli(*base, "--json")   # the run ended: nothing in progress, index to embed
    assert json.loads(r.stdout)["index_in_progress"] is None
    assert "run `pdftui index`" in _cli(*base).stderr


def test_a_search_before_another_run_indexed_anything_says_so(small_folder, cache_dir,
                                                               tmp_path):
    """A search while another process indexes the folder and has extracted nothing yet
    answers "nothing is indexed yet" (error kind "indexing", exit 1), not "no PDF files"
    and not a second extraction of the folder beside the first."""
    other, go = _held_index_run(small_folder, cache_dir, tmp_path, "scan")
    try:
        r = _cli("search", small_folder, "dark matter", "--cache-dir", cache_dir, "--json")
        assert r.returncode == 1, r.stderr
        err = json.loads(r.stdout)["error"]
        assert err["kind"] == "indexing" and "nothing is indexed yet" in err["message"]
    finally:
        go.touch()
        other.wait(120)


def test_the_plain_progress_log_keeps_one_clock_per_phase(capsys):
    """Fresh-user finding: the log promised a line every 15 s but printed ~45 in the first
    8 s, among them 34 "embedded 0/NNN+ units" lines: the embedder plans documents while
    they are extracted, and each switch between the two phases reset the interval. Each
    phase now keeps its own clock; the last line of a phase comes once, when its total
    is final."""
    from pdftui.cli.indexing import IndexProgress
    from pdftui.index.report import Progress

    log = IndexProgress(quiet=False)
    assert log.plain   # stderr is not a terminal under pytest
    for n in range(1, 40):
        log(Progress("extract", docs_total=40, docs_done=n, pages_done=10 * n))
        log(Progress("embed", docs_total=40, docs_planned=n, units_total=30 * n))
    log(Progress("extract", docs_total=40, docs_done=40, pages_done=400))
    log(Progress("embed", docs_total=40, docs_planned=40, units_total=1200, units_done=1200,
                 docs_done=40))
    log(Progress("embed", docs_total=40, docs_planned=40, units_total=1200, units_done=1200,
                 docs_done=40))
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["pdftui: extracted 1/40 documents, 10 pages",
                     "pdftui: embedded 0/30+ units, 0/40 documents done",
                     "pdftui: extracted 40/40 documents, 400 pages",
                     "pdftui: embedded 1200/1200 units, 40/40 documents done"]
