// The execution-graph SVG rendered by a real browser (Debian's chromium,
// headless, driven by puppeteer-core): for SB, MP and Dekker the page shown
// in the VS Code webview (src/webview.ts, bundled here with esbuild) has one
// node per witness event (checked against `litmus explain --history`, a
// different printer of the same witness), edges of every kind, the cycle's
// edges marked and numbered (checked against `litmus explain`'s cycle), the
// statement texts of the source lines, no overlapping events or edge labels
// (as rendered); clicking an
// event posts its line. Screenshots go to target/screenshots/*.png.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildSync } from "esbuild";
import puppeteer from "puppeteer-core";
import { examples, litmusBin, root } from "../lib/lsp-client.mjs";
import { CHROMIUM_FLAGS } from "../lib/chromium.mjs";

const chromium = process.env.LITMUS_CHROMIUM ?? "/usr/bin/chromium";
const shots = path.join(root, "target/screenshots");
let browser;
let profile;
let executionHtml;

before(async () => {
  assert.ok(fs.existsSync(chromium), `${chromium} is missing: run scripts/install-editor-deps.sh`);
  const out = buildSync({
    entryPoints: [path.join(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), "../src/webview.ts")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    write: false,
  });
  ({ executionHtml } = await import("data:text/javascript;base64," + Buffer.from(out.outputFiles[0].text).toString("base64")));
  profile = fs.mkdtempSync(path.join(os.tmpdir(), "litmus-chromium-"));
  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    userDataDir: profile,
    args: CHROMIUM_FLAGS,
  });
  fs.mkdirSync(shots, { recursive: true });
});

after(async () => {
  await browser?.close();
  if (profile) fs.rmSync(profile, { recursive: true, force: true });
});

const explain = (file, ...extra) =>
  execFileSync(litmusBin(), ["explain", path.join(examples, file), "--violation", "1", ...extra], { encoding: "utf8" });

/** `P0: W(x,1) R(y,0)` → [{thread: "P0", label: "W x=1"}, …] */
function historyEvents(text) {
  const out = [];
  for (const line of text.trim().split("\n")) {
    const [thread, ops] = line.split(": ");
    for (const m of ops.matchAll(/([RW])\(([^,]+),([^)]+)\)/g)) {
      out.push({ thread, label: `${m[1]} ${m[2]}=${m[3]}` });
    }
  }
  return out.sort((a, b) => (a.thread + a.label).localeCompare(b.thread + b.label));
}

