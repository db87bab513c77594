// The program's own bug and completion that knows where it is, in a real VS
// Code (code-server with the packaged litmus.vsix in a fresh profile, driven
// by headless Chromium), on a copy of examples/spinlock-early-release.litmus:
// an xchg spinlock released one statement early, whose `forall (data == 2)`
// fails under SC already (issue 44). What a user sees: the error on the
// condition (E0305) in the editor and the Problems panel, the status bar,
// the "Show execution (SC)" lens above the condition and the picture it
// opens, the hover; then Ctrl+Space in the final condition after `P1:` and
// at a statement's start in a thread body, each suggestion accepted.
// Screenshots: target/e2e-screenshots/spinlock-*.png (sb.test.mjs's own,
// numbered, beside them).
//
// Its own code-server, profile and workspace under target/e2e-spinlock/
// (LITMUS_E2E_WORK and LITMUS_E2E_SHOTS move them, for a run beside another).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readdirSync, rmSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer from "puppeteer-core";
import { startCodeServer } from "./codeserver.mjs";
import * as wb from "./workbench.mjs";
import { CHROMIUM_FLAGS } from "../lib/chromium.mjs";

const FILE = "spinlock-early-release.litmus";
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..", "..");
// The example's lines: where its statements are (1-based), found in its text.
const source = readFileSync(join(root, "examples", FILE), "utf8").split("\n");
function lineOfSource(text, nth = 0) {
  const all = source.flatMap((l, i) => (l.trim() === text ? [i + 1] : []));
  if (all.length <= nth) throw new Error(`examples/${FILE} has no line "${text}" (#${nth + 1})`);
  return all[nth];
}
const CONDITION_LINE = lineOfSource("forall (data == 2);");
// P0's and P1's statements: [P0's line, P1's line].
const xchg = [0, 1].map((n) => lineOfSource("t = xchg(held, 1);", n));
const release = [0, 1].map((n) => lineOfSource("held = 0;", n));
const increment = [0, 1].map((n) => lineOfSource("data = d + 1;", n));

const expect = {
  // The only squiggle: the condition, an error.
  squiggles: [{ line: CONDITION_LINE, severity: "error", text: "forall (data == 2);" }],
  problemCounts: "Errors: 1",
  // The litmus status item (icon name, text): the error icon and the headline.
  status: /^error litmus: condition fails under SC\b/,
  // The header's verdicts (SC's first: the condition fails under SC), then
  // the condition's own lens.
  lenses: [/^SC sometimes \(proved\) · TSO sometimes/, /^Show execution \(SC\): the condition fails$/],
  conditionLens: "Show execution (SC): the condition fails",
  // The Problems panel's row for it: severity, message start, line, and the code.
  problem: {
    severity: "Error",
    message: "`forall (data == 2)` fails under SC (and under TSO, PSO): data = 1 is reachable",
    line: CONDITION_LINE,
    code: "E0305",
  },
  // The hover on the condition: the diagnostic (with its code), then the
  // interleaving that breaks it, in order.
  hover: [
    "fails under SC",
    "E0305",
    "The program's own bug",
    `P0 line ${xchg[0]}: t = xchg(held, 1)`,
    `P0 line ${release[0]}: held = 0`,
    `P1 line ${xchg[1]}: t = xchg(held, 1)`,
    `P0 line ${increment[0]}: data = d + 1`,
    `P1 line ${increment[1]}: data = d + 1`,
  ],
  // The picture the lens opens: its tab, its title and events of both threads.
  graph: {
    tab: "SpinlockEarlyRelease: the final condition fails under SC",
    contains: ["SpinlockEarlyRelease: the final condition fails under SC", "a: RMW held 0→1", "c: W held=0", "h: W data=1"],
    // Both threads' increments are drawn; a click on P1's reveals it.
    events: increment.map((l) => `.event[data-line="${l}"]`),
    click: { event: `.event[data-line="${increment[1]}"]`, cursor: `Ln ${increment[1]}, Col 3` },
  },
  // Typed after `data == 2` in the condition: the trigger character `:`
  // offers P1's registers only; `d` then Enter.
  condition: {
    type: " && P1:",
    rows: [
      { label: "t", kind: "variable", detail: "register of P1" },
      { label: "d", kind: "variable", detail: "register of P1" },
    ],
    prefix: "d",
    accepted: "forall (data == 2 && P1:d);",
  },
  // Ctrl+Space on a new line after P0's `data = d + 1;`: the registers in
  // scope, the locations, the RMWs and the statements (with a block: Snippet
  // items; one-liners: Keyword items whose text is a snippet too), never an
  // item's keyword; `whi`, Enter, then the condition typed where the
  // snippet's first tab stop put the cursor.
  body: {
    after: "  data = d + 1;",
    snippets: ["if", "while", "for"],
    statements: ["let", "await", "assert", "assume", "fence", "fence wr", "lock", "unlock", "return"],
    names: ["t", "d", "held", "data", "cas", "xchg", "fetch_add"],
    never: ["shared", "thread", "fn", "exists", "forall", "~exists"],
    filter: "whi",
    accept: "while",
    typed: "t == 1",
    inserted: ["  while (t == 1) {", "    ", "  }"],
  },
};

