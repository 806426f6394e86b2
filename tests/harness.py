"""Running pdftui's CLI on hostile inputs and judging the cache it leaves, shared by the
tests and ``bench/robust.py``: the CLI in a subprocess with a timeout (:func:`cli`), the
state of a document and the rows a cache holds, duplicates and orphans, a ``kill -9`` loop,
a sequence of file changes between CLI calls, and hostile environments (an unprivileged
user, a read-only mount, a full disk).

Importable from the tests (``from .harness import ...``) and from the bench scripts, which
put the repository on ``sys.path`` (``from tests import harness``). Nothing here imports
pytest.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .builders import REPO, SKIP_REASONS, Exp, make_pdf

# --------------------------------------------------------------------------- judging the cache


def cache_db(cache_dir: str | os.PathLike) -> sqlite3.Connection:
    """A connection to the index of ``cache_dir`` (waits up to 60 s for a lock)."""
    return sqlite3.connect(os.path.join(cache_dir, "index.sqlite3"), timeout=60)


def doc_state(db: sqlite3.Connection, root: str, doc: str) -> tuple[str, int | None]:
    """("missing" | skip reason | text quality, content id) of one document."""
    row = db.execute(
        "SELECT f.skip_reason, c.id, c.skip_reason, c.text_quality FROM files f"
        " LEFT JOIN contents c ON c.id = f.content_id WHERE f.root=? AND f.doc=?",
        (os.path.realpath(root), doc)).fetchone()
    if row is None:
        return "missing", None
    freason, cid, creason, quality = row
    if freason:
        return freason, cid
    if cid is None:
        return "missing", None
    return (creason or quality), cid


def fts_pages(db: sqlite3.Connection, cid: int, word: str) -> list[int]:
    """Pages of content ``cid`` whose FTS entry matches ``word`` as a phrase."""
    from pdftui.store.tokenizer import fts_text

    phrase = '"' + fts_text(word).replace('"', '""') + '"'
    return [r[0] for r in db.execute(
        "SELECT p.number FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid"
        " WHERE pages_fts MATCH ? AND p.content_id = ? ORDER BY p.number", (phrase, cid))]


def judge(db: sqlite3.Connection, root: str, doc: str, exp: Exp) -> tuple[str, str | None]:
    """(outcome, problem): outcome "indexed", "flagged" (unreliable / no text layer, listed
    with that reason) or "skipped: <reason>"; problem None when it is what ``exp`` says."""
    state, cid = doc_state(db, root, doc)
    if state == "missing":
        return "missing", "not in the index"
    outcome = ("indexed" if state == "ok" else
               "flagged: " + state if state in ("unreliable", "no text layer") else
               "skipped: " + state)
    if exp.status in SKIP_REASONS:
        if not (state == exp.status or state.startswith(exp.status + " (")):
            return outcome, f"wrong reason: {state!r}, expected {exp.status!r}"
        return outcome, None
    if state != exp.status:
        return outcome, f"wrong status: {state!r}, expected {exp.status!r}"
    if exp.pages is not None:
        n = db.execute("SELECT page_count FROM contents WHERE id=?", (cid,)).fetchone()[0]
        if n != exp.pages:
            return outcome, f"wrong page count {n}, expected {exp.pages}"
    for w in exp.words:
        hit = fts_pages(db, cid, w)
        if not hit:
            return outcome, f"wrong text: {w!r} not found"
        want = exp.word_pages.get(w)
        if want and not set(want) <= set(hit):
            return outcome, f"wrong text: {w!r} on pages {hit}, expected {want}"
    if exp.substr:
        text = "\n".join(r[0] for r in db.execute(
            "SELECT text FROM pages WHERE content_id=?", (cid,)))
        for s in exp.substr:
            if s not in text:
                return outcome, f"wrong text: {s!r} not in the page text"
    if exp.note:
        notes = db.execute("SELECT notes FROM contents WHERE id=?", (cid,)).fetchone()[0]
        if exp.note not in notes:
            return outcome, f"note {exp.note!r} missing"
    if exp.labels is not None:
        labels = [r[0] for r in db.execute(
            "SELECT label FROM pages WHERE content_id=? ORDER BY number", (cid,))]
        if labels != exp.labels:
            return outcome, f"page labels {labels}, expected {exp.labels}"
    if state == "ok":
        # no ligature code points or control characters left in indexed text
        bad = db.execute(
            "SELECT count(*) FROM pages WHERE content_id=? AND (text GLOB ?"
            " OR text GLOB ? OR instr(text, char(27)) OR instr(text, char(0)))",
            (cid, "*[\ufb00-\ufb06]*", "*[\x01-\x08]*")).fetchone()[0]
        if bad:
            return outcome, "ligature or control characters left in the page text"
    return outcome, None


def duplicates(db: sqlite3.Connection) -> dict[str, int]:
    """Rows that exist twice (should all be 0) and orphans (rows of no content)."""
    q = {
        "dup_contents": "SELECT count(*) - count(DISTINCT sha256) FROM contents",
        "dup_files": "SELECT count(*) - count(DISTINCT root || char(0) || doc) FROM files",
        "dup_pages": "SELECT count(*) FROM (SELECT 1 FROM pages GROUP BY content_id, number"
                     " HAVING count(*) > 1)",
        "dup_sections": "SELECT count(*) FROM (SELECT 1 FROM sections GROUP BY content_id,"
                        " ordinal HAVING count(*) > 1)",
        "dup_units": "SELECT count(*) FROM (SELECT 1 FROM units GROUP BY content_id, model_id,"
                     " page, ordinal HAVING count(*) > 1)",
        "orphan_pages": "SELECT count(*) FROM pages WHERE content_id NOT IN"
                        " (SELECT id FROM contents)",
        "orphan_contents": "SELECT count(*) FROM contents WHERE id NOT IN"
                           " (SELECT content_id FROM files WHERE content_id IS NOT NULL)",
        "orphan_units": "SELECT count(*) FROM units WHERE content_id NOT IN"
                        " (SELECT id FROM contents)",
    }
    return {k: db.execute(v).fetchone()[0] for k, v in q.items()}


def snapshot(db: sqlite3.Connection) -> dict:
    """What a cache holds, independent of row ids: per content sha, its pages, FTS token
    instances, sections and units; plus the (doc -> sha) map of every root."""
    per = {}
    for cid, sha, skip, quality in db.execute(
            "SELECT id, sha256, skip_reason, text_quality FROM contents"):
        pages = db.execute("SELECT count(*), coalesce(sum(length(text)),0) FROM pages"
                           " WHERE content_id=?", (cid,)).fetchone()
        secs = db.execute("SELECT count(*) FROM sections WHERE content_id=?", (cid,)).fetchone()
        units = db.execute("SELECT count(*) FROM units WHERE content_id=?", (cid,)).fetchone()
        per[sha] = (skip, quality, tuple(pages), secs[0], units[0])
    files = {f"{r}|{d}": (sha, fs) for r, d, sha, fs in db.execute(
        "SELECT f.root, f.doc, c.sha256, f.skip_reason FROM files f"
        " LEFT JOIN contents c ON c.id=f.content_id")}
    fts = db.execute("SELECT count(*) FROM pages_fts_instance").fetchone()[0]
    sfts = db.execute("SELECT count(*) FROM sections_fts_instance").fetchone()[0]
    return {"contents": per, "files": files, "fts_instances": fts, "section_fts_instances": sfts}


# --------------------------------------------------------------------------- hostile environments


_AS_NOBODY: tuple | None | bool = False

_PROBE = ("import os, sys, multiprocessing as mp, pdftui, pymupdf, click\n"
          "if __name__ == '__main__':\n"
          "    p = mp.get_context('spawn').Process(target=print, args=('',)); p.start(); p.join()\n"
          "    print(os.geteuid(), p.exitcode)\n")


def as_nobody() -> tuple[list[str], str, dict] | None:
    """How to run this project's Python as an unprivileged user: (command prefix such as
    ``setpriv --reuid=...``, python executable, extra environment), or None when not root,
    there is no such user, or no interpreter that user can run imports pdftui and spawns a
    worker process (the venv's python may live under root's home)."""
    global _AS_NOBODY
    if _AS_NOBODY is not False:
        return _AS_NOBODY  # type: ignore[return-value]
    _AS_NOBODY = None
    if os.geteuid() != 0:
        return None
    import pwd
    import site

    ver = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    pythons = [sys.executable, os.path.realpath(sys.executable), f"/usr/bin/{ver}",
               f"/usr/local/bin/{ver}", shutil.which(ver) or ""]
    paths = [str(REPO), *site.getsitepackages()]
    env = {"PYTHONPATH": os.pathsep.join(paths), "PYTHONNOUSERSITE": "1"}
    for name in ("nobody", "daemon"):
        try:
            pw = pwd.getpwnam(name)
        except KeyError:
            continue
        prefixes = []
        if shutil.which("setpriv"):
            prefixes.append(["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}",
                             "--clear-groups"])
        if shutil.which("runuser"):
            prefixes.append(["runuser", "-u", name, "--"])
        for pre in prefixes:
            for py in dict.fromkeys(p for p in pythons if p):
                try:
                    r = subprocess.run([*pre, py, "-c", _PROBE], capture_output=True, text=True,
                                       timeout=60, cwd="/", env={**os.environ, **env,
                                                                 "HOME": "/tmp"})
                except (OSError, subprocess.SubprocessError):
                    continue
                if r.returncode == 0 and r.stdout.split() == [str(pw.pw_uid), "0"]:
                    _AS_NOBODY = (pre, py, env, (pw.pw_uid, pw.pw_gid))
                    return _AS_NOBODY  # type: ignore[return-value]
    return None


def nobody_ids() -> tuple[int, int] | None:
    """(uid, gid) of the user :func:`as_nobody` runs as."""
    how = as_nobody()
    return how[3] if how else None


def open_up(path: Path) -> None:
    """Make ``path`` and its parents traversable by anyone (for a non-root subprocess)."""
    p = Path(path).resolve()
    for q in [p, *p.parents]:
        try:
            mode = q.stat().st_mode
            if not mode & 0o001:
                os.chmod(q, mode | 0o755)
        except OSError:
            pass


def mount_tmpfs(path: Path, size_kib: int) -> bool:
    """Mount a ``size_kib`` tmpfs on ``path`` (a real small disk that can fill up);
    False when this process may not mount (not root, no CAP_SYS_ADMIN)."""
    path.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs", str(path)],
                       capture_output=True)
    return r.returncode == 0


def mount_read_only(src: Path, dst: Path) -> bool:
    """Bind-mount ``src`` on ``dst`` read-only (a finished index on a read-only mount, which
    even root cannot write); False when this process may not mount."""
    dst.mkdir(parents=True, exist_ok=True)
    if subprocess.run(["mount", "--bind", str(src), str(dst)], capture_output=True).returncode:
        return False
    if subprocess.run(["mount", "-o", "remount,bind,ro", str(dst)],
                      capture_output=True).returncode:
        unmount(dst)
        return False
    return True


def unmount(path: Path) -> None:
    """Unmount what :func:`mount_tmpfs` or :func:`mount_read_only` mounted (never raises)."""
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


def fill_disk(path: Path) -> None:
    """Write zeros into ``path/fill`` until the disk holding it is full."""
    with open(path / "fill", "wb", buffering=0) as fh:
        try:
            while True:
                fh.write(b"\0" * (64 << 10))
        except OSError:
            pass


CTRL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def unsafe_bytes(out: str) -> list[str]:
    """Control characters (other than \\n, \\t) and ESC found in terminal output."""
    return sorted({repr(c) for c in CTRL_RE.findall(out.replace("\r\n", "\n"))})


def rmtree(path: Path) -> None:
    for dirpath, dirnames, _ in os.walk(path):
        for d in dirnames:
            try:
                os.chmod(os.path.join(dirpath, d), 0o755)
            except OSError:
                pass


# --------------------------------------------------------------------------- running the CLI


@dataclass
class Run:
    rc: int | None
    out: str
    err: str
    seconds: float
    hung: bool = False

    @property
    def crashed(self) -> bool:
        return not self.hung and (self.rc not in (0, 2) or "Traceback" in self.err)

    @property
    def locked(self) -> bool:
        text = (self.out + self.err).lower()
        return "database is locked" in text or "database is busy" in text


def cli(*args: str | os.PathLike, timeout: float = 120, stdin: str | None = None,
        env: dict | None = None, preexec_fn=None, cwd=None, nobody: bool = False) -> Run:
    """Run ``python -m pdftui.cli ARGS`` and capture its output (never raises);
    ``nobody``: as the unprivileged user of :func:`as_nobody`."""
    cmd = [sys.executable, "-m", "pdftui.cli", *[os.fspath(a) for a in args]]
    full_env = {**os.environ, "COLUMNS": "120", **(env or {})}
    if nobody:
        pre, py, extra, _ids = as_nobody()
        cmd = [*pre, py, *cmd[1:]]
        full_env.update(extra)
        full_env.setdefault("HOME", "/tmp")
        cwd = cwd or "/"
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env,
                            preexec_fn=preexec_fn, cwd=cwd, start_new_session=True)
    try:
        out, err = proc.communicate(stdin.encode() if stdin is not None else None,
                                    timeout=timeout)
        hung = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        hung = True
    return Run(proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
               time.monotonic() - t0, hung)


def _mutate(folder: Path, i: int) -> None:
    """Give the next run work to do: new content for a few tiny PDFs, one added, one gone."""
    import pymupdf

    tiny = sorted((folder / "tiny").glob("*.pdf"))
    for p in tiny[(i * 5) % max(1, len(tiny)):][:5]:
        doc = pymupdf.open()
        for k in range(3):
            doc.new_page(width=200, height=100).insert_text(
                (10, 30), f"round{i} {p.stem} page{k} common", fontsize=9)
        doc.save(p)
        doc.close()
    make_pdf(folder / "tiny" / f"added{i:02d}.pdf", [f"added in round{i} common"])
    if i % 3 == 2 and len(tiny) > 10:
        tiny[-1].unlink()


def kill_loop(folder: Path, cache_dir: Path, times: int, *, embed: bool, seed: int = 5,
              max_delay: float = 4.0) -> dict:
    """``kill -9`` ``pdftui index`` at random moments ``times`` times (changing a few files
    before each run so that every run has work), then run it normally, then index the
    same folder into a fresh cache for reference.

    Returns {"kills", "final": Run, "integrity", "dups", "orphans_alive", "snapshot",
    "reference"}."""
    rng = random.Random(seed)
    args = ["index", str(folder), "--cache-dir", str(cache_dir), "--json"]
    if not embed:
        args.append("--no-embed")
    kills = 0
    orphans = 0
    left: list[str] = []
    for i in range(times):
        if i:
            _mutate(folder, i)
        proc = subprocess.Popen([sys.executable, "-m", "pdftui.cli", *args],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        t0 = time.monotonic()
        deadline = t0 + rng.uniform(0.25, max_delay)
        while proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        else:  # it finished first: aim the next kills inside a run of that length
            max_delay = max(0.3, min(max_delay, 0.8 * (time.monotonic() - t0)))
        proc.wait()
        # the worker processes of a killed indexer must go away on their own
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and _group_alive(proc.pid):
            time.sleep(0.1)
        if _group_alive(proc.pid):
            orphans += 1
            left.extend(_group_cmds(proc.pid))
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
    final = cli(*args, timeout=600)
    db = cache_db(cache_dir)
    try:
        integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
        dups = duplicates(db)
        snap = snapshot(db)
    finally:
        db.close()
    ref_cache = Path(str(cache_dir) + "-reference")
    ref_args = [a if a != str(cache_dir) else str(ref_cache) for a in args]
    ref = cli(*ref_args, timeout=600)
    db = cache_db(ref_cache)
    try:
        ref_snap = snapshot(db)
    finally:
        db.close()
    return {"kills": kills, "final": final, "integrity": integrity, "dups": dups,
            "orphans_alive": orphans, "left": left, "snapshot": snap, "reference": ref_snap,
            "ref_run": ref}


def _group_pids(pgid: int) -> list[str]:
    """Live (non-zombie) processes of a process group, read from /proc."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as fh:
                parts = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(parts[2]) == pgid and parts[0] != "Z":
            out.append(pid)
    return out


