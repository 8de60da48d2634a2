// Threads stored by the server and resumable runs, as a user sees them in Chromium: a reload brings
// the conversation back (rendered on the server, readable without JavaScript) with its render
// hints in place, the thread list switches between threads, a run whose connection breaks
// resumes by itself and ends exactly as an uninterrupted run, and Stop cancels a detached run on
// the server.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { startServer, stopServer, launchBrowser, openPage, send, idle as idleUntil, shoot } from "./support.mjs";

let server;
let browser;

before(async () => {
  // Slow enough (long 3000 takes about 6 s) to break a run's connection twice while it streams.
  server = await startServer(["--demo-delay-ms", "20"]);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  stopServer(server);
});

const open = (url = server.url) => openPage(browser, url);
const idle = (page, timeout = 30000) => idleUntil(page, timeout);

const log = (page) => page.getByRole("log", { name: "Conversation" });
const threads = (page) => page.getByRole("navigation", { name: "Threads" });
const threadOf = (page) => new URL(page.url()).searchParams.get("thread");
// The rendered text, whitespace folded: a long paragraph streams in block sections, whose
// boundaries innerText shows as line breaks.
const lastAnswer = async (page) =>
  (await log(page).locator(".msg-assistant .md").last().innerText()).replace(/\s+/g, " ").trim();

test("a reload restores the conversation, rendered on the server before hydration", async () => {
  const { page, problems } = await open();
  await send(page, "hello reload");
  await idle(page);
  await log(page).getByText("Hello from agui-studio").first().waitFor();
  const id = threadOf(page);
  assert.ok(id, `the thread is in the URL: ${page.url()}`);

  // The page's HTML already holds the conversation.
  const html = await (await fetch(`${server.url}/?thread=${encodeURIComponent(id)}`)).text();
  assert.match(html, /hello reload/);
  assert.match(html, /Hello from agui-studio/);

  // And a browser without JavaScript shows it.
  const noJs = await launchBrowser({ javaScriptEnabled: false });
  try {
    const plain = await noJs.context.newPage();
    await plain.goto(`${server.url}/?thread=${encodeURIComponent(id)}`);
    const text = await plain.getByRole("log", { name: "Conversation" }).innerText();
    assert.match(text, /hello reload/);
    assert.match(text, /Hello from agui-studio/);
    assert.equal(await plain.textContent("#hydration-status"), "Page loading");
  } finally {
    await noJs.close();
  }

  // After the reload the conversation is live and goes on in the same thread.
  await page.reload();
  await page.waitForSelector('#hydration-status[data-hydrated="true"]', { timeout: 20000 });
  await log(page).getByText("Hello from agui-studio").first().waitFor();
  await send(page, "backend_tool 6 * 7");
  await idle(page);
  await log(page).getByText("6 * 7 = 42").first().waitFor();
  assert.equal(threadOf(page), id);
  const view = await (await fetch(`${server.url}/api/threads/${encodeURIComponent(id)}`)).json();
  assert.ok(view.messages.some((m) => m.role === "user" && m.content === "hello reload"));
  assert.ok(view.messages.some((m) => m.role === "user" && m.content === "backend_tool 6 * 7"));
  assert.deepEqual(problems, []);
  await page.close();
});

test("render hints come back in place after a reload", async () => {
  const { page, problems } = await open();
  await send(page, "render_hints");
  await idle(page);
  await send(page, "hello again");
  await idle(page);
  // Each turn in transcript order: a hint's figure, or a message's role.
  const turns = () =>
    log(page)
      .locator(".turn")
      .evaluateAll((els) =>
        els.map((el) =>
          el.querySelector("figure.render-hint")
            ? `hint:${el.querySelector("figure.render-hint").className}`
            : `msg:${el.querySelector(".msg")?.className ?? ""}`,
        ),
      );
  await log(page).locator("figure.render-hint svg").first().waitFor();
  const before = await turns();
  assert.equal(before.filter((t) => t.startsWith("hint:")).length, 3, before.join("\n"));
  const id = threadOf(page);

  // Rendered on the server: the chart's SVG is in the page's HTML.
  const html = await (await fetch(`${server.url}/?thread=${encodeURIComponent(id)}`)).text();
  assert.match(html, /<figure[^>]*render-hint[^>]*>[\s\S]*?<svg/);

  await page.reload();
  await page.waitForSelector('#hydration-status[data-hydrated="true"]', { timeout: 20000 });
  await log(page).locator("figure.render-hint svg").first().waitFor();
  await log(page).locator("figure.render-hint table").first().waitFor();
  assert.deepEqual(await turns(), before);
  await log(page).locator("figure.render-hint").first().evaluate((el) => el.scrollIntoView({ block: "start" }));
  await shoot(page, "hints-reloaded");
  assert.deepEqual(problems, []);
  await page.close();
});

