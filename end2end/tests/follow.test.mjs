// The transcript follows a stream: it stays at the bottom while the answer grows, stops where
// the reader scrolled to (and offers "Jump to latest"), follows again from that button, and
// ends with the answer's last line in view. Sampled between frames while `long` streams at
// about 2,000 deltas a second.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, stopServer, launchBrowser, openPage, send, idle } from "./support.mjs";

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

/** How far the transcript's bottom is below its view, in px (0 at the bottom). */
const below = (log) => log.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
/** How far the transcript can scroll in all (it grows while the answer streams). */
const extent = (log) => log.evaluate((el) => el.scrollHeight - el.clientHeight);

test("the transcript follows a stream, stays where the reader scrolled, and jumps back", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await page.setViewportSize({ width: 1280, height: 800 });
  const log = page.getByRole("log", { name: "Conversation" });
  const stop = page.getByRole("button", { name: "Stop" });
  await send(page, "long 12000");
  await stop.waitFor();
  // The question is in the transcript (a send before a run's code has come shows Stop first,
  // while the introduction is still there).
  await log.locator(".turn[data-message-id]").first().waitFor();
  // Wait until the answer is taller than the view, then sample while it streams.
  for (let i = 0; i < 100 && (await extent(log)) < 400; i++) await page.waitForTimeout(50);
  assert.ok((await extent(log)) >= 400, "the answer outgrows the view");
  for (let i = 0; i < 8; i++) {
    const d = await below(log);
    assert.ok(d <= 48, `sample ${i}: ${d} px below the view while following`);
    await page.waitForTimeout(80);
  }
  assert.ok(await stop.isVisible(), "still streaming (the samples above followed a growing answer)");

  // The reader scrolls up: the view stays there while the answer grows below it.
  await log.evaluate((el) => (el.scrollTop = 100));
  const jump = page.getByRole("button", { name: "Jump to latest" });
  await jump.waitFor({ timeout: 5000 });
  const grownFrom = await extent(log);
  for (let i = 0; i < 6; i++) {
    await page.waitForTimeout(80);
    assert.equal(await log.evaluate((el) => el.scrollTop), 100, `sample ${i}: the view stays where the reader left it`);
  }
  assert.ok((await extent(log)) > grownFrom, "the answer grew while the reader was away");

  // "Jump to latest" follows again.
  await jump.click();
  await jump.waitFor({ state: "hidden", timeout: 5000 });
  for (let i = 0; i < 4 && (await stop.isVisible()); i++) {
    await page.waitForTimeout(80);
    const d = await below(log);
    assert.ok(d <= 48, `after the jump, sample ${i}: ${d} px below the view`);
  }
  await idle(page, 60000);
  await page.waitForTimeout(200);
  const d = await below(log);
  assert.ok(d <= 48, `the answer's end is in view: ${d} px below`);
  assert.deepEqual(problems, []);
  await page.close();
});
