// What the hardening changed that a user sees, in Chromium: with a token set, the page asks to
// sign in (and shows nothing of the threads before), signing in with the form opens the studio
// with a session cookie and the page still hydrates under its Content-Security-Policy; a remote
// image named by an agent waits for a click on "Load image", and the image request is made only
// then.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import path from "node:path";
import { startServer, stopServer, launchBrowser, watchProblems, send, idle, shoot, shots, inputIds, withIds } from "./support.mjs";

let server;
let browser;

before(async () => {
  server = await startServer(["--auth-token", "open-sesame-1", "--demo-delay-ms", "2"]);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  stopServer(server);
});

/** Sign in through the form (unless the context's cookie already did); waits for hydration. */
async function signIn(page) {
  await page.goto(server.url);
  const form = page.locator('input[name="token"]');
  if ((await form.count()) > 0) {
    await form.fill("open-sesame-1");
    await form.press("Enter");
  }
  await page.waitForSelector('#hydration-status[data-hydrated="true"]', { timeout: 20000 });
}

/** The sign-in screen has no theme toggle: light and dark by the system preference. */
async function shootBoth(page, name) {
  for (const scheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: path.join(shots, `${name}-${scheme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: "light" });
}

test("a token-protected studio asks to sign in, then works with its session cookie", async () => {
  // A thread made through the API first: the sign-in screen must not show it.
  const r = await fetch(`${server.url}/api/agents/demo`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer open-sesame-1" },
    body: JSON.stringify({
      threadId: "t-private",
      runId: "r-private",
      messages: [{ id: "u1", role: "user", content: "the private plan" }],
    }),
  });
  assert.equal(r.status, 200);
  await r.text();

  const page = await browser.context.newPage();
  const problems = watchProblems(page);
  const resp = await page.goto(server.url);
  assert.equal(resp.status(), 401);
  assert.ok(!(await page.content()).includes("the private plan"));
  await page.locator('input[name="token"]').waitFor({ timeout: 15000 });
  await shootBoth(page, "sign-in");

  await signIn(page);
  const csp = (await page.request.get(server.url)).headers()["content-security-policy"] ?? "";
  assert.match(csp, /script-src[^;]*'nonce-/);
  const cookies = await browser.context.cookies(server.url);
  const session = cookies.find((c) => c.name === "agui_session");
  assert.ok(session, "a session cookie");
  assert.equal(session.httpOnly, true);
  assert.equal(session.sameSite, "Strict");
  // The studio works through the cookie alone.
  await page.getByRole("button", { name: /the private plan/ }).first().waitFor({ timeout: 15000 });
  await send(page, "chat");
  await page.getByRole("log", { name: "Conversation" }).getByText("Hello from agui-studio").waitFor({ timeout: 15000 });
  await idle(page);
  // Only answers before signing in (the page and its favicon: 401) were errors.
  assert.deepEqual(
    problems.filter((p) => !p.includes("401")),
    [],
  );
  await page.close();
});

test("a remote image named by an agent loads only when the user asks", async () => {
  // The "remote" image host records whether it was asked for anything.
  let imageRequests = 0;
  const pixel = Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
    "base64",
  );
  const images = http.createServer((req, res) => {
    imageRequests += 1;
    res.writeHead(200, { "content-type": "image/png" });
    res.end(pixel);
  });
  await new Promise((r) => images.listen(0, "127.0.0.1", r));
  // An AG-UI agent on another origin whose render hint names an image on that host. The hint
  // needs an https: URL; the page is pointed at it by the test only after the click.
  const imageUrl = `https://127.0.0.1:${images.address().port}/pixel.png`;
  const events = [
    { type: "RUN_STARTED", threadId: "t", runId: "r" },
    { type: "CUSTOM", name: "ui_render_hint", value: { component: "image", props: { url: imageUrl, alt: "A tracking pixel" } } },
    { type: "RUN_FINISHED", threadId: "t", runId: "r" },
  ];
  const foreign = http.createServer(async (req, res) => {
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "access-control-allow-origin": "*",
      "access-control-allow-headers": "*",
    });
    if (req.method === "OPTIONS") return res.end();
    const ids = await inputIds(req);
    for (const e of events) res.write(`data: ${JSON.stringify(withIds(e, ids))}\n\n`);
    res.end();
  });
  await new Promise((r) => foreign.listen(0, "127.0.0.1", r));
  try {
    const page = await browser.context.newPage();
    await signIn(page);
    const requested = [];
    page.on("request", (req) => {
      if (req.url().includes("pixel.png")) requested.push(req.url());
    });
    const agentUrl = page.getByRole("textbox", { name: "Agent URL" });
    await agentUrl.fill(`http://127.0.0.1:${foreign.address().port}/agent`);
    await agentUrl.press("Enter");
    await send(page, "show me");
    const load = page.getByRole("button", { name: /Load image from 127\.0\.0\.1/ });
    await load.waitFor({ timeout: 15000 });
    await idle(page);
    await page.waitForTimeout(300);
    assert.deepEqual(requested, [], "no request for the image before the click");
    await shoot(page, "image-blocked", { fullPage: false });
    const asked = page.waitForRequest((req) => req.url().includes("pixel.png"), { timeout: 10000 });
    await load.click();
    const req = await asked;
    assert.ok(!req.headers()["referer"], "no Referer goes with it");
    await page.close();
  } finally {
    foreign.close();
    images.close();
  }
});
