#!/usr/bin/python3
"""What a release must say about itself, checked against the files that say it:
  check_release.py SRC COPYRIGHT VERSION [--news]
SRC is the source tree, COPYRIGHT a copyright file (the source's dist/debian/copyright, or the one a
package installed), VERSION what `zcperf --version` printed, or the zcperf to ask. Checked:
  - LICENSE is the Apache License 2.0's text, unmodified;
  - COPYRIGHT is Debian's machine-readable format 1.0: a header, Files paragraphs each with Copyright
    and License, and every licence they name given in full once (its own paragraph or the Files one);
  - its "Files: *" licence is the one --version names ("licence: Apache-2.0 (...)");
  - every file under SRC/third_party/ that code is made of (scripts, minified or not, and their LICENSE
    files) has a Files paragraph of its own, and every path COPYRIGHT names exists in SRC;
  - with --news: NEWS.md's newest "## VERSION" heading is --version's version.
Exit 0 when all hold; 1 naming each that does not."""
import hashlib
import os
import re
import subprocess
import sys

# md5 of https://www.apache.org/licenses/LICENSE-2.0.txt (Debian's /usr/share/common-licenses/Apache-2.0).
APACHE_2_MD5 = "3b83ef96387f14655fc854ddc3c6bd57"
FORMAT = "https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"


def paragraphs(text):
    """deb822: paragraphs split by blank lines; a field's continuation lines start with a space."""
    out = []
    for block in re.split(r"\n\s*\n", text.strip("\n")):
        fields, last = {}, None
        for line in block.split("\n"):
            if line.startswith((" ", "\t")) and last:
                fields[last] += "\n" + line.strip()
            elif ":" in line:
                last, value = line.split(":", 1)
                fields[last] = value.strip()
            else:
                raise ValueError(f"not a field or a continuation: {line!r}")
        out.append(fields)
    return out


def check(src, copyright_path, version_text, news):
    errors = []
    with open(os.path.join(src, "LICENSE"), "rb") as f:
        if hashlib.md5(f.read()).hexdigest() != APACHE_2_MD5:
            errors.append("LICENSE is not the Apache License 2.0's text as apache.org publishes it")

    m = re.search(r"^licence: (\S+) \(", version_text, re.M)
    if not m:
        errors.append(f"--version names no licence (a 'licence: ID (...)' line):\n{version_text}")
    licence = m.group(1) if m else None

    try:
        paras = paragraphs(open(copyright_path, encoding="utf-8").read())
    except ValueError as e:
        return errors + [f"{copyright_path}: {e}"]
    header, body = paras[0], paras[1:]
    if header.get("Format") != FORMAT:
        errors.append(f"{copyright_path}: the first paragraph's Format is not {FORMAT}")
    for key in ("Upstream-Name", "Source"):
        if not header.get(key):
            errors.append(f"{copyright_path}: the header has no {key}")
    if licence and header.get("License") != licence:  # the package as a whole, as its SPDX identifier
        errors.append(f"{copyright_path}: the header's License is {header.get('License')!r}, --version says {licence}")
    files = [p for p in body if "Files" in p]
    texts = {p["License"].split("\n")[0]: p["License"] for p in body if "Files" not in p and "License" in p}
    named = set()
    for p in files:
        for key in ("Copyright", "License"):
            if not p.get(key):
                errors.append(f"{copyright_path}: Files: {p['Files']!r} has no {key}")
        short = p.get("License", "").split("\n")[0]
        if short and "\n" not in p["License"] and short not in texts:
            errors.append(f"{copyright_path}: licence {short} (Files: {p['Files']!r}) is not given in full")
        named.update(p["Files"].split())
    star = [p for p in files if p["Files"].split() == ["*"]]
    if len(star) != 1:
        errors.append(f"{copyright_path}: {len(star)} 'Files: *' paragraphs, not one")
    elif licence and star[0].get("License", "").split("\n")[0] != licence:
        errors.append(f"{copyright_path}: Files: * is {star[0].get('License')!r}, --version says {licence}")
    for path in sorted(named - {"*"}):
        if not os.path.exists(os.path.join(src, path)):
            errors.append(f"{copyright_path} names {path}, which the source tree lacks")
    for root, _, names in os.walk(os.path.join(src, "third_party")):
        for name in names:
            rel = os.path.relpath(os.path.join(root, name), src)
            if (name.endswith(".js") or name.startswith("LICENSE")) and rel not in named:
                errors.append(f"{copyright_path}: the vendored {rel} has no Files paragraph (its own licence)")

    if news:
        v = re.match(r"\S+ (\S+)", version_text)
        heading = re.search(r"^## (\S+)", open(os.path.join(src, "NEWS.md"), encoding="utf-8").read(), re.M)
        if not v or not heading or heading.group(1) != v.group(1):
            errors.append(f"NEWS.md's newest heading ({heading and heading.group(1)}) is not --version's "
                          f"({v and v.group(1)}): describe this version there")
    return errors


def main(argv):
    if len(argv) not in (3, 4) or (len(argv) == 4 and argv[3] != "--news"):
        sys.exit(__doc__)
    version = argv[2]
    if os.path.isfile(version) and os.access(version, os.X_OK):
        version = subprocess.run([version, "--version"], capture_output=True, text=True, timeout=30).stdout
    errors = check(argv[0], argv[1], version, len(argv) == 4)
    for e in errors:
        print("check_release:", e, file=sys.stderr)
    if not errors:
        print(f"check_release: LICENSE, {argv[1]}" + (", NEWS.md" if len(argv) == 4 else "") + " agree with --version")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