for (const name of ["sb", "mp", "dekker"]) {
  test(`${name}: the rendered execution graph has the witness's events and edges`, async () => {
    const file = `${name}.litmus`;
    const source = fs.readFileSync(path.join(examples, file), "utf8").split("\n");
    const svg = explain(file, "--svg");
    const expected = historyEvents(explain(file, "--history"));
    const cycleSteps = (explain(file).match(/its trace has the cycle: (.*)$/m)[1].match(/—\w+→/g) ?? []).length;
    assert.ok(cycleSteps >= 2);

    const page = await browser.newPage();
    await page.setViewport({ width: 1000, height: 760 });
    await page.evaluateOnNewDocument(() => {
      window.posted = [];
      window.acquireVsCodeApi = () => ({ postMessage: (m) => window.posted.push(m) });
    });
    // Loaded as a page of its own, as the webview loads it.
    const html = path.join(profile, `${name}.html`);
    fs.writeFileSync(html, executionHtml(svg, `${name} execution`, "testnonce", "'self'"));
    await page.goto(`file://${html}`, { waitUntil: "load" });

    const dom = await page.evaluate(() => {
      const box = (el) => {
        const r = el.getBoundingClientRect();
        return { x: r.x, y: r.y, w: r.width, h: r.height };
      };
      const events = [...document.querySelectorAll("svg g.event")].map((g) => ({
        thread: g.getAttribute("data-thread-name"),
        line: Number(g.getAttribute("data-line")),
        access: g.querySelector("text.access").textContent.replace(/^\w+: /, ""),
        stmt: g.querySelector("text.stmt").textContent.replace(/^L\d+ ?/, ""),
        box: box(g.querySelector("rect.box")),
      }));
      const edges = [...document.querySelectorAll("svg g.edge")].map((g) => ({
        kind: g.getAttribute("data-kind"),
        cycle: g.getAttribute("data-cycle"),
        marked: g.classList.contains("cycle"),
        width: Number(getComputedStyle(g.querySelector("path.line")).strokeWidth.replace("px", "")),
        length: g.querySelector("path.line").getTotalLength(),
      }));
      const badges = [...document.querySelectorAll("svg g.cycle-badge text")].map((t) => t.textContent);
      const svgBox = box(document.querySelector("svg"));
      // Edge labels (text and cycle badge) as the browser lays them out, and
      // every node box (events and initial writes).
      const labels = [...document.querySelectorAll("svg g.edge-label-group")].map((g) => ({
        edge: g.getAttribute("data-edge"),
        text: g.querySelector("text.edge-label").textContent,
        box: box(g),
      }));
      const nodes = [...document.querySelectorAll("svg rect.box")].map(box);
      return { events, edges, badges, svgBox, labels, nodes };
    });

    // One node per witness event, with its access.
    const got = dom.events.map((e) => ({ thread: e.thread, label: e.access })).sort((a, b) => (a.thread + a.label).localeCompare(b.thread + b.label));
    assert.deepEqual(got, expected);
    // Each node shows the text of the statement on its source line.
    for (const e of dom.events) {
      assert.ok(e.stmt.length > 0 && source[e.line - 1].includes(e.stmt), `${e.stmt} on line ${e.line}`);
      assert.ok(e.box.w > 40 && e.box.h > 20, "drawn");
      assert.ok(e.box.x >= dom.svgBox.x && e.box.x + e.box.w <= dom.svgBox.x + dom.svgBox.w, "inside the picture");
    }
    for (const [i, a] of dom.events.entries()) {
      for (const b of dom.events.slice(i + 1)) {
        const apart = a.box.x + a.box.w <= b.box.x || b.box.x + b.box.w <= a.box.x || a.box.y + a.box.h <= b.box.y || b.box.y + b.box.h <= a.box.y;
        assert.ok(apart, `events overlap: ${a.access} / ${b.access}`);
      }
    }
    // No two edge labels overlap, and none covers a node, as rendered.
    const apart = (a, b) => a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
    for (const [i, a] of dom.labels.entries()) {
      for (const b of dom.labels.slice(i + 1)) {
        assert.ok(apart(a.box, b.box), `labels overlap: ${a.text} (${a.edge}) / ${b.text} (${b.edge})`);
      }
      assert.ok(dom.nodes.every((n) => apart(a.box, n)), `label ${a.text} (${a.edge}) covers a node`);
    }
    // Edges of every kind, all drawn; the cycle marked, numbered 1..k, thicker.
    // (co only between a test's own writes: none from an initial write, as herd7 draws it.)
    const kinds = [...new Set(dom.edges.map((e) => e.kind))].sort();
    assert.ok(["fr", "po", "rf"].every((k) => kinds.includes(k)) && kinds.every((k) => ["co", "fr", "po", "rf"].includes(k)), kinds.join());
    assert.equal(await page.evaluate(() => document.querySelectorAll('svg [data-from^="init-"][data-kind="co"]').length), 0);
    assert.ok(dom.edges.every((e) => e.length > 5), "every edge has a visible path");
    const cycle = dom.edges.filter((e) => e.marked);
    assert.equal(cycle.length, cycleSteps, "as many marked edges as the cycle has steps");
    assert.deepEqual(cycle.map((e) => Number(e.cycle)).sort((a, b) => a - b), [...Array(cycleSteps).keys()].map((k) => k + 1));
    assert.deepEqual(dom.badges.map(Number).sort((a, b) => a - b), [...Array(cycleSteps).keys()].map((k) => k + 1));
    const thin = Math.max(...dom.edges.filter((e) => !e.marked).map((e) => e.width));
    assert.ok(cycle.every((e) => e.width > thin), "cycle edges are thicker");

    // A click on an event asks the editor to reveal its line.
    await page.click("svg g.event rect.box");
    const posted = await page.evaluate(() => window.posted);
    assert.equal(posted.length, 1);
    assert.equal(posted[0].type, "reveal");
    assert.ok(dom.events.some((e) => e.line === posted[0].line && e.thread === posted[0].thread), JSON.stringify(posted));

    // The picture fits the panel: no wider than the page (a 1280 px window's
    // side panel is narrower than the drawing).
    await page.setViewport({ width: 420, height: 760 });
    const fits = await page.evaluate(() => document.querySelector("svg").getBoundingClientRect().width <= window.innerWidth);
    assert.ok(fits, "the graph fits a narrow panel");
    await page.setViewport({ width: 1000, height: 760 });

    await page.mouse.move(0, 0); // no hover outline in the picture
    await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });

    // A dark theme: the page takes the editor's background (VS Code sets
    // the variable); the picture stays a white card, its text readable.
    await page.evaluate(() => document.documentElement.style.setProperty("--vscode-editor-background", "rgb(30, 30, 30)"));
    const colours = await page.evaluate(() => ({
      body: getComputedStyle(document.body).backgroundColor,
      svg: getComputedStyle(document.querySelector("svg")).backgroundColor,
    }));
    assert.deepEqual(colours, { body: "rgb(30, 30, 30)", svg: "rgb(255, 255, 255)" });

    // The cursor's line (the extension posts it): its events are outlined.
    const line = dom.events[0].line;
    await page.evaluate((l) => window.postMessage({ type: "cursor", line: l }, "*"), line);
    await page.waitForFunction(() => document.querySelector("g.event.current") !== null);
    const outlined = await page.evaluate(() =>
      [...document.querySelectorAll("g.event")].map((g) => ({
        line: Number(g.getAttribute("data-line")),
        current: g.classList.contains("current"),
        stroke: getComputedStyle(g.querySelector("rect.box")).strokeWidth,
      })),
    );
    assert.ok(outlined.every((e) => e.current === (e.line === line)), JSON.stringify(outlined));
    assert.ok(outlined.filter((e) => e.current).every((e) => e.stroke === "4px"), JSON.stringify(outlined));

    // Zoom: + draws it larger than a narrow panel, which then pans by
    // dragging the background; Fit brings it back inside.
    await page.setViewport({ width: 420, height: 500 });
    const width = () => page.evaluate(() => document.querySelector("svg").getBoundingClientRect().width);
    const fitted = await width();
    for (let i = 0; i < 4; i++) await page.click("#zoom-in");
    assert.ok((await width()) > 420 && (await width()) > fitted * 2, `zoomed to ${await width()} px`);
    assert.match(await page.$eval("#zoom-level", (e) => e.textContent), /^\d+%$/);
    const bg = await page.evaluate(() => {
      const r = document.querySelector("svg").getBoundingClientRect();
      return { x: r.x + r.width * 0.5, y: Math.min(r.y + 30, 480) }; // the title area: no event there
    });
    await page.mouse.move(Math.min(bg.x, 380), bg.y);
    await page.mouse.down();
    await page.mouse.move(Math.min(bg.x, 380) - 150, bg.y - 20, { steps: 5 });
    await page.mouse.up();
    assert.ok((await page.evaluate(() => window.scrollX)) > 100, "dragging pans the zoomed picture");
    await page.click("#zoom-fit");
    assert.ok((await width()) <= 420, "Fit: inside the panel again");
    await page.setViewport({ width: 1000, height: 760 });

    // The toggle asks the extension for the whole execution.
    await page.click("#whole");
    assert.deepEqual((await page.evaluate(() => window.posted)).at(-1), { type: "whole", on: true });
    const reveals = () => page.evaluate(() => window.posted.filter((m) => m.type === "reveal").length);

    // The text changed (the extension says so): the page says it is
    // outdated and a click no longer jumps (its lines are an older text's).
    await page.evaluate(() => window.postMessage({ type: "outdated" }, "*"));
    await page.waitForFunction(() => document.body.classList.contains("outdated"));
    const banner = await page.evaluate(() => getComputedStyle(document.getElementById("outdated")).display);
    assert.equal(banner, "block");
    await page.click("svg g.event rect.box");
    assert.equal(await reveals(), 1, "no reveal from an outdated picture");
    assert.equal(await page.evaluate(() => document.querySelectorAll("g.event.current").length), 0, "no outline on an outdated picture");
    await page.close();
  });
}

