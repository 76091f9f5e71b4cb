"""The documentation pages in a real browser: headless Chromium (the Debian package).

Each FMU's documentation/index.html (FMI 2.0 §2.3) and, when the main job has run,
out/index.html are opened from disk by Chromium, which takes a screenshot and dumps
the DOM it built. A page passes when the screenshot is not blank (many colours, ink
on a good part of it; decoded here with zlib and numpy, no imaging library), the DOM
holds the plot (an <svg> with coloured series lines, or the main page's <img> of
each plot) and Chromium logged no console message (the pages have no script, so any
console line is an error: a blocked or failed load). Chromium is installed by
scripts/system-deps.sh; the tests skip only when it cannot be found.
"""
from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium not found (scripts/system-deps.sh installs it)")

# One of each form: matrices, mechanical with friction, signal form, the bead chain.
DOCUMENTED = ["coulomb_friction", "stick_slip", "servo_deadzone", "bead_chain"]


def chromium(args: list[str], url: str) -> subprocess.CompletedProcess:
    # --no-sandbox: the tests may run as root, where Chromium refuses its sandbox.
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--enable-logging=stderr", "--v=0", *args, url]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def console_messages(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def read_png(path: Path) -> np.ndarray:
    """RGB(A) pixels of an 8-bit PNG (what Chromium writes): height x width x channels."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    bpp = 3 if colour == 2 else 4
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(height, 1 + width * bpp)
    out = np.zeros((height, width * bpp), dtype=np.uint8)
    prev = np.zeros(width * bpp, dtype=np.int32)
    for y in range(height):
        f, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        if f == 0:
            row = line
        elif f == 1:  # Sub: a running sum per channel
            row = np.cumsum(line.reshape(width, bpp), axis=0).reshape(-1) % 256
        elif f == 2:  # Up
            row = (line + prev) % 256
        else:  # Average, Paeth: sequential within the row
            row = np.zeros_like(line)
            for i in range(len(line)):
                a = row[i - bpp] if i >= bpp else 0
                b = prev[i]
                if f == 3:
                    row[i] = (line[i] + (a + b) // 2) % 256
                else:
                    c = prev[i - bpp] if i >= bpp else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                    row[i] = (line[i] + pred) % 256
        out[y] = row
        prev = row.astype(np.int32)
    return out.reshape(height, width, bpp)[:, :, :3]


def assert_rendered(png: Path, what: str) -> np.ndarray:
    pixels = read_png(png)
    colours = np.unique(pixels.reshape(-1, 3), axis=0)
    ink = np.mean(np.any(pixels < 200, axis=2))
    assert len(colours) >= 16, f"{what}: screenshot nearly blank ({len(colours)} colours)"
    assert ink >= 0.01, f"{what}: screenshot nearly blank ({ink:.2%} ink)"
    return pixels


def open_page(page: Path, tmp: Path, height: int = 1400) -> tuple[np.ndarray, str]:
    """Screenshot pixels and the DOM Chromium built; fails on any console message."""
    url = page.resolve().as_uri()
    png = tmp / f"{page.parent.name}-{page.stem}.png"
    shot = chromium([f"--screenshot={png}", f"--window-size=1000,{height}"], url)
    assert png.exists(), shot.stderr[-2000:]
    dom = chromium(["--dump-dom"], url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    for run in (shot, dom):
        assert console_messages(run.stderr) == [], f"{page}: console: {console_messages(run.stderr)}"
    return assert_rendered(png, str(page)), dom.stdout


def test_console_errors_are_detected(tmp_path):
    """The console check catches what it is meant to (a page that logs an error)."""
    page = tmp_path / "bad.html"
    page.write_text('<!DOCTYPE html><html><body><p>x</p><script>console.error("boom")</script></body></html>')
    run = chromium([f"--screenshot={tmp_path / 'bad.png'}", "--window-size=400,300"], page.as_uri())
    assert any("boom" in m for m in console_messages(run.stderr)), run.stderr[-2000:]
    with pytest.raises(AssertionError, match="blank"):
        assert_rendered(tmp_path / "bad.png", "bad.html")


@pytest.mark.parametrize("name", DOCUMENTED)
def test_fmu_documentation_renders(fmus, tmp_path, name):
    with zipfile.ZipFile(fmus[name]) as z:
        assert "documentation/index.html" in z.namelist()
        z.extractall(tmp_path / name)
    page = tmp_path / name / "documentation" / "index.html"
    _, dom = open_page(page, tmp_path)
    assert f"<h1>{name}</h1>" in dom
    plot = dom[dom.index('class="plot"'):]
    assert "<svg" in plot, f"{name}: no inline plot"
    coloured = [s for s in re.findall(r'<polyline[^>]*stroke="(#[0-9A-Fa-f]{6})"', plot) if s != "#000000"]
    assert coloured, f"{name}: the plot has no series lines"


def test_main_job_index_renders(tmp_path):
    index = REPO / "out" / "index.html"
    if not index.exists():
        pytest.skip("out/index.html is written by scripts/run-models.sh (not run)")
    pixels, dom = open_page(index, tmp_path, height=1800)
    images = re.findall(r'<img src="([^"]+\.svg)"', dom)
    assert len(images) >= 17, images
    for src in images:
        assert (index.parent / src).exists(), f"{src} missing"
    assert "largest difference FMPy vs lcsfmu simulate" in dom
    # The first model's plot is in view: its series colours are on screen.
    blue, orange = (31, 119, 180), (255, 127, 14)
    for colour in (blue, orange):
        assert np.any(np.all(pixels == colour, axis=2)), f"plot colour {colour} not on screen"
