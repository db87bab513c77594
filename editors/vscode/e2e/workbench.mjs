// Reading and driving the VS Code workbench as a person does: what is drawn
// in the editor DOM (lines, squiggles, code lenses, inlay hints), the hover
// under the mouse, the quick-fix menu, the Problems panel. Every wait is for a
// condition, with a deadline and a message saying what was last seen.
import { join } from "node:path";

/** Polls `probe()` until `ok(value)`; on timeout throws with the last value. */
export async function waitFor(what, probe, ok, { timeoutMs = 30000, intervalMs = 100 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  let lastErr;
  for (;;) {
    try {
      last = await probe();
      lastErr = undefined;
      if (ok(last)) return last;
    } catch (e) {
      // The DOM is rebuilt under us (a re-render between queries): try again.
      lastErr = e;
    }
    if (Date.now() > deadline) {
      const seen = lastErr ? `error ${lastErr.message}` : JSON.stringify(last, null, 1);
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${seen}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * The text of the active editor's visible lines (index 0 is line 1), without
 * the inlay hints drawn into them (injected `dyn-rule-*` spans, see inlayHints).
 */
export function editorLines(page) {
  return page.evaluate(() => {
    const ed = document.querySelector(".editor-group-container.active .monaco-editor");
    if (!ed) return null;
    const lines = [...ed.querySelectorAll(".view-lines .view-line")].map((l) => ({
      top: parseFloat(l.style.top),
      text: [...l.querySelectorAll(":scope > span > span")]
        .filter((s) => !/\bdyn-rule-/.test(s.className))
        .map((s) => s.textContent)
        .join("")
        .replace(/\u00a0/g, " "),
    }));
    lines.sort((a, b) => a.top - b.top);
    const nums = [...ed.querySelectorAll(".margin-view-overlays .line-numbers")].map((n) => ({
      top: parseFloat(n.parentElement.style.top),
      n: Number(n.textContent),
    }));
    const out = [];
    for (const l of lines) {
      const n = nums.find((x) => x.top === l.top);
      if (n) out[n.n - 1] = l.text;
    }
    return out;
  });
}

/**
 * Every squiggle drawn in the active editor: `{ line, severity, text }`,
 * where `text` is the characters it spans, measured on screen (so a wrong
 * column, or a UTF-16/UTF-8 mix-up, shows as the wrong text); "…" for a
 * hint (drawn as dots at its start).
 */
export function squiggles(page) {
  return page.evaluate(() => {
    const ed = document.querySelector(".editor-group-container.active .monaco-editor");
    if (!ed) return null;
    const lineAt = (top) => {
      for (const n of ed.querySelectorAll(".margin-view-overlays .line-numbers")) {
        if (parseFloat(n.parentElement.style.top) === top) return Number(n.textContent);
      }
      return null;
    };
    const viewLineAt = (top) => [...ed.querySelectorAll(".view-lines .view-line")].find((l) => parseFloat(l.style.top) === top);
    // The characters of a view line whose boxes lie within [left, right].
    const textWithin = (el, left, right) => {
      let s = "";
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      const range = document.createRange();
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let i = 0; i < node.length; i++) {
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const r = range.getBoundingClientRect();
          const mid = (r.left + r.right) / 2;
          if (mid >= left && mid <= right) s += node.data[i];
        }
      }
      return s.replace(/\u00a0/g, " ");
    };
    const out = [];
    for (const sq of ed.querySelectorAll(".view-overlays [class*='squiggly-']")) {
      const top = parseFloat(sq.parentElement.style.top);
      const severity = /squiggly-(error|warning|info|hint)/.exec(sq.className)?.[1] ?? sq.className;
      const box = sq.getBoundingClientRect();
      const vl = viewLineAt(top);
      // A hint is three dots under its range's start, not an underline: no text.
      const text = severity === "hint" ? "…" : vl ? textWithin(vl, box.left, box.right) : null;
      out.push({ line: lineAt(top), severity, text });
    }
    // The same range under several diagnostics may be drawn once or more.
    const seen = new Set();
    return out
      .filter((s) => {
        const k = JSON.stringify(s);
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
      })
      .sort((a, b) => a.line - b.line || a.severity.localeCompare(b.severity));
  });
}

/** The code lenses drawn in the active editor, by the line they stand above. */
export function codeLenses(page) {
  return page.evaluate(() => {
    const ed = document.querySelector(".editor-group-container.active .monaco-editor");
    if (!ed) return null;
    return [...ed.querySelectorAll(".codelens-decoration")].map((e) => e.textContent.replace(/\u00a0/g, " "));
  });
}

/**
 * The inlay hints drawn in the active editor: `{ line, text }`. VS Code draws
 * a hint as injected text: runs of spans with a generated `dyn-rule-*` class
 * inside the view line, an empty one for the padding around it.
 */
export function inlayHints(page) {
  return page.evaluate(() => {
    const ed = document.querySelector(".editor-group-container.active .monaco-editor");
    if (!ed) return null;
    const lineAt = (top) => {
      for (const n of ed.querySelectorAll(".margin-view-overlays .line-numbers")) {
        if (parseFloat(n.parentElement.style.top) === top) return Number(n.textContent);
      }
      return null;
    };
    const out = [];
    for (const l of ed.querySelectorAll(".view-lines .view-line")) {
      const line = lineAt(parseFloat(l.style.top));
      let text = "";
      const close = () => {
        if (text.trim()) out.push({ line, text: text.trim() });
        text = "";
      };
      for (const span of l.querySelectorAll(":scope > span > span")) {
        const t = span.textContent.replace(/\u00a0/g, " ");
        if (/\bdyn-rule-/.test(span.className) && t !== "") text += t;
        else close();
      }
      close();
    }
    return out.sort((a, b) => a.line - b.line);
  });
}

/** The centre of the code lens whose text contains `text`, or null. */
export function codeLensCentre(page, text) {
  return page.evaluate((text) => {
    const ed = document.querySelector(".editor-group-container.active .monaco-editor");
    for (const a of ed?.querySelectorAll(".codelens-decoration a, .codelens-decoration span") ?? []) {
      if (!a.textContent.includes(text)) continue;
      const r = a.getBoundingClientRect();
      return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    }
    return null;
  }, text);
}

/** The title of the active editor tab (of the active group). */
export function activeTab(page) {
  return page.evaluate(() => document.querySelector(".editor-group-container.active .tab.active")?.getAttribute("aria-label") ?? null);
}

/** The centre of the tab whose title starts with `prefix`, in any editor group. */
export function tabCentre(page, prefix) {
  return page.evaluate((prefix) => {
    const t = [...document.querySelectorAll(".editor-group-container .tab")].find((t) =>
      (t.getAttribute("aria-label") ?? "").startsWith(prefix),
    );
    if (!t) return null;
    const r = t.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  }, prefix);
}

/** The first element matching `selector` in a webview's content frame, or null. */
export async function webviewElement(page, selector) {
  for (const frame of page.frames()) {
    if (frame === page.mainFrame()) continue;
    try {
      const h = await frame.$(selector);
      if (h) return h;
    } catch {
      // Detached while looking.
    }
  }
  return null;
}

/** Closes the active editor with its tab's close button. */
export async function closeActiveTab(page) {
  const at = await page.evaluate(() => {
    const b = document.querySelector(".editor-group-container.active .tab.active .tab-actions .action-label");
    if (!b) return null;
    const r = b.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  });
  if (!at) throw new Error("no active tab with a close button");
  await page.mouse.click(at.x, at.y);
}

/** The centre of the first squiggle on `line` (1-based), in page coordinates. */
export async function squiggleCentre(page, line, severity) {
  return page.evaluate(
    (line, severity) => {
      const ed = document.querySelector(".editor-group-container.active .monaco-editor");
      for (const n of ed.querySelectorAll(".margin-view-overlays .line-numbers")) {
        if (Number(n.textContent) !== line) continue;
        const top = parseFloat(n.parentElement.style.top);
        for (const sq of ed.querySelectorAll(`.view-overlays .squiggly-${severity}`)) {
          if (parseFloat(sq.parentElement.style.top) === top) {
            const r = sq.getBoundingClientRect();
            return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
          }
        }
      }
      return null;
    },
    line,
    severity,
  );
}

/** The text of the editor hover currently shown, or null. */
export function hoverText(page) {
  return page.evaluate(() => {
    for (const h of document.querySelectorAll(".monaco-hover:not(.hidden)")) {
      const r = h.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && h.textContent.trim()) return h.innerText;
    }
    return null;
  });
}

/** The entries of the action widget (quick-fix menu) currently open. */
export function actionMenu(page) {
  return page.evaluate(() => {
    // The widget's submenu panel is an `.action-widget` too: take the one shown.
    for (const w of document.querySelectorAll(".action-widget")) {
      if (w.getBoundingClientRect().height === 0) continue;
      const rows = [...w.querySelectorAll(".monaco-list-row")].map((r) => r.innerText.replace(/\s+/g, " ").trim());
      if (rows.length > 0) return rows;
    }
    return null;
  });
}

/** The Problems panel's rows (file rows and diagnostics), as shown. */
export function problems(page) {
  return page.evaluate(() => {
    const panel = document.querySelector(".markers-panel");
    if (!panel || panel.getBoundingClientRect().height === 0) return null;
    return [...panel.querySelectorAll(".monaco-list-row")].map((r) => r.getAttribute("aria-label") || r.innerText);
  });
}

/** The centre of the open action widget's entry whose text is `title`, or null. */
export function actionEntryCentre(page, title) {
  return page.evaluate((title) => {
    for (const w of document.querySelectorAll(".action-widget")) {
      if (w.getBoundingClientRect().height === 0) continue;
      for (const r of w.querySelectorAll(".monaco-list-row")) {
        if (r.innerText.replace(/\s+/g, " ").trim() !== title) continue;
        const b = r.getBoundingClientRect();
        return { x: b.left + b.width / 2, y: b.top + b.height / 2 };
      }
    }
    return null;
  }, title);
}

/** A status-bar item's accessible label (icon name, text, tooltip), or null. */
export function statusItem(page, id) {
  return page.evaluate((id) => document.getElementById(id)?.getAttribute("aria-label") ?? null, id);
}

/** Presses a chord like "Control+Shift+KeyM" (puppeteer key names). */
export async function chord(page, keys) {
  const parts = keys.split("+");
  const mods = parts.slice(0, -1);
  for (const m of mods) await page.keyboard.down(m);
  await page.keyboard.press(parts[parts.length - 1]);
  for (const m of mods.reverse()) await page.keyboard.up(m);
}

/**
 * Scrolls the shown hover with the mouse wheel until the line containing
 * `text` is at its top (a long hover shows the diagnostics first).
 */
export async function scrollHoverTo(page, text) {
  const where = () =>
    page.evaluate((text) => {
      for (const h of document.querySelectorAll(".monaco-hover:not(.hidden)")) {
        const box = h.getBoundingClientRect();
        if (box.height === 0) continue;
        const el = [...h.querySelectorAll("p, div, span, strong, em, li")].find((e) => e.children.length === 0 && e.textContent.includes(text));
        if (!el) continue;
        const r = el.getBoundingClientRect();
        return { x: box.left + box.width / 2, y: box.top + box.height / 2, delta: r.top - box.top };
      }
      return null;
    }, text);
  const first = await where();
  if (!first) throw new Error(`no hover shows "${text}"`);
  await page.mouse.move(first.x, first.y);
  // Each wheel event scrolls a step: wheel until the line is at the top.
  return waitFor(`the hover scrolled to "${text}"`, async () => {
    const w = await where();
    if (w !== null && Math.abs(w.delta) >= 30) await page.mouse.wheel({ deltaY: w.delta });
    return w;
  }, (p) => p !== null && Math.abs(p.delta) < 30, { timeoutMs: 10000, intervalMs: 200 });
}

/**
 * What the webviews shown hold: for each frame with content inside a webview
 * (VS Code nests the extension's page in an iframe of an iframe), its title,
 * text, and the SVG elements drawn with their text. A frame that navigates
 * away mid-read is skipped (the next poll sees the new one).
 */
export async function webviews(page) {
  const out = [];
  for (const frame of page.frames()) {
    if (frame === page.mainFrame()) continue;
    // The extension's content is in the inner frame of the webview host.
    if (!/[?&]id=|active-frame|fake\.html/.test(frame.url()) && frame.name() !== "active-frame") continue;
    try {
      const content = await frame.evaluate(() => {
        const body = document.body;
        // Empty, or the host frame holding the content frame.
        if (!body || body.childElementCount === 0 || body.querySelector("iframe")) return null;
        return {
          title: document.title,
          text: body.innerText,
          svgs: [...document.querySelectorAll("svg")].map((s) => ({
            elements: s.querySelectorAll("*").length,
            text: [...s.querySelectorAll("text")].map((t) => t.textContent),
          })),
        };
      });
      if (content) out.push({ url: frame.url(), name: frame.name(), ...content });
    } catch {
      // Detached while reading.
    }
  }
  return out;
}

/** Runs a command by its palette title, as a person does with F1. */
export async function runCommand(page, title) {
  await page.keyboard.press("F1");
  const input = ".quick-input-widget .quick-input-box input";
  await page.waitForSelector(input, { visible: true, timeout: 10000 });
  await page.type(input, title);
  await waitFor(
    `the palette to offer "${title}"`,
    () =>
      page.evaluate(() =>
        [...document.querySelectorAll(".quick-input-widget .monaco-list-row")].map((r) => r.getAttribute("aria-label") || r.innerText),
      ),
    (rows) => rows.some((r) => r.toLowerCase().includes(title.toLowerCase())),
    { timeoutMs: 10000 },
  );
  await page.keyboard.press("Enter");
}

/**
 * A status-bar item as drawn: its accessible label, whether it is shown,
 * and its background colour (an item with a background colour of its own,
 * such as statusBarItem.errorBackground, has the class has-background-color).
 */
export function statusItemInfo(page, id) {
  return page.evaluate((id) => {
    const el = document.getElementById(id);
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return {
      // The icon's name, then the text (VS Code puts two spaces between them).
      label: el.getAttribute("aria-label")?.replace(/ {2,}/g, " ") ?? null,
      visible: r.width > 0 && r.height > 0,
      coloured: el.classList.contains("has-background-color"),
      background: getComputedStyle(el).backgroundColor,
      centre: { x: r.left + r.width / 2, y: r.top + r.height / 2 },
    };
  }, id);
}

/** The rows of the open quick pick (or palette), as shown. */
export function quickPickRows(page) {
  return page.evaluate(() => {
    const w = document.querySelector(".quick-input-widget");
    if (!w || w.style.display === "none" || w.getBoundingClientRect().height === 0) return null;
    return [...w.querySelectorAll(".monaco-list-row")].map((r) => (r.getAttribute("aria-label") || r.innerText).replace(/\s+/g, " ").trim());
  });
}

/** The notification toasts shown: each one's message and buttons. */
export function toasts(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll(".notifications-toasts .notification-toast")]
      .filter((t) => t.getBoundingClientRect().height > 0)
      .map((t) => {
        const message = t.querySelector(".notification-list-item-message");
        return {
          message: message?.innerText ?? t.innerText,
          // The message element's own width against its text's: cut off or not.
          clipped: message ? message.scrollWidth > message.clientWidth + 1 || message.scrollHeight > message.clientHeight + 1 : null,
          buttons: [...t.querySelectorAll(".monaco-button")].map((b) => b.innerText.trim()).filter(Boolean),
        };
      }),
  );
}

