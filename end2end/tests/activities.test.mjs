// Generative UI over activities in Chromium: the demo's open generative UI, its MCP App (the
// built-in ui:// view speaking the MCP Apps bridge) and activity types no client knows.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, stopServer, launchBrowser, openPage, send, idle, shoot, settled } from "./support.mjs";

let server;
let browser;
before(async () => {
  server = await startServer(["--demo-delay-ms", "5"]);
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  stopServer(server);
});

test("ogui: streamed HTML, CSS and script run in a sandboxed frame sized by the frame", async () => {
  const { page, problems } = await openPage(browser, server.url);
  // Each document the frame runs is one load of the frame's loader.
  const loads = [];
  page.on("request", (r) => new URL(r.url()).pathname === "/sandbox/frame" && loads.push(r.url()));
  await send(page, "ogui");
  const card = page.getByRole("group", { name: "Generated UI" });
  await card.waitFor();
  await idle(page);
  await card.getByRole("status").filter({ hasText: "Generated UI (runs in a sandboxed frame)" }).waitFor();
  const iframe = page.locator("iframe[title='Generated UI']");
  assert.equal(await iframe.getAttribute("sandbox"), "allow-scripts");
  const frame = page.frameLocator("iframe[title='Generated UI']");
  // Chromium stops animation frames in a cross-origin frame out of view, and the counter
  // counts on them: in view, as the user sees it.
  await iframe.scrollIntoViewIfNeeded();
  // The script ran: the counter reached its value.
  await frame.locator("#count").filter({ hasText: "1,280" }).waitFor({ timeout: 10000 }).catch(async (e) => {
    // What the frames hold then, to tell a script that did not run from a frame lost by the driver.
    const seen = [`frame loads: ${loads.join(", ")}`, `page problems: ${JSON.stringify(problems)}`];
    for (const f of page.frames().slice(1)) {
      const html = await f.evaluate(() => document.documentElement.outerHTML).catch((x) => String(x));
      seen.push(`frame ${f.url()}: ${html.slice(0, 1500)}`);
    }
    e.message += `\n${seen.join("\n")}`;
    throw e;
  });
  // At most two documents: the HTML once complete, then with its scripts (one when both came
  // in the same frame). The flags that arrive after them change nothing the frame runs, so
  // they do not reload it (a reload would start the script again and lose what the user did).
  assert.ok(loads.length >= 1 && loads.length <= 2, `frame loads: ${loads.join(", ")}`);
  // The frame said its height; the card took it (not the initial 220 px).
  await page.waitForFunction(() => {
    const f = document.querySelector("iframe[title='Generated UI']");
    return f && Math.abs(f.getBoundingClientRect().height - 220) > 4;
  });
  await shoot(page, "activities-ogui");
  await page.setViewportSize({ width: 390, height: 844 });
  await card.scrollIntoViewIfNeeded();
  await shoot(page, "activities-ogui-phone", { fullPage: false });
  assert.deepEqual(problems, []);
  await page.close();
});

test("mcp_app: the ui:// view is fetched through the agent and speaks the MCP Apps bridge", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "mcp_app");
  await idle(page);
  const card = page.getByRole("group", { name: /^MCP App: ui:\/\// });
  await card.waitFor();
  await card.getByRole("status").filter({ hasText: "Runs in a sandboxed frame" }).waitFor({ timeout: 15000 });
  const app = page.frameLocator("iframe[title^='MCP App']");
  // ui/initialize answered, then the tool's input and result arrived.
  await app.locator("#status").filter({ hasText: /^Connected to agui-studio/ }).waitFor({ timeout: 10000 });
  await app.locator("#result").filter({ hasText: "rolls" }).waitFor();
  const first = await app.locator("#dice").textContent();
  // tools/call goes through the agent (a side run) and comes back.
  const answers = [];
  page.on("response", (r) => r.request().method() === "POST" && answers.push(`${r.status()} ${r.url()}`));
  await settled(page, page.locator("iframe[title^='MCP App']"));
  await app.getByRole("button", { name: "Roll again (tools/call)" }).click();
  // The app logs either outcome; on a failure the assertion says which, with the agent's answers.
  const said = app.locator("#log").filter({ hasText: /Rolled again\.|tools\/call failed/ });
  await said.waitFor({ timeout: 15000 }).catch(() => {});
  const log = await app.locator("#log").textContent();
  assert.match(log, /Rolled again\./, `the app's log: ${JSON.stringify(log)}; answers: ${answers.join(", ")}`);
  await card.scrollIntoViewIfNeeded();
  // A theme switched while the app shows reaches it (ui/notifications/host-context-changed).
  const theme = page.getByRole("button", { name: "Toggle theme" });
  const appTheme = () => app.locator("html").getAttribute("data-theme");
  const before = (await page.locator("html").getAttribute("data-theme")) ?? "light";
  await theme.click();
  const after = before === "dark" ? "light" : "dark";
  await app.locator(`html[data-theme='${after}']`).waitFor({ timeout: 5000 });
  await theme.click();
  await app.locator(`html[data-theme='${before}']`).waitFor({ timeout: 5000 });
  assert.equal(await appTheme(), before);
  await shoot(page, "activities-mcp-app");
  // The side run stayed out of the thread: no new turn, no new run in the thread list.
  const turns = await page.getByRole("log", { name: "Conversation" }).locator(".turn").count();
  // ui/open-link asks the user first; Cancel answers the app with an error.
  await app.getByRole("button", { name: "Read the spec (ui/open-link)" }).click();
  const ask = card.getByRole("alertdialog", { name: "Open link" });
  await ask.waitFor();
  await ask.getByRole("button", { name: "Cancel" }).click();
  await ask.waitFor({ state: "detached" });
  // ui/message becomes the user's next message.
  await app.getByRole("button", { name: "Tell the agent (ui/message)" }).click();
  await page.getByRole("log", { name: "Conversation" }).getByText(/^My dice: Rolled/).first().waitFor({ timeout: 10000 });
  await idle(page);
  assert.ok((await page.getByRole("log", { name: "Conversation" }).locator(".turn").count()) > turns);
  assert.ok(first.length > 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test("background_task: activity types no client knows render as live generic cards", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "background_task");
  await idle(page);
  const task = page.getByRole("group", { name: "Activity: background-task" });
  await task.waitFor();
  assert.equal(await task.getByRole("progressbar").getAttribute("value"), "100");
  assert.ok((await page.getByRole("group", { name: /^Activity: / }).count()) >= 2);
  await shoot(page, "activities-background");
  assert.deepEqual(problems, []);
  await page.close();
});
