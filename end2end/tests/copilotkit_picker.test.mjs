// The studio as a CopilotKit front end's counterpart, in Chromium: a CopilotKit runtime's URL
// typed as the Agent URL ("Load agents" asks its /info) lists the runtime's agents, and a run of
// the one picked streams through its /agent/{id}/run. The runtime here is this server's own
// /api/copilotkit.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { startServer, stopServer, launchBrowser, openPage, send, idle, shoot } from "./support.mjs";

let server;
let browser;

before(async () => {
  server = await startServer(["--demo-delay-ms", "3"]);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  stopServer(server);
});

const log = (page) => page.getByRole("log", { name: "Conversation" });

/** Types the runtime at `base` as the Agent URL and loads its agents: the Agent URL box and
 * the "CopilotKit agent" select, once it shows. */
async function loadRuntime(page, base) {
  const agentUrl = page.getByRole("textbox", { name: "Agent URL" });
  await agentUrl.fill(base);
  await agentUrl.press("Enter");
  await page.getByRole("button", { name: "Load CopilotKit agents" }).click();
  const picker = page.getByRole("combobox", { name: "CopilotKit agent" });
  await picker.waitFor({ timeout: 10000 });
  return { agentUrl, picker };
}

test("a CopilotKit runtime URL lists its agents and runs the one picked", async () => {
  const { page, problems } = await openPage(browser, server.url);
  const base = `${server.url}/api/copilotkit`;
  const { agentUrl, picker } = await loadRuntime(page, base);
  assert.deepEqual(await picker.locator("option").allInnerTexts(), ["demo"]);
  assert.equal(await agentUrl.inputValue(), `${base}/agent/demo/run`);
  assert.match(await page.getByRole("status").filter({ hasText: "CopilotKit runtime" }).innerText(), /1 agent/);

  await send(page, "chat");
  await log(page).getByText("Hello from agui-studio").waitFor({ timeout: 15000 });
  await idle(page);
  await shoot(page, "copilotkit-picker", { fullPage: false });
  await page.setViewportSize({ width: 390, height: 844 });
  await shoot(page, "copilotkit-picker-phone", { fullPage: false });
  assert.deepEqual(problems, []);
  await page.close();
});

test("Stop on a CopilotKit runtime's run stops it on the server (its stop route)", async () => {
  // Another server's runtime (another origin): its runs are no runs of the studio's server.
  const runtime = await startServer(["--demo-delay-ms", "3", "--cors-origin", server.url]);
  try {
    await stopOnRuntime(runtime);
  } finally {
    stopServer(runtime);
  }
});

async function stopOnRuntime(runtime) {
  const { page, problems } = await openPage(browser, server.url);
  await loadRuntime(page, `${runtime.url}/api/copilotkit`);
  const stopped = page.waitForRequest((r) => r.method() === "POST" && /\/agent\/demo\/stop\//.test(r.url()));
  await send(page, "long 1000000");
  const stop = page.getByRole("button", { name: "Stop" });
  await stop.waitFor({ timeout: 10000 });
  await log(page).locator(".msg-assistant").first().waitFor({ timeout: 10000 });
  await stop.click();
  const thread = decodeURIComponent(new URL((await stopped).url()).pathname.split("/").at(-1));
  await idle(page, 10000);
  // Aborting the request alone would leave the runtime's run going: the server says it ended.
  let status;
  for (let i = 0; i < 50; i += 1) {
    const view = await (await fetch(`${runtime.url}/api/threads/${encodeURIComponent(thread)}`)).json();
    status = view.runs?.at(-1)?.status;
    if (status !== "running") break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(status, "cancelled");
  assert.deepEqual(problems.filter((p) => !/abort/i.test(p)), []);
  await page.close();
}

test("a URL that is no CopilotKit runtime says so and lists nothing", async () => {
  const { page } = await openPage(browser, server.url);
  const agentUrl = page.getByRole("textbox", { name: "Agent URL" });
  await agentUrl.fill(`${server.url}/healthz`);
  await agentUrl.press("Enter");
  await page.getByRole("button", { name: "Load CopilotKit agents" }).click();
  await page.getByRole("status").filter({ hasText: "No CopilotKit runtime" }).waitFor({ timeout: 10000 });
  assert.equal(await page.getByRole("combobox", { name: "CopilotKit agent" }).count(), 0);
  assert.equal(await agentUrl.inputValue(), `${server.url}/healthz`);
  await page.close();
});

test("a runtime that answers after the Agent URL changed does not overwrite it", async () => {
  // A runtime whose /info takes 1.5 s (CORS open: the studio is another origin).
  const slow = http.createServer((req, res) => {
    const body = JSON.stringify({ version: "1.54.0", mode: "multi", agents: { late: { name: "late" } } });
    setTimeout(() => {
      res.writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*" });
      res.end(body);
    }, 1500);
  });
  await new Promise((r) => slow.listen(0, "127.0.0.1", r));
  try {
    const { page } = await openPage(browser, server.url);
    const agentUrl = page.getByRole("textbox", { name: "Agent URL" });
    const base = `http://127.0.0.1:${slow.address().port}/ck`;
    await agentUrl.fill(base);
    await agentUrl.press("Enter");
    await page.getByRole("button", { name: "Load CopilotKit agents" }).click();
    await page.getByRole("status").filter({ hasText: "Asking" }).waitFor({ timeout: 5000 });
    // The user moves on before the answer.
    await agentUrl.fill("/api/agents/demo");
    await agentUrl.press("Enter");
    await page.waitForTimeout(2500);
    assert.equal(await agentUrl.inputValue(), "/api/agents/demo");
    assert.equal(await page.getByRole("combobox", { name: "CopilotKit agent" }).count(), 0);
    await page.close();
  } finally {
    slow.close();
  }
});
