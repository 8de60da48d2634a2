// Benchmark (prints figures, asserts nothing): while the demo's `long` scenario streams about
// 2,000 text deltas per second into the page, the longest main-thread task (PerformanceObserver
// "longtask") and the time from the last byte of the run's response to the last paint of the
// transcript, and the latency of key presses typed while it streams — once with the event
// inspector closed, once with it open. With BENCH_TRACE=1, each task's CPU time is read from a
// trace beside its wall time, so a task that only waited for a core (server and browser share a
// small machine) shows as such; tracing adds work of its own, so it is off by default.
// Each page starts its run BENCH_IDLE_MS (3000) after it is ready, as a user would after reading
// and typing; a last round starts it at once, during the page's idle rehearsal of a run's code.
// BENCH_WARM=N measures a page's second run (after a `long N` in the same page).
// Run: node bench/longtask.mjs [DELTAS]   (binary: $AGUI_BINARY or target/release)
import { readdirSync, readFileSync } from "node:fs";
import { startServer, stopServer, launchBrowser } from "../tests/support.mjs";

const deltas = Number(process.argv[2] ?? 20000);
// The long scenario sleeps one token delay every 10 deltas: 5 ms → ~2,000 deltas/s.
const server = await startServer(["--demo-delay-ms", "5"]);
const browser = await launchBrowser();
// How long after the page is ready the run starts (a user reads, then types): the page rehearses
// a run's code while idle after it hydrates, and a run started meanwhile shares the cores with
// that rehearsal's optimising compilation. The last round starts its run at once.
const pause = Number(process.env.BENCH_IDLE_MS ?? 3000);
async function measure(inspector, idleMs = pause) {
  const page = await browser.context.newPage();
  // BENCH_REDUCED_MOTION=1: the page's animations off (as for a user who asks the system for
  // less motion), to tell their cost apart.
  if (process.env.BENCH_REDUCED_MOTION) await page.emulateMedia({ reducedMotion: "reduce" });
  await page.addInitScript(() => {
    window.__longtasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        window.__longtasks.push(e.duration);
        (window.__longtaskAt ??= []).push([e.startTime, e.duration]);
      }
    }).observe({ type: "longtask", buffered: true });
    // Typing latency: Event Timing's duration runs from the key press to the next paint.
    window.__keys = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.name === "keydown") window.__keys.push(e.duration);
    }).observe({ type: "event", durationThreshold: 16, buffered: true });
    window.__keyCount = 0;
    document.addEventListener("keydown", () => window.__keyCount++, true);
    window.__lastMutation = 0;
    document.addEventListener("DOMContentLoaded", () => {
      new MutationObserver(() => {
        const t = performance.now();
        requestAnimationFrame(() => { window.__lastMutation = Math.max(window.__lastMutation, t); window.__lastPaint = performance.now(); });
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
  });
  await page.goto(server.url);
  await page.waitForSelector('#hydration-status[data-hydrated="true"]');
  if (inspector) {
    await page.getByRole("button", { name: "Events", exact: true }).click();
    await page.getByRole("complementary", { name: "Event inspector" }).waitFor();
  }
  // BENCH_WARM=N: a `long N` run first, in the same page, so what is measured is a page's second
  // run — its code already compiled and optimised by the first (the browser compiles WebAssembly
  // as it is first used, and optimises what runs often on its worker threads).
  await page.waitForTimeout(idleMs);
  if (process.env.BENCH_WARM) {
    const warm = page.locator("#composer-input");
    await warm.fill(`long ${Number(process.env.BENCH_WARM)}`);
    await warm.press("Enter");
    await page.waitForSelector(".send-btn.danger");
    await page.waitForSelector(".send-btn:not(.danger)", { timeout: 600000 });
    await page.waitForTimeout(1000);
  }
  await page.evaluate(() => { window.__longtasks = []; window.__longtaskAt = []; });
  // Where the main thread's time goes (script vs. style/layout), from Chromium's own counters.
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send("Performance.enable");
  const metrics = async () =>
    Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]));
  const before = await metrics();
  // Each task's CPU time on the page's main thread (trace events' `tdur`), beside its wall time:
  // on a small machine the server and the browser's other processes share the cores, and a task
  // whose thread was descheduled lasts longer than the work it did.
  const trace = [];
  cdp.on("Tracing.dataCollected", (d) => trace.push(...d.value));
  const traced = new Promise((r) => cdp.once("Tracing.tracingComplete", r));
  // Tracing has a cost of its own (with the inspector open it added tasks over 50 ms): opt-in.
  const tracing = Boolean(process.env.BENCH_TRACE);
  if (tracing) {
    // `devtools.timeline` says what each task did (the event it dispatched, the animation frame
    // it ran, style and layout), so a long task can be told apart from a long wait.
    await cdp.send("Tracing.start", {
      transferMode: "ReportEvents",
      // BENCH_TRACE_CATEGORIES adds categories (e.g. `v8.wasm,disabled-by-default-v8.compile`).
      traceConfig: {
        includedCategories: ["toplevel", "devtools.timeline", ...(process.env.BENCH_TRACE_CATEGORIES ?? "").split(",").filter(Boolean)],
      },
    });
  }
  const box = page.locator("#composer-input");
  await box.fill(`long ${deltas}`);
  const before0 = process.env.BENCH_PROCS ? cpuByThread() : null;
  const started = Date.now();
  await box.press("Enter");
  if (before0) {
    // Who used the machine's cores in the run's first half second (where long tasks are).
    await new Promise((r) => setTimeout(r, 500));
    console.log(`CPU by process and thread over the run's first ${Date.now() - started} ms: ${cpuDiff(before0, cpuByThread())}`);
  }
  // The message box and the waits use CSS selectors: Playwright's role queries run in the page
  // and would add their own main-thread work to what is measured.
  await page.waitForSelector(".send-btn.danger");
  // Type while it streams (the composer stays editable; the text would be queued).
  await page.waitForTimeout(2000);
  await page.evaluate(() => { window.__keys = []; window.__keyCount = 0; });
  await box.pressSequentially("the quick brown fox jumps over the lazy dog", { delay: 60 });
  const typed = await page.evaluate(() => ({ keys: window.__keys.slice(), count: window.__keyCount }));
  await page.waitForSelector(".send-btn:not(.danger)", { timeout: 600000 });
  await page.waitForTimeout(500);
  const wall = (Date.now() - started) / 1000;
  if (tracing) {
    await cdp.send("Tracing.end");
    await traced;
  }
  const cpu = taskCpu(trace);
  const after = await metrics();
  const spent = (k) => ((after[k] - before[k]) * 1000).toFixed(0);
  const r = await page.evaluate(() => {
    const runs = performance.getEntriesByType("resource").filter((e) => e.name.includes("/api/agents/"));
    const last = runs[runs.length - 1];
    return {
      longest: Math.max(0, ...window.__longtasks),
      count: window.__longtasks.length,
      responseEnd: last?.responseEnd ?? null,
      lastPaint: window.__lastPaint ?? null,
      top: (window.__longtaskAt ?? []).sort((a, b) => b[1] - a[1]).slice(0, 5),
      runStart: runs[runs.length - 1]?.startTime ?? null,
    };
  });
  console.log(`— inspector ${inspector ? "open" : "closed"}, run started ${idleMs} ms after the page was ready`);
  console.log(`long ${deltas}: streamed in ${wall.toFixed(1)} s (${(deltas / wall).toFixed(0)} deltas/s)`);
  console.log(`longest main-thread task: ${r.longest.toFixed(0)} ms (${r.count} tasks over 50 ms)`);
  if (tracing) {
    console.log(
      `CPU time of those tasks: max ${cpu.longMax.toFixed(0)} ms (wall − CPU: the thread waiting for a core); ` +
        `most CPU in one task: ${cpu.max.toFixed(0)} ms (${cpu.over50} tasks over 50 ms of CPU)`,
    );
    for (const t of cpu.long) console.log(`  task ${t}`);
  }
  console.log(
    `main thread: tasks ${spent("TaskDuration")} ms, script ${spent("ScriptDuration")} ms, ` +
      `style ${spent("RecalcStyleDuration")} ms, layout ${spent("LayoutDuration")} ms`,
  );
  // Key presses whose next paint came within 16 ms are not reported by Event Timing: count them
  // as 16 ms (an upper bound) so the median covers every key.
  const keys = [...typed.keys, ...Array(Math.max(0, typed.count - typed.keys.length)).fill(16)].sort((a, b) => a - b);
  const pct = (p) => keys[Math.min(keys.length - 1, Math.floor((keys.length * p) / 100))] ?? 0;
  console.log(
    `typing while streaming: ${typed.count} keys, key → next paint median ${pct(50).toFixed(0)} ms, ` +
      `p95 ${pct(95).toFixed(0)} ms, max ${(keys[keys.length - 1] ?? 0).toFixed(0)} ms`,
  );
  if (process.env.BENCH_VERBOSE && r.runStart != null) {
    const at = r.top.map(([t, d]) => `${d.toFixed(0)} ms at +${((t - r.runStart) / 1000).toFixed(1)} s`);
    console.log(`longest tasks: ${at.join(", ")}`);
  }
  if (r.responseEnd != null && r.lastPaint != null) {
    console.log(`last byte → last paint: ${(r.lastPaint - r.responseEnd).toFixed(0)} ms`);
  }
  await page.close();
}

