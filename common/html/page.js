// zcperf's --html page: draws a run's or a compare's figures from the JSON in #zc-data with d3
// and d3-flame-graph (inlined above this script; nothing is fetched). It writes what it drew into
// #zc-selfcheck (hidden, JSON) so a headless browser can check the page: tests/e2e/test_html.sh.
(function () {
  "use strict";
  const check = { errors: [], frames: 0, flame_graphs: 0, differential: 0, search: {}, categories: [], ready: false };
  window.addEventListener("error", (e) => check.errors.push(String(e.message)));
  const consoleError = console.error.bind(console);
  console.error = (...args) => { check.errors.push(args.map(String).join(" ")); consoleError(...args); };
  const data = JSON.parse(document.getElementById("zc-data").textContent);
  const page = d3.select("#zc-page");
  const catLabel = Object.fromEntries(data.categories.map((c) => [c.key, c.label]));
  const palette = d3.schemeTableau10.concat(d3.schemeSet3);
  const catColor = d3.scaleOrdinal(data.categories.map((c) => c.key), palette);

  function sizeLabel(b) {
    for (const [u, n] of [["G", 2 ** 30], ["M", 2 ** 20], ["K", 2 ** 10]]) if (b >= n && b % n === 0) return b / n + u;
    return b + " B";
  }
  const testKey = (r) => `${r.transport} ${r.test} ${sizeLabel(r.message_size)} rx ${r.rx}`;
  const num = (x, d = 4) => (x === null || x === undefined ? "-" : Number(x).toPrecision(d));

  // Every result of every side: {side, key, result}.
  const results = [];
  for (const side of data.sides)
    for (const doc of side.reports) for (const r of doc.results || []) results.push({ side: side.name, key: testKey(r), r });
  const label = (x) => (data.kind === "compare" ? `${x.side}: ${x.key}` : x.key);

  function section(title, note) {
    const s = page.append("section");
    s.append("h2").text(title);
    if (note) s.append("p").attr("class", "note").text(note);
    return s;
  }

  function header() {
    page.append("h1").text(data.kind === "compare" ? "zcperf compare: NEW against BASE" : "zcperf run");
    const dl = page.append("dl").attr("class", "sides");
    if (data.kind === "compare") {
      for (const name of ["base", "new"]) {
        const d = data.compare[name];
        dl.append("dt").text(name);
        dl.append("dd").text(`${d.files.join(", ")} · ${d.hosts.join("; ")} · kernel ${d.kernels.join("; ")} · ${d.software.join("; ")}`);
      }
      return;
    }
    const run = data.sides[0].reports[0].run;
    dl.append("dt").text("run");
    dl.append("dd").text(`${run.command_line} · client ${run.local_host} (${run.local_kernel || "?"}), server ${run.remote_host} (${run.remote_kernel || "?"}) · ${run.software}, ${run.remote_software}`);
  }

  function table(sel, head, rows, rowClass) {
    const t = sel.append("table");
    t.append("thead").append("tr").selectAll("th").data(head).join("th").text((d) => d);
    const tr = t.append("tbody").selectAll("tr").data(rows).join("tr").attr("class", rowClass || null);
    tr.selectAll("td").data((d) => d.cells).join("td").text((d) => d);
  }

  function compareTables() {
    const c = data.compare;
    const s = section("Results", `${c.level_pct} % intervals: ${c.method}. x: NEW / BASE; +/-: NEW - BASE where a side has a zero. higher / lower: beyond noise.`);
    const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;
    for (const t of c.tests) {
      s.append("h3").text(`${t.transport} ${t.test} ${sizeLabel(t.message_size)} rx ${t.rx}`);
      const rows = t.figures.map((f) => ({
        verdict: f.verdict.split(":")[0].replace(/ /g, "-"),
        cells: [f.figure, num(mean(f.base)), num(mean(f.new)), (f.kind === "ratio" ? "x" : "") + num(f.estimate, 3),
          f.interval ? `[${num(f.interval[0], 3)}, ${num(f.interval[1], 3)}]` : "-", `${f.base.length} / ${f.new.length}`, f.verdict],
      }));
      table(s, ["figure (mean)", "base", "new", "change", "interval", "rounds", "verdict"], rows, (d) => "v-" + d.verdict);
    }
  }

  function runTable() {
    const s = section("Results");
    const rows = results.map((x) => {
      const f = x.r.figures || {};
      const rate = f.throughput_gbps !== undefined ? num(f.throughput_gbps) + " Gb/s" : num(f.transactions_per_s ?? f.messages_per_s) + " /s";
      const sd = (side) => Object.entries(f).filter(([k]) => k.startsWith(side + "_service_demand")).map(([k, v]) => `${num(v)} ${k.replace(/^.*_service_demand_/, "").replace("_per_", "/")}`).join("");
      return { cells: [x.key, rate, sd("local"), sd("remote"), String(x.r.iterations ? x.r.iterations.count : 1)] };
    });
    table(s, ["test", "rate", "local service demand", "remote service demand", "iterations"], rows);
  }

  // Each side's --explain categories per unit, one stacked bar per result and side (local, remote).
  function categoryBars() {
    const bars = [];
    for (const x of results)
      for (const side of ["local", "remote"]) {
        const e = x.r[side] && x.r[side].explain;
        if (!e || !e.per_unit) continue;
        bars.push({ name: `${label(x)} · ${side}`, unit: e.unit, parts: data.categories.filter((c) => e.per_unit[c.key] > 0).map((c) => ({ key: c.key, v: e.per_unit[c.key] })) });
      }
    if (!bars.length) return;
    const s = section("Where the CPU went (--explain)", `each side's CPU per unit (${bars[0].unit}), by kernel category`);
    const used = data.categories.filter((c) => bars.some((b) => b.parts.some((p) => p.key === c.key)));
    check.categories = used.map((c) => c.label);
    const legend = s.append("div").attr("class", "legend").selectAll("span").data(used).join("span");
    legend.append("i").style("background", (c) => catColor(c.key));
    legend.append("b").text((c) => c.label);
    const w = 960, left = 330, h = 22;
    const total = (b) => b.parts.reduce((a, p) => a + p.v, 0);
    const x = d3.scaleLinear().domain([0, d3.max(bars, total)]).range([0, w - left - 60]);
    const svg = s.append("svg").attr("width", w).attr("height", bars.length * (h + 6) + 24);
    const g = svg.selectAll("g.bar").data(bars).join("g").attr("class", "bar").attr("transform", (d, i) => `translate(0,${i * (h + 6)})`);
    g.append("text").attr("x", left - 6).attr("y", h / 2 + 4).attr("text-anchor", "end").text((d) => d.name);
    g.each(function (b) {
      let at = left;
      for (const p of b.parts) {
        d3.select(this).append("rect").attr("x", at).attr("width", x(p.v)).attr("height", h).attr("fill", catColor(p.key))
          .append("title").text(`${catLabel[p.key]}: ${num(p.v)} ${b.unit}`);
        at += x(p.v);
      }
      d3.select(this).append("text").attr("x", at + 4).attr("y", h / 2 + 4).text(num(total(b), 3));
    });
    svg.append("g").attr("transform", `translate(${left},${bars.length * (h + 6)})`).call(d3.axisBottom(x).ticks(8));
  }

  function lineChart(sel, series, xLabel, yLabel, opts = {}) {
    const w = 960, h = 280, m = { l: 70, r: 200, t: 10, b: 40 };
    const all = series.flatMap((s) => s.points);
    const x = (opts.xLog ? d3.scaleLog() : d3.scaleLinear()).domain(d3.extent(all, (p) => p[0])).range([m.l, w - m.r]);
    const y = (opts.yLog ? d3.scaleLog() : d3.scaleLinear()).domain(opts.yLog ? d3.extent(all, (p) => p[1]) : [0, d3.max(all, (p) => p[1])]).nice().range([h - m.b, m.t]);
    const svg = sel.append("svg").attr("width", w).attr("height", h);
    svg.append("g").attr("transform", `translate(0,${h - m.b})`).call(d3.axisBottom(x).ticks(8, opts.xLog ? "~s" : undefined));
    svg.append("g").attr("transform", `translate(${m.l},0)`).call(d3.axisLeft(y).ticks(6, opts.yFormat || "~s"));
    svg.append("text").attr("x", (w - m.r + m.l) / 2).attr("y", h - 6).attr("text-anchor", "middle").text(xLabel);
    svg.append("text").attr("transform", `translate(14,${h / 2}) rotate(-90)`).attr("text-anchor", "middle").text(yLabel);
    series.forEach((s, i) => {
      svg.append("path").datum(s.points).attr("fill", "none").attr("stroke", palette[i % palette.length]).attr("stroke-width", 1.5)
        .attr("d", d3.line().x((p) => x(p[0])).y((p) => y(p[1])).curve(opts.step ? d3.curveStepAfter : d3.curveLinear));
      svg.append("text").attr("x", w - m.r + 6).attr("y", m.t + 14 + i * 16).attr("fill", palette[i % palette.length]).text(s.name);
    });
  }

  // -D's intervals: each repetition's in turn, on one time axis.
  function intervals() {
    const series = [];
    for (const x of results) {
      if (!x.r.intervals || !x.r.intervals.length) continue;
      // interval rows carry the test's rate: Gb/s for a stream, per second for rr (crr, cc) and msgrate
      const rate = x.r.test === "stream" || x.r.test === "maerts" ? "throughput_gbps" : x.r.test === "msgrate" ? "messages_per_s" : "transactions_per_s";
      let t = 0;
      const points = x.r.intervals.map((row) => { const p = [t, row[rate]]; t += row.end_s - row.start_s; return p; });
      points.push([t, points[points.length - 1][1]]);  // the last interval's step ends at its end
      series.push({ name: label(x), points, rate });
    }
    if (!series.length) return;
    lineChart(section("Intervals (-D)", "each interval's rate as the test ran; repetitions follow each other"), series, "s", series[0].rate.replace(/_/g, " "), { step: true });
  }

  // rr's round trips: the client's histogram (common/measure/latency_histogram.hpp's buckets: 128 per power
  // of two; bucket i holds [(i - 128 s) << s, + 2^s) ns with s = max(0, (i >> 7) - 1)), as a share per bucket.
  function latency() {
    const series = [];
    for (const x of results) {
      const h = x.r.local && x.r.local.messages && x.r.local.messages.rtt_ns;
      if (!h || !h.count) continue;
      const points = h.buckets.map(([i, n]) => { const s = Math.max(0, (i >> 7) - 1); return [((i - 128 * s) * 2 ** s) / 1000, n / h.count]; });
      series.push({ name: label(x), points });
    }
    if (!series.length) return;
    lineChart(section("rr latency distribution", "the client's round trips: share of transactions per histogram bucket"), series, "round trip, µs (log)", "share", { xLog: true, yFormat: ".1%" });
  }

  // Folded stacks -> the tree d3-flame-graph draws; `scale` makes two runs' samples comparable.
  function addStack(root, frames, n) {
    let node = root;
    node.value += n;
    for (const f of frames) {
      let c = node.kids.get(f);
      if (!c) { c = { name: f, value: 0, kids: new Map(), self: 0 }; node.kids.set(f, c); }
      c.value += n;
      node = c;
    }
    node.self += n;
  }
  function stacksOf(x) {
    const root = { name: x.key, value: 0, kids: new Map(), self: 0 };
    for (const side of ["local", "remote"]) {
      const e = x.r[side] && x.r[side].explain;
      for (const [stack, n] of (e && e.stacks) || []) addStack(root, [side].concat(stack.split(";")), n);
    }
    return root;
  }
  function finish(node, parentCat) {
    const own = data.frame_categories[node.name];
    const cat = own && own !== "inherit" && own !== "idle" ? own : parentCat;
    return { name: node.name, value: node.value, category: cat, delta: node.delta || 0, children: [...node.kids.values()].map((k) => finish(k, cat)) };
  }
  // NEW's tree, each frame's self samples minus BASE's scaled to NEW's total: d3-flame-graph's delta.
  function differential(base, next) {
    const scale = base.value > 0 ? next.value / base.value : 0;
    (function walk(n, b) {
      n.delta = n.self - (b ? b.self * scale : 0);
      for (const [name, k] of n.kids) walk(k, b && b.kids.get(name));
    })(next, base);
    return next;
  }

  const escapeHtml = (t) => String(t).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  const charts = [];
  function flame(sel, title, tree, diff) {
    const box = sel.append("div").attr("class", "flame");
    box.append("h3").text(title);
    const chart = flamegraph.default().width(Math.max(480, Math.min(1400, window.innerWidth - 60) / (diff ? 1 : 1))).cellHeight(16).minFrameSize(1).transitionDuration(300)
      .tooltip(flamegraph.tooltip.defaultFlamegraphTooltip().html((d) => `${escapeHtml(d.data.name)}<br>category: ${catLabel[d.data.category] || d.data.category || "-"}<br>${d.value} samples${diff ? `, ${d.delta >= 0 ? "grew" : "shrank"} by ${num(Math.abs(d.delta), 3)}` : ""}`));
    if (diff) chart.computeDelta(true).setColorMapper(flamegraph.colorMapper.differentialColorMapper);
    else chart.setColorMapper((d, original) => (d.highlight ? original : catColor(d.data.category || "other")));
    box.append("div").datum(tree).call(chart);
    charts.push({ chart, title, diff });
    check.flame_graphs += 1;
    if (diff) check.differential += 1;
  }

  function flameGraphs() {
    const trees = results.map((x) => ({ x, tree: stacksOf(x) })).filter((t) => t.tree.value > 0);
    if (!trees.length) {
      section("Flame graphs", "no sampled stacks in this report: run with --explain (--html asks both sides for their stacks)");
      return;
    }
    const s = section("Flame graphs", "each test's sampled stacks, both sides (local, remote); colour: the frame's --explain category. Click a frame to zoom, search below, hover for the category.");
    const bar = s.append("div").attr("class", "search");
    const input = bar.append("input").attr("type", "search").attr("placeholder", "function name, e.g. _copy_from_iter").attr("id", "zc-search");
    const found = bar.append("span").attr("id", "zc-search-result");
    bar.append("button").text("reset zoom").on("click", () => charts.forEach((c) => c.chart.resetZoom()));
    const search = (term) => {
      let hits = 0;
      for (const c of charts) {
        c.chart.setSearchHandler((res) => { hits += res.length; });
        if (term) c.chart.search(term); else c.chart.clear();
      }
      found.text(term ? `${hits} frames match` : "");
      return hits;
    };
    input.on("input", () => search(input.property("value")));
    // Pairs for a differential: BASE and NEW of each test (compare), or the first test against each other
    // of the same kind and size (a run with several -T or --rx).
    const pairs = [];
    if (data.kind === "compare") {
      for (const b of trees.filter((t) => t.x.side === "base")) {
        const n = trees.find((t) => t.x.side === "new" && t.x.key === b.x.key);
        if (n) pairs.push([b, n]);
      }
    } else {
      for (const t of trees.slice(1)) {
        const first = trees.find((u) => u.x.r.test === t.x.r.test && u.x.r.message_size === t.x.r.message_size);
        if (first !== t) pairs.push([first, t]);
      }
    }
    for (const t of trees) {
      const row = s.append("div").attr("class", "flames");
      flame(row, label(t.x), finish(t.tree), false);
    }
    for (const [a, b] of pairs) {
      const row = s.append("div").attr("class", "flames");
      flame(row, `differential: ${label(b.x)} against ${label(a.x)} (red grew, blue shrank; NEW's frames)`, finish(differential(stacksOf(a.x), stacksOf(b.x))), true);
    }
    check.frames = document.querySelectorAll(".flame g.frame").length;
    // What a hover shows on the widest frame under the root (the tooltip the reader sees).
    const frame = document.querySelectorAll(".flame g.frame")[1];
    if (frame) {
      frame.dispatchEvent(new MouseEvent("mouseover", { bubbles: true, clientX: 20, clientY: 20 }));
      const tip = document.querySelector(".d3-flame-graph-tip");
      check.hover = tip ? tip.textContent : "";
      frame.dispatchEvent(new MouseEvent("mouseout", { bubbles: true }));
    }
    check.search._copy_from_iter = search("_copy_from_iter");
    search("");
  }

  try {
    header();
    if (data.kind === "compare") compareTables(); else runTable();
    categoryBars();
    intervals();
    latency();
    flameGraphs();
  } catch (e) {
    check.errors.push(String(e && e.stack ? e.stack : e));  // the self-check still says what broke
    page.append("p").attr("class", "note").text("this page failed to draw: " + e);
  }
  // What the page loaded beyond itself: nothing, when it is self-contained.
  check.resources = performance.getEntriesByType("resource").map((e) => e.name);
  check.ready = true;
  const out = document.createElement("pre");
  out.id = "zc-selfcheck";
  out.hidden = true;
  out.textContent = JSON.stringify(check);
  document.body.appendChild(out);
})();
