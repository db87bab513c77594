// Repairs in a real VS Code (code-server with the packaged litmus.vsix,
// headless Chromium), under the models decided on whole candidates: an
// AArch64 message-passing test and a C11 one, each with non-ASCII text on
// the lines a repair changes. What a user sees: the violations underlined,
// the hover with the cycle and the cheapest repair, Ctrl+. offering the
// change of an instruction (LDR → LDAPR, STR → STLR) or of a memory order
// (relaxed → release/acquire; `@relaxed` → `@acquire` in the native
// dialect, whose data race is underlined too), a click on it, then "Litmus: Insert all
// fences" applying the rest of the repair, the re-check clean, and the
// hover on the final condition naming the axiom that now forbids it.
// Screenshots: target/e2e-screenshots/repairs-*.png.
//
// Its own code-server, profile and workspace under target/e2e-repairs/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, rmSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer from "puppeteer-core";
import { startCodeServer } from "./codeserver.mjs";
import * as wb from "./workbench.mjs";
import { CHROMIUM_FLAGS } from "../lib/chromium.mjs";

const files = [
  {
    name: "mp-arm.litmus",
    model: "aarch64",
    lines: [
      "AArch64 MP",
      '"message passing — drapeau ≠ données"',
      "{",
      "0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x;",
      "}",
      " P0          | P1          ;",
      " MOV W0,#1   | LDR W0,[X1] ;",
      " STR W0,[X1] | LDR W2,[X3] ;",
      " MOV W2,#1   |             ;",
      " STR W2,[X3] |             ;",
      "exists (1:X0=1 /\\ 1:X2=0)",
    ],
    // The first violation's squiggle, the hover's lines, the quick fix.
    squiggle: 7,
    hover: ["aarch64 cycle", "cheapest repair under aarch64 (cost 3)", "STLR W2,[X3]", "LDAPR W0,[X1]"],
    quickFix: /^Change `LDR W0,\[X1\]` to `LDAPR W0,\[X1\]`/,
    // The hover once the quick fix is re-checked: the rest of the repair.
    afterQuick: "cheapest repair under aarch64 (cost 2)",
    // … shown on the violation left: LDAPR keeps its later load in order.
    afterSquiggle: 8,
    fixed: ["STLR W2,[X3]", "LDAPR W0,[X1]"],
    // The execution picture of the writer's violation: the steps `external`
    // keeps named by it, the po steps it misses dashed and said so.
    graph: {
      lens: "Show execution (aarch64): past `STR W2,[X3]`",
      contains: ["po · not external", "rf · external", "ordering those forbids this execution"],
      // `Litmus: Port to another model` from x86tso.cat: MP is not robust on ARM.
      port: ["executions: not robust against x86tso under aarch64 (proved)", "final states under aarch64, not under x86tso"],
    },
  },
  {
    name: "mp-c11.litmus",
    model: "rc11",
    lines: [
      "C MP",
      "{ [x] = 0; [y] = 0; }",
      "",
      "P0 (atomic_int* x, atomic_int* y) {",
      "  atomic_store_explicit(x, 1, memory_order_relaxed);",
      "  /* données ≠ drapeau */ atomic_store_explicit(y, 1, memory_order_relaxed);",
      "}",
      "",
      "P1 (atomic_int* x, atomic_int* y) {",
      "  /* drapeau → données */ int r0 = atomic_load_explicit(y, memory_order_relaxed);",
      "  int r1 = atomic_load_explicit(x, memory_order_relaxed);",
      "}",
      "",
      "exists (1:r0=1 /\\ 1:r1=0)",
    ],
    squiggle: 10,
    hover: ["rc11 cycle", "cheapest repair under rc11 (cost 2)", "memory_order_release", "memory_order_acquire"],
    quickFix: /^Change `int r0 = atomic_load_explicit\(y, memory_order_relaxed\)` to `int r0 = atomic_load_explicit\(y, memory_order_acquire\)`/,
    afterQuick: "cheapest repair under rc11 (cost 1)",
    afterSquiggle: 5,
    fixed: [
      "  /* données ≠ drapeau */ atomic_store_explicit(y, 1, memory_order_release);",
      "  /* drapeau → données */ int r0 = atomic_load_explicit(y, memory_order_acquire);",
    ],
  },
  {
    // The native dialect with memory orders: RC11 by default, the race on
    // the plain location underlined too, the repair written as `@order`s.
    name: "mp-native.litmus",
    model: "rc11",
    lines: [
      'litmus MP "drapeau → données"',
      "",
      "shared données = 0;",
      "atomic drapeau = 0;",
      "",
      "thread P0 {",
      "  données = 1; /* é */ drapeau@relaxed = 1;",
      "}",
      "",
      "thread P1 {",
      "  let r0 = drapeau@relaxed; /* → */ let r1 = 0;",
      "  if (r0 == 1) {",
      "    r1 = données;",
      "  }",
      "}",
      "",
      "exists (P1:r0 == 1 && P1:r1 == 0);",
    ],
    squiggle: 11,
    hover: ["rc11 cycle", "cheapest repair under rc11 (cost 2)", "drapeau@release", "drapeau@acquire"],
    quickFix: /^Change `let r0 = drapeau@relaxed` to `let r0 = drapeau@acquire`/,
    afterQuick: "cheapest repair under rc11 (cost 1)",
    afterSquiggle: 7,
    race: 7,
    fixed: ["/* é */ drapeau@release = 1;", "let r0 = drapeau@acquire; /* → */"],
  },
];

