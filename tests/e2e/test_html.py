#!/usr/bin/python3
"""The --html page in a real browser: two short --explain runs of tcp and tcp-msgzc with two
repetitions each, `zcperf compare` of them with --html, and a run's own --html; each page opened from
file:// by headless Chromium with no network (a network namespace of its own where unshare works, else
every host name unresolvable) and its DOM read back after the scripts ran. The page writes what it drew
into #zc-selfcheck; this checks it: no script error or console error, the flame graphs have their frames
(>= 50), hovering a frame names its category, a search for _copy_from_iter finds frames, a differential graph is there, the category names
are on the page, and it loaded nothing beyond itself (no <script src>, <link> or <img>; no resource
timing entry). Then a real loopback survey's page (`zcperf survey --html`): its charts, crossover markers
and a point's flame graphs.

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


def page_check(chromium, page, tmp):
    """What the page says it drew (#zc-selfcheck) and its DOM, failing on a script or console error or
    anything it loaded beyond itself."""
    html = open(page).read()
    if re.search(r"<(script|link|img)[^>]+(src|href)=", html):
        fail(f"{page} refers to a file outside itself")
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
    return check, dom


def check_page(chromium, page, tmp, want_differential):
    check, dom = page_check(chromium, page, tmp)
    name = os.path.basename(page)
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


def check_survey(zcperf, chromium, tmp, cpus):
    """A real loopback survey's page: its charts (three figures against the size, three ratios), each
    crossover the JSON found marked on the sender-SD charts (or the page's "no crossover" text), the
    categories per size, and a chosen point's flame graphs (the path's, its copy path's, the differential)."""
    run([zcperf, "survey", "--paths", "tcp,tcp-msgzc", "--sizes", "4K,256K", "--rounds", "3", "-l", "0.3",
         "-o", "json", "--html", f"{tmp}/survey.html"] + cpus, f"{tmp}/survey.json", timeout=180)
    survey = json.load(open(f"{tmp}/survey.json"))["survey"]
    check, dom = page_check(chromium, f"{tmp}/survey.html", tmp)
    if check["charts"] != 6:
        fail(f"survey.html: {check['charts']} charts against the size, want 6 ({check})")
    found = [x for x in survey["crossovers"].values() if x["found"]]
    # each found crossover's start, and its stop where it has one, on the two sender-SD charts
    want = 2 * sum(1 + (x["stops"] is not None) for x in found)
    if check["markers"] != want:
        fail(f"survey.html: {check['markers']} crossover markers, want {want} for {survey['crossovers']}")
    if found and check["moved"] < 1:
        fail(f"survey.html: a crossover but no category named as moved there ({check})")
    if not found and not check.get("no_crossover", "").startswith("no crossover"):
        fail("survey.html: no crossover in the data and none said on the page")
    if check["points"] != len(survey["points"]):
        fail(f"survey.html: {check['points']} points with flame graphs, want {len(survey['points'])}")
    if check["flame_graphs"] < 3 or check["differential"] < 1 or check["frames"] < 20:
        fail(f"survey.html: a point's flame graphs missing: {check}")
    for text in ("tcp-msgzc", survey["run"]["local_kernel"], "Benjamini-Hochberg", "data copy"):
        if text not in dom:
            fail(f"survey.html: '{text}' not on the page")
    print(f"survey.html: {check['charts']} charts, {check['markers']} crossover markers "
          f"({len(found)} crossovers), {check['flame_graphs']} flame graphs, {check['frames']} frames, "
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
            check_page(chromium, f"{tmp}/{page}", tmp, want_differential=True)
        check_survey(zcperf, chromium, tmp, cpus)
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
