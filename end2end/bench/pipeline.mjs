// Benchmark (prints figures; it checks that both sides built the same answer, nothing about
// speed): the studio's client pipeline in WASM (decoding, translation, the 1.1 rules,
// verification, the reducer: `replay_body` of the page's own module, src/client/replay.rs)
// against the official TS client's `HttpAgent` (`@ag-ui/client`, bundled with esbuild and
// loaded into the same page), on the same recorded `long N` stream of the demo agent, in the
// same Chromium page, SSE and protobuf. Both read the body from memory in 64 KB pieces (the
// agent through a `fetch` it is given, answering with that body), so the network and the server
// are out of the figures. For each size and format, ROUNDS rounds alternate the two; the first
// round of each warms the code up and is left out of the medians.
//
// The agent's time grows with the square of the stream (each delta costs it more than the one
// before), so it runs at the smallest size only unless BENCH_AGENT_ALL=1 (measured on
// 2026-11-29: 263 s for 200,000 deltas over SSE); the studio runs at every size, which shows its
// own cost is linear.
//
// Run: node bench/pipeline.mjs [N,N,...] [ROUNDS]   (default: 20000,200000 and 5;
//      binary: $AGUI_BINARY or target/release/agui-studio; with BENCH_AGENT_ALL=1 the agent is
//      still skipped for a size when its first round takes more than BENCH_AGENT_MAX_S seconds,
//      default 300)
//      BENCH_PROFILE=N: afterwards, profile the studio's pipeline on each recording of the smallest
//      size (Chromium's sampling profiler, 20 rounds) and print its N functions that took the most
//      time themselves; the names are a build's with names kept (the README's "Where the page's
//      time goes" says how to make one), a release's are numbers.
import { build } from "esbuild";
import { startServer, stopServer, launchBrowser } from "../tests/support.mjs";

const sizes = (process.argv[2] ?? "20000,200000").split(",").map(Number);
const rounds = Math.max(2, Number(process.argv[3] ?? 5));
// The studio's rounds take milliseconds: it runs more of them (alone after the alternating
// ones), so that a few seconds of a slower machine do not move its medians, nor the linearity
// figure that divides two of them (one run read 11.6× with three slow rounds of five).
const oursRounds = Math.max(rounds, 9);
const agentMaxMs = Number(process.env.BENCH_AGENT_MAX_S ?? 300) * 1000;
const agentAll = process.env.BENCH_AGENT_ALL === "1";
const PIECE = 64 * 1024;
const PROTO = "application/vnd.ag-ui.event+proto";

/** The demo's `long n` run as the server sends it in `format`, with its thread and run ids. */
async function record(url, n, format) {
  const ids = { threadId: `bench-${format}-${n}`, runId: `bench-run-${format}-${n}` };
  const res = await fetch(`${url}/api/agents/demo`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: format === "protobuf" ? PROTO : "text/event-stream",
    },
    body: JSON.stringify({
      ...ids,
      messages: [{ id: `u-${format}-${n}`, role: "user", content: `long ${n}` }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    }),
  });
  if (!res.ok) throw new Error(`recording long ${n} (${format}): HTTP ${res.status}`);
  const contentType = res.headers.get("content-type");
  const body = Buffer.from(await res.arrayBuffer());
  return { ...ids, format, contentType, body };
}

const bundle = (
  await build({
    stdin: {
      contents: 'import { HttpAgent } from "@ag-ui/client"; globalThis.__benchHttpAgent = HttpAgent;',
      resolveDir: new URL("..", import.meta.url).pathname,
    },
    bundle: true,
    format: "iife",
    platform: "browser",
    minify: true,
    write: false,
    define: { "process.env.SUPPRESS_TRANSFORMATION_WARNINGS": '"true"' },
  })
).outputFiles[0].text;

