// Hostile generative UI in Chromium: agent HTML runs in a sandboxed frame on an opaque origin
// and can do nothing outside it. The payloads come as a recording opened in the inspector (the
// same pipeline and renderers as a live run), so no agent has to be trusted to send them.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, stopServer, launchBrowser, openPage } from "./support.mjs";

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
