// Hostile generative UI in Chromium: agent HTML runs in a sandboxed frame on an opaque origin
// and can do nothing outside it. The payloads come as a recording opened in the inspector (the
// same pipeline and renderers as a live run), so no agent has to be trusted to send them.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, stopServer, launchBrowser, openPage, shoot } from "./support.mjs";

let server;
let browser;
before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  stopServer(server);
});

const run = (activities) =>
  [
    { type: "RUN_STARTED", threadId: "t-hostile", runId: "r-1" },
    ...activities.map(([messageId, activityType, content]) => ({
      type: "ACTIVITY_SNAPSHOT",
      messageId,
      activityType,
      content,
      replace: true,
    })),
    { type: "RUN_FINISHED", threadId: "t-hostile", runId: "r-1" },
  ]
    .map((e) => JSON.stringify(e))
    .join("\n");

async function openRecording(page, jsonl) {
  await page.getByRole("button", { name: "Events", exact: true }).click();
  const inspector = page.getByRole("complementary", { name: "Event inspector" });
  await inspector.locator("input[type=file]").setInputFiles({
    name: "hostile.jsonl",
    mimeType: "application/jsonl",
    buffer: Buffer.from(jsonl),
  });
}

// Each probe logs what happened to it; the test reads those lines from the frame's console.
const PROBES = `
<p id="hello">hello from the frame</p>
<script>
const log = (k, v) => console.log("probe " + k + ": " + v);
try { parent.document.body.innerHTML = "pwned"; log("parent-dom", "reached"); } catch (e) { log("parent-dom", e.name); }
try { top.location.href = "https://example.com/"; log("top-nav", "tried"); } catch (e) { log("top-nav", e.name); }
try { log("cookie", document.cookie); } catch (e) { log("cookie", e.name); }
try { localStorage.setItem("x", "1"); log("storage", "reached"); } catch (e) { log("storage", e.name); }
try { const w = window.open("https://example.com/"); log("popup", w ? "opened" : "blocked"); } catch (e) { log("popup", e.name); }
try { alert("x"); log("alert", "returned"); } catch (e) { log("alert", e.name); }
fetch("/api/threads").then(() => log("fetch", "reached"), (e) => log("fetch", "blocked"));
log("origin", String(self.origin));
for (let i = 0; i < 5000; i++) parent.postMessage({ jsonrpc: "2.0", id: i, method: "tools/call", params: {} }, "*");
log("done", "yes");
</script>`;

test("open generative UI runs hostile HTML in an opaque, sandboxed frame that reaches nothing", async () => {
  const { page, problems } = await openPage(browser, server.url);
  const probes = new Map();
  page.on("console", (m) => {
    const hit = m.text().match(/^probe ([\w-]+): (.*)$/);
    if (hit) probes.set(hit[1], hit[2]);
  });
  let dialogs = 0;
  page.on("dialog", (d) => {
    dialogs++;
    d.dismiss();
  });
  const popups = [];
  browser.context.on("page", (p) => popups.push(p));
  await openRecording(
    page,
    run([
      ["ogui-1", "open-generative-ui", { generating: false, htmlComplete: true, html: [PROBES], css: "p{color:red}" }],
    ]),
  );
  const card = page.getByRole("group", { name: "Generated UI" });
  await card.waitFor();
  const frame = page.frameLocator("iframe[title='Generated UI']");
  await frame.locator("#hello").waitFor({ timeout: 10000 });
  for (let i = 0; i < 100 && !probes.has("done"); i++) await page.waitForTimeout(100);
  assert.equal(probes.get("done"), "yes", JSON.stringify([...probes]));
  assert.equal(probes.get("parent-dom"), "SecurityError");
  assert.equal(probes.get("cookie"), "SecurityError");
  assert.equal(probes.get("storage"), "SecurityError");
  assert.equal(probes.get("origin"), "null");
  assert.notEqual(probes.get("popup"), "opened");
  assert.notEqual(probes.get("alert"), "returned-with-dialog");
  for (let i = 0; i < 30 && !probes.has("fetch"); i++) await page.waitForTimeout(100);
  assert.equal(probes.get("fetch"), "blocked");
  // Nothing happened outside the frame: same page, no dialog, no popup, the studio intact.
  // (Opening the recording made a new thread; the page itself never navigated away.)
  assert.equal(new URL(page.url()).origin, new URL(server.url).origin);
  assert.equal(new URL(page.url()).pathname, "/");
  assert.equal(dialogs, 0);
  assert.equal(popups.length, 0);
  await page.getByRole("textbox", { name: "Message" }).waitFor();
  assert.equal(await page.evaluate(() => document.body.innerHTML.includes("pwned")), false);
  const sandbox = await page.locator("iframe[title='Generated UI']").getAttribute("sandbox");
  assert.equal(sandbox, "allow-scripts");
  // The frame's response carried the agent-HTML policy.
  const csp = await page.evaluate(async () => {
    const r = await fetch(document.querySelector("iframe[title='Generated UI']").src);
    return r.headers.get("content-security-policy");
  });
  assert.match(csp, /^sandbox allow-scripts; default-src 'none'/);
  assert.match(csp, /connect-src 'none'/);
  // The page's own console shows only the blocked attempts' CSP reports, no page errors.
  assert.deepEqual(
    problems.filter((p) => !/Content Security Policy|Blocked|sandbox|SecurityError|Failed to fetch|ERR_BLOCKED/i.test(p)),
    [],
  );
  await page.close();
});