test("dekker: the whole execution has the critical section and says which assertion fails", async () => {
  const cut = explain("dekker.litmus", "--svg");
  const whole = explain("dekker.litmus", "--svg", "--whole");
  const page = await browser.newPage();
  await page.setViewport({ width: 1000, height: 900 });
  await page.evaluateOnNewDocument(() => {
    window.acquireVsCodeApi = () => ({ postMessage: () => {} });
  });
  const count = async (svg, name) => {
    const html = path.join(profile, `${name}.html`);
    fs.writeFileSync(html, executionHtml(svg, name, "testnonce", "'self'", name.includes("whole")));
    await page.goto(`file://${html}`, { waitUntil: "load" });
    return page.evaluate(() => ({
      events: document.querySelectorAll("svg g.event").length,
      text: document.querySelector("svg").textContent,
      checked: document.getElementById("whole").checked,
    }));
  };
  const a = await count(cut, "dekker-cut");
  const b = await count(whole, "dekker-whole");
  assert.ok(b.events > a.events, `${b.events} events whole, ${a.events} up to the cycle`);
  assert.ok(b.text.includes("fetch_add(in_cs, 1)") && b.text.includes("This execution fails `assert (c == 0)`"));
  assert.deepEqual([a.checked, b.checked], [false, true], "the toggle shows which picture this is");
  await page.screenshot({ path: path.join(shots, "dekker-whole.png"), fullPage: true });
  await page.close();
});
