"""A stdlib-only horizontal bar chart written as PNG (fallback when matplotlib is absent).

    write_bar_chart(path, title, [(label, value, spread_or_None, group), ...], ref=1.0)

Bars start at the left edge of the plot, a vertical line marks ``ref``; labels and
values are drawn with a built-in 5x7 pixel font (upper case, digits, a few signs).
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Sequence

# 5x7 glyphs, one string of 7 rows per character, "#" = ink.
_FONT_SRC = {
    " ": "     |     |     |     |     |     |     ",
    "0": " ### |#   #|#  ##|# # #|##  #|#   #| ### ",
    "1": "  #  | ##  |  #  |  #  |  #  |  #  | ### ",
    "2": " ### |#   #|    #|   # |  #  | #   |#####",
    "3": "#####|   # |  #  |   # |    #|#   #| ### ",
    "4": "   # |  ## | # # |#  # |#####|   # |   # ",
    "5": "#####|#    |#### |    #|    #|#   #| ### ",
    "6": "  ## | #   |#    |#### |#   #|#   #| ### ",
    "7": "#####|    #|   # |  #  | #   | #   | #   ",
    "8": " ### |#   #|#   #| ### |#   #|#   #| ### ",
    "9": " ### |#   #|#   #| ####|    #|   # | ##  ",
    "A": " ### |#   #|#   #|#####|#   #|#   #|#   #",
    "B": "#### |#   #|#   #|#### |#   #|#   #|#### ",
    "C": " ### |#   #|#    |#    |#    |#   #| ### ",
    "D": "###  |#  # |#   #|#   #|#   #|#  # |###  ",
    "E": "#####|#    |#    |#### |#    |#    |#####",
    "F": "#####|#    |#    |#### |#    |#    |#    ",
    "G": " ### |#   #|#    |# ###|#   #|#   #| ####",
    "H": "#   #|#   #|#   #|#####|#   #|#   #|#   #",
    "I": " ### |  #  |  #  |  #  |  #  |  #  | ### ",
    "J": "  ###|   # |   # |   # |   # |#  # | ##  ",
    "K": "#   #|#  # |# #  |##   |# #  |#  # |#   #",
    "L": "#    |#    |#    |#    |#    |#    |#####",
    "M": "#   #|## ##|# # #|# # #|#   #|#   #|#   #",
    "N": "#   #|#   #|##  #|# # #|#  ##|#   #|#   #",
    "O": " ### |#   #|#   #|#   #|#   #|#   #| ### ",
    "P": "#### |#   #|#   #|#### |#    |#    |#    ",
    "Q": " ### |#   #|#   #|#   #|# # #|#  # | ## #",
    "R": "#### |#   #|#   #|#### |# #  |#  # |#   #",
    "S": " ####|#    |#    | ### |    #|    #|#### ",
    "T": "#####|  #  |  #  |  #  |  #  |  #  |  #  ",
    "U": "#   #|#   #|#   #|#   #|#   #|#   #| ### ",
    "V": "#   #|#   #|#   #|#   #|#   #| # # |  #  ",
    "W": "#   #|#   #|#   #|# # #|# # #|# # #| # # ",
    "X": "#   #|#   #| # # |  #  | # # |#   #|#   #",
    "Y": "#   #|#   #| # # |  #  |  #  |  #  |  #  ",
    "Z": "#####|    #|   # |  #  | #   |#    |#####",
    ".": "     |     |     |     |     | ##  | ##  ",
    ",": "     |     |     |     | ##  |  #  | #   ",
    ":": "     | ##  | ##  |     | ##  | ##  |     ",
    ";": "     | ##  | ##  |     | ##  |  #  | #   ",
    "_": "     |     |     |     |     |     |#####",
    "-": "     |     |     |#####|     |     |     ",
    "+": "     |  #  |  #  |#####|  #  |  #  |     ",
    "/": "     |    #|   # |  #  | #   |#    |     ",
    "%": "##   |##  #|   # |  #  | #   |#  ##|   ##",
    "(": "   # |  #  | #   | #   | #   |  #  |   # ",
    ")": " #   |  #  |   # |   # |   # |  #  | #   ",
    "<": "   # |  #  | #   |#    | #   |  #  |   # ",
    ">": " #   |  #  |   # |    #|   # |  #  | #   ",
    "=": "     |     |#####|     |#####|     |     ",
    "?": " ### |#   #|    #|   # |  #  |     |  #  ",
}
_FONT = {ch: [row for row in rows.split("|")] for ch, rows in _FONT_SRC.items()}

Color = tuple[int, int, int]
PALETTE: dict[str, Color] = {
    "late": (52, 101, 164), "parity": (115, 170, 60), "pyperf": (237, 150, 40),
    "other": (120, 120, 120),
}


class Canvas:
    def __init__(self, width: int, height: int, bg: Color = (255, 255, 255)) -> None:
        self.w, self.h = width, height
        self.px = bytearray(bytes(bg) * (width * height))

    def rect(self, x0: int, y0: int, x1: int, y1: int, color: Color) -> None:
        x0, x1 = max(0, min(x0, x1)), min(self.w, max(x0, x1))
        y0, y1 = max(0, min(y0, y1)), min(self.h, max(y0, y1))
        row = bytes(color) * (x1 - x0)
        for y in range(y0, y1):
            i = (y * self.w + x0) * 3
            self.px[i:i + len(row)] = row

    def text(self, x: int, y: int, s: str, color: Color = (0, 0, 0), scale: int = 1) -> int:
        """Draw s with its top-left at (x, y); return the x after the text."""
        for ch in s.upper():
            glyph = _FONT.get(ch, _FONT["?"])
            for r, row in enumerate(glyph):
                for c, cell in enumerate(row):
                    if cell == "#":
                        self.rect(x + c * scale, y + r * scale, x + (c + 1) * scale,
                                  y + (r + 1) * scale, color)
            x += 6 * scale
        return x

    def png(self) -> bytes:
        raw = b"".join(b"\x00" + bytes(self.px[y * self.w * 3:(y + 1) * self.w * 3])
                       for y in range(self.h))

        def chunk(kind: bytes, data: bytes) -> bytes:
            return (struct.pack(">I", len(data)) + kind + data
                    + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
        return (b"\x89PNG\r\n\x1a\n"
                + chunk(b"IHDR", struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def text_width(s: str, scale: int = 1) -> int:
    return 6 * scale * len(s)


def write_bar_chart(path: Path, title: str,
                    bars: Sequence[tuple[str, float, float | None, str]],
                    ref: float = 1.0, note: str = "") -> None:
    """Horizontal bars of ratios; x axis from 0 to a bit beyond the largest value."""
    label_w = max([text_width(b[0]) for b in bars] + [60]) + 16
    plot_w, bar_h, gap = 560, 12, 6
    top, bottom = 40, 40
    height = top + bottom + len(bars) * (bar_h + gap)
    width = label_w + plot_w + 90
    cv = Canvas(width, height)
    cv.text(10, 10, title, scale=2)
    vmax = max([b[1] + (b[2] or 0.0) for b in bars] + [ref]) * 1.08
    xscale = plot_w / vmax

    def xpos(v: float) -> int:
        return label_w + int(round(v * xscale))

    for tick in _ticks(vmax):  # grid and tick labels
        x = xpos(tick)
        cv.rect(x, top - 4, x + 1, height - bottom + 4, (225, 225, 225))
        cv.text(x - text_width(f"{tick:g}") // 2, height - bottom + 8, f"{tick:g}")
    for i, (label, value, spread, group) in enumerate(bars):
        y = top + i * (bar_h + gap)
        cv.text(label_w - 8 - text_width(label), y + 3, label)
        cv.rect(label_w, y, xpos(value), y + bar_h, PALETTE.get(group, PALETTE["other"]))
        if spread:
            lo, hi = xpos(value - spread), xpos(value + spread)
            cv.rect(lo, y + bar_h // 2, hi + 1, y + bar_h // 2 + 1, (0, 0, 0))
            cv.rect(lo, y + 2, lo + 1, y + bar_h - 2, (0, 0, 0))
            cv.rect(hi, y + 2, hi + 1, y + bar_h - 2, (0, 0, 0))
        cv.text(max(xpos(value), xpos(value + (spread or 0))) + 6, y + 3, f"{value:.3f}")
    x = xpos(ref)
    cv.rect(x, top - 6, x + 2, height - bottom + 2, (200, 30, 30))
    if note:
        cv.text(10, height - 14, note, color=(90, 90, 90))
    path.write_bytes(cv.png())


def _ticks(vmax: float) -> list[float]:
    step = 0.25 if vmax <= 2 else 0.5 if vmax <= 4 else 1.0
    out, t = [], 0.0
    while t <= vmax:
        out.append(round(t, 2))
        t += step
    return out
