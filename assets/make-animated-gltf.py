#!/usr/bin/env python3
"""Writes assets/animated.gltf (+ animated.bin) and assets/animated.glb: a small animated glTF 2.0 scene.

The shipped test scene of the glTF loader (app/formats/gltf_mesh.h, gltf_animation.h). Written for this project (no
outside source), so it carries the project's licence. Python's standard library only; deterministic: running this
again rewrites the same bytes. The two files hold the same scene: the .gltf keeps its buffer in animated.bin and its
image in a data URI, the .glb keeps both in its BIN chunk.

Usage: python3 assets/make-animated-gltf.py [OUT_DIR]   (default: the folder of this script)

The scene (the tests compute their expectations from these numbers; keep them in step with tests/app/test_gltf.cpp):

  nodes, in file order (index: name):
    0 morpher        mesh morph_tri, translation (0, 0, -3), weights [0.5, 0] (mesh weights [0.25, 0] overridden)
    1 spinner        mesh blade, rest translation (0, 4, 0); animated by TRS only
    2 static_child   mesh tri, translation (0, 1, 0)
    3 static_parent  mesh quad, translation (5, 0, 0), scale 2; children [static_child]
    4 skinned        mesh arm, skin 0, translation (100, 0, 0) (ignored, as the spec says for a skinned mesh's node)
    5 joint_root     translation (0, 0, 0); children [joint_mid]
    6 joint_mid      translation (1, 0, 0); children [joint_tip]
    7 joint_tip      translation (1, 0, 0)
  scene 0 roots: [static_parent, spinner, skinned, morpher, joint_root]
  so the triangle order is: quad (2), tri prim 0 (1) + prim 1 (2), blade (2), arm (6), morph_tri (1) = 14 triangles.

  meshes:
    quad       one primitive, 4 vertices (0,0,0) (1,0,0) (1,1,0) (0,1,0), u16 indices 0 1 2 0 2 3; positions and
               TEXCOORD_0 interleaved (byteStride 20); COLOR_0 float RGB: (1,0,0) (0,1,0) (0,0,1) (0.5,0.5,0.5);
               material 0 "textured": baseColorFactor (1,1,1,1), baseColorTexture texture 0 (image 0, a 2x2 RGB PNG:
               top row red, green; bottom row blue, white). UVs (0,0) (1,0) (1,1) (0,1).
    tri        primitive 0: TRIANGLES, not indexed, POSITION sparse over (0,0,0) (1,0,0) (0,1,0) replacing vertex 1 by
               (2,0,0); material 1 "red" (0.8, 0.1, 0.1, 1).
               primitive 1: TRIANGLE_STRIP, u8 indices 0 1 2 3 over (0,0,1) (1,0,1) (0,1,1) (1,1,1); no material.
    blade      primitive 0: TRIANGLE_FAN, u8 indices 0 1 2 3 over (0,0,0) (1,0,0) (0,1,0) (-1,0,0) -> triangles
               (1,2,0) (2,3,0); material 1. primitive 1: POINTS (skipped, one warning).
    arm        8 vertices: vertex 2i = (i, 0, 0), 2i+1 = (i, 0.5, 0), i = 0..3; triangles (2i, 2i+2, 2i+3),
               (2i, 2i+3, 2i+1). Two weight sets (joint numbers index skin 0's joints [root, mid, tip]):
                 x = 0: JOINTS_0 (0,1,0,0) WEIGHTS_0 (1, 0, 0, 0)   JOINTS_1 (2,0,0,0) WEIGHTS_1 (0, 0, 0, 0)
                 x = 1:          (0,1,0,0)           (0, 1, 0, 0)            (2,0,0,0)           (0, 0, 0, 0)
                 x = 2:          (0,1,0,0)           (0, 0.6, 0, 0)          (2,0,0,0)           (102/255, 0, 0, 0)
                 x = 3:          (0,1,0,0)           (0, 0, 0, 0)            (2,0,0,0)           (1, 0, 0, 0)
               JOINTS_0 u8, WEIGHTS_0 float, JOINTS_1 u16, WEIGHTS_1 normalized u8. Material: none.
               Skin 0: joints [joint_root, joint_mid, joint_tip], inverse bind matrices translations (0,0,0),
               (-1,0,0), (-2,0,0) (the joints' rest globals inverted), so the rest pose leaves the arm as authored.
    morph_tri  3 vertices (0,0,0) (1,0,0) (0,1,0), not indexed; target 0 POSITION deltas (0,0,1) at every vertex;
               target 1 POSITION a sparse accessor without a bufferView: (0,1,0) at vertex 2 only.

  animations (rotations are unit quaternions x y z w; Rz90 = (0, 0, sqrt(1/2), sqrt(1/2))):
    0 "bend"   LINEAR: joint_mid rotation at t = 0, 1: identity, Rz90; joint_root translation at t = 0, 2:
               (0,0,0), (0,2,0).
    1 "steps"  STEP: spinner translation at t = 0, 1, 2: (0,4,0), (1,4,0), (2,4,0); spinner rotation at t = 0, 1:
               identity, Rz90; morpher weights at t = 0, 1: [0, 0], [1, 0.5].
    2 "smooth" CUBICSPLINE: spinner scale at t = 0, 2: value (1,1,1) with out-tangent (1,1,1), value (3,3,3) with
               in-tangent (0,0,0); joint_mid rotation at t = 0, 1: identity, Rz90, all tangents 0; morpher weights at
               t = 0, 1: [0, 0], [1, 1], all tangents 0; spinner translation at t = 0, 1: (0,4,0), (0,6,0), tangents 0.
"""
import base64
import json
import math
import os
import struct
import sys
import zlib

