"""Robustness bench: hostile files, file trees, queries, kill -9, concurrency, changes.

    python bench/robust.py [--quick] [--json PATH] [--timeout S] [--kills N]

Every input goes through the real CLI (``python -m pdftui.cli``) in a subprocess with a
per-input timeout, into fresh temporary caches, and is judged against what it should give:

- tricky/real, tricky/made: each file indexed with the right text (search words of
  made/README.md and real/MANIFEST.tsv found through keyword search) or skipped with the
  right reason (:data:`EXPECT`). ``--quick``: one CLI run per folder instead of one per file.
- hostile trees: odd names (non-UTF-8, 255 bytes, newline, quotes, ``$``, leading dash,
  ``[bold]``, ESC), ``.PDF``/``.Pdf``, symlink loops, links outside, FIFO / folder / device
  named .pdf, a sparse 4 GB file of zeros, unreadable file and folder (as user nobody).
- hostile queries: every line of tricky/queries (txt + json) through ``pdftui search -``.
- kill loop: ``kill -9`` of ``pdftui index`` at random moments N times, then a normal run:
  integrity, no duplicate rows, the same rows as a clean index.
- concurrency: an indexer and a searcher (which also indexes) on one cache at once.
- change sequence: edit, touch, rename, delete, truncate, replace between CLI calls; no
  hit may show text that is no longer in its file or a document that is gone.
- untrusted text: markup, ANSI escapes, NUL, control characters, combining stacks and a
  10,000-character word in text, title, outline and file name; output must be literal.

- third pass (issue 33): decompression bombs (Flate content, a Form XObject drawn 1,000
  times, LZW), hidden text of each kind and the OCR control, quitting during extraction;
  damaged stores (random bytes, truncation, replacement of the cache: ``index`` moves it
  aside and rebuilds; a damaged user-data file named as such and left alone; marks
  reachable without a usable cache), names that collide (an undecodable byte name and its
  escaped form, a control character: distinct, taken back by ``read`` and ``mark``), a
  full disk under the user data (a failed ``mark`` changes nothing; reading needs no
  space) and CSV cells a spreadsheet would run.

The background search service is off (``PDFTUI_SERVICE=0``, unless set): each input is
judged in the command's own process, and no service outlives the bench's caches.
- second pass (issue 17): hostile /PageLabels, a file replaced (mv) during ``index`` and a
  cache poisoned that way, a read-only mount and a full disk under the cache (real
  mounts), Latin-1 / ASCII stdout and TERM=dumb, annotations, a 96,000-character
  paragraph, U+FE0F in a table cell, over-long queries, a folder that vanishes.

The table counts inputs tried, indexed, skipped (with reason), crashes (traceback or
unexpected exit code), hangs (timeout), wrong text / wrong reason, stale results and lock
errors. The bar: 0 crashes, 0 hangs, 0 lock errors, 0 stale results, 0 wrong.

The builders and expectations (tests/builders.py) and the CLI runner and cache judges
(tests/harness.py) are shared with tests/test_robust.py, tests/test_robust_second.py and
tests/test_tricky.py.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

os.environ.setdefault("PDFTUI_SERVICE", "0")

from tests.builders import (  # noqa: E402
    CORPUS,
    EXPECT,
    HIDDEN_WORDS,
    LONG_BLOCK_WORD,
    TRICKY,
    UNREADABLE_EXPECT,
    build_annotated,
    build_colliding_names,
    damage_file,
    user_data_with_marks,
    build_hostile_labels,
    build_hidden_text,
    build_inflation_bomb,
    build_lzw_bomb,
    build_xobject_bomb,
    build_hostile_tree,
    build_long_block,
    build_replace_race,
    build_unreadable_tree,
    build_untrusted,
    kill_folder,
    make_pdf,
    tiny_corpus,
    tricky_files,
)
from tests.harness import (  # noqa: E402
    ChangeSeq,
    Run,
    cache_db,
    cli,
    doc_state,
    duplicates,
    fill_disk,
    fts_pages,
    judge,
    kill_loop,
    mount_read_only,
    mount_tmpfs,
    nobody_ids,
    open_up,
    rmtree,
    same_index,
    unmount,
    unsafe_bytes,
)


# --------------------------------------------------------------------------- the bench


@dataclass
class Row:
    kind: str
    tried: int = 0
    indexed: int = 0
    skipped: Counter = field(default_factory=Counter)
    crashes: int = 0
    hangs: int = 0
    wrong: int = 0
    stale: int = 0
    lock_errors: int = 0
    problems: list[str] = field(default_factory=list)

    def account(self, r: Run, what: str) -> None:
        if r.hung:
            self.hangs += 1
            self.problems.append(f"{what}: hang (> {r.seconds:.0f} s)")
        elif r.crashed:
            self.crashes += 1
            self.problems.append(f"{what}: crash rc={r.rc} {r.err.strip()[-300:]}")
        if r.locked:
            self.lock_errors += 1
            self.problems.append(f"{what}: database locked")


def bench_tricky(kind: str, tmp: Path, quick: bool, timeout: float) -> Row:
    row = Row(f"tricky/{kind}")
    cache = tmp / f"cache-{kind}"
    files = tricky_files(kind)
    if quick:
        folder = TRICKY / kind
        r = cli("index", folder, "--cache-dir", cache, "--no-embed", "--json",
                timeout=timeout * 4)
        row.account(r, f"index {kind}/")
        placed = {p: (folder, p.name) for p in files}
    else:
        placed = {}
        for p in files:
            folder = tmp / kind / p.stem
            folder.mkdir(parents=True)
            os.symlink(p, folder / p.name)
            r = cli("index", folder, "--cache-dir", cache, "--no-embed", "--json",
                    timeout=timeout)
            row.account(r, f"{kind}/{p.name}")
            placed[p] = (folder, p.name)
    db = cache_db(cache)
    try:
        for p, (folder, doc) in placed.items():
            row.tried += 1
            exp = EXPECT.get(f"{kind}/{p.name}")
            if exp is None:
                row.problems.append(f"{kind}/{p.name}: no expectation written")
                continue
            outcome, problem = judge(db, str(folder), doc, exp)
            if outcome == "indexed":
                row.indexed += 1
            else:
                row.skipped[outcome.split(": ", 1)[-1]] += 1
            if problem:
                row.wrong += 1
                row.problems.append(f"{kind}/{p.name}: {problem}")
    finally:
        db.close()
    return row


def bench_tree(tmp: Path, timeout: float) -> Row:
    row = Row("hostile tree")
    root, cases, one_of = build_hostile_tree(tmp / "t")
    cache = tmp / "cache-tree"
    r = cli("index", root, "--cache-dir", cache, "--no-embed", "--json", timeout=timeout)
    row.account(r, "index tree")
    if r.seconds > 30 and not r.hung:
        row.problems.append(f"index tree took {r.seconds:.0f} s (the sparse file was read?)")
        row.hangs += 1
    summary = json.loads(r.out) if r.rc == 0 and r.out.strip() else {"skipped": []}
    reported = {s["doc"]: s["reason"] for s in summary["skipped"]}
    db = cache_db(cache)
    try:
        for c in cases:
            row.tried += 1
            state, cid = doc_state(db, str(root), c.doc)
            if c.kind == "absent":
                if state != "missing":
                    row.wrong += 1
                    row.problems.append(f"{c.doc!r}: listed as {state!r}, should be absent")
                continue
            if c.kind == "indexed":
                if state == "ok" and cid and fts_pages(db, cid, c.word):
                    row.indexed += 1
                else:
                    row.wrong += 1
                    row.problems.append(f"{c.doc!r}: {state!r}, word {c.word!r} not found")
                continue
            row.skipped[state] += 1
            if state != c.kind or reported.get(c.doc) != c.kind:
                row.wrong += 1
                row.problems.append(f"{c.doc!r}: {state!r} / summary {reported.get(c.doc)!r},"
                                    f" expected {c.kind!r}")
        for group in one_of:
            row.tried += 1
            listed = [d for d in group if doc_state(db, str(root), d)[0] != "missing"]
            if len(listed) != 1:
                row.wrong += 1
                row.problems.append(f"one file under {group}: listed {listed}")
            else:
                row.indexed += 1
        # CLI summary text: no control characters
        r2 = cli("index", root, "--cache-dir", cache, "--no-embed", timeout=timeout)
        row.account(r2, "index tree (text)")
        bad = unsafe_bytes(r2.out + r2.err)
        if bad:
            row.wrong += 1
            row.problems.append(f"summary output holds control characters {bad}")
        # read a leading-dash and an escape-named document
        for doc in ("-leading-dash.pdf", "[bold]red[/] [link=x]y [red on white]z.pdf"):
            r3 = cli("read", root, "--cache-dir", cache, "--", doc, timeout=timeout)
            row.account(r3, f"read {doc}")
            if r3.rc != 0 or "tree word" not in r3.out:
                row.wrong += 1
                row.problems.append(f"read {doc!r}: rc={r3.rc} {r3.err.strip()[-200:]}")
    finally:
        db.close()
    ids = nobody_ids()
    if ids:
        perm = tmp / "p"
        perm.mkdir()
        root2 = build_unreadable_tree(perm)
        ucache = perm / "cache"
        ucache.mkdir()
        os.chown(ucache, *ids)
        open_up(perm)
        r = cli("index", root2, "--cache-dir", ucache, "--no-embed", "--json", timeout=timeout,
                nobody=True, env={"HOME": str(ucache)})
        row.account(r, "index unreadable tree as nobody")
        got = {}
        if r.rc == 0:
            s = json.loads(r.out)
            got = {d["doc"]: d["reason"] for d in s["skipped"]}
            if s["indexed"] == 1:
                got["ok.pdf"] = "indexed"
        for doc, want in UNREADABLE_EXPECT.items():
            row.tried += 1
            if got.get(doc) != want:
                row.wrong += 1
                row.problems.append(f"as nobody {doc!r}: {got.get(doc)!r}, expected {want!r}")
            elif want == "indexed":
                row.indexed += 1
            else:
                row.skipped[want] += 1
    return row


def bench_cache_errors(tmp: Path, timeout: float) -> Row:
    row = Row("cache location")
    folder = tmp / "c"
    make_pdf(folder.mkdir(parents=True) or folder / "x.pdf", ["cache test word"])
    afile = tmp / "cache-is-a-file"
    afile.write_text("x")
    cases = [("file", ["--cache-dir", afile]), ("under a file", ["--cache-dir", afile / "sub"])]
    env_cases = [("file via env", {"PDFTUI_CACHE_DIR": str(afile)})]
    ids = nobody_ids()
    ro = tmp / "ro"
    ro.mkdir()
    os.chmod(ro, 0o555)
    rodb = tmp / "rodb"
    rodb.mkdir()
    cli("index", folder, "--cache-dir", rodb, "--no-embed", timeout=timeout)
    os.chmod(rodb, 0o777)
    os.chmod(rodb / "index.sqlite3", 0o644)
    open_up(tmp)
    runs = []
    for name, extra in cases:
        runs.append((name, cli("index", folder, "--no-embed", *extra, timeout=timeout)))
    for name, env in env_cases:
        runs.append((name, cli("index", folder, "--no-embed", timeout=timeout, env=env)))
    if ids:
        for name, c in (("read-only folder", ro), ("read-only database", rodb)):
            runs.append((name, cli("index", folder, "--no-embed", "--cache-dir", c,
                                   timeout=timeout, nobody=True,
                                   env={"HOME": str(tmp)})))
    import resource

    def small_fsize() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 10, 64 << 10))

    full_folder = tmp / "full"
    tiny_corpus(full_folder, 30, prefix="full", pages=5)
    runs.append(("full disk", cli("index", full_folder, "--no-embed", "--cache-dir",
                                  tmp / "full-cache", timeout=timeout, preexec_fn=small_fsize)))
    for name, r in runs:
        row.tried += 1
        row.account(r, name)
        lines = [ln for ln in r.err.strip().splitlines() if ln.strip()]
        if r.rc != 2 or len(lines) != 1 or not lines[0].startswith("pdftui: "):
            row.wrong += 1
            row.problems.append(f"{name}: rc={r.rc}, stderr {r.err.strip()[-300:]!r}")
        else:
            row.skipped["clear error"] += 1
    return row


def bench_queries(tmp: Path, timeout: float, hybrid: bool) -> Row:
    row = Row("hostile queries")
    txt = [ln.split("\t", 1)[0] for ln in
           (TRICKY / "queries" / "hostile_queries.txt").read_text().splitlines()
           if ln and not ln.startswith("#")]
    js = [q["query"] for q in json.loads((TRICKY / "queries" / "hostile_queries.json").read_text())]
    queries = [q for q in dict.fromkeys(txt + js) if "\n" not in q and "\r" not in q]
    multiline = [q for q in dict.fromkeys(txt + js) if q not in queries]
    folder = tmp / "q"
    folder.mkdir()
    for name in ("debian-octave-refcard-a4.pdf", "arxiv-0908.0054-ultralight-bosonic-dark-matter-cmb.pdf"):
        if (CORPUS / name).exists():
            shutil.copy(CORPUS / name, folder / name)
    make_pdf(folder / "words.pdf", ["financial multi-agent state-of-the-art C++ don't 20.04",
                                    "天气 今天天气很好 rock and roll"])
    cache = tmp / "cache-q"
    modes = [("keyword", "page"), ("keyword", "section")]
    if hybrid:
        modes += [("hybrid", "page"), ("semantic", "section")]
    for mode, gran in modes:
        r = cli("search", folder, "-", "--mode", mode, "--granularity", gran, "--cache-dir",
                cache, "--json", stdin="\n".join(queries) + "\n", timeout=timeout * 3)
        row.account(r, f"search - {mode}/{gran}")
        lines = r.out.splitlines()
        for i, q in enumerate(queries):
            row.tried += 1
            try:
                d = json.loads(lines[i])
                assert isinstance(d["hits"], list)
                row.indexed += 1  # answered
            except Exception:  # noqa: BLE001
                row.wrong += 1
                row.problems.append(f"{mode}/{gran} {q!r}: no JSON answer")
        if (bad := unsafe_bytes(r.out)):
            row.problems.append(f"{mode}/{gran} output holds {bad}")
            row.wrong += 1
    # the service directly, with the unprintable ones too (newlines, NUL ...)
    try:
        from pdftui.search.service import SearchService

        svc = SearchService(folder, cache_dir=cache)
        try:
            for q in queries + multiline + ["\x00", "a" * 100_000, "\ud800", " " * 50]:
                for gran in ("page", "section"):
                    row.tried += 1
                    try:
                        res = svc.search_sync(q, mode="keyword", granularity=gran, top_k=5)
                        assert isinstance(res.to_json()["hits"], list)
                        row.indexed += 1
                    except Exception as exc:  # noqa: BLE001
                        row.crashes += 1
                        row.problems.append(f"service {q[:30]!r}/{gran}: "
                                            f"{type(exc).__name__}: {exc}")
        finally:
            svc.close()
    except ImportError as exc:
        row.problems.append(f"search service not available: {exc}")
    return row


def bench_kill(tmp: Path, times: int, embed: bool) -> Row:
    row = Row(f"kill -9 x{times}")
    folder = kill_folder(tmp / "k")
    res = kill_loop(folder, tmp / "cache-kill", times, embed=embed,
                    max_delay=10.0 if embed else 2.5)
    row.tried = times + 1
    row.account(res["final"], "index after kills")
    row.account(res["ref_run"], "reference index")
    if res["integrity"] != "ok":
        row.crashes += 1
        row.problems.append(f"integrity_check: {res['integrity']}")
    if any(res["dups"].values()):
        row.wrong += 1
        row.problems.append(f"duplicates/orphans: {res['dups']}")
    if res["orphans_alive"]:
        row.wrong += 1
        row.problems.append(f"{res['orphans_alive']} killed runs left worker processes alive:"
                            f" {res['left'][:3]}")
    diff = same_index(res["snapshot"], res["reference"])
    if diff:
        row.wrong += 1
        row.problems.append("after kills the cache differs from a clean index: " + "; ".join(diff))
    row.indexed = len(res["snapshot"]["files"])
    row.problems.append(f"(info) {res['kills']} of {times} runs killed mid-way")
    return row


def bench_concurrency(tmp: Path, timeout: float, rounds: int) -> Row:
    row = Row("2 processes, 1 cache")
    folder = tmp / "conc"
    tiny_corpus(folder, 60, prefix="conc", pages=2)
    for name in ("debian-octave-refcard-a4.pdf",):
        if (CORPUS / name).exists():
            shutil.copy(CORPUS / name, folder / name)
    cache = tmp / "cache-conc"
    for rnd in range(rounds):
        if rnd:  # make the next round re-index something
            tiny_corpus(folder / f"more{rnd}", 15, prefix=f"more{rnd}")
        cmd = [sys.executable, "-m", "pdftui.cli"]
        indexer = subprocess.Popen([*cmd, "index", str(folder), "--cache-dir", str(cache),
                                    "--no-embed", "--json"], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        searches = []
        t0 = time.monotonic()
        while indexer.poll() is None and time.monotonic() - t0 < timeout:
            searches.append(cli("search", folder, "common", "--mode", "keyword",
                                "--cache-dir", cache, "--json", timeout=timeout))
            if len(searches) >= 6:
                break
        try:
            out, err = indexer.communicate(timeout=timeout)
            ir = Run(indexer.returncode, out, err, time.monotonic() - t0)
        except subprocess.TimeoutExpired:
            indexer.kill()
            out, err = indexer.communicate()
            ir = Run(None, out, err, timeout, hung=True)
        for i, r in enumerate([ir, *searches]):
            row.tried += 1
            row.account(r, f"round {rnd} {'indexer' if i == 0 else f'search {i}'}")
            if r.rc == 0:
                row.indexed += 1
    db = cache_db(cache)
    try:
        d = duplicates(db)
        n_files = db.execute("SELECT count(*) FROM files").fetchone()[0]
    finally:
        db.close()
    want = 61 + 15 * (rounds - 1)
    if any(d.values()) or n_files != want:
        row.wrong += 1
        row.problems.append(f"after concurrent runs: {d}, files {n_files} (want {want})")
    return row


def bench_changes(tmp: Path, timeout: float) -> Row:
    row = Row("change sequence")
    seq = ChangeSeq(tmp / "ch", tmp / "cache-ch", timeout)
    seq.run()
    row.tried = seq.steps
    for r in seq.runs:
        row.account(r, "search")
    stale = [p for p in seq.problems if "stale" in p or "gone" in p or "no longer" in p]
    row.stale = len(stale)
    row.wrong = len(seq.problems) - len(stale)
    row.indexed = seq.steps - len({p.split(":")[0] for p in seq.problems})
    row.problems += seq.problems
    return row


def bench_untrusted(tmp: Path, timeout: float) -> Row:
    row = Row("untrusted text")
    folder, doc = build_untrusted(tmp / "u")
    cache = tmp / "cache-u"
    runs = [("index", cli("index", folder, "--cache-dir", cache, "--no-embed", timeout=timeout))]
    for q in ("untrustedword", "bold", "red", "Intro"):
        for gran in ("page", "section"):
            runs.append((f"search {q} {gran}", cli(
                "search", folder, q, "--mode", "keyword", "--granularity", gran,
                "--cache-dir", cache, timeout=timeout)))
    runs.append(("read page 1", cli("read", folder, "--cache-dir", cache, "--", doc,
                                    timeout=timeout)))
    runs.append(("read page 3", cli("read", folder, "--page", "3", "--cache-dir", cache, "--",
                                    doc, timeout=timeout)))
    runs.append(("read section", cli("read", folder, "--section", "Intro", "--cache-dir",
                                     cache, "--", doc, timeout=timeout)))
    for name, r in runs:
        row.tried += 1
        row.account(r, name)
        bad = unsafe_bytes(r.out + r.err)
        if bad:
            row.wrong += 1
            row.problems.append(f"{name}: output holds {bad}")
        elif r.rc == 0:
            row.indexed += 1
    lit = runs[1][1].out + runs[-3][1].out
    if "[bold]" not in lit:
        row.wrong += 1
        row.problems.append("brackets were not shown literally")
    return row


def bench_labels(tmp: Path, timeout: float) -> Row:
    """Hostile /PageLabels (roman and letter styles with /St 99999999999, a 5,000-char
    prefix): index, search and read must answer at once with short labels."""
    row = Row("hostile page labels")
    folder = tmp / "labels"
    build_hostile_labels(folder / "roman.pdf")
    build_hostile_labels(folder / "letters.pdf", style="A")
    build_hostile_labels(folder / "prefix.pdf", style="D", start="1", prefix="P" * 5000)
    cache = tmp / "cache-labels"
    t = min(timeout, 60)
    runs = [("index", cli("index", folder, "--cache-dir", cache, "--no-embed", timeout=t)),
            ("search", cli("search", folder, "labelword", "--mode", "keyword", "--cache-dir",
                           cache, "--json", timeout=t)),
            ("read", cli("read", folder, "roman.pdf", "--page", "2", "--cache-dir", cache,
                         timeout=t))]
    for name, r in runs:
        row.tried += 1
        row.account(r, name)
        if r.rc == 0 and not r.hung:
            row.indexed += 1
    r = runs[1][1]
    if len(r.out) > 50_000:
        row.wrong += 1
        row.problems.append(f"search --json printed {len(r.out):,} bytes")
    if r.rc == 0:
        labels = {h["page_label"] for h in json.loads(r.out)["hits"]}
        if not labels <= {"1", "2", "3"}:
            row.wrong += 1
            row.problems.append(f"labels {sorted(labels)[:3]!r}, expected the page numbers")
    return row


def bench_replace_race(tmp: Path, timeout: float) -> Row:
    """A file replaced (``mv``) while ``pdftui index`` runs, behind two 5,000-page
    fillers; then a copy of the original in another folder. Nothing may be stored under
    the original's hash but the original's text; and a cache an older pdftui poisoned
    that way is repaired."""
    row = Row("replaced while indexed")
    race = build_replace_race(tmp / "race", filler_pages=3)
    filler = TRICKY / "made" / "15_five_thousand_pages.pdf"
    if filler.exists():   # slow fillers: the target waits for a worker for seconds
        import pymupdf

        for i in (1, 2):
            doc = pymupdf.open(filler)
            doc.set_metadata({"title": f"filler {i}"})
            doc.save(race["folder"] / f"filler{i}.pdf")
            doc.close()
        target = race["target"]
        pad = max(p.stat().st_size for p in race["folder"].glob("filler*.pdf"))
        with open(target, "ab") as fh:
            fh.write(b"\n%" + b"p" * pad + b"\n")
        shutil.copy(target, race["copy"])
    from pdftui.corpus import sha256_file

    old_sha = sha256_file(race["target"])
    cache = tmp / "cache-race"
    proc = subprocess.Popen([sys.executable, "-m", "pdftui.cli", "index", str(race["folder"]),
                             "--cache-dir", str(cache), "--no-embed"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(2.0)
    os.replace(race["new"], race["target"])
    try:
        out, err = proc.communicate(timeout=timeout * 2)
        first = Run(proc.returncode, out, err, 0.0)
    except subprocess.TimeoutExpired:
        proc.kill()
        first = Run(None, *proc.communicate(), timeout * 2, hung=True)
    second = cli("index", race["other"], "--cache-dir", cache, "--no-embed", timeout=timeout)
    runs = [("index during mv", first), ("index the copy", second)]
    for q, folder in (("targetoldword", race["other"]), ("replacementnewword", race["other"]),
                      ("replacementnewword", race["folder"])):
        runs.append((f"search {q}", cli("search", folder, q, "--mode", "keyword", "--json",
                                        "--cache-dir", cache, timeout=timeout)))
    for name, r in runs:
        row.tried += 1
        row.account(r, name)
        if r.rc == 0 and not r.hung:
            row.indexed += 1
    hits = [json.loads(r.out)["hits"] if r.rc == 0 else [] for _, r in runs[2:]]
    want = [True, False, True]
    for (name, _), got, w in zip(runs[2:], hits, want):
        if bool(got) != w:
            row.wrong += 1
            row.problems.append(f"{name}: {len(got)} hits, expected {'some' if w else 'none'}")
    db = cache_db(cache)
    try:
        bad = db.execute("SELECT count(*) FROM contents c JOIN pages p ON p.content_id=c.id"
                         " WHERE c.sha256=? AND p.text LIKE '%replacementnewword%'",
                         (old_sha,)).fetchone()[0]
    finally:
        db.close()
    if bad:
        row.wrong += 1
        row.problems.append("the replacement's text is stored under the original's hash")
    _poisoned_repair(tmp, race, row, timeout)
    return row


def _poisoned_repair(tmp: Path, race: dict, row: Row, timeout: float) -> None:
    """A cache poisoned by an older pdftui (the replacement's text under the copy's hash):
    indexing the copy must repair it."""
    from pdftui.store.database import Cache
    from pdftui.corpus import sha256_file
    from pdftui.extract import extract_document

    cache_dir = tmp / "cache-poisoned"
    cache = Cache(cache_dir)
    try:
        cache.insert_content(sha256_file(race["copy"]), race["copy"].stat().st_size,
                             extract_document(race["target"]))
    finally:
        cache.close()
    for q, want in (("targetoldword", True), ("replacementnewword", False)):
        r = cli("search", race["other"], q, "--mode", "keyword", "--json", "--cache-dir",
                cache_dir, timeout=timeout)
        row.tried += 1
        row.account(r, f"poisoned cache: search {q}")
        got = bool(r.rc == 0 and json.loads(r.out)["hits"])
        if got != want:
            row.wrong += 1
            row.problems.append(f"poisoned cache: {q!r} {'not ' if want else ''}found")
        else:
            row.indexed += 1


def bench_read_only(tmp: Path, timeout: float) -> Row:
    """A finished index on a read-only mount and on a full disk (real mounts; skipped
    where this process may not mount): ``index`` fails with one line naming why; search,
    read and read --sections answer from the index with a one-line warning."""
    row = Row("read-only / full cache")
    folder = tmp / "rof"
    folder.mkdir()
    for name in ("debian-octave-refcard-a4.pdf",):
        shutil.copy(CORPUS / name, folder / name)
    cache, ro, disk = tmp / "rof-cache", tmp / "rof-ro", tmp / "rof-disk"
    cli("index", folder, "--no-embed", "--cache-dir", cache, timeout=timeout)
    cases = []
    if mount_read_only(cache, ro):
        cases.append(("read-only", ro, "read-only"))
    if mount_tmpfs(disk, 3072):
        cli("index", folder, "--no-embed", "--cache-dir", disk / "c", timeout=timeout)
        fill_disk(disk)
        cases.append(("full disk", disk / "c", "the disk is full"))
    if not cases:
        row.problems.append("(info) cannot mount here: read-only and full-disk cases not run")
    try:
        tiny_corpus(folder / "more", 10, prefix="rof", pages=3)   # something to update
        for name, c, why in cases:
            r = cli("index", folder, "--no-embed", "--cache-dir", c, timeout=timeout)
            row.tried += 1
            row.account(r, f"{name}: index")
            lines = [ln for ln in r.err.splitlines() if ln.startswith("pdftui: ") and
                     "extracted" not in ln]
            if r.rc != 2 or len(lines) != 1 or why not in lines[0]:
                row.wrong += 1
                row.problems.append(f"{name}: index rc={r.rc} {r.err.strip()[-200:]!r}")
            else:
                row.skipped["clear error"] += 1
            for what, args in (("search", ["search", folder, "octave", "--mode", "keyword",
                                           "--json"]),
                               ("read", ["read", folder, "debian-octave-refcard-a4.pdf"]),
                               ("sections", ["read", folder, "debian-octave-refcard-a4.pdf",
                                             "--sections"])):
                r = cli(*args, "--cache-dir", c, timeout=timeout)
                row.tried += 1
                row.account(r, f"{name}: {what}")
                warn = [ln for ln in r.err.splitlines() if "cannot be updated" in ln]
                if r.rc != 0 or len(warn) != 1 or why not in warn[0] or "Octave" not in r.out:
                    row.wrong += 1
                    row.problems.append(f"{name}: {what} rc={r.rc} {r.err.strip()[-200:]!r}")
                else:
                    row.indexed += 1
    finally:
        for m in (ro, disk):
            unmount(m)
    return row


def bench_encodings(tmp: Path, timeout: float) -> Row:
    """Latin-1 and ASCII standard output: search, read, read --sections and --json never
    raise (--json is ASCII there and decodes to the same text); the TUI refuses TERM=dumb
    and a non-UTF-8 locale with one line and no escape sequence."""
    row = Row("output encodings")
    folder = tmp / "enc"
    make_pdf(folder.mkdir() or folder / "café.pdf", ["café naïve encword", "two encword"],
             toc=[[1, "Überblick · eins", 1], [1, "Zwei", 2]], title="Résumé ✔️")
    cache = tmp / "cache-enc"
    cli("index", folder, "--no-embed", "--cache-dir", cache, timeout=timeout)
    for enc in ("latin-1", "ascii"):
        env = {"PYTHONIOENCODING": enc}
        for what, args in (("search", ["search", folder, "encword", "--mode", "keyword"]),
                           ("search sections", ["search", folder, "encword", "--mode",
                                                "keyword", "--granularity", "section"]),
                           ("read", ["read", folder, "café.pdf"]),
                           ("sections", ["read", folder, "café.pdf", "--sections"]),
                           ("json", ["search", folder, "encword", "--mode", "keyword",
                                     "--json"])):
            r = cli(*args, "--cache-dir", cache, env=env, timeout=timeout)
            row.tried += 1
            row.account(r, f"{enc} {what}")
            ok = r.rc == 0 and "Traceback" not in r.err
            if ok and what == "json":
                ok = r.out.isascii() and any("café naïve" in h["excerpt"]
                                             for h in json.loads(r.out)["hits"])
            if ok:
                row.indexed += 1
            else:
                row.wrong += 1
                row.problems.append(f"{enc} {what}: rc={r.rc} {r.err.strip()[-200:]!r}")
    for env in ({"TERM": "dumb"}, {"LC_ALL": "C", "PYTHONUTF8": "0"},
                {"PYTHONIOENCODING": "latin-1"}):
        r = cli(folder, "--cache-dir", cache, env=env, timeout=60)
        row.tried += 1
        row.account(r, f"tui {env}")
        lines = r.err.strip().splitlines()
        if r.rc == 2 and r.out == "" and len(lines) == 1 and "pdftui search" in lines[0] \
                and "\x1b" not in r.err:
            row.skipped["refused with a hint"] += 1
        else:
            row.wrong += 1
            row.problems.append(f"tui {env}: rc={r.rc} {r.err[:120]!r}")
    return row


def bench_content(tmp: Path, timeout: float) -> Row:
    """Annotations (sticky note, comment on a highlight, FreeText) found on their page and
    shown as such; a 96,000-character paragraph's excerpt holds the match; U+FE0F is gone
    from table cells; a query over 1,000 characters or 32 terms is said to be cut; a
    vanished folder is searched as nothing, and says so."""
    row = Row("annotations, long text")
    folder = tmp / "content"
    build_annotated(folder / "annotated.pdf")
    build_long_block(folder / "long.pdf")
    make_pdf(folder / "emoji ✔️.pdf", ["emojiword ✔️"])
    cache = tmp / "cache-content"
    cli("index", folder, "--no-embed", "--cache-dir", cache, timeout=timeout)
    many = " ".join(f"term{i:02d}word" for i in range(40)) + " annotatedbody"
    checks = [
        ("stickynoteword", lambda d: [(h["page"], "Note (Alice): stickynoteword" in h["excerpt"])
                                      for h in d["hits"]] == [(2, True)]),
        ("highlightcommentword", lambda d: [(h["page"], "Comment on highlight:" in h["excerpt"])
                                            for h in d["hits"]] == [(1, True)]),
        ("freetextword", lambda d: [h["page"] for h in d["hits"]] == [1]),
        (LONG_BLOCK_WORD, lambda d: bool(d["hits"]) and LONG_BLOCK_WORD in d["hits"][0]["excerpt"]),
        ("annotatedbody " + "x" * 1200,
         lambda d: "first 1,000 characters" in d["coverage"].get("note", "")),
        (many, lambda d: "first 32 of 41 terms" in d["coverage"].get("note", "")),
    ]
    for q, good in checks:
        r = cli("search", folder, q, "--mode", "keyword", "--json", "--cache-dir", cache,
                timeout=timeout)
        row.tried += 1
        row.account(r, f"search {q[:30]}")
        if r.rc == 0 and good(json.loads(r.out)):
            row.indexed += 1
        else:
            row.wrong += 1
            row.problems.append(f"search {q[:30]!r}: rc={r.rc} {r.out[:200]!r}")
    r = cli("search", folder, "emojiword", "--mode", "keyword", "--cache-dir", cache,
            timeout=timeout)
    row.tried += 1
    row.account(r, "emoji table")
    if r.rc == 0 and "\ufe0f" not in r.out and "emoji" in r.out:
        row.indexed += 1
    else:
        row.wrong += 1
        row.problems.append("U+FE0F left in the results table")
    from pdftui.search.service import SearchService

    gone = tmp / "gone"
    make_pdf(gone.mkdir() or gone / "a.pdf", ["vanishword here"])
    cli("index", gone, "--no-embed", "--cache-dir", cache, timeout=timeout)
    svc = SearchService(gone, cache_dir=cache)
    try:
        shutil.rmtree(gone)
        res = svc.search_sync("vanishword", mode="keyword")
        row.tried += 1
        if res.hits or res.coverage.searched or "nothing was searched" not in \
                (res.coverage.note or ""):
            row.stale += 1
            row.problems.append(f"vanished folder: {len(res.hits)} hits, {res.coverage.to_json()}")
        else:
            row.indexed += 1
    finally:
        svc.close()
    return row


COLUMNS = ("tried", "indexed", "skipped", "crashes", "hangs", "wrong", "stale", "lock_errors")


def print_table(rows: list[Row]) -> None:
    head = f"{'input':24} {'tried':>6} {'ok':>6} {'skipped':>8} {'crash':>6} {'hang':>5}" \
           f" {'wrong':>6} {'stale':>6} {'locked':>7}"
    print(head)
    print("-" * len(head))
    tot = Row("total")
    for r in rows + [tot]:
        if r is tot:
            for x in rows:
                for c in COLUMNS:
                    if c == "skipped":
                        tot.skipped.update(x.skipped)
                    else:
                        setattr(tot, c, getattr(tot, c) + getattr(x, c))
            print("-" * len(head))
        print(f"{r.kind:24} {r.tried:6} {r.indexed:6} {sum(r.skipped.values()):8} "
              f"{r.crashes:6} {r.hangs:5} {r.wrong:6} {r.stale:6} {r.lock_errors:7}")
    print()
    print("skipped / flagged, by reason:")
    for reason, n in sorted(tot.skipped.items()):
        print(f"  {n:4}  {reason}")
    probs = [(r.kind, p) for r in rows for p in r.problems]
    if probs:
        print("\nproblems:")
        for kind, p in probs:
            print(f"  [{kind}] {p}")
    ok = not (tot.crashes or tot.hangs or tot.lock_errors or tot.stale or tot.wrong)
    print(f"\nbar (0 crashes, 0 hangs, 0 lock errors, 0 stale, 0 wrong): {'MET' if ok else 'NOT MET'}")


def bench_bombs(tmp: Path, timeout: float) -> Row:
    """Decompression bombs (one page inflating to 100 MB and to 1 GB of text operators,
    a 1 MB Form XObject drawn 1,000 times, an LZW stream decoding to 1 GB; each beside a
    normal file): each index must finish within 30 s, skip the bomb naming the cap and
    index the normal file; the next run must not extract the bomb again."""
    row = Row("bombs")
    kinds = [(f"{mb} MB bomb", lambda p, mb=mb: build_inflation_bomb(p, mb << 20))
             for mb in (100, 1024)]
    kinds += [("1 MB form drawn 1,000 times", lambda p: build_xobject_bomb(p, 1 << 20, 1000)),
              ("1 GB LZW bomb", lambda p: build_lzw_bomb(p, 1 << 30))]
    for n, (mb, build) in enumerate(kinds):
        folder = tmp / f"bomb{n}"
        folder.mkdir(parents=True)
        make_pdf(folder / "normal.pdf", ["the quillwort grows by the pond"])
        build(folder / "bomb.pdf")
        cache = tmp / f"cache-bomb{n}"
        for run in ("first", "second"):
            r = cli("index", folder, "--cache-dir", cache, "--no-embed", "--json",
                    timeout=min(timeout, 30.0))
            row.tried += 1
            row.account(r, f"{mb}, {run} index")
            if r.hung or r.crashed:
                continue
            s = json.loads(r.out)
            reasons = {k["doc"]: k["reason"] for k in s["skipped"]}
            ok = "cap" in reasons.get("bomb.pdf", "") and (
                s["indexed"] == 1 if run == "first" else s["unchanged"] == 1)
            if ok:
                row.indexed += 1
                row.skipped[reasons["bomb.pdf"]] += 1
            else:
                row.wrong += 1
                row.problems.append(f"{mb}, {run} index: {s}")
    return row


def bench_hidden(tmp: Path, timeout: float) -> Row:
    """Hidden text of each kind (white on white hiding an instruction, a 0.5 pt font,
    render mode 3, off the page) and the OCR control (render mode 3 over an image): each
    indexed; its hidden word found by keyword search with the run named by its kind in
    the hit's ``hidden_text`` and absent from the excerpt; the control's word found with
    no hidden text; ``docs --json`` flags only the document hiding an instruction."""
    row = Row("hidden text")
    folder, cache = tmp / "hidden", tmp / "cache-hidden"
    kinds = list(HIDDEN_WORDS) + ["ocr"]
    for kind in kinds:
        build_hidden_text(folder / f"{kind}.pdf", kind, instruction=kind == "background")
    r = cli("index", folder, "--cache-dir", cache, "--no-embed", "--json", timeout=timeout)
    row.account(r, "index hidden/")
    if r.hung or r.crashed:
        return row
    for kind in kinds:
        word = HIDDEN_WORDS.get(kind, "ocrlayerword")
        r = cli("search", folder, word, "--mode", "keyword", "--cache-dir", cache, "--json",
                timeout=timeout)
        row.tried += 1
        row.account(r, f"search {kind}")
        if r.hung or r.crashed:
            continue
        hits = json.loads(r.out)["hits"]
        runs = [x["kind"] for h in hits for x in h["hidden_text"]]
        want = [] if kind == "ocr" else [kind]
        if [h["doc"] for h in hits] == [f"{kind}.pdf"] and runs == want and \
                (kind == "ocr" or word not in hits[0]["excerpt"]):
            row.indexed += 1
        else:
            row.wrong += 1
            row.problems.append(f"{kind}: hits {[(h['doc'], h['hidden_text']) for h in hits]}")
    r = cli("docs", folder, "--cache-dir", cache, "--json", timeout=timeout)
    row.tried += 1
    row.account(r, "docs --json")
    if not (r.hung or r.crashed):
        flagged = {d["doc"] for d in json.loads(r.out)["documents"] if d["hidden_instructions"]}
        if flagged == {"background.pdf"}:
            row.indexed += 1
        else:
            row.wrong += 1
            row.problems.append(f"flagged {sorted(flagged)}, expected background.pdf only")
    return row


def _extraction_workers(pid: int) -> list:
    """The extraction worker processes under ``pid`` (psutil processes)."""
    import psutil

    try:
        kids = psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    out = []
    for k in kids:
        try:
            if "spawn_main" in " ".join(k.cmdline()):
                out.append(k)
        except psutil.Error:
            pass
    return out


def _signal_round(tmp: Path, name: str, sig: int, row: Row) -> None:
    """Index a folder with a slow file (16 pages of 12 MB of text operators, under the
    caps: about a minute of extraction), send
    ``sig`` once a worker runs, and judge: exit within 30 s, no worker left, no traceback
    or leaked semaphore on stderr, the next run (the slow file removed) completes."""
    import psutil
    import subprocess

    folder = tmp / f"sig-{name}"
    folder.mkdir(parents=True)
    make_pdf(folder / "normal.pdf", ["the quillwort grows by the pond"])
    build_inflation_bomb(folder / "slow.pdf", 12 << 20, pages=16)
    cache = tmp / f"cache-sig-{name}"
    proc = subprocess.Popen([sys.executable, "-m", "pdftui.cli", "index", "--no-embed",
                             "--cache-dir", str(cache), str(folder)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True,   # SIGINT as a terminal gives it:
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    row.tried += 1
    end = time.monotonic() + 120
    workers = []
    while not workers and time.monotonic() < end:
        workers = _extraction_workers(proc.pid)
        time.sleep(0.05)
    time.sleep(1.0)   # the worker is inside the slow document
    proc.send_signal(sig)
    try:
        _out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _out, err = proc.communicate()
        row.hangs += 1
        row.problems.append(f"{name}: index still running 30 s after the signal")
        return
    _gone, alive = psutil.wait_procs(workers, timeout=5)
    text = err.decode("utf-8", "replace")
    if alive or "Traceback" in text or "leaked semaphore" in text:
        row.wrong += 1
        row.problems.append(f"{name}: {len(alive)} workers left; stderr {text[-300:]}")
        return
    (folder / "slow.pdf").unlink()
    r = cli("index", folder, "--cache-dir", cache, "--no-embed", timeout=60)
    row.account(r, f"{name}: next index")
    if r.rc == 0:
        row.indexed += 1
    else:
        row.wrong += 1
        row.problems.append(f"{name}: next index rc={r.rc}")


def bench_signals(tmp: Path, timeout: float) -> Row:
    """SIGINT (Ctrl-C) and SIGTERM to ``pdftui index`` while a worker extracts a slow
    file (:func:`_signal_round`)."""
    del timeout
    row = Row("signals")
    for name, sig in (("SIGINT", signal.SIGINT), ("SIGTERM", signal.SIGTERM)):
        _signal_round(tmp, name, sig, row)
    return row


def _two_docs(tmp: Path, name: str) -> tuple[Path, Path, Path]:
    """A folder of two small PDFs ("alphaword", "betaword"), indexed: (folder, cache, data)."""
    folder = tmp / name
    folder.mkdir(parents=True)
    make_pdf(folder / "one.pdf", ["alphaword on the first page", "more alphaword"])
    make_pdf(folder / "two.pdf", ["betaword on the first page"])
    cache, data = tmp / f"cache-{name}", tmp / f"data-{name}"
    cli("index", folder, "--cache-dir", cache, "--no-embed", timeout=90)
    return folder, cache, data


def _hits(folder: Path, cache: Path, data: Path, word: str, timeout: float) -> Run:
    return cli("search", folder, word, "--mode", "keyword", "--cache-dir", cache,
               "--data-dir", data, "--json", timeout=timeout)


def _judge(row: Row, r: Run, what: str, ok, refused: bool = False) -> None:
    """Count ``r`` (one input): a crash or hang as such, else right when ``ok(r)``.
    ``refused``: exit 1 is the right answer (a refusal with its message), so only a
    traceback counts as a crash."""
    row.tried += 1
    if refused and r.rc == 1 and "Traceback" not in r.err and not r.hung:
        r = Run(0, r.out, r.err, r.seconds, r.hung)   # judged by ok() below
    row.account(r, what)
    if r.hung or r.crashed:
        return
    try:
        right = ok(r)
    except (ValueError, KeyError, TypeError) as exc:
        right, r = False, Run(r.rc, r.out, f"{r.err} [{type(exc).__name__}: {exc}]", r.seconds)
    if right:
        row.indexed += 1
    else:
        row.wrong += 1
        row.problems.append(f"{what}: rc={r.rc} {(r.out + r.err).strip()[-300:]}")


def bench_stores(tmp: Path, timeout: float) -> Row:
    """Damaged stores: a cache with 4 KB of random bytes, truncated, or replaced by text
    is moved aside by ``index`` (one line, never deleted) and rebuilt; with the cache
    truncated, ``docs``, ``mark`` and ``export`` still reach the marks; a damaged user-data
    file is named as such by ``docs``, ``export`` and ``mark`` and left byte for byte."""
    row = Row("stores")
    for how in ("random", "truncate", "replace"):
        folder, cache, data = _two_docs(tmp, f"store-{how}")
        damage_file(cache / "index.sqlite3", how)
        r = cli("index", folder, "--cache-dir", cache, "--no-embed", "--json", timeout=timeout)
        kept = [p for p in cache.iterdir() if ".damaged-" in p.name]
        _judge(row, r, f"cache {how}: index", lambda r, kept=kept: r.rc == 0
               and json.loads(r.out)["indexed"] == 2 and "moved it to" in r.err and kept)
        _judge(row, _hits(folder, cache, data, "alphaword", timeout), f"cache {how}: search",
               lambda r: [h["doc"] for h in json.loads(r.out)["hits"]][:1] == ["one.pdf"])
    folder, cache, data = _two_docs(tmp, "store-userdata")
    cli("mark", folder, "one.pdf", "keep", "--cache-dir", cache, "--data-dir", data,
        timeout=timeout)
    damage_file(cache / "index.sqlite3", "truncate")
    for cmd in (["docs", folder, "--json"], ["export", folder, "--format", "json"],
                ["mark", folder, "two.pdf", "skip"]):
        r = cli(*cmd, "--cache-dir", cache, "--data-dir", data, timeout=timeout)
        _judge(row, r, f"no usable cache: {cmd[0]}", lambda r, c=cmd[0]: r.rc == 0 and (
            c == "mark" or "one.pdf" in r.out))
    folder, cache, data = _two_docs(tmp, "store-damaged-data")
    user_data_with_marks(data, folder, ["one.pdf"])
    path = data / "triage.sqlite3"
    damage_file(path, "pages")
    before = path.read_bytes()
    for cmd in (["docs", folder], ["export", folder], ["mark", folder, "two.pdf", "keep"]):
        r = cli(*cmd, "--cache-dir", cache, "--data-dir", data, timeout=timeout)
        _judge(row, r, f"damaged user data: {cmd[0]}", lambda r: "user data file" in r.err
               and "damaged" in r.err and path.read_bytes() == before, refused=True)
    return row


def bench_names(tmp: Path, timeout: float) -> Row:
    """Names that collide: a byte name that is not UTF-8, a file literally named with its
    escaped form, a control character: three documents, each word found in its own file
    on two runs (nothing re-extracted), every shown name taken back by ``read`` and
    ``mark``."""
    row = Row("names")
    base = tmp / "names-base"
    base.mkdir()
    folder, cache, data = build_colliding_names(base)
    words = {"undecodablebyte": "caf\\xe9.pdf", "literalescape": "caf\\\\xe9.pdf",
             "bellcontrol": "bell\\x07.pdf"}
    for run in ("first", "second"):
        r = cli("index", folder, "--cache-dir", cache, "--no-embed", "--json", timeout=timeout)
        _judge(row, r, f"{run} index", lambda r, run=run: json.loads(r.out)["indexed"]
               == (3 if run == "first" else 0) and json.loads(r.out)["documents"] == 3)
        for word, doc in words.items():
            _judge(row, _hits(folder, cache, data, word, timeout), f"{run}: {word}",
                   lambda r, doc=doc: {h["doc"] for h in json.loads(r.out)["hits"]} == {doc})
    for doc in words.values():
        _judge(row, cli("read", folder, doc, "--cache-dir", cache, timeout=timeout),
               f"read {doc}", lambda r: r.rc == 0)
        _judge(row, cli("mark", folder, doc, "keep", "--cache-dir", cache, "--data-dir", data,
                        timeout=timeout), f"mark {doc}", lambda r, doc=doc: doc in r.out)
    return row


def _file_size_limit(limit: int):
    """A preexec_fn: the child's files cannot grow past ``limit`` bytes (a full disk)."""
    import resource

    def apply():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def bench_disks(tmp: Path, timeout: float) -> Row:
    """A full disk under the user data (RLIMIT_FSIZE): a ``mark`` whose note does not fit
    fails saying so and changes nothing; ``docs`` and ``export`` read the marks with no
    room for a side file."""
    import sqlite3

    row = Row("disks")
    folder, cache, data = _two_docs(tmp, "disk")
    cli("mark", folder, "one.pdf", "skip", "--cache-dir", cache, "--data-dir", data,
        timeout=timeout)
    r = cli("mark", folder, "one.pdf", "keep", "--note", "n" * 100_000, "--cache-dir", cache,
            "--data-dir", data, timeout=timeout, preexec_fn=_file_size_limit(60_000))

    def unchanged(r: Run) -> bool:
        db = sqlite3.connect(data / "triage.sqlite3")
        try:
            rows = db.execute("SELECT mark, note FROM records").fetchall()
        finally:
            db.close()
        return "nothing was changed" in r.err and rows == [("skip", "")]
    _judge(row, r, "mark on a full disk", unchanged, refused=True)
    for cmd in (["docs", folder, "--json"],
                ["export", folder, "--format", "json", "--marked", "all"]):
        r = cli(*cmd, "--cache-dir", cache, "--data-dir", data, timeout=timeout,
                preexec_fn=_file_size_limit(10_000))
        _judge(row, r, f"{cmd[0]} with no free space", lambda r: r.rc == 0 and "one.pdf" in r.out)
    return row


