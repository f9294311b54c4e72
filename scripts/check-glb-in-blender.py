"""Imports a pbdkit glb in Blender and compares every frame with the OBJ files of the same bake.

    pbdkit simulate SCENE --frames N --out bake.glb
    pbdkit simulate SCENE --frames N --out objs/
    blender -b --factory-startup --python scripts/check-glb-in-blender.py -- bake.glb objs/ FPS

FPS is the bake's frame rate (1 / (steps per frame * dt), 60 for most scenes). For each
frame it finds the one visible mesh object of each body, evaluates its shape keys and
compares vertex count, face count and positions (Blender is Z-up: (x, y, z) -> (x, -z, y))
with the OBJ file. Prints one line per frame and exits 1 on any mismatch.
"""
import os
import sys

import numpy

if not hasattr(numpy, "bool"):  # Debian's Blender 3.4 with numpy >= 1.24
    numpy.bool = bool

import bpy  # noqa: E402

glb, obj_dir, fps = sys.argv[sys.argv.index("--") + 1:][:3]
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
scene = bpy.context.scene
scene.render.fps = int(round(float(fps)))  # the importer places glTF time t at frame t * fps
bpy.ops.import_scene.gltf(filepath=glb)

files = sorted(f for f in os.listdir(obj_dir) if f.endswith(".obj"))
bodies = sorted({f.rsplit("_", 1)[0] for f in files})
frames = len(files) // len(bodies)
meshes = [o for o in bpy.data.objects if o.type == "MESH"]
bad = 0
for f in range(frames):
    scene.frame_set(f)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    for body in bodies:
        shown = [o for o in meshes if o.name.split(".")[0] == body and o.evaluated_get(depsgraph).matrix_world.to_scale().x > 1e-6]
        lines = open(os.path.join(obj_dir, "%s_%04d.obj" % (body, f))).read().split("\n")
        want = [tuple(float(c) for c in l.split()[1:4]) for l in lines if l.startswith("v ")]
        faces = sum(1 for l in lines if l.startswith("f "))
        if len(shown) != 1:
            print("frame %d %s: %d visible objects" % (f, body, len(shown)))
            bad += 1
            continue
        e = shown[0].evaluated_get(depsgraph)
        m = e.to_mesh()
        got = [tuple(e.matrix_world @ v.co) for v in m.vertices]
        err = max(max(abs(g[0] - w[0]), abs(g[1] + w[2]), abs(g[2] - w[1])) for g, w in zip(got, want)) if len(got) == len(want) else float("inf")
        ok = len(got) == len(want) and len(m.polygons) == faces and err < 1e-5
        print("frame %d %s: %s, %d vertices, %d faces, max error %.2g m" % (f, body, "ok" if ok else "MISMATCH", len(got), len(m.polygons), err))
        bad += 0 if ok else 1
        e.to_mesh_clear()
print("BLENDER CHECK %s" % ("FAILED" if bad else "PASSED"))
sys.exit(1 if bad else 0)
