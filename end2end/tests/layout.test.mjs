// The studio's layout and keyboard paths at the sizes people use, located by role and name:
// the conversation keeps a readable width beside the panels, the panels are a resizable dock on
// a wide screen, a drawer or a full-screen sheet that Escape closes on a narrow one; the composer
// is on screen on a phone; the skip link moves the focus; the introduction stays in view; a new
// approval takes the focus; Agent URL failures explain themselves; one author label per answer.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import path from "node:path";
import { startServer, stopServer, launchBrowser, openPage, send, idle, shoot, shots } from "./support.mjs";

let server;
let browser;

before(async () => {
  server = await startServer(["--demo-delay-ms", "0"]);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  stopServer(server);
});

async function pageAt(width, height) {
  const { page, problems } = await openPage(browser, server.url);
  await page.setViewportSize({ width, height });
  return { page, problems };
}

const box = async (locator) => {
  const b = await locator.boundingBox();
  assert.ok(b, "the element is laid out");
  return b;
};

test("1280 px with State and Events open: the conversation keeps at least 480 px", async () => {
  const { page } = await pageAt(1280, 800);
  await page.getByRole("button", { name: "State", exact: true }).click();
  await page.getByRole("button", { name: "Events", exact: true }).click();
  await page.getByRole("complementary", { name: "Event inspector" }).waitFor();
  const conversation = await box(page.getByRole("main"));
  assert.ok(conversation.width >= 480, `conversation ${conversation.width} px`);
  // Both panels are in one dock beside it, stacked.
  const dock = await box(page.getByRole("region", { name: "Panels" }));
  assert.ok(dock.x >= conversation.x + conversation.width - 1, "the dock is beside the conversation");
  const state = await box(page.getByRole("complementary", { name: "Shared state" }));
  const events = await box(page.getByRole("complementary", { name: "Event inspector" }));
  assert.ok(events.y >= state.y + state.height - 1, "Events under State");
  await shoot(page, "layout-1280-panels", { fullPage: false });
  await page.close();
});

test("the dock is resized by keyboard and never takes the conversation's 480 px", async () => {
  const { page } = await pageAt(1440, 900);
  await page.getByRole("button", { name: "Events", exact: true }).click();
  const dock = page.getByRole("region", { name: "Panels" });
  const before = (await box(dock)).width;
  const handle = page.getByRole("separator", { name: "Resize panels" });
  await handle.focus();
  for (let i = 0; i < 3; i++) await handle.press("ArrowLeft");
  const wider = (await box(dock)).width;
  assert.ok(Math.abs(wider - (before + 96)) <= 2, `${before} → ${wider}`);
  // The separator announces whole pixels.
  assert.equal(await handle.getAttribute("aria-valuemin"), "280");
  const now = await handle.getAttribute("aria-valuenow");
  assert.match(now, /^\d+$/);
  assert.ok(Math.abs(Number(now) - wider) <= 2, `aria-valuenow ${now} for ${wider} px`);
  await handle.press("End");
  const conversation = await box(page.getByRole("main"));
  assert.ok(
    conversation.width >= 478 && conversation.width <= 490,
    `at the widest dock the conversation keeps ~480 px (got ${conversation.width})`,
  );
  // The width is kept for the next visit.
  await page.reload();
  await page.waitForSelector('#hydration-status[data-hydrated="true"]');
  await page.getByRole("button", { name: "Events", exact: true }).click();
  const kept = (await box(page.getByRole("region", { name: "Panels" }))).width;
  assert.ok(Math.abs(kept - (await box(dock)).width) <= 1 && kept > before + 96, `kept ${kept}`);
  await page.close();
});

test("1024 px: the panels are a drawer over an unchanged conversation; Escape closes it", async () => {
  const { page } = await pageAt(1024, 768);
  const main = page.getByRole("main");
  const width = (await box(main)).width;
  const toggle = page.getByRole("button", { name: "Events", exact: true });
  await toggle.click();
  const dock = page.getByRole("region", { name: "Panels" });
  await dock.waitFor();
  assert.equal((await box(main)).width, width, "the conversation is not squeezed");
  const d = await box(dock);
  assert.ok(Math.abs(d.x + d.width - 1024) <= 1, "the drawer is at the right edge");
  // It took the focus; Escape closes it and gives the focus back to the toggle.
  assert.ok(await dock.evaluate((el) => el.contains(document.activeElement)));
  await shoot(page, "layout-1024-drawer", { fullPage: false });
  await page.keyboard.press("Escape");
  await dock.waitFor({ state: "detached" });
  assert.ok(await toggle.evaluate((el) => el === document.activeElement), "focus back on Events");
  // The close button works the same way.
  await page.getByRole("button", { name: "State", exact: true }).click();
  await page.getByRole("button", { name: "Close shared state" }).click();
  await dock.waitFor({ state: "detached" });
  await page.close();
});

