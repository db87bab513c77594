#!/usr/bin/env python3
"""litmus against herd7 on a folder of litmus tests, side by side.

    scripts/vs-herd7.py [--litmus-model NAME] [--cat-include DIR] [--chunk N] [--c11] HERD_MODEL FILE_OR_DIR...

Runs herd7 (`$HERD7`, default /work/peers/herd7/bin/herd7, built by
scripts/build-herd7.sh, with `-set-libdir tests/corpus/models/herd`) under
HERD_MODEL (e.g. riscv.cat) and `litmus check --bounded --format json`
under --litmus-model (default: HERD_MODEL as a file of herd's library), in
chunks of files, and compares each test's observation and state count.
Prints the agreement, each difference, the tests litmus refuses (by
diagnostic code) and the wall/CPU time of both, one run each per chunk.
"""
import argparse, glob, json, os, re, resource, subprocess, sys, time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser()
ap.add_argument("herd_model")
ap.add_argument("paths", nargs="+")
ap.add_argument("--litmus-model")
ap.add_argument("--cat-include", default=os.path.join(root, "tests/corpus/models/herd"))
ap.add_argument("--chunk", type=int, default=400)
ap.add_argument("--timeout", default="10", help="per file, seconds: litmus --timeout, herd7 -timeout (CPU)")
ap.add_argument("--every", type=int, default=1, help="take every k-th file (a sample of a large catalogue)")
ap.add_argument("--c11", action="store_true", help="herd7 with -c11 (C tests: cpp11.cfg from herd7's own libdir)")
ap.add_argument("--per-test", type=int, default=0, metavar="K",
                help="also run each test alone with both tools: how many litmus answers slower (wall), "
                     "and the K with the most herd7 candidates, with both times, herd7's candidates and litmus's steps")
a = ap.parse_args()
herd7 = os.environ.get("HERD7", "/work/peers/herd7/bin/herd7")
lib = os.path.join(root, "tests/corpus/models/herd")
litmus = os.path.join(root, "target/release/litmus")
files = []
for p in a.paths:
    files += sorted(glob.glob(os.path.join(p, "**/*.litmus"), recursive=True)) if os.path.isdir(p) else [p]
files = files[:: a.every]
model = a.litmus_model or os.path.join(lib, a.herd_model)

