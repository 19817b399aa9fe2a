// The status page in headless Chromium: it loads with nothing fetched from outside sluiced,
// polls status.json, and its chart, legend and throttled-keys table follow limiter traffic
// sent while it is open. Run by test_status_page.py:
//
//   node status_page.js METRICS_PORT REDIS_PORT OUT_DIR
//
// Writes OUT_DIR/status_page.png, prints "ALL OK" and exits 0 when every check passes.

"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const net = require("node:net");
const path = require("node:path");
const { chromium } = require("playwright-core");

const [metricsPort, redisPort, outDir] = process.argv.slice(2);
const origin = `http://127.0.0.1:${metricsPort}`;
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

// Commands as RESP, pipelined on one connection; resolves once the trailing PING's PONG
// arrives (every other reply here is an array or +OK, so "+PONG" can only be that one).
function sendCommands(commands) {
  const encode = (args) =>
    `*${args.length}\r\n` + args.map((a) => `$${Buffer.byteLength(String(a))}\r\n${a}\r\n`).join("");
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(redisPort), "127.0.0.1");
    let received = "";
    socket.on("error", reject);
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      if (received.endsWith("+PONG\r\n")) {
        socket.end();
        resolve(received);
      }
    });
    socket.write([...commands, ["PING"]].map(encode).join(""));
  });
}

async function main() {
  const userDataDir = fs.mkdtempSync(path.join(outDir, "chromium-profile-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
    viewport: { width: 1200, height: 900 },
  });
  try {
    const page = context.pages()[0] || (await context.newPage());
    const problems = [];
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
    // The page must work offline: anything not from sluiced itself is refused and reported.
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(origin + "/")) return route.continue();
      problems.push(`external request: ${url}`);
      return route.abort();
    });

    const response = await page.goto(origin + "/");
    assert.equal(response.status(), 200);
    assert.equal(await page.title(), "sluice status");
    await page.waitForFunction(() => window.sluiceStatus && window.sluiceStatus.polls >= 2,
                               null, { timeout: 15000 });
    assert.match(await page.textContent("#link"), /live/);

    // Traffic while the page watches: a policy that lets 5 through and refuses the rest, and
    // a plain token bucket.
    const commands = [["RL.POLICY", "SET", "pagetest", "FIXEDWINDOW", 5, 60000]];
    for (let i = 0; i < 40; i++) commands.push(["RL.TAKE", "user:chart", "pagetest"]);
    for (let i = 0; i < 10; i++) commands.push(["RL.TOKENBUCKET", "plain:1", 2, 1, 60000]);
    await sendCommands(commands);

    await page.waitForFunction(() => {
      const peak = window.sluiceStatus.peaks["policy:pagetest"];
      return peak && peak.allowed > 0 && peak.refused > 0;
    }, null, { timeout: 15000 });
    await page.waitForFunction(() => (window.sluiceStatus.peaks["command:rl.tokenbucket"] || {})
                                         .refused > 0, null, { timeout: 15000 });
    const draws = await page.evaluate(() => window.sluiceStatus.draws);

    const legend = await page.textContent("#legend");
    assert.match(legend, /pagetest \(fixedwindow\)/);
    assert.match(legend, /RL\.TOKENBUCKET/);
    const topKeys = await page.$$eval("#top td.key", (cells) => cells.map((c) => c.textContent));
    assert.equal(topKeys[0], "user:chart", `top keys: ${topKeys}`);
    assert.ok(topKeys.includes("plain:1"), `top keys: ${topKeys}`);
    assert.equal(await page.textContent("#appendfsync"), "everysec");
    assert.equal(await page.textContent("#background-error"), "none");

    // The chart's first series colour (#2e86de) must be on the canvas: lines were drawn.
    const coloured = await page.evaluate(() => {
      const canvas = document.getElementById("chart");
      const { data } = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height);
      let n = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (Math.abs(data[i] - 0x2e) < 40 && Math.abs(data[i + 1] - 0x86) < 40 &&
            Math.abs(data[i + 2] - 0xde) < 40 && data[i + 3] > 128) n++;
      }
      return n;
    });
    assert.ok(coloured > 20, `only ${coloured} chart pixels in the first series colour`);

    // The chart keeps updating on later polls.
    await page.waitForFunction((d) => window.sluiceStatus.draws > d, draws, { timeout: 15000 });

    const screenshot = path.join(outDir, "status_page.png");
    await page.screenshot({ path: screenshot, fullPage: true });
    assert.ok(fs.statSync(screenshot).size > 10000, "screenshot is suspiciously small");
    assert.deepEqual(problems, []);
    console.log(JSON.stringify({ screenshot, legend, topKeys, coloured }));
    console.log("ALL OK");
  } finally {
    await context.close();
  }
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
