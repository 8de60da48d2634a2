// The release binary, copied alone into an empty directory, serves the full app: the page
// renders on the server, hydrates in Chromium, and every asset comes from inside the binary.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startServer, stopServer, launchBrowser, watchProblems } from "./support.mjs";

const shots = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../screenshots");
let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  stopServer(server);
});

test("GET /healthz reports ok and an embedded site", async () => {
  const resp = await fetch(`${server.url}/healthz`);
  assert.equal(resp.status, 200);
  const body = await resp.json();
  assert.equal(body.status, "ok");
  assert.equal(body.site, true, "the binary should carry its site");
});

test("the page is server-rendered before any script runs", async () => {
  const html = await (await fetch(`${server.url}/`)).text();
  assert.match(html, /<h1[^>]*>agui-studio<\/h1>/);
  assert.match(html, /data-hydrated="false"[^>]*>Page loading</);
  assert.match(html, /\/pkg\/agui-studio\.js/);
});

test("the page hydrates in Chromium without errors", async () => {
  const page = await browser.context.newPage();
  const problems = watchProblems(page);
  await page.goto(server.url);
  await page.waitForSelector('#hydration-status[data-hydrated="true"]', { timeout: 15000 });
  assert.equal(await page.textContent("#hydration-status"), "Page ready");
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, "home.png"), fullPage: true, animations: "disabled" });
  assert.deepEqual(problems, []);
  await page.close();
});

test("assets are served from the binary, precompressed when the client accepts it", async () => {
  const wasm = await fetch(`${server.url}/pkg/agui-studio.wasm`, {
    headers: { "accept-encoding": "br" },
  });
  assert.equal(wasm.status, 200);
  assert.equal(wasm.headers.get("content-type"), "application/wasm");
  assert.equal(wasm.headers.get("content-encoding"), "br");
  const etag = wasm.headers.get("etag");
  assert.ok(etag, "assets carry an ETag");
  const again = await fetch(`${server.url}/pkg/agui-studio.wasm`, {
    headers: { "if-none-match": etag },
  });
  assert.equal(again.status, 304);
  const css = await fetch(`${server.url}/pkg/agui-studio.css`);
  assert.equal(css.status, 200);
  assert.match(css.headers.get("content-type"), /text\/css/);
});

test("an unknown path is a 404 page", async () => {
  const resp = await fetch(`${server.url}/no/such/page`);
  assert.equal(resp.status, 404);
  assert.match(await resp.text(), /Not found/);
});
