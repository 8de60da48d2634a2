// Per-message actions and thread actions, as a user meets them in Chromium, located by role and
// accessible name: the thread list's relative times, rename (Enter saves, Escape cancels),
// delete (after a confirmation) and search; a message's Copy, Regenerate (the last answer is
// replaced, on the server too), Edit (the conversation is cut there and the edited message sent)
// and Good/Bad answer (stored with the thread). Each survives a reload.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, stopServer, launchBrowser, openPage, send, idle } from "./support.mjs";

let server;
let browser;

before(async () => {
  server = await startServer(["--demo-delay-ms", "0"]);
  browser = await launchBrowser({ permissions: ["clipboard-read", "clipboard-write"] });
});

after(async () => {
  await browser?.close();
  stopServer(server);
});

const log = (page) => page.getByRole("log", { name: "Conversation" });
const threads = (page) => page.getByRole("navigation", { name: "Threads" });
const entry = (page, title) =>
  threads(page).getByRole("listitem").filter({ has: page.getByRole("button", { name: new RegExp(`^${title}`) }) });
const threadOf = (page) => new URL(page.url()).searchParams.get("thread");
const api = async (p) => (await fetch(`${server.url}${p}`)).json();
const reload = async (page) => {
  await page.reload();
  await page.waitForSelector('#hydration-status[data-hydrated="true"]', { timeout: 20000 });
};
/** The ids of the messages the transcript shows, in order. */
const shownIds = (page) =>
  log(page).locator(".turn[data-message-id]").evaluateAll((els) => els.map((e) => e.dataset.messageId));

test("a thread shows a relative time and is renamed in place; the name survives a reload", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "hello rename me");
  await idle(page);
  const item = entry(page, "hello rename me");
  const time = item.locator("time");
  await time.waitFor();
  assert.match(await time.getAttribute("datetime"), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(await time.innerText(), "just now");

  // Escape cancels.
  await item.getByRole("button", { name: "Rename thread" }).click();
  const field = threads(page).getByRole("textbox", { name: "Thread title" });
  await field.fill("Not this");
  await field.press("Escape");
  await field.waitFor({ state: "detached" });
  await entry(page, "hello rename me").waitFor();

  // Enter saves.
  await entry(page, "hello rename me").getByRole("button", { name: "Rename thread" }).click();
  await field.fill("  Rivers and lakes  ");
  await field.press("Enter");
  await entry(page, "Rivers and lakes").waitFor();
  const id = threadOf(page);
  assert.equal((await api(`/api/threads/${id}`)).title, "Rivers and lakes");
  await reload(page);
  await entry(page, "Rivers and lakes").waitFor();
  assert.equal(await entry(page, "hello rename me").count(), 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a thread is deleted after a confirmation, and stays gone after a reload", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "hello delete me");
  await idle(page);
  const id = threadOf(page);
  await threads(page).getByRole("button", { name: "New thread" }).click();
  await send(page, "hello keep me");
  await idle(page);

  const doomed = () => entry(page, "hello delete me");
  await doomed().getByRole("button", { name: "Delete thread" }).click();
  const confirm = threads(page).getByRole("group", { name: "Delete this thread?" });
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await confirm.waitFor({ state: "detached" });
  assert.equal(await doomed().count(), 1, "Cancel keeps the thread");

  await doomed().getByRole("button", { name: "Delete thread" }).click();
  await confirm.getByRole("button", { name: "Delete" }).click();
  await doomed().waitFor({ state: "detached" });
  assert.equal((await fetch(`${server.url}/api/threads/${id}`)).status, 404);
  await reload(page);
  await entry(page, "hello keep me").waitFor();
  assert.equal(await doomed().count(), 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test("search filters the thread list", async () => {
  const { page, problems } = await openPage(browser, server.url);
  for (const text of ["hello search alpha", "hello search beta"]) {
    await threads(page).getByRole("button", { name: "New thread" }).click();
    await send(page, text);
    await idle(page);
  }
  await reload(page);
  const search = threads(page).getByRole("searchbox", { name: "Search threads" });
  await search.fill("ALPHA");
  await entry(page, "hello search beta").waitFor({ state: "detached" });
  await entry(page, "hello search alpha").waitFor();
  await search.fill("no such thread anywhere");
  await threads(page).getByRole("status").getByText("No thread matches this search.").waitFor();
  await search.fill("");
  await entry(page, "hello search beta").waitFor();
  await entry(page, "hello search alpha").waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});

test("Copy message puts the message's text in the clipboard and says so", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "backend_tool 6 * 7");
  await idle(page);
  const user = log(page).locator(".msg-user").first();
  await user.getByRole("button", { name: "Copy message" }).click();
  await user.getByRole("status").getByText("Copied").waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), "backend_tool 6 * 7");
  const answer = log(page).locator(".msg-assistant").last();
  await answer.getByRole("button", { name: "Copy message" }).click();
  await answer.getByRole("status").getByText("Copied").waitFor();
  assert.match(await page.evaluate(() => navigator.clipboard.readText()), /42/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("Regenerate answer replaces the last answer, on the server too", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "backend_tool 6 * 7");
  await idle(page);
  const before = await shownIds(page);
  const regenerate = log(page).getByRole("button", { name: "Regenerate answer" });
  assert.equal(await regenerate.count(), 1, "only the last answer offers it");
  await regenerate.click();
  await idle(page);
  await log(page).getByText("6 * 7 = 42").first().waitFor();
  const after = await shownIds(page);
  assert.equal(after.length, before.length, `${before} → ${after}`);
  assert.equal(after[0], before[0], "the question stays");
  assert.ok(after.slice(1).every((id) => !before.includes(id)), "every part of the answer is new");
  const view = await api(`/api/threads/${threadOf(page)}`);
  assert.deepEqual(view.messages.filter((m) => m.role !== "tool").map((m) => m.id), after);
  await reload(page);
  assert.deepEqual(await shownIds(page), after);
  assert.deepEqual(problems, []);
  await page.close();
});