/** The centre of a shown toast's button labelled `label`, or null. */
export function toastButtonCentre(page, label) {
  return page.evaluate((label) => {
    for (const b of document.querySelectorAll(".notifications-toasts .notification-toast .monaco-button")) {
      if (b.innerText.trim() !== label) continue;
      const r = b.getBoundingClientRect();
      if (r.width === 0) continue;
      return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    }
    return null;
  }, label);
}

/**
 * The suggest widget's rows as drawn, or null while it is hidden: each
 * row's label, the kind its icon shows (`snippet`, `keyword`, `variable`,
 * … from the `codicon-symbol-*` class), its detail when shown, and whether
 * it is the focused (to be accepted) row.
 */
export function suggestRows(page) {
  return page.evaluate(() => {
    const w = [...document.querySelectorAll(".editor-group-container.active .suggest-widget")].find(
      (x) => x.classList.contains("visible") && x.getBoundingClientRect().height > 0,
    );
    if (!w) return null;
    const rows = [...w.querySelectorAll(".monaco-list-row")];
    if (rows.length === 0) return null;
    return rows
      .map((r) => ({
        top: parseFloat(r.style.top) || 0,
        label: r.querySelector(".label-name")?.textContent.replace(/\u00a0/g, " ") ?? r.innerText,
        kind: /codicon-symbol-([\w-]+)/.exec(r.querySelector(".suggest-icon")?.className ?? "")?.[1] ?? null,
        detail: (r.querySelector(".details-label")?.textContent ?? "").trim(),
        focused: r.classList.contains("focused"),
      }))
      .sort((a, b) => a.top - b.top)
      .map(({ top, ...rest }) => rest);
  });
}

