"""Page images for the reader's image view: real PDFs rendered by PyMuPDF."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from PIL import Image

from pdftui import page_image
from pdftui.page_image import (MAX_SIDE_PX, PageImageError, Zoom, fit_zoom, render_page,
                               zoom_clip)

REPO = Path(__file__).resolve().parent.parent
ROTATED = REPO.parent / "shared" / "tricky" / "made" / "04_rotated.pdf"
ENCRYPTED = REPO.parent / "shared" / "tricky" / "made" / "07_encrypted_user_password.pdf"


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def _bbox(mask: np.ndarray) -> tuple[int, int, int, int]:
    ys, xs = np.nonzero(mask)
    return int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())


def test_fit_zoom_keeps_the_aspect_ratio_inside_the_box_and_caps_the_side():
    assert fit_zoom(600, 800, 300, 1000) == pytest.approx(0.5)   # width binds
    assert fit_zoom(600, 800, 3000, 400) == pytest.approx(0.5)   # height binds
    assert fit_zoom(600, 800, 100_000, 100_000) == pytest.approx(MAX_SIDE_PX / 800)
    assert fit_zoom(0, 800, 300, 300) == 1.0


def test_zoom_clip_shows_a_part_of_the_page_and_never_leaves_it():
    # fit width on a 600 x 800 page in a 300 x 200 box: half a point per pixel,
    # the box shows the full width and the top quarter
    factor, clip = zoom_clip(600, 800, 300, 200, Zoom(1.0))
    assert factor == pytest.approx(0.5) and clip == pytest.approx((0, 0, 600, 400))
    factor, clip = zoom_clip(600, 800, 300, 200, Zoom(2.0, left=0.5, top=0.25))
    assert factor == pytest.approx(1.0) and clip == pytest.approx((300, 200, 600, 400))
    _, clip = zoom_clip(600, 800, 300, 200, Zoom(2.0, left=0.9, top=0.99))   # clamped
    assert clip == pytest.approx((300, 600, 600, 800))
    assert zoom_clip(600, 800, 300, 200, Zoom())[1] is None   # the whole page
    factor, clip = zoom_clip(600, 800, 4800, 200, Zoom(1.0))   # a huge box: fewer pixels
    assert factor * 600 == pytest.approx(MAX_SIDE_PX) and clip == pytest.approx((0, 0, 600, 25))


def test_a_zoomed_render_fills_the_box_with_the_part_shown(made_pdfs):
    path = str(made_pdfs / "bridges.pdf")
    image = render_page(path, 1, 300, 200, zoom=Zoom(1.0, top=0.5))
    assert abs(image.width - 300) <= 1 and abs(image.height - 200) <= 1   # pixel rounding
    x0, y0, x1, y1 = image.shown
    assert (x0, x1) == pytest.approx((0.0, 1.0)) and y0 == pytest.approx(0.5) and y1 < 1.0
    whole = render_page(path, 1, 300, 200)
    assert whole.shown == (0.0, 0.0, 1.0, 1.0) and whole.png != image.png


def test_a_page_fits_the_box_and_the_outline_frames_the_block(made_pdfs):
    path = str(made_pdfs / "bridges.pdf")
    page = pymupdf.open(path)[0]
    block = page.get_text("blocks")[1][:4]
    image = render_page(path, 1, 400, 400, tuple(block))
    assert image.height == 400 or image.width == 400
    assert image.width <= 400 and image.height <= 400
    px = _pixels(image.png)
    assert px.shape[:2] == (image.height, image.width)
    red = (px[:, :, 0] > 180) & (px[:, :, 1] < 90) & (px[:, :, 2] < 90)
    x0, y0, x1, y1 = _bbox(red)
    zoom = image.width / page.rect.width
    assert abs(x0 - block[0] * zoom) < 6 and abs(y1 - block[3] * zoom) < 6
    plain = _pixels(render_page(path, 1, 400, 400).png)
    assert not ((plain[:, :, 0] > 180) & (plain[:, :, 1] < 90) & (plain[:, :, 2] < 90)).any()


@pytest.mark.skipif(not ROTATED.exists(), reason="../shared/tricky is not here")
def test_a_rotated_page_is_drawn_as_shown_with_its_block_framed(tmp_path):
    path = str(ROTATED)
    block = tuple(pymupdf.open(path)[0].get_text("blocks")[0][:4])
    image = render_page(path, 1, 842, 842, block)
    assert image.width > image.height  # /Rotate 90: landscape as displayed
    px = _pixels(image.png)
    red = (px[:, :, 0] > 180) & (px[:, :, 1] < 90) & (px[:, :, 2] < 90)
    dark = px.sum(axis=2) < 200
    rx0, ry0, rx1, ry1 = _bbox(red)
    dx0, dy0, dx1, dy1 = _bbox(dark)
    assert rx0 <= dx0 and ry0 <= dy0 and rx1 >= dx1 and ry1 >= dy1  # the text is inside


def test_the_file_is_never_modified_and_results_are_cached(made_pdfs, tmp_path):
    path = tmp_path / "copy.pdf"
    shutil.copy(made_pdfs / "bridges.pdf", path)
    before = path.read_bytes()
    first = render_page(str(path), 2, 300, 300, (50, 50, 200, 100))
    assert path.read_bytes() == before
    assert render_page(str(path), 2, 300, 300, (50, 50, 200, 100)) is first
    assert len(page_image._cache) <= page_image.CACHE_PAGES


def test_bad_pages_and_files_raise_page_image_error(made_pdfs, tmp_path):
    with pytest.raises(PageImageError, match="not in 1..4"):
        render_page(str(made_pdfs / "bridges.pdf"), 9, 300, 300)
    with pytest.raises(PageImageError, match="cannot read"):
        render_page(str(tmp_path / "gone.pdf"), 1, 300, 300)
    junk = tmp_path / "junk.pdf"
    junk.write_bytes(b"not a pdf at all")
    with pytest.raises(PageImageError):
        render_page(str(junk), 1, 300, 300)
    if ENCRYPTED.exists():
        with pytest.raises(PageImageError, match="encrypted"):
            render_page(str(ENCRYPTED), 1, 300, 300)


def test_the_tui_loads_on_a_terminal_that_reports_no_size():
    """textual-image divides by the terminal's column count at import: a pty of 0 x 0
    (``script`` without a size, some SSH clients) must still start the reader."""
    import os
    import pty
    import struct
    import subprocess
    import sys
    import termios
    from fcntl import ioctl

    master, slave = pty.openpty()
    ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 0, 0, 0, 0))
    code = ("import pdftui.tui.reader_pane, pdftui.tui.page_view as v;"
            "import sys; sys.stderr.write(repr((v.Image is not None, v.IMAGE_ERROR)))")
    proc = subprocess.run([sys.executable, "-c", code], stdin=slave, stdout=slave,
                          stderr=subprocess.PIPE, timeout=120, text=True)
    os.close(slave)
    os.close(master)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == "(True, '')"