const ITEM = "litmus-dev.litmus";

const work = process.env.LITMUS_E2E_WORK || join(root, "target", "e2e-spinlock");
const shots = process.env.LITMUS_E2E_SHOTS || join(root, "target", "e2e-screenshots");
const workspace = join(work, "workspace");
const chromium = process.env.CHROMIUM || "/usr/bin/chromium";
const STEP_MS = 30000;

let server;
let browser;
let page;

const { step, screenshot, fail, failed } = wb.steps(test, { shots, prefix: "spinlock-", page: () => page });

before(async () => {
  try {
    await setUp();
  } catch (e) {
    fail(`starting code-server and opening ${FILE}`);
    throw e;
  }
});

async function setUp() {
  mkdirSync(shots, { recursive: true });
  // Only this test's pictures: sb.test.mjs's stay.
  for (const f of readdirSync(shots)) {
    if (f.startsWith("spinlock-")) rmSync(join(shots, f), { force: true });
  }
  rmSync(workspace, { recursive: true, force: true });
  rmSync(join(work, "chromium"), { recursive: true, force: true });
  mkdirSync(workspace, { recursive: true });
  copyFileSync(join(root, "examples", FILE), join(workspace, FILE));

  server = await startCodeServer({
    node: process.execPath,
    entry: process.env.CODE_SERVER_ENTRY || join(root, ".tools/code-server/node_modules/code-server/out/node/entry.js"),
    vsix: process.env.LITMUS_VSIX || join(root, "editors/vscode/litmus.vsix"),
    litmusBin: process.env.LITMUS_BIN || join(root, "target/release/litmus"),
    dir: join(work, "code-server"),
    workspace,
  });
  process.on("exit", () => server.stop());
  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    protocolTimeout: STEP_MS,
    args: [...CHROMIUM_FLAGS, `--user-data-dir=${join(work, "chromium")}`],
    defaultViewport: { width: 1280, height: 900 },
  });
  page = await browser.newPage();
  await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}`, { waitUntil: "domcontentloaded", timeout: STEP_MS });
  await open(FILE);
}

/** Opens a workspace file as a person does: a click on it in the Explorer. */
async function open(file) {
  const row = `.explorer-folders-view .monaco-list-row[aria-label="${file}"]`;
  await page.waitForSelector(row, { timeout: 60000 });
  await page.click(row);
  await wb.waitFor(`${file} in the active editor`, () => wb.activeTab(page), (t) => t?.startsWith(file), { timeoutMs: STEP_MS });
  await page.waitForSelector(".editor-group-container.active .monaco-editor .view-lines", { timeout: STEP_MS });
}

after(async () => {
  await browser?.close();
  server?.stop();
  if (failed() && server) {
    const log = join(work, "code-server.log");
    writeFileSync(log, server.log());
    console.error(`code-server's log: ${log}; screenshots: ${shots}/spinlock-*.png`);
  }
});

/** The line number (1-based) of the first line equal to `text` in the active editor. */
async function lineOf(text) {
  const lines = await wb.editorLines(page);
  const i = (lines ?? []).findIndex((l) => l === text);
  assert.ok(i >= 0, `a line "${text}" in ${JSON.stringify(lines)}`);
  return i + 1;
}

/** Puts the cursor at the end of line `line` (a click on its text, then End). */
async function cursorAtEnd(line) {
  const at = await wb.lineTextStart(page, line);
  assert.ok(at, `line ${line} on screen`);
  await page.mouse.click(at.x, at.y);
  await page.keyboard.press("End");
  await wb.waitFor(
    `the cursor on line ${line}`,
    () => page.evaluate(() => document.getElementById("status.editor.selection")?.innerText ?? null),
    (t) => t !== null && t.startsWith(`Ln ${line},`),
    { timeoutMs: STEP_MS },
  );
}

