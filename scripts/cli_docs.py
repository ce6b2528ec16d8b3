#!/usr/bin/python3
"""zcperf's command-line options as data, read from the program itself, for what the build makes of them
at install: the bash completion, and the check that the man page (help2man, from the same --help) and
the completion name every option --help shows. One source, the binary, so they cannot drift from it.

  cli_docs.py completion BINARY OUT      write OUT, the bash completion of BINARY (named by its file name)
  cli_docs.py check BINARY MANPAGE COMPLETION    exit 1 naming every option of --help missing from either
  cli_docs.py options BINARY             print the options as read (one per line), to see what is used
  cli_docs.py markdown BINARY OUT        write OUT, the option reference (docs/options.md) with --version
  cli_docs.py check-markdown BINARY DOC README   exit 1 when the committed DOC, or README's --version
                                         sample, differs from what BINARY gives (regenerate with markdown)

The options come from `BINARY --list-options` when the program has it (one row per option: names,
value kind, allowed values, help), else from its CLI11 --help: the names, whether a value follows, and
the values CLI11 shows for a fixed set ({human,csv,json}). `--version`'s "transports:" line adds the
transports this build has. stdlib only."""
import json
import os
import re
import subprocess
import sys


class Option:
    def __init__(self, names, value=None, choices=(), help_text="", default=""):
        self.names = names  # ["-H", "--host"]
        self.value = value  # None for a flag, else the kind ("TEXT", "INT", "FILE", "HOST", ...)
        self.choices = list(choices)  # allowed values, when the set is fixed
        self.help = help_text
        self.default = default

    def __repr__(self):
        return f"{','.join(self.names)} value={self.value} choices={self.choices}"


def run(binary, *args):
    # zcperf-mpi calls MPI_Init before it parses: let a singleton start as root, quietly.
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    done = subprocess.run([binary, *args], capture_output=True, text=True, timeout=60, env=env)
    return done.returncode, done.stdout


def from_list_options(text):
    """Rows of --list-options (common/options/option_rows.hpp): tab-separated lines of long name, short
    name, value kind ("" for a flag), allowed values (comma-separated), default, help; or a JSON array of
    objects with those keys. None when the text is not rows."""
    text = text.strip()
    if text.startswith("["):
        rows = json.loads(text)
    else:
        lines = [line.split("\t") for line in text.splitlines() if line]
        if not lines or any(len(f) < 6 for f in lines):
            return None  # not rows: a program without --list-options that printed something else
        rows = [dict(zip(("name", "short", "value", "values", "default", "help"), f)) for f in lines]
    out = []
    for r in rows:
        names = [n for n in (r.get("short"), r.get("name")) if n]
        names = [n if n.startswith("-") else ("-" if len(n) == 1 else "--") + n for n in names]
        values = r.get("values") or []
        if isinstance(values, str):
            values = [v for v in values.split(",") if v]
        kind = r.get("value") or None
        out.append(Option(names, None if kind in (None, "", "flag", "none") else kind, values, r.get("help", ""),
                          r.get("default", "")))
    return out


# CLI11's --help: an option line is two spaces, then its names ("-H,--host", or "-h,     --help" in later
# CLI11), then, for an option that takes a value, its type in capitals ("TEXT", "UINT=12875",
# "TEXT:{human,csv,json}=human", "INT:INT in [1 - 256]", "TEXT ..."), then the help, padded to column 30
# (so as little as one space may separate them). Continuation lines of a long help are indented deeper.
OPTION_LINE = re.compile(r"^  (-\S.*?)(?:\s{2,}(\S.*))?$")
NAMES = re.compile(r"^(--?[A-Za-z0-9][\w-]*(?:,\s*--?[A-Za-z0-9][\w-]*)*)\s*(.*)$")
TYPE = re.compile(r"^[A-Z][A-Z0-9_]*(?:[:=]|$)")


