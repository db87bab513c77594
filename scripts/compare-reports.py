#!/usr/bin/env python3
"""Compare two directories written by scripts/snapshot-reports.sh.

Every file must be byte-identical, except that a JSON report with a model
cut by the clock (`timed_out`) in either run is left out of the comparison:
where a time budget ends varies from run to run. Everything else is
compared, `fences_minimal` included (its proof stops by work, not time,
since issue 43). Prints what was compared and every difference; exits 1
on a difference.
With --counts-may-differ, a change that reshapes a search (a reduction, a
different state key) is compared on its answers only: the counts of states,
of terminal states and of attack occurrences in proved-for-every-iteration
reports are left out, and so is the human output (its witnesses are other
paths to the same ends).
Usage: scripts/compare-reports.py [--counts-may-differ] BEFORE AFTER
"""
import json, os, sys

args = [a for a in sys.argv[1:] if not a.startswith("--")]
counts = "--counts-may-differ" in sys.argv
a_dir, b_dir = args[0], args[1]


def drop_counts(r):
    for m in (r.get("models") or {}).values():
        if not m or m.get("iterations") != "every":
            continue
        m.pop("states_explored", None)
        m.pop("executions", None)
        for v in m.get("violations") or []:
            v.pop("occurrences", None)
compared = skipped = differ = 0
for name in sorted(set(os.listdir(a_dir)) | set(os.listdir(b_dir))):
    pa, pb = os.path.join(a_dir, name), os.path.join(b_dir, name)
    if not (os.path.exists(pa) and os.path.exists(pb)):
        print(f"{name}: only in one run"); differ += 1; continue
    if not name.endswith(".jsonl"):
        if counts and name == "human.txt":
            continue
        compared += 1
        if open(pa, "rb").read() != open(pb, "rb").read():
            print(f"{name}: differs"); differ += 1
        continue
    la, lb = open(pa).read().splitlines(), open(pb).read().splitlines()
    if len(la) != len(lb):
        print(f"{name}: {len(la)} vs {len(lb)} reports"); differ += 1; continue
    cut_here = False
    for x, y in zip(la, lb):
        ra, rb = json.loads(x), json.loads(y)
        if "file" not in ra and cut_here:
            # The summary counts what the clock-cut reports found.
            skipped += 1
            continue
        timed = lambda r: any((v or {}).get("timed_out") for v in (r.get("models") or {}).values())
        if timed(ra) or timed(rb):
            skipped += 1
            cut_here = True
            continue
        compared += 1
        if counts:
            drop_counts(ra)
            drop_counts(rb)
        if ra != rb:
            differ += 1
            print(f"{name}: {ra.get('file')} differs")
print(f"{compared} reports or files compared, {skipped} reports cut by the clock left out, {differ} differences")
sys.exit(1 if differ else 0)
