// Tool- and state-based generative UI as the demo's scenarios send it, located by role and name:
// `agentic_ui` shows its plan (shared state) as a live step list that ends fully completed, and
// `tool_ui` draws its `generate_haiku` call as a card, with the call's JSON one click away.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, stopServer, launchBrowser, openPage, send, idle, shoot } from "./support.mjs";

let server;
let browser;

before(async () => {
  server = await startServer(["--demo-delay-ms", "2"]);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  stopServer(server);
});

test("agentic_ui: the plan in the shared state is a live step list", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "agentic_ui");
  const log = page.getByRole("log", { name: "Conversation" });
  // While the run goes, the list shows steps moving (not only the end state).
  const progress = log.locator('[data-state-key="plan"] progress');
  await progress.waitFor();
  await idle(page);
  assert.equal(await progress.getAttribute("aria-label"), "5 of 5 steps completed");
  for (const step of ["Gather the requirements", "Publish the site"]) {
    assert.ok(await log.getByText(step).isVisible(), step);
  }
  await shoot(page, "genui-agentic-ui", { fullPage: false });
  assert.deepEqual(problems, []);
  await page.close();
});

test("tool_ui: the haiku tool call is drawn as a card, its JSON one click away", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "tool_ui");
  await idle(page);
  const call = page.getByRole("group", { name: "Tool call: generate_haiku" });
  const card = call.locator('figure[data-component="card"]');
  await card.waitFor();
  const text = await card.textContent();
  assert.match(text, /[\u3040-\u30ff\u4e00-\u9fff]/, "the Japanese heading");
  assert.match(text, /[A-Za-z]{3,}/, "the English body");
  // The call's arguments, as JSON, behind its summary.
  await call.locator("summary").click();
  assert.match(await call.locator(".tool-args").textContent(), /"japanese"/);
  await shoot(page, "genui-tool-ui", { fullPage: false });
  assert.deepEqual(problems, []);
  await page.close();
});

for (const [choice, badge] of [
  ["Approve", "approved"],
  ["Reject", "rejected"],
]) {
  test(`approval: ${choice} leaves the decision on the call's card (${badge}, never "done" when rejected)`, async () => {
    const { page } = await openPage(browser, server.url);
    await send(page, "approval");
    const approval = page.getByRole("group", { name: "Approval: request_approval" });
    await approval.getByRole("button", { name: choice, exact: true }).click();
    await idle(page);
    const card = page.getByRole("group", { name: "Tool call: request_approval" });
    assert.equal(await card.getAttribute("data-status"), badge);
    assert.equal((await card.locator(".badge").first().textContent()).trim(), badge);
    if (choice === "Reject") await shoot(page, "decision-rejected", { fullPage: false });
    await page.close();
  });
}

test("a message typed while an approval waits is queued, then sent once it is answered", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "hitl");
  await idle(page);
  const reject = page.getByRole("button", { name: "Reject", exact: true }).first();
  await reject.waitFor();
  await send(page, "after the approval");
  const note = page.getByRole("status").filter({ hasText: "queued" });
  await note.waitFor();
  const log = page.getByRole("log", { name: "Conversation" });
  assert.equal(await log.getByText("after the approval").count(), 0, "not sent past the approval");
  await reject.click();
  await log.getByText("after the approval").waitFor({ timeout: 15000 });
  await note.waitFor({ state: "detached" });
  await idle(page);
  assert.deepEqual(problems, []);
  await page.close();
});