test("phone: the composer is on screen at load and a panel opens full-screen where the user is", async () => {
  const { page } = await pageAt(390, 844);
  const composer = await box(page.getByRole("textbox", { name: "Message" }));
  assert.ok(composer.y + composer.height <= 844, `composer bottom at ${composer.y + composer.height}`);
  await shoot(page, "layout-phone", { fullPage: false });
  const toggle = page.getByRole("button", { name: "State", exact: true });
  const theme = page.getByRole("button", { name: "Toggle theme" });
  // The sheet covers the theme toggle: one screenshot per theme, the sheet opened for each.
  for (const dark of [false, true]) {
    if ((await theme.getAttribute("aria-pressed")) !== String(dark)) {
      await theme.click();
      await page.waitForTimeout(600);
    }
    await toggle.click();
    const sheet = await box(page.getByRole("region", { name: "Panels" }));
    assert.ok(sheet.x <= 1 && sheet.y <= 1 && sheet.width >= 389 && sheet.height >= 843, JSON.stringify(sheet));
    const name = `layout-phone-state-${dark ? "dark" : "light"}.png`;
    await page.screenshot({ path: path.join(shots, name), animations: "disabled" });
    await page.keyboard.press("Escape");
    await page.getByRole("region", { name: "Panels" }).waitFor({ state: "detached" });
    assert.ok(await toggle.evaluate((el) => el === document.activeElement), "focus back on State");
  }
  await theme.click();
  await page.close();
});

test("the skip link moves the focus to the message box; the introduction stays in view", async () => {
  const { page } = await pageAt(1280, 800);
  const intro = page.getByRole("heading", { level: 2 }).first();
  const log = page.getByRole("log", { name: "Conversation" });
  assert.equal(await log.evaluate((el) => el.scrollTop), 0, "the transcript is read from the top");
  assert.ok(await intro.isVisible());
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to message" });
  assert.ok(await skip.evaluate((el) => el === document.activeElement), "Tab reaches the skip link first");
  await page.keyboard.press("Enter");
  const message = page.getByRole("textbox", { name: "Message" });
  assert.ok(await message.evaluate((el) => el === document.activeElement), "focus in the message box");
  // A new thread starts at its introduction too.
  await page.getByRole("button", { name: /new thread/i }).click();
  assert.equal(await log.evaluate((el) => el.scrollTop), 0);
  await page.close();
});

test("a new approval takes the focus: one Tab reaches Approve", async () => {
  const { page } = await pageAt(1280, 800);
  await send(page, "approval");
  const card = page.getByRole("group", { name: "Approval: request_approval" });
  await card.waitFor();
  await page.waitForFunction(() => document.activeElement?.closest(".approval") != null);
  await page.getByRole("button", { name: "Reject" }).click();
  await idle(page);
  await page.close();
});

/** A loopback port nothing listens on. */
async function closedPort() {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const port = srv.address().port;
  await new Promise((r) => srv.close(r));
  return port;
}

test("an unreachable Agent URL says what was tried and why; the banner goes with the agent", async () => {
  const { page } = await pageAt(1280, 800);
  const agentUrl = page.getByRole("textbox", { name: "Agent URL" });
  const original = await agentUrl.inputValue();
  const url = `http://127.0.0.1:${await closedPort()}/agent`;
  await agentUrl.fill(url);
  await send(page, "hello");
  const alert = page.getByRole("alert").filter({ hasText: "Could not reach" });
  await alert.waitFor();
  const text = await alert.textContent();
  assert.ok(text.includes(url), text);
  assert.match(text, /CORS/);
  assert.match(text, /--proxy/);
  // One status at a time.
  const status = await page.getByRole("status").filter({ hasText: /Ready|Failed/ }).first().textContent();
  assert.match(status, /Failed/);
  assert.doesNotMatch(status, /Ready/);
  await shoot(page, "agent-url-error", { fullPage: false });
  await agentUrl.fill(original);
  await alert.waitFor({ state: "detached" });
  await page.close();
});

test("an HTTP error names the status, the URL and the server's own message", async () => {
  const { page } = await pageAt(1280, 800);
  await page.getByRole("textbox", { name: "Agent URL" }).fill("/api/agents/nope");
  await send(page, "hello");
  const alert = page.getByRole("alert").filter({ hasText: "HTTP 404" });
  await alert.waitFor();
  const text = await alert.textContent();
  assert.ok(text.includes("/api/agents/nope"), text);
  assert.match(text, /no agent/i);
  await page.close();
});

test("one author label per answer, however many messages it has", async () => {
  const { page } = await pageAt(1280, 800);
  await send(page, "backend_tool");
  await idle(page);
  const labels = page.locator(".msg-assistant > .msg-label:visible");
  const assistants = await page.locator(".msg-assistant").count();
  assert.ok(assistants >= 2, `the scenario answers in ${assistants} messages`);
  assert.equal(await labels.count(), 1);
  await page.close();
});