def timed(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.time()
    out = subprocess.run(cmd, capture_output=True, text=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, time.time() - t, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

def test_name(f):
    with open(f, errors="replace") as fh:
        parts = fh.readline().split()
    return parts[1] if len(parts) > 1 else None

def per_test(files, herd_cmd, lit_cmd, k):
    rows = []
    for f in files:
        # Best of three runs each: one process's start is noise at this size.
        ho, hw, _ = timed(herd_cmd[:1] + ["-candidates", "true"] + herd_cmd[1:] + [f])
        hw = min([hw] + [timed(herd_cmd + [f])[1] for _ in range(2)])
        m = re.search(r"^Candidates \S+ (\d+)", ho.stdout, re.M)
        if not m or "Observation" not in ho.stdout:
            continue  # herd7 gave no answer
        lo, lw, _ = timed(lit_cmd + [f])
        lw = min([lw] + [timed(lit_cmd + [f])[1] for _ in range(2)])
        try:
            j = json.loads(lo.stdout.splitlines()[0])
            steps = list(j["models"].values())[0].get("steps")
        except (IndexError, KeyError, ValueError):
            continue  # refused by litmus
        rows.append((os.path.relpath(f), hw, lw, int(m.group(1)), steps))
    slower = [r for r in rows if r[2] > r[1]]
    print(f"per test: {len(rows)} answered by both; litmus slower (wall) on {len(slower)}"
          + (f": {[(r[0], round(r[1], 3), round(r[2], 3)) for r in slower]}" if slower else ""))
    print("largest (most herd7 candidates): file, herd7 wall s, litmus wall s, herd7 candidates, litmus steps")
    for r in sorted(rows, key=lambda r: -r[3])[:k]:
        print(f"  {r[0]}\t{r[1]:.3f}\t{r[2]:.3f}\t{r[3]}\t{r[4]}")

def parse_herd(stdout, into):
    cur = None
    for line in stdout.splitlines():
        m = re.match(r"Test (\S+) ", line)
        if m:
            cur = m.group(1)
        m = re.match(r"States (\d+)", line)
        if m and cur:
            into.setdefault(cur, {})["states"] = int(m.group(1))
        m = re.match(r"Observation (\S+) (\w+)", line)
        if m:
            into.setdefault(m.group(1), {})["obs"] = m.group(2).lower()

# herd7 names its answers by test name: tests that share a name are run
# one at a time and keyed by file.
names = {}
for f in files:
    names.setdefault(test_name(f), []).append(f)
shared = {f for fs in names.values() if len(fs) > 1 for f in fs}
herd, lit, by_file = {}, {}, {}
hw = hc = lw = lc = 0.0
herd_cmd = [herd7, "-set-libdir", lib, "-timeout", a.timeout]
if a.c11:
    # `-c11` is `-conf cpp11.cfg`, which the corpus libdir does not hold.
    herd_cmd += ["-conf", os.path.join(os.path.dirname(os.path.dirname(herd7)), "libdir", "cpp11.cfg")]
herd_cmd += ["-model", a.herd_model]
for f in sorted(shared):
    out, w, c = timed(herd_cmd + [f])
    hw, hc = hw + w, hc + c
    one = {}
    parse_herd(out.stdout, one)
    by_file[f] = next(iter(one.values()), {})
for i in range(0, len(files), a.chunk):
    chunk = files[i : i + a.chunk]
    out, w, c = timed(herd_cmd + [f for f in chunk if f not in shared])
    hw, hc = hw + w, hc + c
    parse_herd(out.stdout, herd)
    cmd = [litmus, "check", "--bounded", "--format", "json", "--timeout", a.timeout, "--model", model, "--cat-include", a.cat_include]
    out, w, c = timed(cmd + chunk)
    lw, lc = lw + w, lc + c
    for line in out.stdout.splitlines():
        j = json.loads(line)
        if "file" in j:
            lit[j["file"]] = j
agree, differ, refused, unanswered, unknown, noanswer = 0, [], {}, 0, [], []
refused_answered = []
for f in files:
    j = lit.get(f)
    if not j or not j.get("models"):
        code = (j or {}).get("diagnostics", [{}])
        code = code[0].get("code", "?") if code else "?"
        refused[code] = refused.get(code, 0) + 1
        h = by_file[f] if f in shared else herd.get(test_name(f))
        if h and "obs" in h:
            refused_answered.append((os.path.relpath(f), code))
        continue
    m = list(j["models"].values())[0]
    h = by_file[f] if f in shared else herd.get(j.get("test"))
    if not h or "obs" not in h:
        unanswered += 1
        noanswer.append(os.path.relpath(f))
        continue
    if not j.get("condition") and m.get("certainty") == "proved":
        # No final condition (herd7 says `forall true`): the states alone.
        if m.get("states") == h.get("states"):
            agree += 1
        else:
            differ.append((os.path.relpath(f), h, None, m.get("states"), m.get("certainty")))
    elif m.get("observation_certainty") != "proved":
        unknown.append((os.path.relpath(f), m.get("unknown_reason") or m.get("observation_certainty")))
    elif m.get("observation") == h["obs"] and m.get("states") == h.get("states"):
        agree += 1
    else:
        differ.append((os.path.relpath(f), h, m["observation"], m["states"], m.get("observation_certainty")))
for d in differ:
    print("DIFF", *d)
for u in unknown:
    print("UNKNOWN", *u)
for f in noanswer:
    print("NOANSWER", f)
for f, code in refused_answered:
    print("REFUSED-HERD-ANSWERS", code, f)
print(f"{len(files)} files: {agree} agree, {len(differ)} differ, {len(unknown)} unknown to litmus, litmus refused {sum(refused.values())} {refused}"
      f" (herd7 answers {len(refused_answered)} of them), herd7 gave no answer to {unanswered}")
print(f"time: litmus {lw:.2f} s wall, {lc:.2f} s CPU; herd7 {hw:.2f} s wall, {hc:.2f} s CPU")
if a.per_test:
    lit_cmd = [litmus, "check", "--bounded", "--format", "json", "--timeout", a.timeout, "--model", model, "--cat-include", a.cat_include]
    per_test(files, herd_cmd, lit_cmd, a.per_test)
