#!/usr/bin/python3
"""The --html page in a real browser: two short --explain runs of tcp and tcp-msgzc with two
repetitions each, `zcperf compare` of them with --html, and a run's own --html; each page opened from
file:// by headless Chromium with no network (a network namespace of its own where unshare works, else
every host name unresolvable) and its DOM read back after the scripts ran. The page writes what it drew
into #zc-selfcheck; this checks it: no script error or console error, the flame graphs have their frames
(>= 50), hovering a frame names its category, a search for _copy_from_iter finds frames, a differential graph is there, the category names
are on the page, and it loaded nothing beyond itself (no <script src>, <link> or <img>; no resource
timing entry).

    tests/e2e/test_html.py PATH/TO/zcperf

Exit 0 pass, 1 fail, 77 skipped (no chromium: apt-get install chromium, scripts/bootstrap.sh installs it;
or --explain cannot sample here)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def run(cmd, out, timeout=120):
    with open(out, "w") as f:
        p = subprocess.run(cmd, stdout=f, stderr=subprocess.PIPE, text=True, timeout=timeout)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr[-2000:]}")
    return p.stderr


def isolated_network():
    """A prefix that runs a command with no network at all, where the kernel lets us (root: unshare -n)."""
    if shutil.which("unshare") and subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-n"]
    return []


def open_in_chromium(chromium, page, tmp):
    """The page's DOM after its scripts ran, and Chromium's log (console messages, network requests)."""
    profile = tempfile.mkdtemp(dir=tmp)
    cmd = isolated_network() + [
        chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", f"--user-data-dir={profile}",
        # no name resolves: a page that tried to fetch anything would fail, and its console would say so
        "--host-resolver-rules=MAP * ~NOTFOUND", "--enable-logging=stderr", "--v=1",
        "--virtual-time-budget=10000", "--window-size=1400,2000", "--dump-dom", "file://" + page]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail(f"chromium exited {p.returncode}: {p.stderr[-3000:]}")
    return p.stdout, p.stderr


def check_page(chromium, page, tmp, want_differential):
    dom, log = open_in_chromium(chromium, page, tmp)
    m = re.search(r'<pre id="zc-selfcheck"[^>]*>(.*?)</pre>', dom, re.S)
    if not m:
        console = [line for line in log.splitlines() if "CONSOLE" in line]
        fail(f"{page}: no #zc-selfcheck in the DOM (the page's script did not run); console: {console[-10:]}")
    check = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))
    name = os.path.basename(page)
    if not check.get("ready"):
        fail(f"{name}: the page's script did not finish: {check}")
    if check["errors"]:
        fail(f"{name}: script errors: {check['errors']}")
    console = [line for line in log.splitlines() if "CONSOLE" in line and ("ERROR" in line or "Uncaught" in line)]
    if console:
        fail(f"{name}: console errors: {console}")
    # The browser's own update and time requests go to the log too; the page's are its resource entries.
    if check["resources"]:
        fail(f"{name}: the page loaded {check['resources'][:5]}")
    if check["frames"] < 50:
        fail(f"{name}: {check['frames']} flame graph frames drawn, want >= 50 ({check})")
    if check["search"].get("_copy_from_iter", 0) < 1:
        fail(f"{name}: a search for _copy_from_iter found nothing ({check})")
    if "category: " not in check.get("hover", ""):
        fail(f"{name}: hovering a frame does not name its category: {check.get('hover')!r}")
    if want_differential and check["differential"] < 1:
        fail(f"{name}: no differential flame graph ({check})")
    for label in ("data copy", "TCP/IP"):
        if label not in check["categories"] or label not in dom:
            fail(f"{name}: category '{label}' not on the page ({check['categories']})")
    print(f"{name}: {check['flame_graphs']} flame graphs ({check['differential']} differential), "
          f"{check['frames']} frames, _copy_from_iter in {check['search']['_copy_from_iter']} frames, "
          f"categories {', '.join(check['categories'])}")


def main():
    zcperf = sys.argv[1] if len(sys.argv) > 1 else "build/zcperf"
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("SKIP: no chromium (apt-get install chromium; scripts/bootstrap.sh installs it)", file=sys.stderr)
        return SKIP
    tmp = tempfile.mkdtemp(prefix="html_test.")
    try:
        cpus = ["--cpu", "0,1"] if os.cpu_count() >= 2 else []
        args = [zcperf, "-l", "2", "-m", "64K", "-T", "tcp,tcp-msgzc", "--explain", "-i", "2,2", "-o", "json"] + cpus
        log = run(args, f"{tmp}/base.json")
        report = json.load(open(f"{tmp}/base.json"))
        if not report["results"][0]["local"]["explain"].get("ran"):
            print(f"SKIP: --explain cannot sample here: {report['results'][0]['local']['explain'].get('problem')}",
                  file=sys.stderr)
            return SKIP
        run(args + ["--html", f"{tmp}/run.html"], f"{tmp}/new.json")
        run([zcperf, "compare", f"{tmp}/base.json", f"{tmp}/new.json", "--html", f"{tmp}/compare.html"],
            f"{tmp}/compare.txt")
        text = open(f"{tmp}/compare.txt").read()
        if "throughput_gbps" not in text or "local_explain_copy_us_per_kb" not in text:
            fail(f"compare's report lacks the throughput or the categories:\n{text}")
        for page in ("compare.html", "run.html"):
            html = open(f"{tmp}/{page}").read()
            if re.search(r"<(script|link|img)[^>]+(src|href)=", html):
                fail(f"{page} refers to a file outside itself")
            check_page(chromium, f"{tmp}/{page}", tmp, want_differential=True)
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