/** Every thread's CPU time so far (ms), from /proc, named `process[type]:thread`. */
function cpuByThread() {
  const out = new Map();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      // (Chromium rewrites its command line into one space-separated title.)
      const proc = cmd.split(/[\0 ]/)[0].split("/").pop().replace(/^agui-chromium-\w+$/, "chromium");
      const type = cmd.match(/--type=([a-z-]+)/)?.[1];
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const st = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
        const f = st.slice(st.lastIndexOf(")") + 2).split(" ");
        const name = st.slice(st.indexOf("(") + 1, st.lastIndexOf(")"));
        out.set(`${pid}/${tid}`, { name: `${proc}${type ? `[${type}]` : ""}:${name}`, ms: (+f[11] + +f[12]) * 10 });
      }
    } catch {
      // A process or thread that ended meanwhile.
    }
  }
  return out;
}

/** Processes and their busiest threads by CPU time used between two `cpuByThread` readings. */
function cpuDiff(a, b) {
  const threads = new Map();
  for (const [k, v] of b) {
    const d = v.ms - (a.get(k)?.ms ?? 0);
    if (d > 0) threads.set(v.name, (threads.get(v.name) ?? 0) + d);
  }
  const procs = new Map();
  for (const [n, d] of threads) procs.set(n.split(":")[0], (procs.get(n.split(":")[0]) ?? 0) + d);
  const top = (m, k) => [...m].sort((x, y) => y[1] - x[1]).slice(0, k).map(([n, d]) => `${n} ${d}`).join(", ");
  return `${top(procs, 6)}\n  threads (ms, 10 ms ticks): ${top(threads, 8)}`;
}