const ITEM = "litmus-dev.litmus";
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..", "..");
const work = process.env.LITMUS_E2E_WORK || join(root, "target", "e2e-repairs");
const shots = process.env.LITMUS_E2E_SHOTS || join(root, "target", "e2e-screenshots");
const workspace = join(work, "workspace");
const chromium = process.env.CHROMIUM || "/usr/bin/chromium";
const STEP_MS = 30000;

let server;
let browser;
let page;
const { step, screenshot, fail, failed } = wb.steps(test, { shots, prefix: "repairs-", page: () => page });

before(async () => {
  try {
    mkdirSync(shots, { recursive: true });
    for (const f of readdirSync(shots)) {
      if (/^repairs-.*\.png$/.test(f)) rmSync(join(shots, f), { force: true });
    }
    rmSync(workspace, { recursive: true, force: true });
    rmSync(join(work, "chromium"), { recursive: true, force: true });
    mkdirSync(workspace, { recursive: true });
    for (const f of files) writeFileSync(join(workspace, f.name), f.lines.join("\n") + "\n");
    server = await startCodeServer({
      node: process.execPath,
      entry: process.env.CODE_SERVER_ENTRY || join(root, ".tools/code-server/node_modules/code-server/out/node/entry.js"),
      vsix: join(root, "editors/vscode/litmus.vsix"),
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
  } catch (e) {
    fail("starting code-server");
    throw e;
  }
});

after(async () => {
  await browser?.close();
  server?.stop();
  if (failed() && server) {
    const log = join(work, "code-server.log");
    writeFileSync(log, server.log());
    console.error(`code-server's log: ${log}; screenshots: ${shots}`);
  }
});

async function open(file) {
  const row = `.explorer-folders-view .monaco-list-row[aria-label="${file}"]`;
  await page.waitForSelector(row, { timeout: 60000 });
  await page.click(row);
  await wb.waitFor(`${file} in the active editor`, () => wb.activeTab(page), (t) => t?.startsWith(file), { timeoutMs: STEP_MS });
  await page.waitForSelector(".editor-group-container.active .monaco-editor .view-lines", { timeout: STEP_MS });
}

async function runCommandExactly(title) {
  await page.keyboard.press("F1");
  const input = ".quick-input-widget .quick-input-box input";
  await page.waitForSelector(input, { visible: true, timeout: 10000 });
  await page.type(input, title);
  await wb.waitFor(`the palette's first row to be "${title}"`, () => wb.quickPickRows(page), (r) => r !== null && r.length > 0 && r[0].startsWith(title), {
    timeoutMs: 10000,
  });
  await page.keyboard.press("Enter");
}

for (const f of files) {
  const tag = f.name.replace(".litmus", "");
  step(`${f.name}: the violations are underlined, the hover shows the cycle and the cheapest repair`, async () => {
    await open(f.name);
    const sq = await wb.waitFor(
      `${f.name}'s violations underlined`,
      () => wb.squiggles(page),
      (s) => s !== null && s.some((q) => q.severity === "error" && q.line === f.squiggle),
      { timeoutMs: 60000 },
    );
    await screenshot(`${tag}-opened`);
    assert.ok(sq.filter((q) => q.severity === "error").length >= 2, JSON.stringify(sq));
    if (f.race) {
      // The data race on the plain location: its own squiggle, its hover.
      const at = await wb.squiggleCentre(page, f.race, "error");
      await page.mouse.move(at.x, at.y);
      await wb.waitFor("the race's hover", () => wb.hoverText(page), (t) => t !== null && t.includes("races with"), { timeoutMs: STEP_MS });
      await screenshot(`${tag}-race`);
      await page.mouse.move(5, 450);
      await wb.waitFor("the hover to close", () => wb.hoverText(page), (t) => t === null, { timeoutMs: STEP_MS });
    }
    const at = await wb.squiggleCentre(page, f.squiggle, "error");
    await page.mouse.move(at.x, at.y);
    const text = await wb.waitFor("the hover with the repair", () => wb.hoverText(page), (t) => t !== null && f.hover.every((c) => t.includes(c)), {
      timeoutMs: STEP_MS,
    });
    await screenshot(`${tag}-hover`);
    assert.ok(text.includes("re-checked: robust (proved)"), text);
    await page.mouse.move(5, 450);
    await wb.waitFor("the hover to close", () => wb.hoverText(page), (t) => t === null, { timeoutMs: STEP_MS });
  });

  if (f.graph) {
    step(`${f.name}: the execution picture draws what the model's axiom keeps`, async () => {
      await wb.openLensWebview(page, f.graph.lens, f.graph.contains, STEP_MS);
      await screenshot(`${tag}-graph`);
      // Back to the source alone for the next steps.
      await runCommandExactly("View: Close All Editor Groups");
      await open(f.name);
    });

    step(`${f.name}: Port to another model, from x86-TSO: what moving it to ${f.model} changes`, async () => {
      await runCommandExactly("Litmus: Port to another model");
      for (const model of ["x86tso.cat", f.model]) {
        await wb.waitFor(`${model} offered`, () => wb.quickPickRows(page), (r) => r !== null && r.some((x) => x.startsWith(model)), { timeoutMs: STEP_MS });
        await page.keyboard.type(model);
        await wb.waitFor(`${model} first`, () => wb.quickPickRows(page), (r) => r !== null && r.length > 0 && r[0].startsWith(model), { timeoutMs: STEP_MS });
        await page.keyboard.press("Enter");
      }
      await wb.waitFor(
        "the port report in a Markdown preview",
        () => wb.webviews(page),
        (vs) => vs.some((v) => f.graph.port.every((c) => v.text.includes(c))),
        { timeoutMs: 60000 },
      );
      await screenshot(`${tag}-port`);
      await runCommandExactly("View: Close All Editor Groups");
      await open(f.name);
    });
  }

  step(`${f.name}: Ctrl+. changes one access, Insert all fences applies the rest, the re-check is clean`, async () => {
    let title;
    for (let attempt = 1; ; attempt++) {
      const at = await wb.squiggleCentre(page, f.squiggle, "error");
      await page.mouse.click(at.x, at.y);
      await wb.chord(page, "Control+Period");
      try {
        const menu = await wb.waitFor("the quick-fix menu", () => wb.actionMenu(page), (m) => m !== null && m.some((t) => f.quickFix.test(t)), {
          timeoutMs: attempt < 3 ? 10000 : STEP_MS,
        });
        title = menu.find((t) => f.quickFix.test(t));
        break;
      } catch (e) {
        if (attempt >= 3) throw e;
        await page.keyboard.press("Escape");
      }
    }
    await screenshot(`${tag}-quick-fix-menu`);
    const entry = await wb.actionEntryCentre(page, title);
    await page.mouse.click(entry.x, entry.y);
    await wb.waitFor("the changed access in the text", () => wb.editorLines(page), (l) => l !== null && l.some((x) => f.fixed.some((w) => (x ?? "").includes(w))), {
      timeoutMs: STEP_MS,
    });
    await page.mouse.move(5, 450);
    // Re-checked: the hover offers what is left of the repair.
    await wb.waitFor(
      "the re-check after the quick fix",
      async () => {
        const at = await wb.squiggleCentre(page, f.afterSquiggle, "error");
        if (!at) return null;
        await page.mouse.move(at.x, at.y);
        return wb.hoverText(page);
      },
      (t) => t !== null && t.includes(f.afterQuick),
      { timeoutMs: 60000, intervalMs: 500 },
    );
    await screenshot(`${tag}-after-quick-fix`);
    await page.mouse.move(5, 450);
    await runCommandExactly("Litmus: Insert all fences");
    await wb.waitFor("the whole repair in the text", () => wb.editorLines(page), (l) => l !== null && f.fixed.every((w) => l.some((x) => (x ?? "").includes(w))), {
      timeoutMs: STEP_MS,
    });
    await wb.waitFor(
      "no violation left",
      async () => ({ sq: await wb.squiggles(page), status: (await wb.statusItemInfo(page, ITEM))?.label }),
      (s) => s.sq !== null && !s.sq.some((q) => q.severity === "error") && /^check litmus: clean/.test(s.status ?? ""),
      { timeoutMs: 60000 },
    );
    // The header lens follows: robust, proved; and the command said what it did.
    await wb.waitFor(
      "the header lens of the repaired program",
      () => wb.codeLenses(page),
      (l) => l !== null && l.length > 0 && l[0].includes(`${f.model} never (proved), robust (proved)`),
      { timeoutMs: 60000 },
    );
    const toasts = (await wb.toasts(page)) ?? [];
    assert.ok(!toasts.some((t) => t.message.includes("no fences to insert")), JSON.stringify(toasts));
    await screenshot(`${tag}-repaired`);
    // The condition's outcome is now forbidden: the hover on it says by
    // which axiom, with its cycle in the model's relations.
    const cond = f.lines.findIndex((l) => l.startsWith("exists")) + 1;
    await wb.waitFor(
      "the hover on the forbidden condition",
      async () => {
        const at = await wb.lineTextStart(page, cond);
        if (!at) return null;
        await page.mouse.move(at.x, at.y);
        return wb.hoverText(page);
      },
      (t) => t !== null && t.includes(`Forbidden under ${f.model}`) && t.includes("Axiom"),
      { timeoutMs: 60000, intervalMs: 500 },
    );
    await screenshot(`${tag}-forbidden`);
    await page.mouse.move(5, 450);
    await wb.chord(page, "Control+KeyS");
    await wb.waitFor(`${f.name} saved`, () => readFileSync(join(workspace, f.name), "utf8"), (t) => f.fixed.every((w) => t.includes(w)), {
      timeoutMs: STEP_MS,
    });
  });
}