FLOAT, U8, U16, U32 = 5126, 5121, 5123, 5125
ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER = 34962, 34963
SQRT_HALF = math.sqrt(0.5)
RZ90 = (0.0, 0.0, SQRT_HALF, SQRT_HALF)
IDENTITY_Q = (0.0, 0.0, 0.0, 1.0)


def png_rgb(width, rows):
    """A PNG (colour type 2, 8 bits) of `rows`: lists of (r, g, b), top row first."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in rows)
    header = struct.pack(">IIBBBBB", width, len(rows), 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


class Builder:
    """One buffer, its views and the accessors over them."""

    def __init__(self):
        self.data = bytearray()
        self.views = []
        self.accessors = []

    def view(self, payload, stride=None, target=None):
        while len(self.data) % 4:
            self.data.append(0)
        v = {"buffer": 0, "byteOffset": len(self.data), "byteLength": len(payload)}
        if stride:
            v["byteStride"] = stride
        if target:
            v["target"] = target
        self.data += payload
        self.views.append(v)
        return len(self.views) - 1

    def accessor(self, view, ctype, kind, count, offset=0, normalized=False, minmax=None, sparse=None):
        a = {"componentType": ctype, "count": count, "type": kind}
        if view is not None:
            a["bufferView"] = view
        if offset:
            a["byteOffset"] = offset
        if normalized:
            a["normalized"] = True
        if minmax:
            a["min"], a["max"] = minmax
        if sparse:
            a["sparse"] = sparse
        self.accessors.append(a)
        return len(self.accessors) - 1

    def floats(self, rows, kind, target=ARRAY_BUFFER, with_minmax=False):
        flat = [x for row in rows for x in (row if isinstance(row, (tuple, list)) else (row,))]
        minmax = None
        if with_minmax:
            n = len(flat) // len(rows)
            minmax = ([min(flat[i::n]) for i in range(n)], [max(flat[i::n]) for i in range(n)])
        v = self.view(struct.pack(f"<{len(flat)}f", *flat), target=target)
        return self.accessor(v, FLOAT, kind, len(rows), minmax=minmax)

    def ints(self, values, ctype, kind="SCALAR", normalized=False, target=ELEMENT_ARRAY_BUFFER):
        fmt = {U8: "B", U16: "H", U32: "I"}[ctype]
        per = {"SCALAR": 1, "VEC4": 4}[kind]
        flat = [x for row in values for x in (row if isinstance(row, (tuple, list)) else (row,))]
        v = self.view(struct.pack(f"<{len(flat)}{fmt}", *flat), target=target)
        return self.accessor(v, ctype, kind, len(flat) // per, normalized=normalized)


def positions_minmax(points):
    return ([min(p[i] for p in points) for i in range(3)], [max(p[i] for p in points) for i in range(3)])


def build(glb):
    b = Builder()
    meshes = []

    # quad: positions and UVs interleaved (byteStride 20).
    quad_pos = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)]
    quad_uv = [(0, 0), (1, 0), (1, 1), (0, 1)]
    inter = b"".join(struct.pack("<3f2f", *p, *uv) for p, uv in zip(quad_pos, quad_uv))
    v = b.view(inter, stride=20, target=ARRAY_BUFFER)
    pos = b.accessor(v, FLOAT, "VEC3", 4, minmax=positions_minmax(quad_pos))
    uv = b.accessor(v, FLOAT, "VEC2", 4, offset=12)
    color = b.floats([(1, 0, 0), (0, 1, 0), (0, 0, 1), (0.5, 0.5, 0.5)], "VEC3")
    idx = b.ints([0, 1, 2, 0, 2, 3], U16)
    meshes.append({"name": "quad", "primitives": [
        {"attributes": {"POSITION": pos, "TEXCOORD_0": uv, "COLOR_0": color}, "indices": idx, "material": 0}]})

    # tri: a sparse POSITION (vertex 1 replaced), then a strip without material.
    base = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
    base_view = b.view(struct.pack("<9f", *[c for p in base for c in p]), target=ARRAY_BUFFER)
    sp_idx = b.view(struct.pack("<H", 1))
    sp_val = b.view(struct.pack("<3f", 2, 0, 0))
    tri_pos = b.accessor(base_view, FLOAT, "VEC3", 3, minmax=([0, 0, 0], [2, 1, 0]), sparse={
        "count": 1, "indices": {"bufferView": sp_idx, "componentType": U16}, "values": {"bufferView": sp_val}})
    strip = [(0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1)]
    strip_pos = b.floats(strip, "VEC3", with_minmax=True)
    strip_idx = b.ints([0, 1, 2, 3], U8)
    meshes.append({"name": "tri", "primitives": [
        {"attributes": {"POSITION": tri_pos}, "material": 1},
        {"attributes": {"POSITION": strip_pos}, "indices": strip_idx, "mode": 5}]})

    # blade: a fan, then points (skipped by the loader).
    fan = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (-1, 0, 0)]
    fan_pos = b.floats(fan, "VEC3", with_minmax=True)
    fan_idx = b.ints([0, 1, 2, 3], U8)
    meshes.append({"name": "blade", "primitives": [
        {"attributes": {"POSITION": fan_pos}, "indices": fan_idx, "mode": 6, "material": 1},
        {"attributes": {"POSITION": fan_pos}, "mode": 0}]})

    # arm: skinned, two weight sets.
    arm = [p for i in range(4) for p in ((i, 0, 0), (i, 0.5, 0))]
    arm_pos = b.floats(arm, "VEC3", with_minmax=True)
    arm_idx = b.ints([c for i in range(3) for c in (2 * i, 2 * i + 2, 2 * i + 3, 2 * i, 2 * i + 3, 2 * i + 1)], U16)
    w0_by_x = [(1, 0, 0, 0), (0, 1, 0, 0), (0, 0.6, 0, 0), (0, 0, 0, 0)]
    w1_by_x = [(0, 0, 0, 0), (0, 0, 0, 0), (102, 0, 0, 0), (255, 0, 0, 0)]
    joints0 = b.ints([(0, 1, 0, 0)] * 8, U8, "VEC4", target=ARRAY_BUFFER)
    weights0 = b.floats([w0_by_x[i // 2] for i in range(8)], "VEC4")
    joints1 = b.ints([(2, 0, 0, 0)] * 8, U16, "VEC4", target=ARRAY_BUFFER)
    weights1 = b.ints([w1_by_x[i // 2] for i in range(8)], U8, "VEC4", normalized=True, target=ARRAY_BUFFER)
    meshes.append({"name": "arm", "primitives": [{"attributes": {
        "POSITION": arm_pos, "JOINTS_0": joints0, "WEIGHTS_0": weights0, "JOINTS_1": joints1, "WEIGHTS_1": weights1},
        "indices": arm_idx}]})

    # morph_tri: two targets, the second sparse without a bufferView.
    morph = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
    morph_pos = b.floats(morph, "VEC3", with_minmax=True)
    t0 = b.floats([(0, 0, 1)] * 3, "VEC3", with_minmax=True)
    t1_idx = b.view(struct.pack("<B", 2))
    t1_val = b.view(struct.pack("<3f", 0, 1, 0))
    t1 = b.accessor(None, FLOAT, "VEC3", 3, minmax=([0, 0, 0], [0, 1, 0]), sparse={
        "count": 1, "indices": {"bufferView": t1_idx, "componentType": U8}, "values": {"bufferView": t1_val}})
    meshes.append({"name": "morph_tri", "weights": [0.25, 0.0], "primitives": [
        {"attributes": {"POSITION": morph_pos}, "targets": [{"POSITION": t0}, {"POSITION": t1}]}]})

    ibm = []
    for tx in (0.0, -1.0, -2.0):
        ibm += [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, tx, 0, 0, 1]
    ibm_acc = b.accessor(b.view(struct.pack("<48f", *ibm)), FLOAT, "MAT4", 3)

    def sampler(times, values, kind, interpolation):
        inp = b.floats(list(times), "SCALAR", target=None, with_minmax=True)
        out = b.floats(values, kind, target=None)
        return {"input": inp, "output": out, "interpolation": interpolation}

    def animation(name, channels):
        samplers, chans = [], []
        for node, path, s in channels:
            chans.append({"sampler": len(samplers), "target": {"node": node, "path": path}})
            samplers.append(s)
        return {"name": name, "channels": chans, "samplers": samplers}

    MORPHER, SPINNER, JOINT_ROOT, JOINT_MID = 0, 1, 5, 6
    zero3, zero4 = (0, 0, 0), (0, 0, 0, 0)
    animations = [
        animation("bend", [
            (JOINT_MID, "rotation", sampler((0, 1), [IDENTITY_Q, RZ90], "VEC4", "LINEAR")),
            (JOINT_ROOT, "translation", sampler((0, 2), [(0, 0, 0), (0, 2, 0)], "VEC3", "LINEAR"))]),
        animation("steps", [
            (SPINNER, "translation", sampler((0, 1, 2), [(0, 4, 0), (1, 4, 0), (2, 4, 0)], "VEC3", "STEP")),
            (SPINNER, "rotation", sampler((0, 1), [IDENTITY_Q, RZ90], "VEC4", "STEP")),
            (MORPHER, "weights", sampler((0, 1), [0, 0, 1, 0.5], "SCALAR", "STEP"))]),
        animation("smooth", [
            (SPINNER, "scale", sampler((0, 2), [zero3, (1, 1, 1), (1, 1, 1), zero3, (3, 3, 3), zero3],
                                       "VEC3", "CUBICSPLINE")),
            (JOINT_MID, "rotation", sampler((0, 1), [zero4, IDENTITY_Q, zero4, zero4, RZ90, zero4],
                                            "VEC4", "CUBICSPLINE")),
            (MORPHER, "weights", sampler((0, 1), [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0], "SCALAR", "CUBICSPLINE")),
            (SPINNER, "translation", sampler((0, 1), [zero3, (0, 4, 0), zero3, zero3, (0, 6, 0), zero3],
                                             "VEC3", "CUBICSPLINE"))]),
    ]

    png = png_rgb(2, [[(255, 0, 0), (0, 255, 0)], [(0, 0, 255), (255, 255, 255)]])
    if glb:
        image = {"name": "checker", "bufferView": b.view(png), "mimeType": "image/png"}
    else:
        image = {"name": "checker", "uri": "data:image/png;base64," + base64.b64encode(png).decode("ascii")}
    while len(b.data) % 4:
        b.data.append(0)

    buffer = {"byteLength": len(b.data)}
    if not glb:
        buffer["uri"] = "animated.bin"
    doc = {
        "asset": {"version": "2.0", "generator": "slabcast assets/make-animated-gltf.py"},
        "scene": 0,
        "scenes": [{"name": "scene", "nodes": [3, 1, 4, 0, 5]}],
        "nodes": [
            {"name": "morpher", "mesh": 4, "translation": [0, 0, -3], "weights": [0.5, 0.0]},
            {"name": "spinner", "mesh": 2, "translation": [0, 4, 0]},
            {"name": "static_child", "mesh": 1, "translation": [0, 1, 0]},
            {"name": "static_parent", "mesh": 0, "translation": [5, 0, 0], "scale": [2, 2, 2], "children": [2]},
            {"name": "skinned", "mesh": 3, "skin": 0, "translation": [100, 0, 0]},
            {"name": "joint_root", "children": [6]},
            {"name": "joint_mid", "translation": [1, 0, 0], "children": [7]},
            {"name": "joint_tip", "translation": [1, 0, 0]},
        ],
        "skins": [{"joints": [5, 6, 7], "inverseBindMatrices": ibm_acc}],
        "meshes": meshes,
        "materials": [
            {"name": "textured", "pbrMetallicRoughness": {
                "baseColorFactor": [1, 1, 1, 1], "baseColorTexture": {"index": 0, "texCoord": 0}}},
            {"name": "red", "pbrMetallicRoughness": {"baseColorFactor": [0.8, 0.1, 0.1, 1]}},
        ],
        "textures": [{"source": 0}],
        "images": [image],
        "animations": animations,
        "accessors": b.accessors,
        "bufferViews": b.views,
        "buffers": [buffer],
    }
    return json.dumps(doc, indent=1).encode("utf-8"), bytes(b.data)


def glb_file(json_bytes, bin_bytes):
    json_bytes += b" " * (-len(json_bytes) % 4)
    bin_bytes += b"\x00" * (-len(bin_bytes) % 4)
    body = struct.pack("<I4s", len(json_bytes), b"JSON") + json_bytes + struct.pack("<I4s", len(bin_bytes), b"BIN\x00")
    body += bin_bytes
    return struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    text, data = build(glb=False)
    with open(os.path.join(out, "animated.gltf"), "wb") as f:
        f.write(text + b"\n")
    with open(os.path.join(out, "animated.bin"), "wb") as f:
        f.write(data)
    text, data = build(glb=True)
    glb = glb_file(text, data)
    with open(os.path.join(out, "animated.glb"), "wb") as f:
        f.write(glb)
    print(f"wrote {out}/animated.gltf (+ animated.bin) and animated.glb ({len(glb)} bytes)")


if __name__ == "__main__":
    main()