/** From a trace's `toplevel` events: the most CPU time of one main-thread task, and the most of a
 * task whose wall time was over 50 ms. */
function taskCpu(events) {
  const mains = events.filter((e) => e.name === "thread_name" && e.args?.name === "CrRendererMain");
  let best = [];
  for (const m of mains) {
    const tasks = events.filter(
      (e) => e.pid === m.pid && e.tid === m.tid && e.ph === "X" && /(^|::)RunTask$/.test(e.name),
    );
    if (tasks.length > best.length) best = tasks;
  }
  const cpu = best.map((e) => (e.tdur ?? 0) / 1000);
  const longTasks = best.filter((e) => e.dur > 50_000);
  const longCpu = longTasks.map((e) => (e.tdur ?? 0) / 1000);
  // What each task over 50 ms did: the timeline's events directly inside it (a key press's
  // dispatch, an animation frame, a timer, a fetch read, style, layout, paint), CPU time each.
  const main = best[0] ? { pid: best[0].pid, tid: best[0].tid } : null;
  const inner = main
    ? events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === "X" && !/(^|::)RunTask$/.test(e.name))
    : [];
  const threadName = new Map(
    events.filter((e) => e.name === "thread_name").map((e) => [`${e.pid}:${e.tid}`, e.args?.name]),
  );
  const busy = events.filter((e) => e.ph === "X" && /(^|::)RunTask$/.test(e.name));
  const long = longTasks.map((t) => {
    const end = t.ts + t.dur;
    const within = inner.filter((e) => e.ts >= t.ts && e.ts + e.dur <= end);
    // Only the outermost: an event inside another one of the same task is part of it.
    const outer = within.filter((e) => !within.some((o) => o !== e && o.ts <= e.ts && o.ts + o.dur >= e.ts + e.dur && o.dur > e.dur));
    const by = new Map();
    for (const e of outer) {
      const name = e.name === "EventDispatch" ? `EventDispatch(${e.args?.data?.type ?? "?"})` : e.name;
      by.set(name, (by.get(name) ?? 0) + (e.tdur ?? e.dur) / 1000);
    }
    const parts = [...by].sort((a, b) => b[1] - a[1]).map(([n, ms]) => `${n} ${ms.toFixed(1)}`);
    // What else ran meanwhile: the busiest other threads of the browser (their tasks' CPU time
    // within the task's wall time), which is what the page's thread waited for.
    const others = new Map();
    for (const e of busy) {
      if (e.pid === main.pid && e.tid === main.tid) continue;
      const overlap = Math.min(end, e.ts + e.dur) - Math.max(t.ts, e.ts);
      if (overlap <= 0 || !e.dur) continue;
      const k = `${threadName.get(`${e.pid}:${e.tid}`) ?? "?"}`;
      others.set(k, (others.get(k) ?? 0) + ((e.tdur ?? e.dur) * overlap) / e.dur / 1000);
    }
    const meanwhile = [...others].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([n, ms]) => `${n} ${ms.toFixed(0)}`);
    return (
      `${(t.dur / 1000).toFixed(0)} ms wall, ${((t.tdur ?? 0) / 1000).toFixed(0)} ms CPU: ${parts.join(", ")} (ms CPU)` +
      `\n      meanwhile on other threads (ms CPU): ${meanwhile.join(", ")}`
    );
  });
  return {
    max: Math.max(0, ...cpu),
    over50: cpu.filter((c) => c > 50).length,
    longMax: Math.max(0, ...longCpu),
    long,
  };
}

// BENCH_CASES: which rounds, in order (default `closed,open,open-at-once`); `-at-once` starts the
// run as soon as the page is ready. E.g. BENCH_CASES=open-at-once,open-at-once,open-at-once.
const cases = (process.env.BENCH_CASES ?? "closed,open,open-at-once").split(",").map((c) => c.trim());
try {
  for (const c of cases) {
    const m = c.match(/^(open|closed)(-at-once)?$/);
    if (!m) throw new Error(`BENCH_CASES: unknown case ${c} (open, closed, open-at-once, closed-at-once)`);
    await measure(m[1] === "open", m[2] ? 0 : pause);
  }
} finally {
  await browser.close();
  stopServer(server);
}
