#!/usr/bin/env python3
"""Does every file of common/ include only its own layer and the layers below it?

The layers and what each links are declared once, in common/CMakeLists.txt (zcperf_layer); cmake
writes that graph to BUILD/layers.txt. The build itself refuses an upward include of a file it
compiles (a layer sees only the include roots of what it links); this check covers every file,
also those a build leaves out (the CUDA sources without the toolkit, RDMA with ZCPERF_WITH_RDMA=OFF).

    scripts/check_layers.py BUILD/layers.txt [COMMON_DIR]     exit 0: clean; 1: upward includes (listed)
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_graph(path):
    graph = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                name, _, deps = line.partition(":")
                graph[name.strip()] = set(deps.split())
    return graph


def below(graph):
    """Each layer's layers below it (the transitive closure of what it links); raises on a cycle."""
    done, active = {}, set()

    def visit(name):
        if name in done:
            return done[name]
        if name in active:
            raise ValueError(f"the declared layers form a cycle through {name}")
        active.add(name)
        reach = set()
        for dep in graph.get(name, ()):
            if dep not in graph:
                raise ValueError(f"layer {name} links {dep}, which is not a declared layer")
            reach |= {dep} | visit(dep)
        active.discard(name)
        done[name] = reach
        return reach

    return {name: visit(name) for name in graph}


def problems(graph, common):
    allowed = below(graph)
    out = []
    for folder, _, files in sorted(os.walk(common)):
        for f in sorted(files):
            if not f.endswith((".cpp", ".hpp")):
                continue
            rel = os.path.relpath(os.path.join(folder, f), common)
            layer = rel.split(os.sep)[0]
            if layer not in graph:
                out.append(f"{rel}: not in a layer's folder (layers: {' '.join(sorted(graph))})")
                continue
            with open(os.path.join(folder, f)) as src:
                text = src.read()
            for target in INCLUDE.findall(text):
                to = target.split("/")[0] if "/" in target else None
                if to is None or to not in graph:
                    out.append(f"{rel}: includes \"{target}\", which is no layer's header (write \"<layer>/<file>\")")
                elif to != layer and to not in allowed[layer]:
                    out.append(f"{rel}: includes \"{target}\": layer {layer} does not link {to} "
                               f"(it sees {' '.join(sorted(allowed[layer])) or 'no other layer'})")
    return out


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    common = argv[2] if len(argv) == 3 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common")
    try:
        graph = read_graph(argv[1])
        found = problems(graph, common)
    except (OSError, ValueError) as e:
        print(f"check_layers: {e}", file=sys.stderr)
        return 2
    for p in found:
        print(f"check_layers: {p}", file=sys.stderr)
    if found:
        print(f"check_layers: {len(found)} include(s) against the layer order; move the code down a layer, or link "
              "the layer in common/CMakeLists.txt if the order allows it (docs/structure.md, Layers)", file=sys.stderr)
        return 1
    print(f"check_layers: {len(graph)} layers, every include of common/ goes down")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