def _group_cmds(pgid: int) -> list[str]:
    out = []
    for pid in _group_pids(pgid):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                out.append(fh.read().replace(b"\0", b" ").decode(errors="replace")[:120])
        except OSError:
            continue
    return out


def same_index(got: dict, ref: dict) -> list[str]:
    """Differences between two :func:`snapshot` s of one folder (empty when the same)."""
    out = []
    gf = {k.split("|", 1)[1]: v for k, v in got["files"].items()}
    rf = {k.split("|", 1)[1]: v for k, v in ref["files"].items()}
    if gf != rf:
        out.append(f"files differ: missing {sorted(set(rf) - set(gf))[:5]}, extra "
                   f"{sorted(set(gf) - set(rf))[:5]}, changed "
                   f"{sorted(d for d in set(gf) & set(rf) if gf[d] != rf[d])[:5]}")
    if got["contents"] != ref["contents"]:
        bad = [k[:12] for k in set(got["contents"]) | set(ref["contents"])
               if got["contents"].get(k) != ref["contents"].get(k)]
        out.append(f"contents differ: {bad[:5]}")
    for k in ("fts_instances", "section_fts_instances"):
        if got[k] != ref[k]:
            out.append(f"{k}: {got[k]} vs {ref[k]}")
    return out


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return bool(_group_pids(pgid))  # zombies do not count


