#!/usr/bin/python3
"""Function -> source file of a kernel, from its DWARF: the data behind --explain's file rules.

Reads a kernel's debug info (Debian's linux-image-*-dbg: its vmlinux and the .ko files under
usr/lib/debug/lib/modules/VERSION/kernel/) with llvm-dwarfdump, and writes one line per function
that has code (a DW_TAG_subprogram with an address: a C function, an out-of-line copy of an inline
one, an assembly routine):

    NAME<TAB>FILE

FILE is where the function is written (DW_AT_decl_file, relative to the kernel's source tree: a
header for an inline copy, include/linux/skbuff.h), else its compilation unit (assembly:
arch/x86/lib/copy_user_64.S). A name with two files (static functions of one name) has two lines.
The output is gzip'd; its header names the package, the generator and the command, so anyone can
regenerate it. Only DW_TAG_subprogram's name, decl_file and address are read (--recurse-depth=1:
no parameters, no inlined bodies).

The -dbg packages are large (0.9-1 GB each, 5-6 GB unpacked): this runs by hand, never in CI. It
needs llvm-dwarfdump (Debian: the llvm package). Measured on a 2-vCPU VM under other builds: 6.1's
vmlinux and 1,245 modules in 2 min 49 s, 6.12's in 4 min 24 s (docs/explain.md).

    mkdir -p /work/kdbg && cd /work/kdbg
    apt-get download linux-image-6.1.0-57-amd64-dbg
    mkdir x6.1 && dpkg-deb --fsys-tarfile linux-image-6.1.0-57-amd64-dbg_*.deb |
        tar -x -C x6.1 --wildcards './usr/lib/debug/boot/*' './usr/lib/debug/lib/modules/*/kernel/net/*' ...
        (one './usr/lib/debug/lib/modules/*/kernel/DIR/*' per DIR of MODULE_DIRS below)
    scripts/kernel_function_files.py --package linux-image-6.1.0-57-amd64-dbg_6.1.192-3 \\
        --root /work/kdbg/x6.1 --out common/explain/kernel_files/debian-6.1.0-57-amd64.tsv.gz

--root is the unpacked package; the module directories read are those in MODULE_DIRS (what a
network benchmark's samples land in), every .ko under them.
"""
import argparse
import gzip
import os
import re
import subprocess
import sys
import time

# Module directories (under lib/modules/VERSION/kernel/) whose functions are recorded.
MODULE_DIRS = ["net", "drivers/net", "drivers/infiniband", "drivers/virtio", "crypto", "arch/x86/crypto",
               "lib", "fs"]

# A path in the DWARF is absolute (/build/reproducible-path/linux-6.1.192/net/ipv4/tcp.c) or relative
# to the build directory (debian/build/build_amd64_none_amd64/include/net/tcp.h): cut to the tree's.
_TREE = re.compile(r"^(?:.*/linux-[0-9][^/]*/|.*/build_[a-z0-9_]+/|(?:\.\./)+)")
_DIE = re.compile(r"^0x([0-9a-f]+):\s+(DW_TAG_\w+)")
_ATTR = re.compile(r"^\s+(DW_AT_\w+)\s+\((.*)\)$")
_QUOTED = re.compile(r'"(.*)"')
_ORIGIN = re.compile(r"^0x([0-9a-f]+)")


def tree_path(p):
    return _TREE.sub("", p)


def functions_of(path):
    """(name, file) of every function with code in one ELF file's DWARF."""
    proc = subprocess.Popen(["llvm-dwarfdump", "--debug-info", "--recurse-depth=1", path],
                            stdout=subprocess.PIPE, text=True, errors="replace", bufsize=1 << 20)
    decl = {}       # DIE offset -> (name, decl_file): abstract instances, for their concrete copies
    concrete = []   # (name or None, origin offset or None, file or None)
    cu_file = None
    tag = off = None
    attrs = {}

    def flush():
        nonlocal cu_file
        if tag == "DW_TAG_compile_unit":
            m = _QUOTED.search(attrs.get("DW_AT_name", ""))
            cu_file = tree_path(m.group(1)) if m else None
        elif tag == "DW_TAG_subprogram":
            name = _QUOTED.search(attrs.get("DW_AT_name", ""))
            name = name.group(1) if name else None
            f = _QUOTED.search(attrs.get("DW_AT_decl_file", ""))
            f = tree_path(f.group(1)) if f else None
            if name is not None:
                decl[off] = (name, f)
            has_code = "DW_AT_low_pc" in attrs or "DW_AT_ranges" in attrs
            if has_code and "DW_AT_declaration" not in attrs:
                origin = _ORIGIN.match(attrs.get("DW_AT_abstract_origin", "") or
                                       attrs.get("DW_AT_specification", ""))
                concrete.append((name, int(origin.group(1), 16) if origin else None, f or cu_file))

    for line in proc.stdout:
        m = _DIE.match(line)
        if m:
            flush()
            off, tag, attrs = int(m.group(1), 16), m.group(2), {}
            continue
        if tag in ("DW_TAG_subprogram", "DW_TAG_compile_unit"):
            a = _ATTR.match(line)
            if a:
                attrs[a.group(1)] = a.group(2)
    flush()
    if proc.wait() != 0:
        sys.exit(f"llvm-dwarfdump failed on {path}")
    for name, origin, f in concrete:
        if origin is not None and origin in decl:
            oname, ofile = decl[origin]
            name, f = name or oname, ofile or f
        if name and f:
            yield name, f


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", required=True, help="the unpacked -dbg package (holds usr/lib/debug)")
    ap.add_argument("--package", required=True, help="the package and version, for the header")
    ap.add_argument("--out", required=True, help="the .tsv.gz to write")
    args = ap.parse_args()
    dbg = os.path.join(args.root, "usr/lib/debug")
    vmlinux = [os.path.join(dbg, "boot", f) for f in sorted(os.listdir(os.path.join(dbg, "boot")))
               if f.startswith("vmlinux")]
    if len(vmlinux) != 1:
        sys.exit(f"expected one vmlinux under {dbg}/boot, found {len(vmlinux)}: is --root the unpacked package?")
    mods = os.path.join(dbg, "lib/modules")
    version = sorted(os.listdir(mods))[0]
    kos = []
    for d in MODULE_DIRS:
        for base, _, files in os.walk(os.path.join(mods, version, "kernel", d)):
            kos += [os.path.join(base, f) for f in files if f.endswith(".ko")]
    start = time.monotonic()
    pairs = set()
    for i, elf in enumerate(vmlinux + sorted(kos)):
        pairs.update(functions_of(elf))
        if i % 200 == 0:
            print(f"{i + 1}/{len(kos) + 1} {elf}: {len(pairs)} functions, {time.monotonic() - start:.0f} s",
                  file=sys.stderr)
    took = time.monotonic() - start
    with gzip.GzipFile(args.out, "wb", mtime=0) as raw:
        out = raw
        out.write((f"# function -> source file of Debian's {args.package} (vmlinux and the modules under "
                   f"kernel/{{{','.join(MODULE_DIRS)}}}), from its DWARF\n"
                   f"# generated by scripts/kernel_function_files.py --package {args.package} --root DIR "
                   f"(the unpacked package); see that script's --help\n").encode())
        for name, f in sorted(pairs):
            out.write(f"{name}\t{f}\n".encode())
    print(f"{len(pairs)} (function, file) pairs from {len(kos) + 1} files in {took:.0f} s -> {args.out}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
