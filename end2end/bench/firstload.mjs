// The first load as a browser sees it: opens the studio's default page (`/`) in Chromium with
// `Accept-Encoding: gzip` (or ENCODING=br, ENCODING="gzip, deflate, br, zstd"…), records the
// bytes of every response as they came over the wire (body as encoded, without headers), and
// splits them, by when each request began, into what the page fetched before it was interactive
// (hydrated), what it fetched after, while idle (the chunks of a run's code and of messages,
// fetched ahead of the first message), and what it fetched on demand: the inspector's chunk,
// fetched when the Events panel first opens.
//
//   node bench/firstload.mjs            # AGUI_BINARY or ../target/release/agui-studio
//
// Prints one table and, last, one JSON line with the totals.
import { launchBrowser, startServer, stopServer } from "../tests/support.mjs";

const encoding = process.env.ENCODING ?? "gzip";
const server = await startServer();
const browser = await launchBrowser({ extraHTTPHeaders: { "Accept-Encoding": encoding } });
const rows = [];
let phase = "first load";
try {
  const page = await browser.context.newPage();
  const began = new Map();
  page.on("request", (req) => began.set(req, phase));
  page.on("requestfinished", async (req) => {
    const sizes = await req.sizes().catch(() => null);
    const resp = await req.response().catch(() => null);
    if (!sizes || !resp) return;
    const url = new URL(req.url());
    rows.push({
      phase: began.get(req) ?? phase,
      path: url.pathname,
      encoding: (await resp.headerValue("content-encoding")) ?? "",
      type: ((await resp.headerValue("content-type")) ?? "").split(";")[0],
      bytes: sizes.responseBodySize,
    });
  });
  await page.goto(server.url + "/", { waitUntil: "load" });
  await page.waitForSelector('#hydration-status[data-hydrated="true"]', { timeout: 30000 });
  phase = "after hydration, idle";
  await page.waitForLoadState("networkidle");
  await new Promise((r) => setTimeout(r, 1500));
  phase = "on demand: Events panel";
  await page.getByRole("button", { name: /events/i }).first().click();
  await page.waitForSelector('aside[aria-label="Event inspector"]', { timeout: 30000 });
  await page.waitForLoadState("networkidle");
  await new Promise((r) => setTimeout(r, 300));
} finally {
  await browser.close();
  stopServer(server);
}

const kb = (b) => `${(b / 1024).toFixed(1)} KB`;
const totals = {};
console.log(`Accept-Encoding: ${encoding}`);
for (const r of rows) {
  totals[r.phase] = (totals[r.phase] ?? 0) + r.bytes;
  console.log(
    `  ${r.phase.padEnd(24)} ${r.path.padEnd(52)} ${r.type.padEnd(24)} ${r.encoding.padEnd(5)} ${kb(r.bytes).padStart(10)}`,
  );
}
const code = (phase) =>
  rows
    .filter((r) => r.phase === phase && /\.(wasm|js|css)$/.test(r.path))
    .reduce((s, r) => s + r.bytes, 0);
for (const [p, t] of Object.entries(totals)) console.log(`  ${p}: ${kb(t)} in all, ${kb(code(p))} of WASM/JS/CSS`);
console.log(
  JSON.stringify({
    encoding,
    first_load_code: code("first load"),
    first_load_all: totals["first load"] ?? 0,
    idle_code: code("after hydration, idle"),
    on_demand_code: code("on demand: Events panel"),
  }),
);
