// The execution-graph webview's page: the server's SVG inline (on a white
// card, its colours being a light picture's, on the theme's background), a
// toolbar (whole execution or the events up to the cycle; zoom: fit, −, +,
// ctrl+wheel; drag to pan) and a script that posts {type: "reveal", line,
// col} when an event is clicked and {type: "whole", on} when the toggle
// changes, and outlines the events of the editor's cursor line
// ({type: "cursor", line} from the extension). It does not import vscode,
// so the headless-Chromium test renders this very page.

export interface RevealMessage {
  type: "reveal";
  line: number;
  col: number;
  thread: string;
}

export interface WholeMessage {
  type: "whole";
  on: boolean;
}

export type PageMessage = RevealMessage | WholeMessage;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
}

const STYLE = [
  "body{margin:0;padding:8px;background:var(--vscode-editor-background,#ffffff);color:var(--vscode-foreground,#555555);overflow:auto}",
  "body.panning{cursor:grabbing;user-select:none}",
  "svg{display:block;max-width:100%;height:auto;background:#ffffff;border-radius:6px}",
  "body.zoomed svg{max-width:none}",
  ".bar{display:flex;flex-wrap:wrap;gap:6px;align-items:center;font:12px sans-serif;margin:0 0 6px 0}",
  ".bar button{font:12px sans-serif;min-width:28px;padding:1px 6px}",
  ".bar label{display:flex;align-items:center;gap:4px}",
  ".hint{opacity:.8}",
  "#outdated{display:none;font:12px sans-serif;background:#fff3cd;color:#5c4400;border:1px solid #e0c36a;padding:4px 8px;margin:0 0 6px 0}",
  "body.outdated #outdated{display:block}body.outdated svg{opacity:.45}",
  "g.event.current rect.box{stroke:#0a64d8;stroke-width:4}",
].join("");

/**
 * `svg` is the server's (self-contained, text escaped); `cspSource` the
 * webview's; `whole`: the picture is of the whole execution (the toggle's state).
 */
export function executionHtml(svg: string, title: string, nonce: string, cspSource: string, whole = false): string {
  const csp = `default-src 'none'; img-src ${cspSource} data:; style-src 'unsafe-inline'; script-src 'nonce-${nonce}';`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<div class="bar" role="toolbar">
<label title="Run the witness to the end: every thread's events, preferring an ending that fails an assertion"><input type="checkbox" id="whole"${whole ? " checked" : ""}> Whole execution</label>
<button id="zoom-fit" title="Fit the panel">Fit</button>
<button id="zoom-out" title="Zoom out (ctrl+wheel)">−</button>
<span id="zoom-level">fit</span>
<button id="zoom-in" title="Zoom in (ctrl+wheel)">+</button>
<span class="hint">Click an event to show its statement; drag to pan.</span>
</div>
<p id="outdated" role="status">Outdated: the text changed since this execution was drawn. It is redrawn when the new check is done.</p>
${svg}
<script nonce="${nonce}">
(function () {
  const api = acquireVsCodeApi();
  const svg = document.querySelector("svg");
  const level = document.getElementById("zoom-level");
  // The drawing's own size; zoom 1 draws it at that size, "fit" at most the panel's width.
  const natural = svg ? svg.viewBox.baseVal.width || svg.getBoundingClientRect().width : 0;
  let zoom = null;
  function setZoom(z) {
    zoom = z === null ? null : Math.min(4, Math.max(0.25, z));
    document.body.classList.toggle("zoomed", zoom !== null);
    if (svg) svg.style.width = zoom === null ? "" : natural * zoom + "px";
    level.textContent = zoom === null ? "fit" : Math.round(zoom * 100) + "%";
  }
  const current = () => (zoom === null && svg ? svg.getBoundingClientRect().width / natural : zoom);
  document.getElementById("zoom-fit").addEventListener("click", () => setZoom(null));
  document.getElementById("zoom-in").addEventListener("click", () => setZoom(current() * 1.25));
  document.getElementById("zoom-out").addEventListener("click", () => setZoom(current() / 1.25));
  window.addEventListener("wheel", (e) => {
    if (!e.ctrlKey) return;
    e.preventDefault();
    setZoom(current() * (e.deltaY < 0 ? 1.1 : 1 / 1.1));
  }, { passive: false });
  // Drag anywhere but on an event to pan (the page scrolls).
  let drag = null;
  window.addEventListener("mousedown", (e) => {
    if (e.button !== 0 || e.target.closest("g.event, .bar")) return;
    drag = { x: e.clientX, y: e.clientY };
    document.body.classList.add("panning");
  });
  window.addEventListener("mousemove", (e) => {
    if (!drag) return;
    window.scrollBy(drag.x - e.clientX, drag.y - e.clientY);
    drag = { x: e.clientX, y: e.clientY };
  });
  window.addEventListener("mouseup", () => {
    drag = null;
    document.body.classList.remove("panning");
  });
  document.getElementById("whole").addEventListener("change", (e) => {
    api.postMessage({ type: "whole", on: e.target.checked });
  });
  // The extension says when the text changed (the picture's lines are then
  // an older text's, and a click would jump to the wrong place) and where
  // the cursor is (its line's events are outlined).
  function outline(line) {
    for (const g of document.querySelectorAll("g.event")) {
      const on = !document.body.classList.contains("outdated") && Number(g.getAttribute("data-line")) === line;
      g.classList.toggle("current", on);
    }
  }
  window.addEventListener("message", (e) => {
    if (e.data && e.data.type === "outdated") {
      document.body.classList.add("outdated");
      outline(0);
      const p = document.getElementById("outdated");
      if (p && e.data.text) p.textContent = e.data.text;
    } else if (e.data && e.data.type === "cursor") {
      outline(Number(e.data.line));
    }
  });
  for (const g of document.querySelectorAll("g.event")) {
    g.addEventListener("click", () => {
      if (document.body.classList.contains("outdated")) return;
      api.postMessage({
        type: "reveal",
        line: Number(g.getAttribute("data-line")),
        col: Number(g.getAttribute("data-col")),
        thread: g.getAttribute("data-thread-name") || "",
      });
    });
  }
})();
</script>
</body>
</html>
`;
}