def bench_csv(tmp: Path, timeout: float) -> Row:
    """CSV cells a spreadsheet would run (a note and a title starting with ``=``, ``+``,
    ``-``, ``@``): each written with a leading ``'``, as text."""
    import csv
    import io

    row = Row("csv")
    folder = tmp / "csv"
    folder.mkdir()
    cache, data = tmp / "cache-csv", tmp / "data-csv"
    notes = ["=HYPERLINK(\"http://x\")", "+1+1", "-2+3", "@SUM(A1:A2)"]
    for i, note in enumerate(notes):
        make_pdf(folder / f"p{i}.pdf", [f"csvword{i} page"])
    cli("index", folder, "--cache-dir", cache, "--no-embed", timeout=timeout)
    for i, note in enumerate(notes):
        cli("mark", folder, f"p{i}.pdf", "keep", "--note", note, "--cache-dir", cache,
            "--data-dir", data, timeout=timeout)
    r = cli("export", folder, "--format", "csv", "--cache-dir", cache, "--data-dir", data,
            timeout=timeout)

    def neutral(r: Run) -> bool:
        cells = [c for line in csv.reader(io.StringIO(r.out)) for c in line]
        bad = [c for c in cells if c[:1] in ("=", "+", "-", "@")]
        return r.rc == 0 and not bad and all(f"'{n}" in cells for n in notes)
    _judge(row, r, "export --format csv", neutral)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a short version (about a minute)")
    ap.add_argument("--json", dest="json_path", help="write the table as JSON here")
    ap.add_argument("--timeout", type=float, default=120.0, help="per-input timeout, seconds")
    ap.add_argument("--kills", type=int, default=None, help="kill -9 rounds (default 10; 3 quick)")
    ap.add_argument("--only", default=None,
                    help="comma list of: made,real,tree,cache,queries,kill,concurrency,"
                         "changes,untrusted,labels,race,readonly,encodings,content,"
                         "bombs,hidden,signals,stores,names,disks,csv")
    a = ap.parse_args()
    kills = a.kills if a.kills is not None else (3 if a.quick else 10)
    only = set(a.only.split(",")) if a.only else None
    tmp = Path(tempfile.mkdtemp(prefix="pdftui-robust-"))
    steps = [
        ("made", lambda: bench_tricky("made", tmp, a.quick, a.timeout)),
        ("real", lambda: bench_tricky("real", tmp, a.quick, a.timeout)),
        ("tree", lambda: bench_tree(tmp, a.timeout)),
        ("cache", lambda: bench_cache_errors(tmp, a.timeout)),
        ("queries", lambda: bench_queries(tmp, a.timeout, hybrid=not a.quick)),
        ("kill", lambda: bench_kill(tmp, kills, embed=not a.quick)),
        ("concurrency", lambda: bench_concurrency(tmp, a.timeout, 1 if a.quick else 3)),
        ("changes", lambda: bench_changes(tmp, a.timeout)),
        ("untrusted", lambda: bench_untrusted(tmp, a.timeout)),
        ("labels", lambda: bench_labels(tmp, a.timeout)),
        ("race", lambda: bench_replace_race(tmp, a.timeout)),
        ("readonly", lambda: bench_read_only(tmp, a.timeout)),
        ("encodings", lambda: bench_encodings(tmp, a.timeout)),
        ("content", lambda: bench_content(tmp, a.timeout)),
        ("bombs", lambda: bench_bombs(tmp, a.timeout)),
        ("hidden", lambda: bench_hidden(tmp, a.timeout)),
        ("signals", lambda: bench_signals(tmp, a.timeout)),
        ("stores", lambda: bench_stores(tmp, a.timeout)),
        ("names", lambda: bench_names(tmp, a.timeout)),
        ("disks", lambda: bench_disks(tmp, a.timeout)),
        ("csv", lambda: bench_csv(tmp, a.timeout)),
    ]
    rows: list[Row] = []
    t0 = time.monotonic()
    try:
        for name, fn in steps:
            if only and name not in only:
                continue
            t = time.monotonic()
            try:
                rows.append(fn())
            except Exception as exc:  # noqa: BLE001 - a bench bug is a row, not a stop
                r = Row(name, crashes=1)
                r.problems.append(f"bench step failed: {type(exc).__name__}: {exc}")
                rows.append(r)
            print(f"# {name}: {time.monotonic() - t:.1f} s", file=sys.stderr)
        print_table(rows)
        print(f"\n{time.monotonic() - t0:.0f} s in all")
        if a.json_path:
            with open(a.json_path, "w") as fh:
                json.dump({"rows": [{**asdict(r), "skipped": dict(r.skipped)} for r in rows],
                           "elapsed_s": round(time.monotonic() - t0, 1),
                           "quick": a.quick}, fh, indent=1, ensure_ascii=False)
    finally:
        rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