/** Waits for the suggest widget to show rows satisfying `ok`. */
function suggestions(what, ok) {
  return wb.waitFor(what, () => wb.suggestRows(page), (r) => r !== null && ok(r), { timeoutMs: STEP_MS });
}

step("the condition SC breaks is an error, with its lens above it and the status bar saying so", async () => {
  const probe = async () => ({
    squiggles: await wb.squiggles(page),
    lenses: await wb.codeLenses(page),
    problemCounts: await wb.statusItem(page, "status.problems"),
    litmus: await wb.statusItemInfo(page, ITEM),
  });
  let s;
  try {
    s = await wb.waitFor(
      "the check's results on screen",
      probe,
      (s) =>
        JSON.stringify(s.squiggles) === JSON.stringify(expect.squiggles) &&
        s.lenses?.length === expect.lenses.length &&
        expect.lenses.every((re, i) => re.test(s.lenses[i])) &&
        s.problemCounts === expect.problemCounts &&
        expect.status.test(s.litmus?.label ?? ""),
      { timeoutMs: 60000 },
    );
  } finally {
    await screenshot("condition-error");
  }
  const lines = await wb.editorLines(page);
  assert.equal(lines[CONDITION_LINE - 1], "forall (data == 2);", "the file shown is examples/spinlock-early-release.litmus");
  assert.ok(s.litmus.visible, `the status item shown: ${JSON.stringify(s.litmus)}`);
  assert.equal(await wb.codeLensLine(page, expect.conditionLens), CONDITION_LINE, "the lens stands above the condition");
  console.log(`     status bar: ${s.litmus.label}`);
  console.log(`     lenses: ${JSON.stringify(s.lenses)}`);
});

step("the Problems panel lists it at the condition, E0305, fails under SC", async () => {
  const p = expect.problem;
  await wb.chord(page, "Control+Shift+KeyM");
  const rows = await wb.waitFor(
    "the Problems panel's row for the condition",
    () => wb.problems(page),
    (r) => r !== null && r.some((x) => x.startsWith(`${p.severity}: ${p.message}`)),
    { timeoutMs: STEP_MS },
  );
  await screenshot("problems");
  const found = rows
    .map((r) => /^(Error|Warning|Info|Hint): (.*) at line (\d+) and character \d+/s.exec(r))
    .filter(Boolean)
    .map((m) => ({ severity: m[1], message: m[2], line: Number(m[3]) }));
  assert.equal(found.length, 1, `one problem: ${JSON.stringify(rows, null, 1)}`);
  assert.equal(found[0].severity, p.severity);
  assert.equal(found[0].line, p.line);
  assert.ok(found[0].message.includes("fails under SC"), found[0].message);
  // The table shows the code in a column of its own.
  const codes = await page.evaluate(() =>
    [...document.querySelectorAll(".markers-panel .monaco-list-row")].map((r) => r.innerText.replace(/\s+/g, " ")),
  );
  assert.ok(codes.some((c) => c.includes(p.code) && c.includes("fails under SC")), `the code ${p.code} in ${JSON.stringify(codes)}`);
  console.log(`     problem: ${codes.find((c) => c.includes(p.code))}`);
  await wb.chord(page, "Control+KeyJ");
  await wb.waitFor("the Problems panel to close", () => wb.problems(page), (r) => r === null, { timeoutMs: STEP_MS });
});

step("hovering the condition shows the program's own bug, its interleaving in order", async () => {
  const at = await wb.squiggleCentre(page, CONDITION_LINE, "error");
  assert.ok(at, `a squiggle on line ${CONDITION_LINE}`);
  await page.mouse.move(at.x, at.y);
  const text = await wb.waitFor(
    "the hover on the condition",
    () => wb.hoverText(page),
    (t) => t !== null && expect.hover.every((c) => t.includes(c)),
    { timeoutMs: STEP_MS },
  );
  const at0 = expect.hover.slice(2).map((c) => text.indexOf(c));
  assert.deepEqual([...at0].sort((a, b) => a - b), at0, `in order: ${text}`);
  await screenshot("hover");
  // Below the diagnostic and its related statements: scrolled to, as a reader would.
  await wb.scrollHoverTo(page, "The program's own bug");
  await screenshot("hover-own-bug");
  console.log(`     hover: ${text.split("\n").filter((l) => l.trim()).slice(0, 4).join(" | ")}`);
  await page.mouse.move(5, 450);
  await wb.waitFor("the hover to close", () => wb.hoverText(page), (t) => t === null, { timeoutMs: STEP_MS });
});