test("a frame busy forever does not freeze the studio", async () => {
  const { page } = await openPage(browser, server.url);
  await openRecording(
    page,
    run([["ogui-2", "open-generative-ui", { generating: false, html: ["<p>spin</p><script>setTimeout(() => { for (;;) {} }, 300)</script>"] }]]),
  );
  await page.getByRole("group", { name: "Generated UI" }).waitFor();
  await page.frameLocator("iframe[title='Generated UI']").getByText("spin").waitFor();
  await page.waitForTimeout(1500);
  // The studio still answers and reacts to typing.
  const t0 = Date.now();
  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill("still here", { timeout: 5000 });
  assert.equal(await box.inputValue(), "still here");
  const elapsed = Date.now() - t0;
  console.log(`studio answered in ${elapsed} ms while a frame spins`);
  assert.ok(elapsed < 5000);
  await page.close();
});

test("oversized and malformed generative UI is refused in place, unknown activities are cards", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await openRecording(
    page,
    run([
      ["ogui-3", "open-generative-ui", { generating: false, html: ["x".repeat(3 << 20)] }],
      ["mcp-1", "mcp-apps", { resourceUri: "https://evil.example.com/app.html", toolInput: {} }],
      ["bg-1", "background-task", { title: "Indexing <script>alert(1)</script>", status: "running", progress: 40 }],
    ]),
  );
  const big = page.getByRole("group", { name: "Generated UI" });
  await big.getByText(/the studio runs at most 2048 KB/).waitFor();
  assert.equal(await big.locator("iframe").count(), 0);
  const app = page.getByRole("group", { name: /^MCP App/ });
  await app.getByText("the activity names no ui:// resource").waitFor();
  assert.equal(await app.locator("iframe").count(), 0);
  const task = page.getByRole("group", { name: "Activity: background-task" });
  await task.getByText("Indexing <script>alert(1)</script>").waitFor();
  assert.equal(await task.getByRole("progressbar").getAttribute("value"), "40");
  assert.deepEqual(problems, []);
  await page.close();
});

const BASIC = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json";
const surface = (id, components, value = {}) => ({
  a2ui_operations: [
    { version: "v0.9", createSurface: { surfaceId: id, catalogId: BASIC } },
    { version: "v0.9", updateComponents: { surfaceId: id, components } },
    { version: "v0.9", updateDataModel: { surfaceId: id, path: "/", value } },
  ],
});