test("the thread list switches between two threads, also after a reload", async () => {
  const { page, problems } = await open();
  await send(page, "hello alpha");
  await idle(page);
  const alpha = threadOf(page);
  await threads(page).getByRole("button", { name: "New thread" }).click();
  await send(page, "backend_tool 3 * 5");
  await idle(page);
  const beta = threadOf(page);
  assert.ok(alpha && beta && alpha !== beta, `${alpha} / ${beta}`);

  const item = (title) => threads(page).getByRole("button", { name: new RegExp(`^${title}`) });
  await item("hello alpha").click();
  await log(page).getByText("Hello from agui-studio").first().waitFor();
  assert.equal(threadOf(page), alpha);
  assert.equal(await item("hello alpha").getAttribute("aria-current"), "true");
  assert.doesNotMatch(await log(page).innerText(), /3 \* 5 = 15/);
  await item("backend_tool 3").click();
  await log(page).getByText("3 * 5 = 15").first().waitFor();
  assert.equal(threadOf(page), beta);

  // After a reload only the thread of the URL is open; the other one loads from the server.
  await page.reload();
  await page.waitForSelector('#hydration-status[data-hydrated="true"]', { timeout: 20000 });
  await log(page).getByText("3 * 5 = 15").first().waitFor();
  await item("hello alpha").click();
  await log(page).getByText("Hello from agui-studio").first().waitFor();
  assert.equal(threadOf(page), alpha);
  assert.doesNotMatch(await log(page).innerText(), /3 \* 5 = 15/);
  // After the transcript's fade-in.
  await page.waitForTimeout(400);
  await shoot(page, "threads");
  assert.deepEqual(problems, []);
  await page.close();
});

/**
 * A TCP proxy in front of the server that cuts connections: `cutAfter(n)` lets `n` more bytes of
 * event-stream responses through, then destroys every proxied socket and refuses new connections
 * until `up()`. Counting the stream's own bytes makes the cut land mid-stream, and staying down
 * until told makes the page's reconnecting state last, however fast or slow the browser is.
 */
async function startProxy(target) {
  const { hostname, port } = new URL(target);
  const sockets = new Set();
  let down = false;
  let budget = Infinity;
  let cuts = 0;
  const cut = () => {
    budget = Infinity;
    cuts += 1;
    down = true;
    for (const s of sockets) s.destroy();
  };
  const proxy = net.createServer((client) => {
    if (down) return client.destroy();
    const upstream = net.connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => sockets.delete(s));
    }
    client.pipe(upstream);
    // A keep-alive connection may carry an event stream after other responses: it counts from
    // the response head that announces one.
    let streaming = false;
    upstream.on("data", (chunk) => {
      if (!streaming && /content-type: (text\/event-stream|application\/vnd\.ag-ui\.event\+proto)/i.test(chunk.toString("latin1"))) {
        streaming = true;
      }
      // Spent: nothing more gets through, and the cut happens once, when the rest is flushed.
      if (streaming && budget === 0) return;
      if (streaming && chunk.length >= budget) {
        client.write(chunk.subarray(0, budget), cut);
        budget = 0;
        return;
      }
      if (streaming) budget -= chunk.length;
      client.write(chunk);
    });
    upstream.on("end", () => client.end());
  });
  await new Promise((r) => proxy.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${proxy.address().port}`,
    cutAfter: (bytes) => {
      budget = bytes;
    },
    up: () => {
      down = false;
    },
    /** Resolves once `n` cuts happened in all. */
    cuts: async (n) => {
      for (let waited = 0; cuts < n; waited += 20) {
        if (waited > 20000) throw new Error(`${cuts} cuts, waiting for ${n}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => proxy.close(r));
    },
  };
}

/** Wait until the streaming answer shows the number `n`. */
/** Pick the body format runs ask for in the Connection popup, and close it. */
async function chooseTransport(page, value) {
  await page.getByText("Connection", { exact: true }).click();
  await page.getByRole("combobox", { name: "Transport" }).selectOption(value);
  await page.getByText("Connection", { exact: true }).click();
}

/** Waits until the last answer has the word `n` (and there are `answers` answers, if given). */
async function answerReaches(page, n, answers = 1) {
  await page.waitForFunction(
    ([n, answers]) => {
      const all = document.querySelectorAll(".msg-assistant .md");
      const md = [...all].at(-1);
      return all.length >= answers && md && new RegExp(`\\b${n}\\b`).test(md.textContent);
    },
    [n, answers],
    { timeout: 20000, polling: 50 },
  );
}