step('the lens "Show execution (SC): the condition fails" opens the interleaving\'s picture', async () => {
  const g = expect.graph;
  const at = await wb.codeLensCentre(page, expect.conditionLens);
  assert.ok(at, `the lens "${expect.conditionLens}"`);
  await page.mouse.click(at.x, at.y);
  const shows = (v, c) => v.text.includes(c) || v.svgs.some((s) => s.text.some((t) => t.includes(c)));
  const vs = await wb.waitFor(
    "the condition's execution in a webview",
    () => wb.webviews(page),
    (vs) => vs.some((v) => v.svgs.some((s) => s.elements > 0) && g.contains.every((c) => shows(v, c))),
    { timeoutMs: STEP_MS },
  );
  await wb.waitFor("the picture's tab", () => wb.activeTab(page), (t) => t?.startsWith(g.tab), { timeoutMs: STEP_MS }).catch(() => {});
  await screenshot("execution");
  assert.ok(await wb.tabCentre(page, g.tab), `a tab "${g.tab}"`);
  for (const e of g.events) assert.ok(await wb.webviewElement(page, e), `an event ${e} in the picture`);
  const svg = vs.find((v) => g.contains.every((c) => shows(v, c))).svgs.find((s) => s.elements > 0);
  console.log(`     picture: ${svg.elements} SVG elements; ${svg.text.slice(0, 9).join(" · ")}`);
  // A click on P1's increment puts the cursor on it in the source.
  const ev = await wb.webviewElement(page, g.click.event);
  await ev.click();
  await wb.waitFor(
    `the cursor at ${g.click.cursor}`,
    () => page.evaluate(() => document.getElementById("status.editor.selection")?.innerText ?? null),
    (t) => t === g.click.cursor,
    { timeoutMs: STEP_MS },
  );
  // The picture alone, larger: its group maximized (the picture fits the panel's width).
  const tab = await wb.tabCentre(page, g.tab);
  await page.mouse.click(tab.x, tab.y);
  await wb.waitFor("the picture's tab active", () => wb.activeTab(page), (t) => t?.startsWith(g.tab), { timeoutMs: STEP_MS });
  const width = () =>
    page.evaluate(() => document.querySelector(".editor-group-container.active")?.getBoundingClientRect().width ?? 0);
  const half = await width();
  await wb.runCommand(page, "View: Toggle Maximize Editor Group");
  await wb.waitFor("the picture's group maximized", width, (w) => w > half * 1.5, { timeoutMs: STEP_MS });
  await new Promise((r) => setTimeout(r, 500));
  await screenshot("execution-maximized");
  await wb.runCommand(page, "View: Toggle Maximize Editor Group");
  await wb.waitFor("the groups side by side again", width, (w) => w < half * 1.5, { timeoutMs: STEP_MS });
  // Closed again (its tab's close button, once the layout is still): the
  // source alone for the completion steps.
  await new Promise((r) => setTimeout(r, 500));
  const close = await wb.tabCloseCentre(page, g.tab);
  assert.ok(close, "the picture's close button");
  await page.mouse.click(close.x, close.y);
  await wb.waitFor("the picture closed", () => wb.tabCentre(page, g.tab), (t) => t === null, { timeoutMs: STEP_MS });
  await wb.waitFor(`${FILE} active again`, () => wb.activeTab(page), (t) => t?.startsWith(FILE), { timeoutMs: STEP_MS });
});

