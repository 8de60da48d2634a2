// Human in the loop without JSON, in Chromium: an approval's arguments are edited in the form
// generated from their schema (`hitl`'s steps are checkboxes), raw JSON stays one toggle away and
// in step with the form, and an interrupt's responseSchema is answered with the same form, its
// errors in the error colour. Located by role and accessible name; screenshots in light and dark,
// desktop (1280) and phone (390×844).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, stopServer, launchBrowser, openPage, send, idle, shoot } from "./support.mjs";

let server;
let browser;

before(async () => {
  server = await startServer(["--demo-delay-ms", "2", "--approval-timeout", "30"]);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  stopServer(server);
});

const log = (page) => page.getByRole("log", { name: "Conversation" });

/** Waits (up to 2 s: the form is rebuilt on the next frame) until `locator` has the focus. */
async function hasFocus(locator, what) {
  for (let i = 0; i < 40; i++) {
    if (await locator.evaluate((el) => el === document.activeElement)) return;
    await locator.page().waitForTimeout(50);
  }
  assert.fail(what);
}

/** Screenshots at the desktop size, then at a phone's, with `card` in view. */
async function shootBoth(page, card, name) {
  await card.scrollIntoViewIfNeeded();
  await shoot(page, name, { fullPage: false });
  await page.setViewportSize({ width: 390, height: 844 });
  await card.scrollIntoViewIfNeeded();
  await shoot(page, `${name}-phone`, { fullPage: false });
  await page.setViewportSize({ width: 1280, height: 720 });
}

/** In the page: `el`'s text colour and the colour `var(--danger)` resolves to there. */
const colours = (el) => {
  const probe = document.createElement("span");
  probe.style.color = "var(--danger)";
  el.appendChild(probe);
  const danger = getComputedStyle(probe).color;
  probe.remove();
  return [getComputedStyle(el).color, danger];
};

test("hitl: a step switched off with its checkbox is left out by the agent, no JSON typed", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "hitl");
  await idle(page);
  const card = page.getByRole("group", { name: "Approval: generate_task_steps" });
  const edit = card.getByRole("button", { name: "Edit arguments" });
  assert.equal(await edit.getAttribute("aria-expanded"), "false");
  await edit.click();
  assert.equal(await edit.getAttribute("aria-expanded"), "true");
  // The form's code is a chunk of its own: it may still be on its way.
  await card.getByRole("checkbox").first().waitFor();
  assert.equal(await card.getByRole("checkbox").count(), 6, "one checkbox per step");
  assert.equal(await card.getByRole("textbox").count(), 0, "no JSON unless asked for");
  const fuel = card.getByRole("checkbox", { name: "Fuel the rocket" });
  assert.ok(await fuel.isChecked());
  await fuel.uncheck();
  await shootBoth(page, card, "hitl-form");
  await card.getByRole("button", { name: "Approve with edits" }).click();
  const answer = log(page).locator('[data-role="assistant"]').last();
  await answer.getByText(/go ahead with these 5 steps/).waitFor({ timeout: 15000 });
  const text = await answer.innerText();
  assert.doesNotMatch(text, /Fuel the rocket/, "the switched-off step is left out");
  assert.match(text, /Pack the pressure suits/);
  assert.match(text, /Launch/);
  await idle(page);
  assert.equal(await page.getByRole("group", { name: /^Approval:/ }).count(), 0);
  // The decision stays on the call's card: approved with edits.
  const call = page.getByRole("group", { name: "Tool call: generate_task_steps" });
  assert.equal(await call.getAttribute("data-status"), "edited");
  assert.deepEqual(problems, []);
  await page.close();
});