test("Edit message cuts the conversation there and sends the edited message", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "backend_tool 6 * 7");
  await idle(page);
  await send(page, "backend_tool 2 + 3");
  await idle(page);
  await log(page).getByText("2 + 3 = 5").first().waitFor();
  const first = log(page).locator(".msg-user").first();
  await first.getByRole("button", { name: "Edit message" }).click();
  const box = log(page).getByRole("textbox", { name: "Edit message" });
  await box.fill("backend_tool 5 * 5");
  await box.press("Enter");
  await idle(page);
  await log(page).getByText("5 * 5 = 25").first().waitFor();
  const text = await log(page).innerText();
  assert.doesNotMatch(text, /6 \* 7|2 \+ 3/);
  const shown = await shownIds(page);
  const view = await api(`/api/threads/${threadOf(page)}`);
  assert.deepEqual(view.messages.filter((m) => m.role !== "tool").map((m) => m.id), shown);
  assert.deepEqual(
    view.messages.filter((m) => m.role === "user").map((m) => m.content),
    ["backend_tool 5 * 5"],
  );
  await reload(page);
  assert.deepEqual(await shownIds(page), shown);
  assert.doesNotMatch(await log(page).innerText(), /6 \* 7|2 \+ 3/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("Good answer is pressed, stored with the thread, and still pressed after a reload", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "hello thumbs");
  await idle(page);
  const answer = () => log(page).locator(".msg-assistant").last();
  const good = () => answer().getByRole("button", { name: "Good answer" });
  const bad = () => answer().getByRole("button", { name: "Bad answer" });
  assert.equal(await good().getAttribute("aria-pressed"), "false");
  const stored = page.waitForResponse((r) => r.url().endsWith("/feedback") && r.status() === 200);
  await good().click();
  await stored;
  assert.equal(await good().getAttribute("aria-pressed"), "true");
  await reload(page);
  assert.equal(await good().getAttribute("aria-pressed"), "true");
  assert.equal(await bad().getAttribute("aria-pressed"), "false");
  const changed = page.waitForResponse((r) => r.url().endsWith("/feedback") && r.status() === 200);
  await bad().click();
  await changed;
  assert.equal(await good().getAttribute("aria-pressed"), "false");
  assert.equal(await bad().getAttribute("aria-pressed"), "true");
  const view = await api(`/api/threads/${threadOf(page)}`);
  assert.deepEqual(Object.values(view.feedback), ["down"]);
  assert.deepEqual(problems, []);
  await page.close();
});
