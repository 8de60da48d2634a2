// The event inspector, located by role and name: after a reload it shows the thread's stored
// history; 100,000 events stay a short list in the page that follows the newest and jumps back;
// filters by text, run and warnings; a per-run summary and a timeline whose bars open the event
// behind them; a thread exported as JSON Lines and opened again replays the same conversation.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { readFileSync } from "node:fs";
import { startServer, stopServer, launchBrowser, openPage, send, idle, shoot, shots, inputIds, withIds } from "./support.mjs";

let server;
let browser;

before(async () => {
  server = await startServer(["--demo-delay-ms", "0"]);
  browser = await launchBrowser({ acceptDownloads: true });
});

after(async () => {
  await browser?.close();
  stopServer(server);
});

const inspectorOf = (page) => page.getByRole("complementary", { name: "Event inspector" });

async function openEvents(page) {
  await page.getByRole("button", { name: "Events", exact: true }).click();
  const inspector = inspectorOf(page);
  await inspector.waitFor();
  return inspector;
}

/** The "N of M" of the inspector's header. */
async function counts(inspector) {
  const read = async () => {
    const m = (await inspector.locator(".panel-count").textContent()).match(/(\d+) of (\d+)/);
    return { shown: Number(m[1]), total: Number(m[2]) };
  };
  // The panel redraws at most every 100 ms while events arrive: wait for the figures to settle
  // (the same twice, 250 ms apart; at most 5 s).
  let last = await read();
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 250));
    const now = await read();
    if (now.shown === last.shown && now.total === last.total) return now;
    last = now;
  }
  return last;
}

/** Whether the row of the run's last event is inside the list's visible area. */
async function lastRowInView(inspector, type) {
  return inspector.getByRole("region", { name: "Event list" }).evaluate((list, type) => {
    const rows = [...list.querySelectorAll(`li.event[data-type="${type}"]`)];
    const box = list.getBoundingClientRect();
    return rows.some((r) => {
      const b = r.getBoundingClientRect();
      return b.top >= box.top - 1 && b.bottom <= box.bottom + 1;
    });
  }, type);
}

test("after a reload the inspector shows every stored event of the thread", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "backend_tool 12 * 7");
  await idle(page);
  await send(page, "reasoning");
  await idle(page);
  const before = await counts(await openEvents(page));
  assert.ok(before.total > 10, `events of two runs: ${before.total}`);
  await page.reload();
  await page.waitForSelector('#hydration-status[data-hydrated="true"]');
  const inspector = await openEvents(page);
  await inspector.getByRole("status").filter({ hasText: "Stored history: 2 earlier runs" }).waitFor();
  assert.equal((await counts(inspector)).total, before.total, "every event, none twice");
  assert.equal(await inspector.getByText("No events yet").count(), 0);
  assert.ok(await lastRowInView(inspector, "RUN_FINISHED"), "at the newest event");
  // A run started after the reload follows the stored ones.
  await send(page, "chat");
  await idle(page);
  const after = await counts(inspector);
  assert.ok(after.total > before.total);
  await shoot(page, "inspector-history", { fullPage: false });
  assert.deepEqual(problems, []);
  await page.close();
});

