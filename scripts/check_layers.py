#!/usr/bin/env python3
"""Does every file of common/, server/, client/ and mpi/ include only what its target may see?

The build declares the targets and their links once (common/CMakeLists.txt's zcperf_layer, and the
program folders' CMakeLists.txt); cmake writes them as it resolved them to BUILD/layers.txt
(cmake/target_graph.cmake), PUBLIC apart from PRIVATE. What a file may include follows CMake's rules:

  - a target's .cpp files see the target itself, every target it links (PUBLIC or PRIVATE), and what
    those pass on: their PUBLIC links, transitively;
  - a target's headers are compiled by whoever includes them, so they see only the target and what it
    passes on (its PUBLIC links, transitively): a header that includes a PRIVATE link's header breaks
    the first user that does not link it too.

A layer's headers are named "<layer>/<file>" (common/<layer>/); a program folder's by their bare name.
The check covers every file of the folders, also those a build leaves out (the CUDA sources without
the toolkit, RDMA with ZCPERF_WITH_RDMA=OFF), and refuses a cycle among the targets.

    scripts/check_layers.py BUILD/layers.txt [SOURCE_ROOT]     exit 0: clean; 1: includes refused (listed)
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
FOLDERS = ("common", "server", "client", "mpi")


class Target:
    def __init__(self, name, kind, folder, public, private, sources):
        self.name, self.kind, self.folder = name, kind, folder
        self.public, self.private, self.sources = set(public), set(private), sources


def read_graph(path):
    targets = {}
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            head, pub, priv, srcs = (part.strip() for part in line.split("|"))
            _, name, kind, folder = head.split()
            targets[name] = Target(name, kind, folder, pub.split(":", 1)[1].split(), priv.split(":", 1)[1].split(),
                                   srcs.split(":", 1)[1].split())
    for t in targets.values():
        for dep in t.public | t.private:
            if dep not in targets:
                raise ValueError(f"{t.name} links {dep}, which is not in the graph")
    return targets


def check_cycles(targets):
    state = {}

    def visit(name, path):
        if state.get(name) == "done":
            return
        if state.get(name) == "active":
            raise ValueError("the targets form a cycle: " + " -> ".join(path + [name]))
        state[name] = "active"
        t = targets[name]
        for dep in sorted(t.public | t.private):
            visit(dep, path + [name])
        state[name] = "done"

    for name in sorted(targets):
        visit(name, [])


def passed_on(targets):
    """Each target's PUBLIC links, transitively: what it passes on to whoever links it."""
    memo = {}

    def visit(name):
        if name not in memo:
            memo[name] = set()
            out = set()
            for dep in targets[name].public:
                out |= {dep} | visit(dep)
            memo[name] = out
        return memo[name]

    return {name: visit(name) for name in targets}


def owners(targets, root):
    """Which target each source file belongs to: a layer's folder is its own (also files this build does
    not compile); in a program folder, the target that compiles the file or its .cpp twin, else the
    folder's library (a header-only file)."""
    owner, layer_of = {}, {}
    for t in targets.values():
        for s in t.sources:
            path = os.path.normpath(os.path.join(t.folder, s))
            owner[path] = t.name
            if t.folder == "common":
                layer_of[s.split("/")[0]] = t.name
    files = {}
    for top in FOLDERS:
        for folder, _, names in sorted(os.walk(os.path.join(root, top))):
            for n in sorted(names):
                if not n.endswith((".cpp", ".hpp")):
                    continue
                rel = os.path.relpath(os.path.join(folder, n), root)
                parts = rel.split(os.sep)
                if top == "common":
                    files[rel] = layer_of.get(parts[1]) if len(parts) > 2 else None
                    continue
                twin = os.path.splitext(rel)[0] + ".cpp"
                libs = [t.name for t in targets.values() if t.folder == os.path.dirname(rel) and
                        t.kind.endswith("LIBRARY")]
                files[rel] = owner.get(rel) or owner.get(twin) or users_of(rel, root, owner) or \
                    (libs[0] if rel.endswith(".hpp") and libs else None)
    return files, layer_of


def users_of(header, root, owner):
    """A header-only file of a program folder belongs to the one target whose sources beside it include it
    (mpi/job_state.hpp: zcperf-mpi's), else to none."""
    folder, name = os.path.dirname(header), os.path.basename(header)
    users = set()
    for src, tname in owner.items():
        if os.path.dirname(src) == folder and src.endswith(".cpp"):
            with open(os.path.join(root, src)) as f:
                if f'"{name}"' in f.read():
                    users.add(tname)
    return users.pop() if len(users) == 1 else None


def resolve(include, includer, files, layer_of):
    """The file an include names, or None."""
    first = include.split("/")[0]
    if "/" in include and first in layer_of:
        return os.path.join("common", include)
    here = os.path.normpath(os.path.join(os.path.dirname(includer), include))
    if here in files:  # quoted includes look beside the includer first
        return here
    for top in FOLDERS[1:]:
        there = os.path.join(top, include)
        if there in files:
            return there
    return None


def problems(targets, root):
    check_cycles(targets)
    passes = passed_on(targets)
    files, layer_of = owners(targets, root)
    out, skipped = [], []
    for rel, tname in sorted(files.items()):
        if tname is None:
            if rel.startswith("common"):
                out.append(f"{rel}: not in a layer's folder (layers: {' '.join(sorted(layer_of))})")
            else:
                skipped.append(rel)  # a program this build does not make (zcperf-mpi without MPI)
            continue
        t = targets[tname]
        if rel.endswith(".hpp") and not t.kind.endswith("EXECUTABLE"):
            # Nothing links a program, so only its own sources include its headers: they see what it links.
            sees = {tname} | passes[tname]
        else:
            sees = {tname}
            for dep in t.public | t.private:
                sees |= {dep} | passes[dep]
        with open(os.path.join(root, rel)) as src:
            text = src.read()
        for include in INCLUDE.findall(text):
            target_file = resolve(include, rel, files, layer_of)
            if target_file is None:
                if rel.startswith("common"):
                    out.append(f"{rel}: includes \"{include}\", which is no layer's header (write \"<layer>/<file>\")")
                continue  # a program's generated or system header
            to = files.get(target_file)
            if to is None and target_file.startswith("common"):
                to = layer_of.get(target_file.split(os.sep)[1])
            if to is None or to in sees:
                continue
            kind = "its headers pass on" if rel.endswith(".hpp") else "it links"
            out.append(f"{rel} ({tname}): includes \"{include}\" of {to}, which is not among what {kind} "
                       f"({' '.join(sorted(sees - {tname})) or 'nothing'})")
    return out, skipped


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = argv[2] if len(argv) == 3 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    try:
        targets = read_graph(argv[1])
        found, skipped = problems(targets, root)
    except (OSError, ValueError) as e:
        print(f"check_layers: {e}", file=sys.stderr)
        return 2
    for p in found:
        print(f"check_layers: {p}", file=sys.stderr)
    if found:
        print(f"check_layers: {len(found)} include(s) the build's links do not allow; move the code down a layer, "
              "or link the target (PUBLIC where a header includes it) in its CMakeLists.txt if the order allows "
              "it (docs/structure.md, Layers)", file=sys.stderr)
        return 1
    note = f"; not in this build, unchecked: {' '.join(skipped)}" if skipped else ""
    print(f"check_layers: {len(targets)} targets, every include of {', '.join(FOLDERS)} follows their links{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
