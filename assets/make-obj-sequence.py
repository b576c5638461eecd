#!/usr/bin/env python3
"""Writes assets/wave-sequence/wave_000.obj .. wave_007.obj: a waving grid, one OBJ per frame.

A 17x17-vertex grid in the x-z plane (256 quads, 512 triangles) whose height is a travelling wave,
y = 0.08 sin(2 pi (x + z / 2 - frame / 8)): eight frames make one period, so the sequence loops. Every frame
has the same vertices and faces in the same order (only the positions move), as a mesh sequence must.

Written for this project (no outside source), under the project's licence. Deterministic.

Usage: python3 assets/make-obj-sequence.py [OUT_DIR]   (default: wave-sequence/ next to this script)
"""
import math
import os
import sys

FRAMES, N = 8, 17  # frames, vertices a side


def frame_text(frame):
    lines = [f"# wave frame {frame} of {FRAMES}: written by assets/make-obj-sequence.py\n"]
    for j in range(N):
        for i in range(N):
            x, z = i / (N - 1) - 0.5, j / (N - 1) - 0.5
            y = 0.08 * math.sin(2 * math.pi * (x + z / 2 - frame / FRAMES))
            lines.append(f"v {x:.6f} {y:.6f} {z:.6f}\n")
    for j in range(N - 1):
        for i in range(N - 1):
            a = j * N + i + 1
            lines.append(f"f {a} {a + N} {a + N + 1} {a + 1}\n")
    return "".join(lines)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "wave-sequence")
    os.makedirs(out, exist_ok=True)
    for frame in range(FRAMES):
        with open(os.path.join(out, f"wave_{frame:03d}.obj"), "w", newline="\n") as f:
            f.write(frame_text(frame))


if __name__ == "__main__":
    main()
