// Headless-Chromium test of the live viewer: the page loads, the chain moves, the N control
// changes the number of drawn links, pause stops the motion, and the phase plot has labelled
// axes with ticks and units whose range covers the orbit.
// Needs a running `pendula serve` at PENDULA_URL (tests/serve.rs starts one) and Debian's
// chromium at /usr/bin/chromium (or PENDULA_CHROMIUM). PENDULA_SCREENSHOT=FILE.png saves one.
import { chromium } from "playwright-core";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const url = process.env.PENDULA_URL;
if (!url) {
  console.error("PENDULA_URL is not set");
  process.exit(2);
}
const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pendula-chromium-"));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.PENDULA_CHROMIUM || "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1400, height: 700 },
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok - ${name}`);
  } catch (e) {
    failed++;
    console.log(`not ok - ${name}\n  ${String(e.stack || e).split("\n").join("\n  ")}`);
  }
}

const page = context.pages()[0] || (await context.newPage());
const chain = page.locator("#chain");
const data = (key) => chain.evaluate((el, k) => el.dataset[k], key);
const frames = async () => Number(await data("frames"));

try {
  await check("page loads and frames arrive", async () => {
    await page.goto(url);
    await page.waitForFunction(() => Number(document.getElementById("chain").dataset.frames) > 10, null, {
      timeout: 15000,
    });
    assert.equal(await data("links"), "3");
  });

  await check("the chain moves (two screenshots of the chain differ)", async () => {
    const a = await chain.screenshot();
    const t0 = Number(await data("t"));
    await page.waitForTimeout(400);
    const b = await chain.screenshot();
    assert.ok(Number(await data("t")) > t0, "model time advances");
    assert.notDeepEqual(a, b);
  });

  await check("changing N changes the number of drawn links", async () => {
    await page.fill("#n", "6");
    await page.press("#n", "Tab");
    await page.waitForFunction(() => document.getElementById("chain").dataset.links === "6", null, {
      timeout: 10000,
    });
    await page.fill("#n", "2");
    await page.press("#n", "Tab");
    await page.waitForFunction(() => document.getElementById("chain").dataset.links === "2", null, {
      timeout: 10000,
    });
  });

  await check("the phase plot has labelled axes with ticks and units", async () => {
    const phase = page.locator("#phase");
    const pd = (k) => phase.evaluate((el, k) => el.dataset[k], k);
    await page.waitForFunction(() => document.getElementById("phase").dataset.ylabel !== undefined);
    assert.equal(await pd("xlabel"), "θ₁ / rad (wrapped)");
    assert.equal(await pd("ylabel"), "dθ₁/dt / (rad/s)");
    assert.equal(await pd("xticks"), "−π,−π/2,0,π/2,π");
    // One draw's wmax and ticks, read together: the orbit keeps growing between two reads,
    // and on a busy machine a later draw's ticks can outgrow an earlier wmax twice over.
    const [w, ticks] = await phase.evaluate((el) => [el.dataset.wmax, el.dataset.yticks]);
    const wmax = Number(w);
    const yt = ticks.split(",").map(Number);
    assert.ok(yt.length >= 3 && yt.includes(0), `y ticks ${yt}`);
    assert.equal(yt[0], -yt[yt.length - 1], `y ticks ${yt} are symmetric`);
    const top = yt[yt.length - 1];
    assert.ok(top >= wmax && top < 2 * wmax, `y range ±${top} covers the orbit's ${wmax} closely`);
    // Ink where the tick labels and axis titles are: below and left of the frame.
    const ink = await phase.evaluate((el) => {
      const g = el.getContext("2d");
      const dark = (d) => { let k = 0; for (let i = 0; i < d.length; i += 4) if (d[i] < 128) k++; return k; };
      return {
        below: dark(g.getImageData(52, el.height - 38, el.width - 64, 38).data),
        left: dark(g.getImageData(0, 24, 48, el.height - 64).data),
      };
    });
    assert.ok(ink.below > 50 && ink.left > 50, `axis labels drawn (${JSON.stringify(ink)})`);
    // The chosen link names the axes.
    await page.fill("#plink", "2");
    await page.waitForFunction(() => document.getElementById("phase").dataset.ylabel === "dθ₂/dt / (rad/s)", null, {
      timeout: 10000,
    });
    assert.equal(await pd("xlabel"), "θ₂ / rad (wrapped)");
    await page.fill("#plink", "1");
  });

  await check("pause stops the motion", async () => {
    await page.fill("#n", "3");
    await page.press("#n", "Tab");
    await page.waitForFunction(() => document.getElementById("chain").dataset.links === "3");
    await page.waitForTimeout(1500);
    if (process.env.PENDULA_SCREENSHOT) {
      await page.screenshot({ path: process.env.PENDULA_SCREENSHOT });
    }
    await page.click("#pause");
    await page.waitForFunction(() => document.getElementById("chain").dataset.paused === "true", null, {
      timeout: 10000,
    });
    const f0 = await frames();
    const t0 = await data("t");
    const a = await chain.screenshot();
    await page.waitForTimeout(500);
    const b = await chain.screenshot();
    assert.ok((await frames()) > f0 + 5, "frames keep arriving while paused");
    assert.equal(await data("t"), t0);
    assert.deepEqual(a, b);
    await page.click("#pause");
    await page.waitForFunction(() => document.getElementById("chain").dataset.paused === "false");
  });
} finally {
  await context.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
}
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