test("100,000 events: a short list in the page that follows the newest, and jumps back", async () => {
  const N = 100000;
  let body = `data: ${JSON.stringify({ type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" })}\n\n`;
  for (let i = 0; i < N; i++) {
    body += `data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"${i % 10 === 0 ? "\\n" : ""}d${i} "}\n\n`;
  }
  // An unknown property: the pipeline strips it and warns.
  body += `data: ${JSON.stringify({ type: "TEXT_MESSAGE_END", messageId: "m", oddField: 1 })}\n\n`;
  const foreign = http.createServer(async (req, res) => {
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "access-control-allow-origin": "*",
      "access-control-allow-headers": "*",
    });
    if (req.method === "OPTIONS") return res.end();
    const ids = await inputIds(req);
    res.write(`data: ${JSON.stringify({ type: "RUN_STARTED", ...ids })}\n\n`);
    res.write(body);
    res.end(`data: ${JSON.stringify({ type: "RUN_FINISHED", ...ids })}\n\n`);
  });
  await new Promise((r) => foreign.listen(0, "127.0.0.1", r));
  try {
    const { page } = await openPage(browser, server.url);
    await page.evaluate(() => {
      window.__longtasks = [];
      new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__longtasks.push(e.duration))).observe({
        type: "longtask",
      });
    });
    const agentUrl = page.getByRole("textbox", { name: "Agent URL" });
    await agentUrl.fill(`http://127.0.0.1:${foreign.address().port}/agent`);
    await agentUrl.press("Enter");
    const inspector = await openEvents(page);
    const started = Date.now();
    await send(page, "big");
    await idle(page, 180000);
    await page.waitForFunction(
      (n) => document.querySelector("#inspector-panel .panel-count")?.textContent.startsWith(`${n} of ${n}`),
      N + 4,
      { timeout: 30000 },
    );
    const seconds = (Date.now() - started) / 1000;
    const rows = await inspector.locator("li.event").count();
    assert.ok(rows > 5 && rows < 150, `rows in the page: ${rows}`);
    await inspector.locator('li.event[data-type="RUN_FINISHED"]').waitFor({ timeout: 5000 });
    const state = await inspector.getByRole("region", { name: "Event list" }).evaluate((el) => ({
      top: el.scrollTop, height: el.scrollHeight, client: el.clientHeight,
    }));
    assert.ok(await lastRowInView(inspector, "RUN_FINISHED"), `follows to RUN_FINISHED: ${JSON.stringify(state)}`);
    const tasks = await page.evaluate(() => window.__longtasks);
    console.log(
      `100,004 events with the inspector open: ${seconds.toFixed(1)} s, ${rows} rows in the page, ` +
        `${tasks.length} tasks over 50 ms (longest ${Math.max(0, ...tasks).toFixed(0)} ms)`,
    );
    // Scrolling away stops following; "Latest events" jumps back.
    const list = inspector.getByRole("region", { name: "Event list" });
    await list.evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
    const latest = inspector.getByRole("button", { name: "Latest events" });
    await latest.waitFor();
    assert.ok(await inspector.locator("li.event").count() < 150);
    assert.ok(!(await lastRowInView(inspector, "RUN_FINISHED")));
    await latest.click();
    await page.waitForFunction(() => {
      const el = document.querySelector("#inspector-panel .inspector-list");
      return el.scrollHeight - el.scrollTop - el.clientHeight < 8;
    });
    assert.ok(await lastRowInView(inspector, "RUN_FINISHED"));
    // Filters: text anywhere in the JSON, warnings only.
    const filter = inspector.getByRole("searchbox", { name: "Filter events" });
    await filter.fill("d99999 ");
    await page.waitForFunction(() =>
      document.querySelector("#inspector-panel .panel-count")?.textContent.startsWith("1 of"),
    );
    await filter.fill("");
    await inspector.getByRole("checkbox", { name: "Warnings only" }).check();
    await page.waitForFunction(() =>
      document.querySelector("#inspector-panel .panel-count")?.textContent.startsWith("1 of"),
    );
    await inspector.getByRole("button", { name: /TEXT_MESSAGE_END/ }).click();
    const details = inspector.getByRole("region", { name: "Event details" });
    await details.waitFor();
    assert.match(await details.textContent(), /stripped unknown property/);
    await shoot(page, "inspector-100k", { fullPage: false });
    await page.close();
  } finally {
    foreign.close();
  }
});

