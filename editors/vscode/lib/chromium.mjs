// The flags headless Chromium needs on these machines: no sandbox (root), no
// GPU, and none of the background connections a closed network refuses.
export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
