// The execution-graph webview's page: the server's SVG inline (on a white
// card, its colours being a light picture's, on the theme's background) and a script
// that posts {type: "reveal", line, col} when an event is clicked. It does
// not import vscode, so the headless-Chromium test renders this very page.

export interface RevealMessage {
  type: "reveal";
  line: number;
  col: number;
  thread: string;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
}

/** `svg` is the server's (self-contained, text escaped); `cspSource` the webview's. */
export function executionHtml(svg: string, title: string, nonce: string, cspSource: string): string {
  const csp = `default-src 'none'; img-src ${cspSource} data:; style-src 'unsafe-inline'; script-src 'nonce-${nonce}';`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{margin:0;padding:8px;background:var(--vscode-editor-background,#ffffff);color:var(--vscode-foreground,#555555);overflow:auto}svg{display:block;max-width:100%;height:auto;background:#ffffff;border-radius:6px}.hint{font:12px sans-serif;color:inherit;opacity:.8;margin:0 0 6px 0}#outdated{display:none;font:12px sans-serif;background:#fff3cd;color:#5c4400;border:1px solid #e0c36a;padding:4px 8px;margin:0 0 6px 0}body.outdated #outdated{display:block}body.outdated svg{opacity:.45}</style>
</head>
<body>
<p class="hint">Click an event to show its statement in the editor.</p>
<p id="outdated" role="status">Outdated: the text changed since this execution was drawn. It is redrawn when the new check is done.</p>
${svg}
<script nonce="${nonce}">
(function () {
  const api = acquireVsCodeApi();
  // The extension says when the text changed: the picture's lines are then
  // an older text's, and a click would jump to the wrong place.
  window.addEventListener("message", (e) => {
    if (e.data && e.data.type === "outdated") {
      document.body.classList.add("outdated");
      const p = document.getElementById("outdated");
      if (p && e.data.text) p.textContent = e.data.text;
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