def from_help(text):
    out = []
    for line in text.splitlines():
        m = OPTION_LINE.match(line)
        if not m:
            if out and line.startswith("    ") and line.strip():
                out[-1].help += " " + line.strip()
            continue
        head, help_text = m.group(1), m.group(2) or ""
        n = NAMES.match(head)
        if not n:
            continue
        names = re.split(r",\s*", n.group(1))
        rest = n.group(2).split()
        kind, choices = None, []
        if rest and TYPE.match(rest[0]):
            kind = re.split(r"[:=]", rest[0], maxsplit=1)[0]
            s = re.match(r"^[A-Z]+:\{([^}]*)\}", rest[0])
            if s:
                choices = [c.strip() for c in s.group(1).split(",") if c.strip()]
        out.append(Option(names, kind, choices, help_text))
    return out


def read_options(binary):
    rc, text = run(binary, "--list-options")
    options = from_list_options(text) if rc == 0 and text.strip() else None
    if options is None:
        rc, text = run(binary, "--help")
        if rc != 0:
            sys.exit(f"cli_docs: {binary} --help failed (exit {rc})")
        options = from_help(text)
    if not options:
        sys.exit(f"cli_docs: no options read from {binary}")
    rc, version = run(binary, "--version")
    for line in version.splitlines():  # "transports: tcp tcp-sendfile ..." (zcperf, zcperf-mpi)
        if line.startswith("transports:"):
            for o in options:
                if "--transport" in o.names and not o.choices:
                    o.choices = line.split(":", 1)[1].split()
    for o in options:  # what the shell completes for a value CLI11 only calls TEXT
        long_name = next((n for n in o.names if n.startswith("--")), "")
        if o.value and not o.choices and (long_name.endswith("-file") or o.help.startswith("FILE")):
            o.value = "FILE"
        if o.value and long_name in ("--host", "--bind"):
            o.value = "HOST"
    return options


def completion(binary, out_path):
    prog = os.path.basename(out_path)
    fn = "_" + re.sub(r"\W", "_", prog)
    options = read_options(binary)
    words = " ".join(n for o in options for n in o.names)
    cases = []
    for o in options:
        if o.value is None:
            continue
        pattern = "|".join(o.names)
        if o.choices:
            # Lists are comma-separated (-T tcp,tcp-msgzc; --buffer host,cuda:0): complete the last item.
            cases.append(f'        {pattern}) _zcperf_complete_list "{" ".join(o.choices)}"; return ;;')
        elif o.value == "FILE":
            cases.append(f"        {pattern}) COMPREPLY=($(compgen -P \"$pre\" -f -- \"$cur\")); "
                         "compopt -o filenames 2>/dev/null; return ;;")
        elif o.value == "HOST":
            cases.append(f"        {pattern}) COMPREPLY=($(compgen -P \"$pre\" -A hostname -- \"$cur\")); return ;;")
        else:
            cases.append(f"        {pattern}) return ;;  # {o.value}: nothing to offer")
    body = f"""# bash completion for {prog}, generated by scripts/cli_docs.py from `{prog} --list-options` or
# `{prog} --help` when it was built: every option, and the values of those with a fixed set.
_zcperf_complete_list() {{
    local head=$pre last=$cur
    if [[ $cur == *,* ]]; then head=$pre${{cur%,*}},; last=${{cur##*,}}; fi
    COMPREPLY=($(compgen -P "$head" -W "$1" -- "$last"))
}}

{fn}() {{
    local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}} pre=""
    # --opt=value: bash splits it at '=' into --opt, =, value; the word being completed may be the '='.
    if [[ $cur == = ]]; then cur=""; pre="="; fi
    if [[ $prev == = ]]; then prev=${{COMP_WORDS[COMP_CWORD-2]}}; fi
    case $prev in
{chr(10).join(cases)}
    esac
    if [[ $cur == -* || -z $cur ]]; then
        COMPREPLY=($(compgen -W "{words}" -- "$cur"))
    fi
}}
complete -F {fn} {prog}
"""
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    with open(out_path, "w") as f:
        f.write(body)