step("completion after `P1:` in the condition: P1's registers only; accepting one gives P1:d", async () => {
  const c = expect.condition;
  await cursorAtEnd(CONDITION_LINE);
  // Before `);`.
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.type(c.type, { delay: 30 });
  // The server's trigger character `:` opens the list; Ctrl+Space as a person would if it did not.
  let rows = await suggestions("the suggestions after P1:", (r) => r.length > 0).catch(async () => {
    await wb.chord(page, "Control+Space");
    return suggestions("the suggestions after P1: (Ctrl+Space)", (r) => r.length > 0);
  });
  rows = await suggestions("P1's registers", (r) => r.length === c.rows.length);
  await screenshot("suggest-condition");
  console.log(`     after "P1:": ${JSON.stringify(rows)}`);
  assert.deepEqual(
    rows.map(({ label, kind, detail }) => ({ label, kind, detail })),
    c.rows,
  );
  assert.ok(!rows.some((r) => r.focused && r.label !== c.rows[0].label), "nothing preselected past the first row");
  await page.keyboard.type(c.prefix);
  await suggestions(`only ${c.prefix} left`, (r) => r.length === 1 && r[0].label === c.prefix);
  await page.keyboard.press("Enter");
  const line = await wb.waitFor(
    "the register in the condition",
    async () => (await wb.editorLines(page))?.[CONDITION_LINE - 1],
    (l) => l === c.accepted,
    { timeoutMs: STEP_MS },
  );
  assert.ok(!line.includes("P1:P1:"), line);
  await wb.waitFor("the suggestions closed", () => wb.suggestRows(page), (r) => r === null, { timeoutMs: STEP_MS });
  await screenshot("suggest-condition-accepted");
  console.log(`     accepted: ${line}`);
});

step("completion in a thread body: statement snippets, no top-level keyword; a snippet accepted", async () => {
  const b = expect.body;
  const line = await lineOf(b.after);
  await cursorAtEnd(line);
  await page.keyboard.press("Enter");
  await wb.chord(page, "Control+Space");
  await suggestions("the suggestions at a statement's start", (r) => r.some((x) => b.snippets.includes(x.label)));
  await screenshot("suggest-thread-body");
  // The widget draws a dozen rows: the rest by paging through them.
  const rows = await wb.allSuggestRows(page);
  console.log(`     at a statement's start: ${rows.map((r) => `${r.label} (${r.kind})`).join(", ")}`);
  const labels = rows.map((r) => r.label);
  for (const s of b.snippets) {
    assert.equal(rows.find((r) => r.label === s)?.kind, "snippet", `${s} is a snippet: ${JSON.stringify(rows)}`);
  }
  for (const n of [...b.statements, ...b.names]) assert.ok(labels.includes(n), `${n} offered: ${JSON.stringify(labels)}`);
  for (const n of b.never) assert.ok(!labels.includes(n), `no ${n} in a thread body: ${JSON.stringify(labels)}`);
  // Each says what it is (not a bare "keyword").
  assert.ok(rows.every((r) => r.detail !== "" && r.detail !== "keyword"), `every item with its detail: ${JSON.stringify(rows)}`);
  await page.keyboard.type(b.filter, { delay: 30 });
  await suggestions(`${b.accept} first`, (r) => r[0]?.label === b.accept);
  await page.keyboard.press("Enter");
  await page.keyboard.type(b.typed, { delay: 30 });
  const inserted = await wb.waitFor(
    "the snippet in the text, the condition typed at its first tab stop",
    async () => (await wb.editorLines(page))?.slice(line, line + b.inserted.length),
    (l) => JSON.stringify(l) === JSON.stringify(b.inserted),
    { timeoutMs: STEP_MS },
  );
  console.log(`     inserted: ${JSON.stringify(inserted)}`);
  // Out of the snippet: the edited program is checked again, and still
  // breaks its condition (the new loop never runs: P0 holds t = 0 there).
  await page.keyboard.press("Escape");
  await wb.waitFor(
    "the edited program checked, the condition still failing",
    async () => ({ squiggles: await wb.squiggles(page), litmus: (await wb.statusItemInfo(page, ITEM))?.label ?? "" }),
    (s) =>
      expect.status.test(s.litmus) &&
      s.squiggles?.length === 1 &&
      s.squiggles[0].severity === "error" &&
      s.squiggles[0].text === expect.condition.accepted,
    { timeoutMs: 60000 },
  );
  await screenshot("snippet-inserted");
});

// The packaged extension is the one under test.
test("the installed extension is the packaged litmus.vsix", () => {
  const pkg = JSON.parse(readFileSync(join(root, "editors/vscode/package.json"), "utf8"));
  const installed = join(work, "code-server", "extensions", `${pkg.publisher}.${pkg.name}-${pkg.version}`, "package.json");
  assert.equal(JSON.parse(readFileSync(installed, "utf8")).version, pkg.version);
});