/**
 * The line (1-based) a code lens whose text contains `text` stands above:
 * the first line drawn below the lens, or null.
 */
export function codeLensLine(page, text) {
  return page.evaluate((text) => {
    const ed = document.querySelector(".editor-group-container.active .monaco-editor");
    const lens = [...(ed?.querySelectorAll(".codelens-decoration") ?? [])].find((e) => e.textContent.includes(text));
    if (!lens) return null;
    const bottom = lens.getBoundingClientRect().bottom;
    const below = [...ed.querySelectorAll(".margin-view-overlays .line-numbers")]
      .map((n) => ({ n: Number(n.textContent), top: n.getBoundingClientRect().top }))
      .filter((l) => l.top >= bottom - 2)
      .sort((a, b) => a.top - b.top);
    return below.length ? below[0].n : null;
  }, text);
}

/**
 * The centre of the first character of line `line` (1-based) that is text,
 * not indentation or an inlay hint, in the active editor, or null.
 */
export function lineTextStart(page, line) {
  return page.evaluate((line) => {
    const ed = document.querySelector(".editor-group-container.active .monaco-editor");
    for (const n of ed?.querySelectorAll(".margin-view-overlays .line-numbers") ?? []) {
      if (Number(n.textContent) !== line) continue;
      const top = parseFloat(n.parentElement.style.top);
      const vl = [...ed.querySelectorAll(".view-lines .view-line")].find((l) => parseFloat(l.style.top) === top);
      const span = [...(vl?.querySelectorAll(":scope > span > span") ?? [])].find(
        (s) => !/\bdyn-rule-/.test(s.className) && s.textContent.trim() !== "",
      );
      if (!span) return null;
      const range = document.createRange();
      const node = span.firstChild;
      const i = node.data.search(/\S/);
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const r = range.getBoundingClientRect();
      return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    }
    return null;
  }, line);
}