test("runs and timeline: a summary per run, bars that open their events, a run filter", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "full");
  await idle(page);
  await send(page, "backend_tool 2 + 2");
  await idle(page);
  const inspector = await openEvents(page);
  await inspector.getByText("Runs and timeline").click();
  const table = inspector.getByRole("table", { name: "Runs of this thread" });
  await table.waitFor();
  // The table may appear before its rows are drawn: wait (bounded) for the second one.
  await table.locator("tbody tr").nth(1).waitFor({ timeout: 10_000 });
  assert.equal(await table.locator("tbody tr").count(), 2);
  assert.match(await table.locator("tbody tr").first().textContent(), /finished/);
  // The run's duration: from its first event to its last, not zero.
  const duration = await table.locator("tbody tr").first().locator("td").nth(2).textContent();
  assert.doesNotMatch(duration, /^0 ms$/, `duration ${duration}`);
  // The timeline of the last run; the run filter picks the first.
  await inspector.getByRole("combobox", { name: "Run" }).selectOption({ index: 1 });
  const timeline = inspector.getByRole("group", { name: "Timeline" });
  for (const kind of ["message", "tool call", "reasoning", "step", "activity"]) {
    assert.ok((await timeline.getByRole("button", { name: new RegExp(`^${kind} `) }).count()) > 0, kind);
  }
  const shown = await counts(inspector);
  assert.ok(shown.shown < shown.total, "only the first run's events");
  await timeline.getByRole("button", { name: /^tool call / }).first().click();
  const details = inspector.getByRole("region", { name: "Event details" });
  await details.waitFor();
  assert.match(await details.textContent(), /TOOL_CALL_START/);
  await shoot(page, "inspector-timeline", { fullPage: false });
  // On a phone the panel is a sheet over the page (the theme button under it): set the theme
  // the way the button does.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const theme of ["light", "dark"]) {
    await page.evaluate((t) => document.documentElement.setAttribute("data-theme", t), theme);
    await page.waitForTimeout(400);
    await page.screenshot({ path: `${shots}/inspector-timeline-phone-${theme}.png`, animations: "disabled" });
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test("a thread exported as JSON Lines and opened again replays the same conversation", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "reasoning");
  await idle(page);
  const log = page.getByRole("log", { name: "Conversation" });
  const answer = (await log.locator(".turn").last().textContent()).trim();
  const inspector = await openEvents(page);
  const { total } = await counts(inspector);
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    inspector.getByRole("button", { name: "Export thread" }).click(),
  ]);
  assert.match(download.suggestedFilename(), /^thread-[\w-]+\.jsonl$/);
  const file = await download.path();
  const lines = readFileSync(file, "utf8").trim().split("\n");
  assert.equal(lines.length, total);
  assert.equal(JSON.parse(lines[0]).type, "RUN_STARTED");
  // A new thread, then the recording.
  await page.getByRole("button", { name: "New thread" }).click();
  await inspector.locator("input[type=file]").setInputFiles(file);
  await page.waitForFunction(
    (n) => document.querySelector("#inspector-panel .panel-count")?.textContent.startsWith(`${n} of ${n}`),
    total,
  );
  await idle(page);
  assert.equal((await log.locator(".turn").last().textContent()).trim(), answer);
  // Something that is not a recording says so.
  await inspector.locator("input[type=file]").setInputFiles({
    name: "notes.jsonl",
    mimeType: "application/jsonl",
    buffer: Buffer.from("{\"type\":\"RUN_STARTED\"\nnot json\n"),
  });
  await page.getByRole("alert").filter({ hasText: "not a recording" }).waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});

test("closing and reopening the inspector while a run streams breaks nothing", async () => {
  const { page, problems } = await openPage(browser, server.url);
  let inspector = await openEvents(page);
  await send(page, "long 20000");
  await page.getByRole("button", { name: "Stop" }).waitFor();
  // Its redraw timer is pending while events arrive: closing drops what the timer touches.
  for (let i = 0; i < 3; i++) {
    await page.waitForTimeout(150);
    await page.getByRole("button", { name: "Events", exact: true }).click();
    await inspector.waitFor({ state: "detached" });
    await page.waitForTimeout(250);
    inspector = await openEvents(page);
  }
  await idle(page, 60000);
  const { shown, total } = await counts(inspector);
  assert.ok(total > 20000 && shown === total, `${shown} of ${total}`);
  assert.deepEqual(problems, []);
  await page.close();
});
