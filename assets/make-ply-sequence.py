#!/usr/bin/env python3
"""Writes a mesh sequence of binary PLY files for benchmarks: a rippling sphere, one file a frame.

A latitude-longitude sphere of about TRIANGLES triangles whose radius carries a travelling ripple,
r = 1 + 0.05 sin(8 theta + 6 phi - 2 pi frame / FRAMES): FRAMES frames make one period, so the sequence loops.
Every frame has the same vertices and faces in the same order (only the positions move), as a mesh sequence
must. Binary little-endian PLY: float x, y, z; faces as uchar count + int indices (triangles).

Written for this project (no outside source), under the project's licence. Deterministic. Python's standard
library only; about a second a frame at a million triangles.

Usage: python3 assets/make-ply-sequence.py OUT_DIR [TRIANGLES [FRAMES]]   (defaults 1000000 and 48)
"""
import array
import math
import os
import struct
import sys


def grid(triangles):
    # stacks x slices quads, 2 triangles each, minus the poles' degenerate ones: ~ 2 * stacks * slices.
    slices = max(8, int(math.sqrt(triangles)))
    stacks = max(4, triangles // (2 * slices))
    return stacks, slices


def faces_bytes(stacks, slices):
    out = bytearray()
    tri = struct.Struct("<Biii")
    count = 0
    for j in range(stacks):
        for i in range(slices):
            a = j * (slices + 1) + i
            b = a + slices + 1
            out += tri.pack(3, a, b, a + 1)
            out += tri.pack(3, a + 1, b, b + 1)
            count += 2
    return bytes(out), count


def vertices_bytes(stacks, slices, frame, frames):
    values = array.array("f")
    phase = 2.0 * math.pi * frame / frames
    for j in range(stacks + 1):
        theta = math.pi * j / stacks
        st, ct = math.sin(theta), math.cos(theta)
        for i in range(slices + 1):
            phi = 2.0 * math.pi * i / slices
            r = 1.0 + 0.05 * math.sin(8.0 * theta + 6.0 * phi - phase)
            values.extend((r * st * math.cos(phi), r * ct, r * st * math.sin(phi)))
    if sys.byteorder != "little":
        values.byteswap()
    return values.tobytes(), (stacks + 1) * (slices + 1)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    triangles = int(sys.argv[2]) if len(sys.argv) > 2 else 1000000
    frames = int(sys.argv[3]) if len(sys.argv) > 3 else 48
    os.makedirs(out_dir, exist_ok=True)
    stacks, slices = grid(triangles)
    faces, face_count = faces_bytes(stacks, slices)
    for frame in range(frames):
        verts, vertex_count = vertices_bytes(stacks, slices, frame, frames)
        header = ("ply\nformat binary_little_endian 1.0\ncomment ripple frame %d of %d: assets/make-ply-sequence.py\n"
                  "element vertex %d\nproperty float x\nproperty float y\nproperty float z\n"
                  "element face %d\nproperty list uchar int vertex_indices\nend_header\n"
                  % (frame, frames, vertex_count, face_count)).encode("ascii")
        path = os.path.join(out_dir, "ripple_%04d.ply" % frame)
        with open(path + ".part", "wb") as f:
            f.write(header)
            f.write(verts)
            f.write(faces)
        os.replace(path + ".part", path)
    print("wrote %d frames of %d triangles, %d vertices to %s" % (frames, face_count, vertex_count, out_dir))


if __name__ == "__main__":
    main()
