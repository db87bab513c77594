// The execution-graph webview's page: the server's SVG inline and a script
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
<style>body{margin:0;padding:8px;background:#ffffff;overflow:auto}svg{display:block}.hint{font:12px sans-serif;color:#555;margin:0 0 6px 0}</style>
</head>
<body>
<p class="hint">Click an event to show its statement in the editor.</p>
${svg}
<script nonce="${nonce}">
(function () {
  const api = acquireVsCodeApi();
  for (const g of document.querySelectorAll("g.event")) {
    g.addEventListener("click", () => {
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
