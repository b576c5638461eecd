#!/usr/bin/env python3
"""Writes assets/colored-sphere.ply: a vertex-coloured sphere as binary little-endian PLY.

A UV sphere of 24 segments and 12 rings: 2 poles and 11 x 24 ring vertices (266), triangle fans at the poles and
quads between the rings (24 x 2 triangles + 24 x 10 quads = 288 faces, 528 triangles). Each vertex's colour is its
unit normal mapped to 8 bits, red/green/blue = round((n + 1) * 127.5), alpha 255, so a test can recompute it.
The quads exercise the loader's polygon triangulation, the binary encoding its byte order.

Written for this project (no outside source), under the project's licence. Deterministic.

Usage: python3 assets/make-colored-ply.py [OUT.ply]   (default: colored-sphere.ply next to this script)
"""
import math
import os
import struct
import sys

SEGMENTS, RINGS = 24, 12


def sphere():
    vertices = [(0.0, 1.0, 0.0)]
    for r in range(1, RINGS):
        phi = math.pi * r / RINGS
        for s in range(SEGMENTS):
            theta = 2 * math.pi * s / SEGMENTS
            vertices.append((math.sin(phi) * math.cos(theta), math.cos(phi), -math.sin(phi) * math.sin(theta)))
    vertices.append((0.0, -1.0, 0.0))
    ring = lambda r, s: 1 + (r - 1) * SEGMENTS + s % SEGMENTS  # noqa: E731
    faces = [(0, ring(1, s), ring(1, s + 1)) for s in range(SEGMENTS)]
    for r in range(1, RINGS - 1):
        faces += [(ring(r, s), ring(r + 1, s), ring(r + 1, s + 1), ring(r, s + 1)) for s in range(SEGMENTS)]
    bottom = len(vertices) - 1
    faces += [(ring(RINGS - 1, s), bottom, ring(RINGS - 1, s + 1)) for s in range(SEGMENTS)]
    return vertices, faces


def color(v):
    return tuple(int(math.floor((c + 1.0) * 127.5 + 0.5)) for c in v) + (255,)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "colored-sphere.ply")
    vertices, faces = sphere()
    header = (
        "ply\nformat binary_little_endian 1.0\ncomment written by assets/make-colored-ply.py\n"
        f"element vertex {len(vertices)}\nproperty float x\nproperty float y\nproperty float z\n"
        "property uchar red\nproperty uchar green\nproperty uchar blue\nproperty uchar alpha\n"
        f"element face {len(faces)}\nproperty list uchar int vertex_indices\nend_header\n"
    )
    body = b"".join(struct.pack("<fff4B", *v, *color(v)) for v in vertices)
    body += b"".join(struct.pack(f"<B{len(f)}i", len(f), *f) for f in faces)
    with open(out, "wb") as f:
        f.write(header.encode("ascii") + body)


if __name__ == "__main__":
    main()