test("a run whose connection breaks reconnects and ends as if nothing happened", async () => {
  // The same scenario without interruption, for reference.
  const direct = await open();
  await send(direct.page, "long 3000");
  await idle(direct.page, 60000);
  const expected = await lastAnswer(direct.page);
  assert.match(expected, /^0 1 2 .* 2999$/s);
  await direct.page.close();

  const proxy = await startProxy(server.url);
  try {
    const { page, problems } = await open(proxy.url);
    await chooseTransport(page, "sse");
    // The run's stream is about 330 KB: cut it after 60 KB, and the resumed one after 90 KB more.
    proxy.cutAfter(60000);
    await send(page, "long 3000");
    await proxy.cuts(1);
    await page.getByText("Reconnecting…").waitFor({ timeout: 10000 });
    await shoot(page, "reconnecting");
    // Bytes that reached the browser are not necessarily read: a broken fetch drops what the page
    // had not consumed yet, and the page resumes after the last event it did read.
    proxy.cutAfter(90000);
    proxy.up();
    await proxy.cuts(2);
    await page.getByText("Reconnecting…").waitFor({ timeout: 10000 });
    proxy.up();
    await idle(page, 60000);
    assert.equal(await lastAnswer(page), expected);
    assert.equal(await page.getByRole("alert").count(), 0, "no error banner");
    const events = await page.evaluate(() =>
      performance.getEntriesByType("resource").filter((e) => e.name.includes("/api/runs/")).length,
    );
    assert.ok(events >= 2, `resumed with GET /api/runs/…/events (${events} requests)`);
    // Only the failed fetches of the broken connections were reported.
    assert.deepEqual(
      problems.filter((p) => !/ERR_|Failed to fetch|network/i.test(p)),
      [],
    );
    await page.close();
  } finally {
    await proxy.close();
  }
});

test("over protobuf: a broken connection resumes by counting frames, and a reload follows the run", async () => {
  const expected = [...Array(3000).keys()].join(" ");
  const proxy = await startProxy(server.url);
  try {
    const { page, problems } = await open(proxy.url);
    const bodies = [];
    page.on("response", (r) => {
      if (/\/api\/(agents|runs)\/[^/]+(\/events)?$/.test(new URL(r.url()).pathname)) {
        bodies.push(`${r.request().method()} ${r.headers()["content-type"]}`);
      }
    });
    // The user picks the binary transport in the Connection popup (the default).
    await chooseTransport(page, "protobuf");
    // About 40 bytes an event: cut inside the run's first 30 KB, mid-frame.
    proxy.cutAfter(30001);
    await send(page, "long 3000");
    await proxy.cuts(1);
    await page.getByText("Reconnecting…").waitFor({ timeout: 10000 });
    proxy.up();
    await idle(page, 60000);
    assert.equal(await lastAnswer(page), expected);
    assert.equal(await page.getByRole("alert").count(), 0, "no error banner");
    const proto = "application/vnd.ag-ui.event+proto";
    assert.ok(bodies.includes(`POST ${proto}`), `the run came as protobuf: ${bodies}`);
    assert.ok(bodies.includes(`GET ${proto}`), `the resume came as protobuf: ${bodies}`);
    assert.ok(!bodies.some((b) => b.includes("event-stream")), `no SSE: ${bodies}`);
    // The pick survives a reload, and the reloaded page follows a running run over protobuf.
    await send(page, "long 3000");
    // The second answer: the first one also has a 600 in it.
    await answerReaches(page, 600, 2);
    bodies.length = 0;
    const reloaded = await page.reload();
    // The server renders the page with the run as running: no Send to race it before hydration.
    assert.match(await reloaded.text(), /send-btn[^>]*>Stop</, "rendered as running");
    await page.waitForSelector('#hydration-status[data-hydrated="true"]', { timeout: 20000 });
    // (Inside the closed Connection popup.)
    assert.equal(await page.locator('select[aria-label="Transport"]').inputValue(), "protobuf");
    // (The first answer also ends with 2999: wait for the second.)
    await answerReaches(page, 2999, 2);
    await idle(page, 60000);
    assert.equal(await log(page).locator(".msg-assistant .md").count(), 2, "nothing doubled");
    assert.equal(await lastAnswer(page), expected);
    assert.ok(bodies.includes(`GET ${proto}`), `followed over protobuf: ${bodies}`);
    assert.deepEqual(
      problems.filter((p) => !/ERR_|Failed to fetch|network/i.test(p)),
      [],
    );
    await page.close();
  } finally {
    await proxy.close();
  }
});

