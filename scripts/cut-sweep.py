#!/usr/bin/env python3
"""Issue 43's sweep from outside: every monitor, timeouts from 0 to 1 s, on
the given files, through the real CLI (the whole plan: the unbounded
procedure, harm, fences, outcomes, active testing). Each cut-short run's
claims must agree with a run without a timeout (same monitor; the
unbounded procedure's claims with the default run's, the bounded
engine's with a `--bounded` run's, at the same bounds): a known
`robust`, a known observation, confirmed fences that a whole run does not
contradict; and no `robust: false` without a violation or a confirmed
active cycle to show.

    scripts/cut-sweep.py LITMUS FILE_OR_DIR... [--timeouts 0,0.001,...]

Generated programs: `LITMUS_DUMP=DIR LITMUS_CUT_PROGRAMS=N cargo test
--release -p litmus-checker --test honesty generated_programs` writes them.
"""
import glob, json, os, subprocess, sys

args = sys.argv[1:]
timeouts = [0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0]
if "--timeouts" in args:
    i = args.index("--timeouts")
    timeouts = [float(x) for x in args[i + 1].split(",")]
    del args[i : i + 2]
litmus, paths = args[0], args[1:]
files = []
for p in paths:
    files += sorted(glob.glob(os.path.join(p, "**/*.litmus"), recursive=True)) if os.path.isdir(p) else [p]

def run(f, monitor, timeout, bounded=False):
    cmd = [litmus, "check", "--format", "json", "--no-timing", "--monitor", monitor, f]
    if timeout is not None:
        cmd[2:2] = ["--timeout", str(timeout)]
    if bounded:
        cmd[2:2] = ["--bounded"]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()
    return json.loads(out[0]).get("models", {}) if out else {}

runs = bad = cut = 0
for f in files:
    for monitor in ["bss", "sober", "bss-interleaving", "graph"]:
        whole = run(f, monitor, None)
        bounded = run(f, monitor, None, bounded=True)
        for t in timeouts:
            part = run(f, monitor, t)
            runs += 1
            for m, p in part.items():
                # A claim is held to the whole run of the engine that made
                # it: the unbounded procedure's ("every" iteration), else
                # the bounded engine's, at the same bounds.
                w = (whole if p.get("iterations") == "every" else bounded).get(m, {})
                if p.get("unknown_reason") or p.get("robust_certainty") == "unknown":
                    cut += 1
                for key in ["robust", "observation"]:
                    if p.get(key) is not None and w.get(key) is not None and p[key] != w[key]:
                        bad += 1
                        print(f"{f} {monitor} --timeout {t} {m}: {key}={p[key]} ({p.get(key + '_certainty', p.get('certainty'))}), whole run {w[key]}")
                if p.get("robust") is False and not p.get("violations") and not (p.get("active") or {}).get("cycles"):
                    bad += 1
                    print(f"{f} {monitor} --timeout {t} {m}: not robust with nothing to show")
                if p.get("fences_confirmed") is True and w.get("robust") is not None and w.get("fences_confirmed") is False:
                    bad += 1
                    print(f"{f} {monitor} --timeout {t} {m}: fences confirmed, the whole run's not")
print(f"{len(files)} files, {runs} cut-short runs ({cut} answers cut), {bad} disagreements")
sys.exit(1 if bad else 0)
