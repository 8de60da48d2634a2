// The studio as a CopilotKit front end's counterpart, in Chromium: a CopilotKit runtime's URL
// typed as the Agent URL ("Load agents" asks its /info) lists the runtime's agents, and a run of
// the one picked streams through its /agent/{id}/run. The runtime here is this server's own
// /api/copilotkit.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
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

test("a CopilotKit runtime URL lists its agents and runs the one picked", async () => {
  const { page, problems } = await openPage(browser, server.url);
  const base = `${server.url}/api/copilotkit`;
  const agentUrl = page.getByRole("textbox", { name: "Agent URL" });
  await agentUrl.fill(base);
  await agentUrl.press("Enter");
  await page.getByRole("button", { name: "Load CopilotKit agents" }).click();
  const picker = page.getByRole("combobox", { name: "CopilotKit agent" });
  await picker.waitFor({ timeout: 10000 });
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
