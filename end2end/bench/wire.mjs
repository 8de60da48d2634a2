// Benchmark (prints figures, asserts nothing): the same run read by the studio in Chromium over
// SSE and over the protobuf binding (the "Transport" choice), inspector closed. The demo's
// `long N` scenario streams as fast as the server writes (`--demo-delay-ms 0`); for each format,
// ROUNDS runs in fresh pages, alternating, and the medians of: the run's wall time (Enter → Send
// again), the page's main-thread script time and task time (Chromium's own counters), and the
// response's bytes. The format with less main-thread time is the faster one for the studio.
// Run: node bench/wire.mjs [DELTAS] [ROUNDS]   (binary: $AGUI_BINARY or target/release)
import { startServer, stopServer, launchBrowser } from "../tests/support.mjs";

const deltas = Number(process.argv[2] ?? 20000);
const rounds = Number(process.argv[3] ?? 3);
const server = await startServer(["--demo-delay-ms", "0"]);
const browser = await launchBrowser();

async function once(format) {
  const page = await browser.context.newPage();
  await page.addInitScript((f) => localStorage.setItem("agui-studio-body-format", f), format);
  let contentType = null;
  page.on("response", (r) => {
    if (r.request().method() === "POST" && new URL(r.url()).pathname.startsWith("/api/agents/")) {
      contentType = r.headers()["content-type"];
    }
  });
  await page.goto(server.url);
  await page.waitForSelector('#hydration-status[data-hydrated="true"]');
  // Past the page's start-up work (and the rehearsal of a run's code paths).
  await page.waitForTimeout(1500);
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send("Performance.enable");
  const metrics = async () =>
    Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]));
  const box = page.locator("#composer-input");
  await box.fill(`long ${deltas}`);
  const before = await metrics();
  const started = performance.now();
  await box.press("Enter");
  await page.waitForSelector(".send-btn.danger");
  await page.waitForSelector(".send-btn:not(.danger)", { timeout: 600000 });
  const wall = performance.now() - started;
  const after = await metrics();
  const bytes = await page.evaluate(() => {
    const runs = performance.getEntriesByType("resource").filter((e) => e.name.includes("/api/agents/"));
    return runs[runs.length - 1]?.encodedBodySize ?? 0;
  });
  await page.close();
  return {
    contentType,
    wall,
    script: (after.ScriptDuration - before.ScriptDuration) * 1000,
    task: (after.TaskDuration - before.TaskDuration) * 1000,
    bytes,
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  const results = { sse: [], protobuf: [] };
  for (let i = 0; i < rounds; i++) {
    for (const f of i % 2 ? ["protobuf", "sse"] : ["sse", "protobuf"]) results[f].push(await once(f));
  }
  const summary = {};
  for (const [f, rs] of Object.entries(results)) {
    const m = (k) => median(rs.map((r) => r[k]));
    summary[f] = { wall: m("wall"), script: m("script"), task: m("task"), bytes: m("bytes") };
    console.log(
      `${f.padEnd(8)} long ${deltas} (${rs[0].contentType}): run ${summary[f].wall.toFixed(0)} ms, ` +
        `script ${summary[f].script.toFixed(0)} ms, main-thread tasks ${summary[f].task.toFixed(0)} ms, ` +
        `${(summary[f].bytes / 1024).toFixed(0)} KB ` +
        `(medians of ${rs.length}; runs ${rs.map((r) => r.wall.toFixed(0)).join(", ")} ms)`,
    );
  }
  const r = (k) => (summary.protobuf[k] / summary.sse[k]).toFixed(2);
  console.log(
    `protobuf / SSE: run ${r("wall")}×, script ${r("script")}×, main-thread tasks ${r("task")}×, bytes ${r("bytes")}×`,
  );
} finally {
  await browser.close();
  stopServer(server);
}