test("hitl: the JSON view carries the form's edits, and the form reads the JSON back", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "hitl");
  await idle(page);
  const card = page.getByRole("group", { name: "Approval: generate_task_steps" });
  await card.getByRole("button", { name: "Edit arguments" }).click();
  await card.getByRole("checkbox", { name: "Launch", exact: true }).uncheck();
  const advanced = card.getByRole("button", { name: "Advanced: edit as JSON" });
  await advanced.click();
  assert.equal(await advanced.getAttribute("aria-pressed"), "true");
  const editor = card.getByRole("textbox", { name: "Arguments (JSON)" });
  const args = JSON.parse(await editor.inputValue());
  assert.deepEqual(args.steps.at(-1), { description: "Launch", status: "disabled" });
  assert.equal(await card.getByRole("checkbox").count(), 0, "one view at a time");
  // Edit in JSON, go back: the form shows it.
  args.steps[0].status = "disabled";
  await editor.fill(JSON.stringify(args, null, 2));
  await advanced.click();
  assert.equal(await card.getByRole("checkbox", { name: "Check the launch window" }).isChecked(), false);
  assert.equal(await card.getByRole("checkbox", { name: "Launch", exact: true }).isChecked(), false);
  // JSON that does not parse keeps the JSON view, with the reason as an alert.
  await advanced.click();
  await editor.fill("{ nope");
  await advanced.click();
  assert.match(await card.getByRole("alert").innerText(), /Not valid JSON/);
  assert.equal(await advanced.getAttribute("aria-pressed"), "true");
  await card.getByRole("button", { name: "Reject", exact: true }).click();
  await idle(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test("interrupt date: an empty date is refused in the error colour, then the form answers", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "interrupt date");
  await idle(page);
  const card = page.getByRole("group", { name: "Approval: input_required" });
  const field = card.getByLabel("Report date");
  await field.waitFor({ timeout: 15000 });
  assert.equal(await card.getByRole("alert").count(), 0, "no alert before sending");
  await card.getByRole("button", { name: "Submit", exact: true }).click();
  const alert = card.getByRole("alert");
  assert.match(await alert.innerText(), /Report date: This field is required/);
  assert.equal(await field.getAttribute("aria-invalid"), "true");
  const [colour, danger] = await alert.evaluate(colours);
  assert.equal(colour, danger, "the alert is in the error colour");
  const describedBy = (await field.getAttribute("aria-describedby")).split(" ");
  const message = page.locator(`[id="${describedBy.at(-1)}"]`);
  assert.equal((await message.innerText()).trim(), "This field is required.");
  const [fieldColour, fieldDanger] = await message.evaluate(colours);
  assert.equal(fieldColour, fieldDanger, "the field's message is in the error colour");
  await shootBoth(page, card, "interrupt-form-error");
  await field.fill("2026-12-01");
  assert.equal(await field.getAttribute("aria-invalid"), "false", "fixed, no longer marked");
  await card.getByRole("button", { name: "Submit", exact: true }).click();
  await log(page).getByText(/scheduled for 2026-12-01/).waitFor({ timeout: 15000 });
  await idle(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test("approval: the tool's arguments are edited as text fields and the agent uses them", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "approval");
  const card = page.getByRole("group", { name: "Approval: request_approval" });
  await card.getByRole("button", { name: "Edit arguments" }).click({ timeout: 15000 });
  const action = card.getByRole("textbox", { name: "Action" });
  assert.equal(await action.inputValue(), "Deploy build 1.4.2 to production");
  await action.fill("Deploy build 1.4.3 to staging");
  await shootBoth(page, card, "approval-form");
  await card.getByRole("button", { name: "Approve with edits" }).click();
  await log(page)
    .getByText("Approved with your edits — Deploy build 1.4.3 to staging")
    .waitFor({ timeout: 15000 });
  await idle(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test("interrupt delete_files: items are removed and added in the list, the focus follows", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await send(page, "interrupt");
  await idle(page);
  const card = page.getByRole("group", { name: "Approval: delete_files" });
  await card.getByRole("button", { name: "Edit arguments" }).click();
  assert.equal(await card.getByRole("textbox", { name: "Path 2" }).inputValue(), "/tmp/demo/b.log");
  await card.getByRole("button", { name: "Remove Path 2" }).click();
  assert.equal(await card.getByRole("textbox", { name: "Path 2" }).count(), 0);
  const add = card.getByRole("button", { name: "Add to Paths" });
  await hasFocus(add, "the focus stays in the list");
  await add.click();
  const added = card.getByRole("textbox", { name: "Path 2" });
  assert.equal(await added.inputValue(), "");
  await hasFocus(added, "the new item has the focus");
  await page.keyboard.type("/tmp/demo/c.log");
  await card.getByRole("button", { name: "Approve with edits" }).click();
  await log(page)
    .getByText("deleted 2 files (/tmp/demo/a.log, /tmp/demo/c.log)", { exact: false })
    .waitFor({ timeout: 15000 });
  await idle(page);
  assert.deepEqual(problems, []);
  await page.close();
});
