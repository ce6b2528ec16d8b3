// zcperf's --html page: draws a run's, a compare's or a survey's figures from the JSON in #zc-data with d3
// and d3-flame-graph (inlined above this script; nothing is fetched). It writes what it drew into
// #zc-selfcheck (hidden, JSON) so a headless browser can check the page: tests/e2e/test_html.sh.
(function () {
  "use strict";
  const check = { errors: [], frames: 0, flame_graphs: 0, differential: 0, search: {}, categories: [], charts: 0, markers: 0, moved: 0, points: 0, ready: false };
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
    check.categories = stackedBars(s, bars, bars[0].unit).map((c) => c.label);
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

  // ---- zcperf survey's page: data.survey is the survey's -o json document, each point's stacks under
  // "explain". Charts against the message size (log axis): each path's figures with their spread over the
  // rounds, and each path against its copy path as ratios with their intervals; the crossovers marked.
  const sv = data.survey;
  const svFigures = [
    { key: "sender_service_demand_us_per_kb", round: "local_service_demand_us_per_kb", ratio: "sender_service_demand_ratio", label: "sender service demand, µs/KB", crossover: true },
    { key: "receiver_service_demand_us_per_kb", round: "remote_service_demand_us_per_kb", ratio: "receiver_service_demand_ratio", label: "receiver service demand, µs/KB" },
    { key: "throughput_gbps", round: "throughput_gbps", ratio: "throughput_ratio", label: "throughput, Gb/s" },
  ];
  const svPoints = sv ? sv.points : [];
  const svPaths = sv ? sv.paths.filter((p) => svPoints.some((x) => x.path === p)) : [];
  const pathColor = (p) => palette[svPaths.indexOf(p) % palette.length];
  const svPointKey = (x) => `${x.path} ${sizeLabel(x.message_size)}`;
  let selectPoint = null;  // set by flame graphs' select; charts' points call it

  function surveyHeader() {
    const run = sv.run || {};
    page.append("h1").text("zcperf survey: where zero-copy starts to pay");
    const dl = page.append("dl").attr("class", "sides");
    const row = (k, v) => { dl.append("dt").text(k); dl.append("dd").text(v); };
    row("command", run.command_line || "-");
    row("hosts", `client (sender) ${run.local_host || "?"}, kernel ${run.local_kernel || "?"}; server (receiver) ${run.remote_host || "?"} (${run.server || "?"}), kernel ${run.remote_kernel || "?"}${run.embedded_server ? "; the server embedded in zcperf, on loopback" : ""}`);
    row("software", `${run.software || "?"}; server ${run.remote_software || "?"}`);
    row("paths", sv.paths.join(", ") + " (each against its family's copy path: tcp for TCP's, udp for UDP's, rsocket for rsocket-iomap)");
    row("sizes", sv.message_sizes.map(sizeLabel).join(", "));
    row("rounds", `${sv.rounds} (each round runs every point once, in an order that changes); ${run.duration_s ?? "?"} s per point, --explain at ${run.explain_hz ?? "?"} Hz; ${Math.round(sv.seconds)} s in all`);
    row("statistics", `${sv.level_pct} % intervals: ${sv.method}. ${sv.fdr_changed} of ${sv.fdr_family} ratios called changed.`);
    if (sv.refused && sv.refused.length)
      row("refused", sv.refused.map((r) => `${r.path} ${sizeLabel(r.message_size)}: ${r.reason}`).join("; "));
  }

  function surveyCrossovers() {
    const s = section("Crossovers", "per path, the smallest size from which its sender's service demand is lower than its copy path's, the 95 % interval of the paired ratio clear of 1 (a 'lower' verdict), and where that stops");
    const rows = Object.entries(sv.crossovers).map(([path, x]) => {
      const against = (svPoints.find((p) => p.path === path && p.against) || {}).against || "-";
      return { cells: [path, against, x.found ? sizeLabel(x.from) : "-", x.found ? sizeLabel(x.until) : "-", x.stops ? sizeLabel(x.stops) : "-", x.text] };
    });
    if (!rows.length) { check.no_crossover = s.append("p").attr("class", "note").text("no crossover: no path was measured beside its copy path").text(); return; }
    table(s, ["path", "against", "from", "until", "stops at", "crossover"], rows);
    if (!Object.values(sv.crossovers).some((x) => x.found))
      check.no_crossover = s.append("p").attr("class", "note").attr("id", "zc-no-crossover").text(`no crossover: no path's sender service demand is lower than its copy path's beyond noise at any of ${sv.message_sizes.map(sizeLabel).join(", ")}`).text();
  }

  // One chart against the size: series [{name, color, points: [{x, y, lo, hi, point}]}], a band lo..hi,
  // markers [{x, label}] (dashed verticals), a reference line at y = ref.
  function sizeChart(sel, title, series, yLabel, opts = {}) {
    const box = sel.append("div").attr("class", "chart");
    box.append("h3").text(title);
    const w = 700, h = 260, m = { l: 64, r: 150, t: 10, b: 40 };
    const all = series.flatMap((s) => s.points);
    if (!all.length) return;
    const x = d3.scaleLog().base(2).domain(d3.extent(sv.message_sizes)).range([m.l, w - m.r]);
    if (x.domain()[0] === x.domain()[1]) x.domain([x.domain()[0] / 2, x.domain()[1] * 2]);
    // A log y axis: service demand and rates span decades over a ladder, and a ratio's interval is
    // symmetric on the logs. A value at or below 0 (a difference where a round had a zero) is left out.
    const pos = (v) => v !== null && v !== undefined && isFinite(v) && v > 0;
    const ys = all.flatMap((p) => [p.y, p.lo, p.hi]).filter(pos);
    if (opts.ref !== undefined) ys.push(opts.ref);
    const y = d3.scaleLog().domain(d3.extent(ys)).nice().range([h - m.b, m.t]);
    const yc = (v) => y(Math.max(v, y.domain()[0]));
    for (const s of series) s.points = s.points.filter((p) => pos(p.y));
    const svg = box.append("svg").attr("width", w).attr("height", h).attr("class", "size-chart");
    svg.append("g").attr("transform", `translate(0,${h - m.b})`).call(d3.axisBottom(x).tickValues(sv.message_sizes).tickFormat(sizeLabel));
    svg.append("g").attr("transform", `translate(${m.l},0)`).call(d3.axisLeft(y).ticks(5, "~r"));
    svg.append("text").attr("x", (w - m.r + m.l) / 2).attr("y", h - 6).attr("text-anchor", "middle").text("message size (log)");
    svg.append("text").attr("transform", `translate(14,${h / 2}) rotate(-90)`).attr("text-anchor", "middle").text(yLabel);
    if (opts.ref !== undefined)
      svg.append("line").attr("x1", m.l).attr("x2", w - m.r).attr("y1", y(opts.ref)).attr("y2", y(opts.ref)).attr("stroke", "#888");
    for (const mk of opts.markers || []) {
      const g = svg.append("g").attr("class", "crossover-marker");
      g.append("line").attr("x1", x(mk.x)).attr("x2", x(mk.x)).attr("y1", m.t).attr("y2", h - m.b).attr("stroke", mk.color).attr("stroke-dasharray", "5,3").attr("stroke-width", 1.5);
      const right = x(mk.x) > (m.l + w - m.r) / 2;  // the label on the side of the line with room
      g.append("text").attr("x", x(mk.x) + (right ? -4 : 4)).attr("y", h - m.b - 6 - (mk.row || 0) * 13).attr("text-anchor", right ? "end" : "start")
        .attr("fill", mk.color).text(mk.label);
    }
    series.forEach((s, i) => {
      const pts = s.points.filter((p) => p.lo !== null && p.lo !== undefined);
      svg.append("path").datum(pts).attr("class", "band").attr("fill", s.color).attr("fill-opacity", 0.15)
        .attr("d", d3.area().x((p) => x(p.x)).y0((p) => yc(p.lo)).y1((p) => yc(p.hi)));
      svg.append("path").datum(s.points).attr("fill", "none").attr("stroke", s.color).attr("stroke-width", 1.8)
        .attr("d", d3.line().x((p) => x(p.x)).y((p) => y(p.y)));
      svg.selectAll(null).data(s.points).join("circle").attr("class", "point").attr("cx", (p) => x(p.x)).attr("cy", (p) => y(p.y)).attr("r", 4)
        .attr("fill", s.color).style("cursor", "pointer").on("click", (ev, p) => selectPoint && selectPoint(p.point))
        .append("title").text((p) => `${s.name} ${sizeLabel(p.x)}: ${num(p.y)}${p.lo !== null && p.lo !== undefined ? ` [${num(p.lo)}, ${num(p.hi)}]` : ""}${p.note ? " " + p.note : ""} (click: its flame graphs)`);
      svg.append("text").attr("x", w - m.r + 8).attr("y", m.t + 14 + i * 16).attr("fill", s.color).text(s.name);
    });
    check.charts += 1;
    check.markers += (opts.markers || []).length;
  }

  function crossoverMarkers(paths) {
    const out = [];
    paths.forEach((path, i) => {
      const c = sv.crossovers[path];
      if (!c || !c.found) return;
      out.push({ x: c.from, color: pathColor(path), label: `${path} lower from ${sizeLabel(c.from)}`, row: 2 * i });
      if (c.stops) out.push({ x: c.stops, color: pathColor(path), label: `${path} stops ${sizeLabel(c.stops)}`, row: 2 * i + 1 });
    });
    return out;
  }

  function surveyCharts() {
    const s = section("Each path against the size", "the mean over the rounds, the band from the lowest to the highest round; click a point for its flame graphs below");
    const grid = s.append("div").attr("class", "charts");
    for (const f of svFigures) {
      const series = svPaths.map((path) => ({
        name: path, color: pathColor(path),
        points: svPoints.filter((x) => x.path === path).map((x) => {
          const v = x.round_figures.map((r) => r[f.round]).filter((a) => a !== undefined);
          return { x: x.message_size, y: x[f.key], lo: d3.min(v), hi: d3.max(v), point: x };
        }),
      }));
      sizeChart(grid, f.label, series, f.label + " (log)", { markers: f.crossover ? crossoverMarkers(svPaths) : [] });
    }
    const ratioPaths = svPaths.filter((p) => svPoints.some((x) => x.path === p && x[svFigures[0].ratio]));
    const r = section("Against the copy path", `each path / its family's copy path at the same size, paired by round: the ratio and its ${sv.level_pct} % interval (the band); below 1, the path needs less (service demand) or moves less (throughput)`);
    if (!ratioPaths.length) { r.append("p").attr("class", "note").text("no path was measured beside its copy path"); return; }
    const rgrid = r.append("div").attr("class", "charts");
    for (const f of svFigures) {
      const series = ratioPaths.map((path) => ({
        name: `${path} / ${(svPoints.find((x) => x.path === path && x.against) || {}).against}`, color: pathColor(path),
        points: svPoints.filter((x) => x.path === path && x[f.ratio]).map((x) => {
          const q = x[f.ratio];
          return { x: x.message_size, y: q.ratio, lo: q.interval ? q.interval[0] : null, hi: q.interval ? q.interval[1] : null, note: q.verdict, point: x };
        }),
      }));
      sizeChart(rgrid, "x " + f.label.split(",")[0], series, "ratio (log)", { ref: 1, markers: f.crossover ? crossoverMarkers(ratioPaths) : [] });
    }
  }

  // Horizontal stacked bars: [{name, parts: [{key, v}]}], one colour per category.
  function stackedBars(sel, bars, unit) {
    const used = data.categories.filter((c) => bars.some((b) => b.parts.some((p) => p.key === c.key)));
    const legend = sel.append("div").attr("class", "legend").selectAll("span").data(used).join("span");
    legend.append("i").style("background", (c) => catColor(c.key));
    legend.append("b").text((c) => c.label);
    const w = 960, left = 330, h = 22;
    const total = (b) => b.parts.reduce((a, p) => a + p.v, 0);
    const x = d3.scaleLinear().domain([0, d3.max(bars, total) || 1]).range([0, w - left - 60]);
    const svg = sel.append("svg").attr("width", w).attr("height", bars.length * (h + 6) + 24);
    const g = svg.selectAll("g.bar").data(bars).join("g").attr("class", "bar").attr("transform", (d, i) => `translate(0,${i * (h + 6)})`);
    g.append("text").attr("x", left - 6).attr("y", h / 2 + 4).attr("text-anchor", "end").text((d) => d.name);
    g.each(function (b) {
      let at = left;
      for (const p of b.parts) {
        d3.select(this).append("rect").attr("x", at).attr("width", x(p.v)).attr("height", h).attr("fill", catColor(p.key))
          .append("title").text(`${catLabel[p.key]}: ${num(p.v)} ${unit}`);
        at += x(p.v);
      }
      d3.select(this).append("text").attr("x", at + 4).attr("y", h / 2 + 4).text(num(total(b), 3));
    });
    svg.append("g").attr("transform", `translate(${left},${bars.length * (h + 6)})`).call(d3.axisBottom(x).ticks(8));
    return used;
  }

  // A point's side's categories per KB, the mean over its rounds.
  function svCategories(x, side) {
    const out = {};
    for (const c of data.categories) {
      const v = x.round_figures.map((r) => r[`${side}_explain_${c.key}_us_per_kb`]).filter((a) => a !== undefined);
      if (v.length) out[c.key] = d3.mean(v);
    }
    return out;
  }

  // Per path against its copy path: the sender's categories at each size, both paths; the categories that
  // moved most at the crossover (the path's lead over its copy path, the size before against the crossover's).
  function surveyCategories() {
    const ratioPaths = svPaths.filter((p) => svPoints.some((x) => x.path === p && x.against));
    const s = section("Where the sender's CPU went, per size (--explain)", "the sender's CPU per KB by kernel category, the mean over the rounds: each path beside its copy path at every size");
    const used = new Set();
    for (const path of ratioPaths) {
      const mine = svPoints.filter((x) => x.path === path);
      const against = mine.find((x) => x.against).against;
      const c = sv.crossovers[path];
      const h = s.append("h3").text(`${path} against ${against}`);
      const diff = (size) => {
        const a = svPoints.find((x) => x.path === path && x.message_size === size), b = svPoints.find((x) => x.path === against && x.message_size === size);
        if (!a || !b) return null;
        const ca = svCategories(a, "local"), cb = svCategories(b, "local");
        return Object.fromEntries(data.categories.map((k) => [k.key, (ca[k.key] || 0) - (cb[k.key] || 0)]));
      };
      if (c && c.found) {
        const before = sv.message_sizes.filter((z) => z < c.from).pop();
        const d1 = diff(c.from), d0 = before !== undefined ? diff(before) : null;
        let moved = [];
        if (d1) moved = data.categories.map((k) => ({ k, d: d1[k.key] - (d0 ? d0[k.key] : 0) })).filter((m) => Math.abs(m.d) > 0).sort((a, b) => Math.abs(b.d) - Math.abs(a.d)).slice(0, 3);
        s.append("p").attr("class", "note moved").text(`crossover at ${sizeLabel(c.from)}${before !== undefined ? ` (from ${sizeLabel(before)})` : ""}: the categories that moved most, ${path} minus ${against}: ` +
          (moved.length ? moved.map((m) => `${m.k.label} ${m.d > 0 ? "+" : ""}${num(m.d, 3)} µs/KB`).join(", ") : "none sampled"));
        check.moved += moved.length;
      } else {
        h.text(`${path} against ${against}: ${c ? c.text : "no crossover"}`);
      }
      const bars = [];
      for (const size of sv.message_sizes)
        for (const p of [against, path]) {
          const x = svPoints.find((q) => q.path === p && q.message_size === size);
          if (!x) continue;
          const cats = svCategories(x, "local");
          const mark = c && c.found && size === c.from && p === path ? "  ◀ crossover" : "";
          bars.push({ name: `${sizeLabel(size)} · ${p}${mark}`, parts: data.categories.filter((k) => cats[k.key] > 0).map((k) => ({ key: k.key, v: cats[k.key] })) });
        }
      if (bars.some((b) => b.parts.length)) for (const u of stackedBars(s, bars, "µs/KB")) used.add(u.label);
      else s.append("p").attr("class", "note").text("no --explain categories in these points (--explain could not sample)");
    }
    check.categories = [...used];
  }

  // The flame graphs of a chosen point: the path's and its copy path's at that size (each with both sides,
  // sender and receiver), and the differential of the two.
  function surveyFlames() {
    const withStacks = svPoints.filter((x) => x.explain && ["local", "remote"].some((s) => x.explain[s].stacks.length));
    const s = section("Flame graphs of a point", `a point's sampled stacks, summed over its rounds (the heaviest stacks of each side), both sides: local is the sender, remote the receiver; beside them its copy path's at the same size and the differential (red grew, blue shrank). Choose a point here or click one on a chart.`);
    if (!withStacks.length) { s.append("p").attr("class", "note").text("no sampled stacks in this survey (--explain could not sample here)"); return; }
    const choose = s.append("div").attr("class", "search");
    const sel = choose.append("select").attr("id", "zc-point");
    sel.selectAll("option").data(withStacks).join("option").attr("value", (x, i) => i).text(svPointKey);
    const body = s.append("div");
    const asResult = (x) => ({ key: svPointKey(x), r: { local: { explain: x.explain.local }, remote: { explain: x.explain.remote } } });
    selectPoint = (x) => {
      const i = withStacks.indexOf(x);
      if (i < 0) return;
      sel.property("value", i);
      body.selectAll("*").remove();
      charts.length = 0;
      const a = x.against && withStacks.find((q) => q.path === x.against && q.message_size === x.message_size);
      flame(body, svPointKey(x), finish(stacksOf(asResult(x))), false);
      if (a) {
        flame(body, svPointKey(a), finish(stacksOf(asResult(a))), false);
        flame(body, `differential: ${svPointKey(x)} against ${svPointKey(a)} (red grew, blue shrank; ${x.path}'s frames)`, finish(differential(stacksOf(asResult(a)), stacksOf(asResult(x)))), true);
      }
      check.frames = document.querySelectorAll(".flame g.frame").length;
    };
    sel.on("change", () => selectPoint(withStacks[+sel.property("value")]));
    // First shown: the first crossover's point, else the largest size of the first path set against a copy path.
    const firstX = Object.entries(sv.crossovers).find(([, c]) => c.found);
    const start = (firstX && withStacks.find((x) => x.path === firstX[0] && x.message_size === firstX[1].from)) ||
      withStacks.filter((x) => x.against).pop() || withStacks[0];
    selectPoint(start);
    check.points = withStacks.length;
  }

  try {
    if (data.kind === "survey") {
      surveyHeader();
      surveyCrossovers();
      surveyCharts();
      surveyCategories();
      surveyFlames();
    } else {
      header();
      if (data.kind === "compare") compareTables(); else runTable();
      categoryBars();
      intervals();
      latency();
      flameGraphs();
    }
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