# --------------------------------------------------------------------------- change sequence


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"\w+", text)}


class ChangeSeq:
    """Edit, touch, rename, delete, truncate and replace PDFs between CLI calls and check
    that ``pdftui search`` only shows what the files now say."""

    def __init__(self, base: Path, cache_dir: Path, timeout: float = 120):
        self.folder = base / "changes"
        self.folder.mkdir(parents=True)
        self.cache_dir = cache_dir
        self.timeout = timeout
        self.truth: dict[str, str] = {}  # doc -> all of its text (for excerpt checks)
        self.problems: list[str] = []
        self.runs: list[Run] = []
        self.steps = 0

    def write(self, doc: str, words: list[str]) -> None:
        pages = [f"Alpha heading\nshared topic {words[0]} first page",
                 f"Beta heading\nshared topic {words[1]} second page"]
        toc = [[1, "Alpha heading", 1], [1, "Beta heading", 2]]
        make_pdf(self.folder / doc, pages, toc=toc)
        self.truth[doc] = " ".join(pages)

    def search(self, queries: list[str], granularity: str = "page") -> list[list[dict]]:
        """The hits of each query, from one ``pdftui search -`` call (JSON Lines)."""
        r = cli("search", self.folder, "-", "--mode", "keyword", "--granularity",
                granularity, "--cache-dir", self.cache_dir, "--json", "--top-k", "50",
                stdin="\n".join(queries) + "\n", timeout=self.timeout)
        self.runs.append(r)
        lines = r.out.splitlines()
        if r.rc != 0 or r.hung or len(lines) != len(queries):
            self.problems.append(f"search {queries!r} failed: rc={r.rc} {r.err[-300:]}")
            return [[] for _ in queries]
        return [json.loads(line)["hits"] for line in lines]

    def check(self, step: str, gone_words: list[str], live: dict[str, str]) -> None:
        """After ``step``: no hit for a word no file holds any more, each live word found in
        its doc, and every hit's doc exists and its excerpt's words are in that file."""
        self.steps += 1
        queries = [*gone_words, *live, "shared topic"]
        for gran in ("page", "section"):
            answers = self.search(queries, gran)
            for w, hits in zip(gone_words, answers):
                for h in hits:
                    self.problems.append(f"{step}: stale {gran} hit for {w!r} in {h['doc']}")
            for (w, doc), hits in zip(live.items(), answers[len(gone_words):]):
                if doc not in {h["doc"] for h in hits}:
                    self.problems.append(f"{step}: {w!r} ({gran}) missing from {doc}")
            for hits in answers:
                for h in hits:
                    self._check_hit(step, gran, h)

    def _check_hit(self, step: str, gran: str, h: dict) -> None:
        doc = h["doc"]
        if doc not in self.truth or not (self.folder / doc).exists():
            self.problems.append(f"{step}: {gran} hit for a gone document {doc}")
            return
        extra = _words(h.get("excerpt") or "") - _words(self.truth[doc])
        if extra:
            self.problems.append(f"{step}: {gran} excerpt of {doc} holds {sorted(extra)[:5]}"
                                 " which the file no longer says")

    def run(self) -> None:
        f = self.folder
        self.write("a.pdf", ["oldalpha", "oldbeta"])
        self.write("b.pdf", ["bravoone", "bravotwo"])
        self.write("c.pdf", ["charlieone", "charlietwo"])
        self.check("initial", [], {"oldalpha": "a.pdf", "bravoone": "b.pdf"})
        # edit in place, same size class, new words (mtime may not even change)
        st = (f / "a.pdf").stat()
        self.write("a.pdf", ["newalpha", "newbeta"])
        os.utime(f / "a.pdf", ns=(st.st_atime_ns, st.st_mtime_ns))  # sneaky: same mtime
        self.check("edit (same mtime)", ["oldalpha", "oldbeta"], {"newalpha": "a.pdf"})
        # touch
        os.utime(f / "b.pdf", ns=(time.time_ns(), time.time_ns() + 10**9))
        self.check("touch", [], {"bravoone": "b.pdf"})
        # rename
        os.rename(f / "b.pdf", f / "b2.pdf")
        self.truth["b2.pdf"] = self.truth.pop("b.pdf")
        self.check("rename", [], {"bravoone": "b2.pdf"})
        # delete
        (f / "c.pdf").unlink()
        del self.truth["c.pdf"]
        self.check("delete", ["charlieone", "charlietwo"], {"bravotwo": "b2.pdf"})
        # truncate: the file is now damaged (or empty); its words must be gone
        data = (f / "b2.pdf").read_bytes()
        (f / "b2.pdf").write_bytes(data[: len(data) // 3])
        self.check("truncate", ["bravoone", "bravotwo"], {"newalpha": "a.pdf"})
        (f / "b2.pdf").write_bytes(b"")
        self.check("truncate to 0", ["bravoone", "bravotwo"], {"newalpha": "a.pdf"})
        del self.truth["b2.pdf"]
        # replace (atomic rename over the old file)
        tmp = f / ".replace.tmp"
        make_pdf(tmp, ["Alpha heading\nshared topic replacedalpha first page",
                       "Beta heading\nshared topic replacedbeta second page"],
                 toc=[[1, "Alpha heading", 1], [1, "Beta heading", 2]])
        os.replace(tmp, f / "a.pdf")
        self.truth["a.pdf"] = ("Alpha heading shared topic replacedalpha first page "
                               "Beta heading shared topic replacedbeta second page")
        self.check("replace", ["newalpha", "newbeta", "oldalpha"], {"replacedalpha": "a.pdf"})
        # a file swapped for another name's content
        self.write("d.pdf", ["deltaone", "deltatwo"])
        os.replace(f / "d.pdf", f / "a.pdf")
        self.truth["a.pdf"] = self.truth.pop("d.pdf")
        self.check("swap", ["replacedalpha", "replacedbeta"], {"deltaone": "a.pdf"})


def holds(text: str, what: str) -> bool:
    """FTS5 as the oracle of "does this text hold it" (tests/test_query.py and
    bench/query_syntax.py). Does ``text`` hold the word, ``word*`` prefix or phrase ``what`` (or the phrase
    with two adjacent words closed up) as the index matches it? Judged by SQLite itself:
    an FTS5 phrase query (the index's tokenizer) against an in-memory table holding
    ``text`` alone, not by the code under test."""
    from pdftui.store.schema import TOKENIZER
    from pdftui.store.tokenizer import fts_text

    db = sqlite3.connect(":memory:")
    try:
        db.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{TOKENIZER}')")
        db.execute("INSERT INTO t VALUES(?)", (fts_text(text),))
        words = re.findall(r"[^\W_]+", what.rstrip("*"))
        star = " *" if what.endswith("*") else ""
        # the phrase, or two adjacent words of it closed up ("chunk server": chunkserver)
        forms = [words] + [words[:i] + [a + b] + words[i + 2:]
                           for i, (a, b) in enumerate(zip(words, words[1:]))]
        q = " OR ".join('"' + fts_text(" ".join(f)).replace('"', '""') + '"' + star
                        for f in forms)
        return db.execute("SELECT count(*) FROM t WHERE t MATCH ?", (q,)).fetchone()[0] > 0
    finally:
        db.close()