test("a reload while a run streams follows that run to its end", async () => {
  const { page, problems } = await open();
  await send(page, "long 3000");
  await answerReaches(page, 600);
  assert.ok(threadOf(page), "the thread is in the URL");
  await page.reload();
  await page.waitForSelector('#hydration-status[data-hydrated="true"]', { timeout: 20000 });
  // The run went on on the server; the reloaded page picks it up and follows it live.
  await page.getByRole("button", { name: "Stop" }).waitFor({ timeout: 10000 });
  await answerReaches(page, 2999);
  await idle(page, 60000);
  const expected = [...Array(3000).keys()].join(" ");
  assert.equal((await lastAnswer(page)).trim(), expected);
  assert.equal(await page.getByRole("alert").count(), 0, "no error banner");
  // One user message and one answer: nothing doubled by the replay.
  assert.equal(await log(page).locator(".msg-assistant .md").count(), 1);
  assert.deepEqual(problems, []);
  await page.close();
});

test("after a server restart, a run cut short shows why, and Retry runs it again", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "agui-restart-"));
  const db = path.join(dir, "studio.db");
  let first;
  let second;
  try {
    first = await startServer(["--demo-delay-ms", "20", "--db", db]);
    const { page } = await open(first.url);
    await send(page, "long 3000");
    await answerReaches(page, 300);
    const id = threadOf(page);
    first.proc.kill("SIGKILL");
    await new Promise((r) => first.proc.once("close", r));
    await page.close();

    second = await startServer(["--demo-delay-ms", "0", "--db", db]);
    const { page: again, problems } = await open(`${second.url}/?thread=${encodeURIComponent(id)}`);
    const banner = again.getByRole("alert").filter({ hasText: "The run failed" });
    await banner.waitFor();
    assert.match(await banner.innerText(), /SERVER_RESTARTED/);
    assert.match(await banner.innerText(), /server stopped while this run was in progress/);
    await threads(again).getByText("interrupted").waitFor();
    // What was streamed before the crash is there.
    assert.match(await lastAnswer(again), /^0 1 2 3 /);
    await shoot(again, "interrupted");

    await banner.getByRole("button", { name: "Retry" }).click();
    // Retry first reads the run's input from the server; the banner goes when the run starts.
    await banner.waitFor({ state: "detached", timeout: 10000 });
    await idle(again, 60000);
    assert.equal((await lastAnswer(again)).trim(), [...Array(3000).keys()].join(" "));
    assert.equal(await again.getByRole("alert").filter({ hasText: "The run failed" }).count(), 0);
    const view = await (await fetch(`${second.url}/api/threads/${encodeURIComponent(id)}`)).json();
    assert.deepEqual(
      view.runs.map((r) => r.status),
      ["interrupted", "finished"],
    );
    // The retry replaced the cut-short attempt: one question, one answer, also after a reload.
    assert.deepEqual(
      view.messages.map((m) => m.role),
      ["user", "assistant"],
    );
    await again.reload();
    await again.waitForSelector('#hydration-status[data-hydrated="true"]', { timeout: 20000 });
    assert.equal(await log(again).locator(".msg-assistant .md").count(), 1);
    assert.equal((await lastAnswer(again)).trim(), [...Array(3000).keys()].join(" "));
    assert.deepEqual(problems, []);
    await again.close();
  } finally {
    if (first && first.proc.exitCode === null) first.proc.kill("SIGKILL");
    stopServer(second);
    if (second) await new Promise((r) => (second.proc.exitCode === null ? second.proc.once("close", r) : r()));
    rmSync(dir, { recursive: true, force: true });
  }
});

test("Stop cancels a detached run on the server", async () => {
  const { page, problems } = await open();
  await send(page, "long 1000000");
  const stop = page.getByRole("button", { name: "Stop" });
  await stop.waitFor({ timeout: 10000 });
  await page.waitForTimeout(500);
  const id = threadOf(page);
  await stop.click();
  await idle(page, 10000);
  // Aborting the request alone would leave a detached run going: the server says it ended.
  let status;
  for (let i = 0; i < 50; i += 1) {
    const view = await (await fetch(`${server.url}/api/threads/${encodeURIComponent(id)}`)).json();
    status = view.runs.at(-1)?.status;
    if (status !== "running") break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(status, "cancelled");
  assert.deepEqual(problems.filter((p) => !/abort/i.test(p)), []);
  await page.close();
});

