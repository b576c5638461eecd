#!/usr/bin/env python3
"""Writes assets/textured-box/: a unit cube as OBJ + MTL + PNG, the shipped example of OBJ materials and UVs.

  textured-box.obj   8 vertices, 14 texture coordinates, 6 quad faces (12 triangles): five faces use material
                     `checker` (map_Kd checker.png), the bottom face `tinted` (Kd 0.2 0.6 1.0, d 0.5, no texture)
  textured-box.mtl   the two materials
  checker.png        16x16 RGBA, 4x4-texel cells in a 2x2 pattern of four distinct colours (COLORS below):
                     the top-left cell (image row 0) is red, its right neighbour green, the cell below it blue,
                     the diagonal one yellow

Written for this project (no outside source), under the project's licence. Deterministic: running this again
rewrites the same bytes. The PNG is written with zlib and struct (Python standard library only).

Usage: python3 assets/make-textured-box.py [OUT_DIR]   (default: textured-box/ next to this script)
"""
import os
import struct
import sys
import zlib

SIZE, CELL = 16, 4
COLORS = [(230, 40, 40, 255), (40, 200, 60, 255), (40, 80, 230, 255), (250, 220, 30, 255)]  # red green blue yellow


def texel(x, y):
    cx, cy = (x // CELL) % 2, (y // CELL) % 2
    return COLORS[2 * cy + cx]


def png(width, height, pixel):
    raw = b"".join(b"\0" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA, no interlace
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


OBJ = """\
# textured-box.obj: written by assets/make-textured-box.py
# a unit cube, 6 quads; UV (0,0) is the texture's bottom-left corner, as OBJ defines it
mtllib textured-box.mtl
v -0.5 -0.5 0.5
v 0.5 -0.5 0.5
v 0.5 0.5 0.5
v -0.5 0.5 0.5
v -0.5 -0.5 -0.5
v 0.5 -0.5 -0.5
v 0.5 0.5 -0.5
v -0.5 0.5 -0.5
vt 0 0
vt 1 0
vt 1 1
vt 0 1
vt 0 0.5
vt 0.5 0.5
vt 0.5 1
vt 0.25 0.25
vt 0.75 0.25
vt 0.75 0.75
vt 0.25 0.75
vt 0 0
vt 0.5 0
vt 0.5 0.5
usemtl checker
# front (+z): the whole texture
f 1/1 2/2 3/3 4/4
# right (+x), back (-z), left (-x): the texture's top-left quarter, its centre, its bottom-left quarter
f 2/5 6/6 7/7 3/4
f 6/8 5/9 8/10 7/11
f 5/12 1/13 4/14 8/5
# top (+y)
f 4/1 3/2 7/3 8/4
usemtl tinted
# bottom (-y)
f 5 6 2 1
"""

MTL = """\
# textured-box.mtl: written by assets/make-textured-box.py
newmtl checker
Kd 1 1 1
map_Kd checker.png

newmtl tinted
Kd 0.2 0.6 1.0
d 0.5
"""


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "textured-box")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "textured-box.obj"), "w", newline="\n") as f:
        f.write(OBJ)
    with open(os.path.join(out, "textured-box.mtl"), "w", newline="\n") as f:
        f.write(MTL)
    with open(os.path.join(out, "checker.png"), "wb") as f:
        f.write(png(SIZE, SIZE, texel))


if __name__ == "__main__":
    main()