def man_text(path):
    """A man page's words: groff escapes undone (\\- is -), so option names can be looked for."""
    import gzip
    raw = (gzip.open if path.endswith(".gz") else open)(path, "rt").read()
    return raw.replace("\\-", "-").replace("\\fB", " ").replace("\\fR", " ").replace("\\fI", " ")


def check(binary, man_path, completion_path):
    rc, text = run(binary, "--help")
    if rc != 0:
        sys.exit(f"cli_docs: {binary} --help failed (exit {rc})")
    names = sorted({n for o in from_help(text) for n in o.names})
    if len(names) < 2:
        sys.exit(f"cli_docs: read only {names} from {binary} --help: its format changed, fix from_help()")
    man = man_text(man_path)
    comp = open(completion_path).read()
    bad = []
    for n in names:
        if not re.search(r"(?<![\w-])" + re.escape(n) + r"(?![\w-])", man):
            bad.append(f"{n} is not in the man page {man_path}")
        if not re.search(r"(?<![\w-])" + re.escape(n) + r"(?![\w-])", comp):
            bad.append(f"{n} is not in the completion {completion_path}")
    for b in bad:
        print(f"cli_docs: {b}", file=sys.stderr)
    if bad:
        print("cli_docs: both are generated at build time: rebuild (cmake --build build); if it persists, "
              "scripts/cli_docs.py reads --help wrongly", file=sys.stderr)
        return 1
    print(f"cli_docs: all {len(names)} options of {os.path.basename(binary)} --help are in {man_path} and "
          f"{completion_path}")
    return 0


def markdown_text(binary):
    """docs/options.md: every option of BINARY's rows, and its --version, as the binary says them."""
    prog = os.path.basename(binary)
    rows = []
    for o in read_options(binary):
        cell = lambda t: str(t).replace("|", "\\|").replace("\n", " ")
        names = ", ".join(f"`{n}`" for n in o.names)
        value = o.value or ""
        if o.choices:
            value += " (" + ", ".join(o.choices) + ")"
        rows.append(f"| {names} | {cell(value)} | {cell(o.default)} | {cell(o.help)} |")
    _, version = run(binary, "--version")
    return (f"# {prog}'s options\n\n"
            f"Generated by `scripts/cli_docs.py markdown build/{prog} docs/options.md` from `{prog} --list-options`\n"
            "(the option rows of common/options/option_rows.cpp), as the man page is: do not edit by hand. The test\n"
            "`options_doc_matches_binary` fails when this page or README.md's --version sample drifts from the binary.\n\n"
            f"```\n$ {prog} --version\n{version.rstrip()}\n```\n\n"
            "| option | value | default | what it does |\n| --- | --- | --- | --- |\n" + "\n".join(rows) + "\n")


def check_markdown(binary, doc_path, readme_path):
    want = markdown_text(binary)
    have = open(doc_path).read() if os.path.exists(doc_path) else ""
    bad = 0
    if have != want:
        import difflib
        diff = difflib.unified_diff(have.splitlines(), want.splitlines(), doc_path, "the binary's", lineterm="", n=0)
        print(f"cli_docs: {doc_path} differs from {binary}'s options; regenerate it with\n"
              f"  scripts/cli_docs.py markdown {binary} {doc_path}\n" + "\n".join(list(diff)[:40]))
        bad = 1
    _, version = run(binary, "--version")
    sample = "$ build/zcperf --version\n" + version.rstrip() + "\n```"
    if sample not in open(readme_path).read():
        print(f"cli_docs: {readme_path}'s --version sample is not the binary's; it should read:\n{sample}")
        bad = 1
    return bad


def main(argv):
    if len(argv) == 3 and argv[0] == "markdown":
        with open(argv[2], "w") as f:
            f.write(markdown_text(argv[1]))
        return 0
    if len(argv) == 4 and argv[0] == "check-markdown":
        return check_markdown(*argv[1:])
    if len(argv) == 3 and argv[0] == "completion":
        completion(argv[1], argv[2])
        return 0
    if len(argv) == 4 and argv[0] == "check":
        return check(*argv[1:])
    if len(argv) == 2 and argv[0] == "options":
        for o in read_options(argv[1]):
            print(o)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
