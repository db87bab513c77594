#!/usr/bin/env python3
"""The default worker count against `--threads 1` on the peers' rows
(checker/benches/harnesses/PEERS.md), `check --bounded`, wall and CPU time
(user+sys of the process), the two alternating in order run by run (the
first of a pair runs colder: a fixed order biases the comparison by about
a millisecond on the small rows). Best and median of N runs each.

    scripts/workers-bench.py [LITMUS] [--runs N] [--busy]

--busy keeps one core spinning while it measures.
"""
import os, subprocess, sys, time

args = [a for a in sys.argv[1:] if not a.startswith("--")]
litmus = args[0] if args else "target/release/litmus"
runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 11
busy = "--busy" in sys.argv
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "checker", "benches", "harnesses")
ROWS = [("sb12", 2), ("dekker_f_k3", 3), ("dekker_f_k4", 4), ("peterson_f_k5", 5), ("bakery_f_k3", 3),
        ("peterson_f_k3", 3), ("peterson_f_k4", 4)]


def run(cmd):
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    return time.perf_counter() - t, ru.ru_utime + ru.ru_stime


spinner = subprocess.Popen(["sh", "-c", "while :; do :; done"]) if busy else None
try:
    print(f"| row | default wall best/median ms | `--threads 1` wall best/median ms | default CPU ms | `--threads 1` CPU ms | default slower? |")
    print("|---|---|---|---|---|---|")
    slower = 0
    for prog, k in ROWS:
        for model in ["sc", "tso", "pso"]:
            base = [litmus, "check", "--bounded", "--model", model, "--loop-bound", str(k), "--format", "json",
                    os.path.join(root, f"{prog}.litmus")]
            res = {"d": [], "1": []}
            for i in range(runs):
                pair = [("d", base), ("1", base + ["--threads", "1"])]
                for key, cmd in (pair if i % 2 == 0 else pair[::-1]):
                    res[key].append(run(cmd))
            stat = {}
            for key, v in res.items():
                w = sorted(x[0] for x in v)
                c = sorted(x[1] for x in v)
                stat[key] = (w[0] * 1e3, w[len(w) // 2] * 1e3, c[0] * 1e3)
            d, o = stat["d"], stat["1"]
            # Slower: in the best and the median, each by more than 3 % and
            # 0.2 ms (less is the noise of one process against another).
            worse = all(d[i] > o[i] * 1.03 and d[i] - o[i] > 0.2 for i in (0, 1))
            slower += worse
            print(f"| {prog} {model.upper()} | {d[0]:.1f} / {d[1]:.1f} | {o[0]:.1f} / {o[1]:.1f} | {d[2]:.1f} | {o[2]:.1f} | {'yes' if worse else 'no'} |",
                  flush=True)
    print(f"\n{'busy (one core spinning)' if busy else 'idle'}: default slower than --threads 1 on {slower} of {len(ROWS) * 3} rows")
finally:
    if spinner:
        spinner.kill()