/** The studio's own functions by the time they took themselves over 20 rounds of each recording. */
async function profile(page, recordings, moduleUrl, top) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 50 });
  for (const r of recordings) {
    await cdp.send("Profiler.start");
    await page.evaluate(
      async ({ key, moduleUrl, threadId, runId, proto, piece }) => {
        const mod = await import(moduleUrl);
        for (let i = 0; i < 20; i++) await mod.replay_body(threadId, runId, window.__benchBodies[key], proto, piece);
      },
      { key: `${r.format}-${r.n}`, moduleUrl, threadId: r.threadId, runId: r.runId, proto: r.format === "protobuf", piece: PIECE },
    );
    const { profile } = await cdp.send("Profiler.stop");
    const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
    const self = new Map();
    const gaps = profile.timeDeltas ?? [];
    profile.samples.forEach((id, i) => {
      const f = byNode.get(id).callFrame;
      const name = `${f.functionName || "(anonymous)"} ${f.url ? f.url.split("/").pop() : ""}`.trim();
      self.set(name, (self.get(name) ?? 0) + (gaps[i + 1] ?? 0));
    });
    const total = [...self.values()].reduce((a, b) => a + b, 0);
    console.log(`profile, ${r.format} long ${r.n}, 20 rounds: ${(total / 1000).toFixed(0)} ms sampled; self time`);
    for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`  ${((us / total) * 100).toFixed(1).padStart(5)} %  ${(us / 20000).toFixed(2).padStart(6)} ms/round  ${name.slice(0, 140)}`);
    }
  }
  await cdp.detach();
}

const server = await startServer(["--demo-delay-ms", "0"]);
const browser = await launchBrowser();
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

