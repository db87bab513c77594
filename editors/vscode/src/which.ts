// Which execution a "Show execution" lens (or command) asks for, as the
// server's `litmus/executionGraph` takes it: a violation's number (from 1, as
// `litmus check` lists them), "condition" (the SC interleaving that breaks
// the final condition: the program's own bug) or "failure:N" (statement N's
// failing witness). No `vscode` import: test/which.test.mjs runs it in Node.

export type Which = number | string;

/** A lens's or command's argument as a `Which` (a number sent as text too), or undefined. */
export function asWhich(v: unknown): Which | undefined {
  if (typeof v === "number") return Number.isInteger(v) && v >= 1 ? v : undefined;
  if (typeof v !== "string") return undefined;
  if (/^[1-9]\d*$/.test(v)) return Number(v);
  if (v === "condition" || /^failure:\d+$/.test(v)) return v;
  return undefined;
}

/** `which` in words: "violation 2", "the final condition's failure", "the failure of statement 7". */
export function describeWhich(which: Which): string {
  if (typeof which === "number") return `violation ${which}`;
  if (which === "condition") return "the final condition's failure";
  return `the failure of statement ${which.slice("failure:".length)}`;
}
