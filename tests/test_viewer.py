"""Opening a PDF at a page: the viewer's argument list, hostile file names that must run
nothing, no display, a failing viewer."""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
import time

import pytest

from pdftui.triage.viewer import (Launch, ViewerError, clipboard_text, has_display,
                                  open_at_page, viewer_command)

from .conftest import SMALL_DOCS, corpus_pdf

HOSTILE = ["$(touch pwned).pdf", "; rm -rf ~ #.pdf", "`touch pwned2`.pdf",
           "-P 9 --help.pdf", "a\nb {page}.pdf", "it's \"quoted\" & | > x.pdf"]


def _which(found: dict[str, str]):
    return lambda name: found.get(name)


def test_first_page_viewer_on_path_and_its_flags(tmp_path):
    p = str(tmp_path / "paper.pdf")
    env: dict[str, str] = {}
    for name, want in (("zathura", ["-P", "7", p]), ("sioyek", ["--page", "7", p]),
                       ("evince", ["-i", "7", p]), ("okular", ["-p", "7", p]),
                       ("mupdf", [p, "7"])):
        cmd = viewer_command(p, 7, env, _which({name: f"/usr/bin/{name}", "xdg-open": "x"}))
        assert cmd is not None and list(cmd.argv) == [f"/usr/bin/{name}", *want]
        assert cmd.at_page and cmd.source == name
    # zathura wins over okular when both are there
    cmd = viewer_command(p, 2, env, _which({"okular": "/o", "zathura": "/z"}))
    assert cmd.argv[0] == "/z"
    # no page viewer: xdg-open without a page (open on macOS), else nothing
    cmd = viewer_command(p, 2, env, _which({"xdg-open": "/usr/bin/xdg-open"}), "linux")
    assert list(cmd.argv) == ["/usr/bin/xdg-open", p] and not cmd.at_page
    cmd = viewer_command(p, 2, env, _which({"open": "/usr/bin/open"}), "darwin")
    assert list(cmd.argv) == ["/usr/bin/open", p]
    assert viewer_command(p, 2, env, _which({"open": "/usr/bin/openvt"}), "linux") is None


def test_template_from_environment(tmp_path):
    p = str(tmp_path / "my paper.pdf")
    cmd = viewer_command(p, 3, {"PDFTUI_VIEWER": "okular --page={page} '{path}'"})
    assert list(cmd.argv) == ["okular", "--page=3", p] and cmd.source == "PDFTUI_VIEWER"
    cmd = viewer_command(p, 3, {"PDFTUI_VIEWER": "my-viewer --new"})
    assert list(cmd.argv) == ["my-viewer", "--new", p] and not cmd.at_page
    with pytest.raises(ViewerError):
        viewer_command(p, 3, {"PDFTUI_VIEWER": "zathura '{path}"})


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_are_one_argument(tmp_path, name):
    p = tmp_path / name
    for env in ({"PDFTUI_VIEWER": "v -P {page} {path}"}, {}):
        cmd = viewer_command(p, 4, env, _which({"zathura": "/z"}))
        assert cmd.argv[-1] == str(p)           # exactly the file, absolute, one argument
        assert cmd.argv[-1].startswith("/")    # so "-P 9 --help.pdf" is never an option
        assert "4" in cmd.argv


def _recording_viewer(tmp_path) -> tuple[str, object]:
    """A real program that writes the arguments it got to a file and exits."""
    out = tmp_path / "argv.json"
    script = tmp_path / "bin" / "zathura"
    script.parent.mkdir(exist_ok=True)
    script.write_text(f"#!{sys.executable}\nimport json, sys\n"
                      f"open({str(out)!r}, 'w').write(json.dumps(sys.argv[1:]))\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script.parent), out


def _wait_for(path, timeout=20.0):
    deadline = time.monotonic() + timeout
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return json.loads(path.read_text())


@pytest.mark.parametrize("name", ["$(touch pwned).pdf", "; rm -rf ~ #.pdf"])
def test_hostile_file_opens_as_that_file_and_runs_nothing(tmp_path, monkeypatch, name):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    pdf = work / name
    shutil.copy(corpus_pdf(SMALL_DOCS[0]), pdf)
    bindir, out = _recording_viewer(tmp_path)
    env = {"PATH": bindir + os.pathsep + os.environ.get("PATH", ""), "DISPLAY": ":99",
           "HOME": str(tmp_path / "home")}
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "keep.txt").write_text("still here")
    launch = open_at_page(pdf, 2, env)
    assert launch.started, launch.message
    assert launch.error(wait_s=20) is None
    assert _wait_for(out) == ["-P", "2", str(pdf)]
    assert sorted(os.listdir(work)) == [name]                       # no "pwned"
    assert (tmp_path / "home" / "keep.txt").read_text() == "still here"
    # the same through a PDFTUI_VIEWER template
    out.unlink()
    env["PDFTUI_VIEWER"] = f"{bindir}/zathura -P {{page}} {{path}}"
    launch = open_at_page(pdf, 5, env)
    assert launch.started and launch.error(wait_s=20) is None
    assert _wait_for(out) == ["-P", "5", str(pdf)]
    assert sorted(os.listdir(work)) == [name]


def test_no_display_gives_clipboard_text_without_control_characters(tmp_path):
    name = "evil\x1b]52;c;ZWNobyBwd25lZA==\x07\n.pdf"
    launch = open_at_page(tmp_path / name, 7, {"PATH": "/usr/bin"})
    assert not launch.started and launch.process is None
    assert "no display" in launch.message
    assert launch.clipboard.endswith(".pdf#page=7")
    assert not any(ord(c) < 32 or 0x7f <= ord(c) < 0xa0 for c in launch.clipboard)
    assert not any(ord(c) < 32 for c in launch.message)
    assert clipboard_text("/a/b.pdf", 3) == "/a/b.pdf#page=3"
    assert not has_display({}, "linux") and has_display({"WAYLAND_DISPLAY": "w"}, "linux")
    assert has_display({}, "darwin")


def test_failing_viewer_reports_its_error(tmp_path):
    env = {"DISPLAY": ":99", "PATH": os.environ.get("PATH", ""),
           "PDFTUI_VIEWER": f"{sys.executable} -c \"import sys; "
                            f"sys.exit('cannot open display :99')\" {{path}}"}
    launch = open_at_page(tmp_path / "x.pdf", 1, env)
    assert launch.started
    err = launch.error(wait_s=20)
    assert err is not None and "cannot open display :99" in err
    missing = open_at_page(tmp_path / "x.pdf", 1,
                           {"DISPLAY": ":1", "PDFTUI_VIEWER": "/no/such/viewer {path}"})
    assert isinstance(missing, Launch) and not missing.started
    assert "cannot start /no/such/viewer" in missing.message