test("a hostile A2UI surface renders only catalog components, as text, and bounded", async () => {
  const { page, problems } = await openPage(browser, server.url);
  let dialogs = 0;
  page.on("dialog", (d) => {
    dialogs++;
    d.dismiss();
  });
  const evil = [
    { id: "root", component: "Column", children: ["t", "img", "btn", "btn_label", "weird", "link"] },
    { id: "t", component: "Text", text: "<img src=x onerror=alert(1)><script>window.__pwned=1</script>" },
    { id: "img", component: "Image", url: "javascript:alert(1)" },
    { id: "btn", component: "Button", child: "btn_label", onclick: "alert(1)", action: { event: { name: "x" } } },
    { id: "btn_label", component: "Text", text: { path: "/label" } },
    { id: "weird", component: "IFrame", src: "https://example.com/" },
    { id: "link", component: "Text", text: "[click](javascript:alert(1))", variant: "body" },
  ];
  // 200 Columns nested in each other (past the depth bound) and 5,000 components (past the count bound).
  const deep = [{ id: "root", component: "Column", children: ["d0"] }];
  for (let i = 0; i < 200; i++) deep.push({ id: `d${i}`, component: "Column", children: i < 199 ? [`d${i + 1}`] : [] });
  const wide = [{ id: "root", component: "Column", children: [...Array(5000).keys()].map((i) => `w${i}`) }];
  for (let i = 0; i < 5000; i++) wide.push({ id: `w${i}`, component: "Text", text: `item ${i}` });
  await openRecording(
    page,
    run([
      ["a2ui-surface-evil", "a2ui-surface", surface("evil", evil, { label: "<b onmouseover=alert(1)>go</b>" })],
      ["a2ui-surface-deep", "a2ui-surface", surface("deep", deep)],
      ["a2ui-surface-wide", "a2ui-surface", surface("wide", wide)],
    ]),
  );
  const s = page.getByRole("region", { name: "Surface evil" });
  await s.getByText("<script>window.__pwned=1</script>", { exact: false }).waitFor();
  await s.getByRole("button", { name: "<b onmouseover=alert(1)>go</b>" }).hover();
  assert.equal(await s.locator("script, iframe, img[onerror], [onclick], [onmouseover]").count(), 0);
  assert.equal(await page.locator('a[href^="javascript:"], img[src^="javascript:"]').count(), 0);
  await s.getByText(/IFrame/).first().waitFor();
  // Past the bounds: said in place, and the page stays small and alive.
  const deepSurface = page.getByRole("region", { name: "Surface deep" });
  await deepSurface.waitFor();
  const nested = await deepSurface.evaluate((el) => {
    let max = 0;
    for (const n of el.querySelectorAll("*")) {
      let d = 0;
      for (let p = n; p && p !== el; p = p.parentElement) d++;
      max = Math.max(max, d);
    }
    return max;
  });
  assert.ok(nested < 200, `nested ${nested} deep`);
  const wideText = await page.locator("[data-surface-id]").evaluateAll((els) => els.map((e) => e.textContent.length));
  assert.ok(wideText.every((n) => n < 200_000), JSON.stringify(wideText));
  assert.equal(await page.evaluate(() => window.__pwned ?? null), null);
  assert.equal(dialogs, 0);
  await page.getByRole("textbox", { name: "Message" }).fill("alive");
  await s.scrollIntoViewIfNeeded();
  await shoot(page, "a2ui-hostile");
  // What was wrong goes back to the agent as A2UI v0.9 client errors, with a user message.
  await page.getByRole("textbox", { name: "Message" }).fill("");
  const [request] = await Promise.all([
    page.waitForRequest((r) => r.method() === "POST" && r.url().includes("/api/agents/")),
    page.getByRole("button", { name: "Report these problems to the agent" }).first().click(),
  ]);
  const errors = JSON.parse(request.postData()).forwardedProps.a2uiAction.errors;
  assert.ok(errors.length > 0 && errors.length <= 20, JSON.stringify(errors));
  assert.ok(errors.every((e) => e.version === "v0.9" && typeof e.error.message === "string"));
  assert.ok(errors.some((e) => e.error.code === "VALIDATION_FAILED" && e.error.surfaceId === "evil"));
  await page.getByRole("log", { name: "Conversation" }).getByText(/could not be shown as sent/).first().waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});