/**
 * Every row of the open suggest widget, not only the dozen drawn: moves the
 * focus down one row at a time (ArrowDown; the list scrolls with it, and
 * wraps from the last row to the first) until it is back on the first.
 * Rows as suggestRows gives them, without `focused`, in the list's order.
 */
export async function allSuggestRows(page) {
  const strip = ({ focused, ...r }) => r;
  const focusedRow = async () => (await suggestRows(page))?.find((r) => r.focused) ?? null;
  const first = await focusedRow();
  if (!first) throw new Error("no focused row in the suggest widget");
  const key = (r) => JSON.stringify(strip(r));
  const out = [strip(first)];
  for (let i = 0; i < 200; i++) {
    const before = key(out[out.length - 1]);
    await page.keyboard.press("ArrowDown");
    const now = await waitFor("the focus to move down the suggestions", focusedRow, (r) => r !== null && key(r) !== before, {
      timeoutMs: 5000,
      intervalMs: 30,
    });
    if (key(now) === key(first)) return out;
    out.push(strip(now));
  }
  throw new Error(`the suggestions never wrapped back to the first: ${JSON.stringify(out)}`);
}

/** The centre of the close button of the tab whose title starts with `prefix`, in any group, or null. */
export function tabCloseCentre(page, prefix) {
  return page.evaluate((prefix) => {
    const t = [...document.querySelectorAll(".editor-group-container .tab")].find((t) =>
      (t.getAttribute("aria-label") ?? "").startsWith(prefix),
    );
    const b = t?.querySelector(".tab-actions .action-label");
    if (!b) return null;
    const r = b.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  }, prefix);
}