try {
  const recordings = [];
  for (const n of sizes) for (const f of ["sse", "protobuf"]) recordings.push({ n, ...(await record(server.url, n, f)) });

  const page = await browser.context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  await page.route("**/__bench/body/*", (route) => {
    const key = decodeURIComponent(route.request().url().split("/").pop());
    const r = recordings.find((r) => `${r.format}-${r.n}` === key);
    return route.fulfill({ status: 200, body: r.body, contentType: "application/octet-stream" });
  });
  await page.goto(server.url);
  await page.waitForSelector('#hydration-status[data-hydrated="true"]', { timeout: 20000 });
  // Past the page's start-up work (and its rehearsal of a run's code paths).
  await page.waitForTimeout(2000);
  // Evaluated through the DevTools protocol: the page's CSP allows no inline script, and the
  // agent's code needs none of the page's privileges.
  await page.evaluate(bundle);
  const moduleUrl = await page.evaluate(
    () =>
      document.querySelector('link[rel="modulepreload"][href$=".js"]')?.href ??
      [...document.scripts].map((s) => s.textContent.match(/import\(['"]([^'"]+\.js)['"]\)/)?.[1]).find(Boolean),
  );
  if (!moduleUrl) throw new Error("the page's module was not found");

  console.log(
    `client pipeline in the page: the studio's WASM against @ag-ui/client's HttpAgent ` +
      `(same Chromium page, body from memory in ${PIECE / 1024} KB pieces; medians of ${rounds - 1} rounds after a warm-up, ${oursRounds - 1} for the studio)`,
  );
  const results = {};
  for (const r of recordings) {
    const key = `${r.format}-${r.n}`;
    const times = { ours: [], agent: [] };
    let skipAgent = !agentAll && r.n !== Math.min(...sizes);
    let summary = null;
    let events = 0;
    for (let i = 0; i < oursRounds; i++) {
      for (const who of i % 2 ? ["agent", "ours"] : ["ours", "agent"]) {
        if (who === "agent" && (skipAgent || i >= rounds)) continue;
        const out = await page.evaluate(
          async ({ who, key, moduleUrl, threadId, runId, proto, contentType, piece }) => {
            window.__benchBodies ??= {};
            const bytes = (window.__benchBodies[key] ??= new Uint8Array(
              await (await fetch(`/__bench/body/${encodeURIComponent(key)}`)).arrayBuffer(),
            ));
            if (who === "ours") {
              const mod = await import(moduleUrl);
              const t0 = performance.now();
              const s = JSON.parse(await mod.replay_body(threadId, runId, bytes, proto, piece));
              return { ms: performance.now() - t0, ...s };
            }
            const body = () =>
              new ReadableStream({
                start(c) {
                  for (let at = 0; at < bytes.length; at += piece) c.enqueue(bytes.subarray(at, at + piece));
                  c.close();
                },
              });
            const agent = new window.__benchHttpAgent({
              url: "/__bench/never",
              threadId,
              fetch: async () => new Response(body(), { status: 200, headers: { "content-type": contentType } }),
            });
            const t0 = performance.now();
            await agent.runAgent({ runId });
            const ms = performance.now() - t0;
            const last = agent.messages[agent.messages.length - 1];
            return {
              ms,
              outcome: "completed",
              messages: agent.messages.length,
              lastText: typeof last?.content === "string" ? last.content.length : 0,
            };
          },
          {
            who,
            key,
            moduleUrl,
            threadId: r.threadId,
            runId: r.runId,
            proto: r.format === "protobuf",
            contentType: r.contentType,
            piece: PIECE,
          },
        );
        if (out.outcome !== "completed") throw new Error(`${who} on ${key}: ${JSON.stringify(out)}`);
        const seen = `${out.messages} messages, last ${out.lastText} characters`;
        if (summary && summary !== seen) throw new Error(`${who} on ${key} built ${seen}, the other ${summary}`);
        summary = seen;
        times[who].push(out.ms);
        if (who === "ours") events = out.delivered;
        if (who === "agent" && i === 0 && out.ms > agentMaxMs) skipAgent = true;
      }
    }
    const m = (xs) => (xs.length > 1 ? median(xs.slice(1)) : xs[0]);
    const ours = m(times.ours);
    const agent = times.agent.length ? m(times.agent) : null;
    results[key] = { ours, agent };
    const rate = (ms) => `${((events / ms) * 1000 / 1000).toFixed(0)} k events/s`;
    console.log(
      `  ${r.format.padEnd(8)} long ${String(r.n).padEnd(7)} (${events} events, ${(r.body.length / 1e6).toFixed(1)} MB, ${summary}): ` +
        `studio ${ours.toFixed(1)} ms (${rate(ours)}), ` +
        (agent === null
          ? `HttpAgent not run at this size (BENCH_AGENT_ALL=1 runs it)`
          : `HttpAgent ${agent.toFixed(1)} ms (${rate(agent)}): ${(agent / ours).toFixed(1)}× faster`) +
        `  [studio ${times.ours.map((t) => t.toFixed(0)).join(", ")}` +
        (times.agent.length ? `; agent ${times.agent.map((t) => t.toFixed(0)).join(", ")}` : "") +
        ` ms]`,
    );
  }
  if (sizes.length > 1) {
    const [a, b] = [Math.min(...sizes), Math.max(...sizes)];
    for (const f of ["sse", "protobuf"]) {
      const [x, y] = [results[`${f}-${a}`], results[`${f}-${b}`]];
      const line = (who) =>
        x[who] && y[who] ? `${who === "ours" ? "studio" : "HttpAgent"} ${(y[who] / x[who]).toFixed(2)}×` : null;
      console.log(
        `  linearity, ${f}: ${b / a}× the events took ${[line("ours"), line("agent")].filter(Boolean).join(", ")} the time`,
      );
    }
  }
  const top = Number(process.env.BENCH_PROFILE ?? 0);
  if (top > 0) await profile(page, recordings.filter((r) => r.n === Math.min(...sizes)), moduleUrl, top);
  if (problems.length) console.log(`page problems: ${problems.join(" | ")}`);
  await page.close();
} finally {
  await browser.close();
  stopServer(server);
}
