// A2UI v0.9 surfaces in Chromium: the demo's booking form (bound inputs, an action answered by
// the next run), its live dashboard, and a foreign agent built on the official
// @ag-ui/a2ui-middleware driving a surface through our proxy and the UI.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startServer, stopServer, launchBrowser, openPage, send, idle, shoot } from "./support.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
let server;
let browser;
let foreign;

/** Start tests/foreign/a2ui_agent.mjs on loopback; resolves to { proc, port }. */
function startForeign() {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [path.resolve(here, "../../tests/foreign/a2ui_agent.mjs")], {
      cwd: path.resolve(here, ".."),
      stdio: ["ignore", "pipe", "inherit"],
    });
    const timer = setTimeout(() => reject(new Error("the a2ui agent did not start")), 20000);
    proc.stdout.on("data", (d) => {
      const m = d.toString().match(/PORT (\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, port: Number(m[1]) });
      }
    });
    proc.on("exit", (code) => reject(new Error(`the a2ui agent exited with ${code}`)));
  });
}

before(async () => {
  foreign = await startForeign();
  server = await startServer(["--demo-delay-ms", "5", "--proxy", `ts=http://127.0.0.1:${foreign.port}/`]);
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  stopServer(server);
  if (foreign && foreign.proc.exitCode === null) foreign.proc.kill("SIGTERM");
});

test("a2ui: a bound form whose action the next run answers on the same surface", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "a2ui");
  await idle(page);
  const surface = page.getByRole("region", { name: /^Surface / }).last();
  await surface.getByRole("heading", { name: "Book a room" }).waitFor();
  await surface.getByRole("textbox", { name: "Name" }).fill("Ada Lovelace");
  await surface.getByRole("textbox", { name: "Email" }).fill("ada@example.com");
  await surface.getByLabel("Arrival").fill("2026-12-24");
  await surface.getByRole("checkbox", { name: "Breakfast included" }).check();
  await shoot(page, "a2ui-form");
  await page.setViewportSize({ width: 390, height: 844 });
  await surface.getByRole("button", { name: "Book" }).scrollIntoViewIfNeeded();
  await shoot(page, "a2ui-form-phone", { fullPage: false });
  await page.setViewportSize({ width: 1280, height: 720 });
  await surface.getByRole("button", { name: "Book" }).click();
  // The action went as the next run's forwardedProps (no new user message), and was answered.
  await page.getByRole("region", { name: /^Surface / }).last().getByRole("heading", { name: "Booking received" }).waitFor({ timeout: 15000 });
  await idle(page);
  const log = page.getByRole("log", { name: "Conversation" });
  await log.getByText(/Ada Lovelace/).first().waitFor();
  assert.equal(await log.locator("[data-role=user]").count(), 1);
  await shoot(page, "a2ui-submitted");
  assert.deepEqual(problems, []);
  await page.close();
});

test("a2ui_dynamic: a surface updated by deltas shows its latest data", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "a2ui_dynamic");
  await idle(page, 30000);
  const surface = page.getByRole("region", { name: /^Surface / }).last();
  await surface.getByText(/Final/).first().waitFor();
  assert.ok((await surface.getByRole("listitem").count()) >= 3);
  await shoot(page, "a2ui-dashboard");
  assert.deepEqual(problems, []);
  await page.close();
});

test("a foreign agent on @ag-ui/a2ui-middleware drives a surface through the proxy and gets the action", async () => {
  const { page, problems } = await openPage(browser, server.url);
  const agentUrl = page.getByRole("textbox", { name: "Agent URL" });
  await agentUrl.fill(`${server.url}/api/agents/ts`);
  await agentUrl.press("Enter");
  await send(page, "a contact form, please");
  await idle(page);
  const surface = page.getByRole("region", { name: /^Surface / }).last();
  await surface.getByRole("heading", { name: "Contact us" }).waitFor();
  await surface.getByRole("textbox", { name: "Name" }).fill("Grace");
  await surface.getByRole("textbox", { name: "Email" }).fill("grace@example.com");
  await surface.getByRole("button", { name: "Send" }).click();
  // The middleware turned forwardedProps.a2uiAction.userAction into its log_a2ui_event call;
  // the agent quotes what the middleware wrote.
  const log = page.getByRole("log", { name: "Conversation" });
  await log.getByText(/User performed action "submit_form" on surface "contact-form"/).first().waitFor({ timeout: 15000 });
  await log.getByText(/Grace/).first().waitFor();
  await idle(page);
  assert.deepEqual(problems, []);
  await page.close();
});