/**
 * Steps that stop at the first failure (the later ones depend on its
 * state, so they fail at once instead of each waiting out its timeout), a
 * screenshot of the failure, and numbered screenshots `PREFIX01-name.png`
 * in `shots`. `page()` gives the page once the browser is up; `fail(why)`
 * marks a failure outside the steps (setting up), `failed()` says whether
 * any happened (to keep the logs).
 */
export function steps(test, { shots, prefix = "", page }) {
  let shot = 0;
  let failed = null;
  async function screenshot(name) {
    shot += 1;
    const path = join(shots, `${prefix}${String(shot).padStart(2, "0")}-${name}.png`);
    await page().screenshot({ path });
    return path;
  }
  function step(name, fn) {
    test(name, async () => {
      if (failed !== null) throw new Error(`not run: "${failed}" failed before it`);
      try {
        await fn();
      } catch (e) {
        failed = name;
        if (page()) await screenshot("failed").catch(() => {});
        throw e;
      }
    });
  }
  return { step, screenshot, fail: (why) => (failed = why), failed: () => failed !== null };
}

/**
 * Clicks the code lens titled `lens` (once it is there) until a webview shows every text of
 * `contains` (in its page or its SVG): a lens re-rendered between finding
 * it and the click (a re-check's lenses) takes no click, so it is found
 * again and clicked again, up to 3 times.
 */
export async function openLensWebview(page, lens, contains, timeoutMs) {
  const shows = (v, c) => v.text.includes(c) || v.svgs.some((s) => s.text.some((t) => t.includes(c)));
  for (let attempt = 1; ; attempt++) {
    // Lenses come after the check's diagnostics: wait for this one.
    const at = await waitFor(`the "${lens}" lens`, () => codeLensCentre(page, lens), (a) => a !== null, { timeoutMs }).catch(async (e) => {
      throw new Error(`${e.message}; the lenses: ${JSON.stringify(await codeLenses(page))}`);
    });
    await page.mouse.click(at.x, at.y);
    try {
      return await waitFor(
        `the webview of "${lens}"`,
        () => webviews(page),
        (vs) => vs.some((v) => v.svgs.some((s) => s.elements > 0) && contains.every((c) => shows(v, c))),
        { timeoutMs: attempt < 3 ? timeoutMs / 3 : timeoutMs },
      );
    } catch (e) {
      if (attempt >= 3) throw e;
    }
  }
}
