#!/usr/bin/env python3
"""Write N generated diy-style litmus tests (the generator of tests/diy/mod.rs,
same xorshift and seed) into DIR, for comparing reports across versions
(scripts/snapshot-reports.sh). Usage: scripts/generate-diy.py DIR [N]"""
import os, sys

M = (1 << 64) - 1
state = [0x9E3779B97F4A7C15]

def below(n):
    s = state[0]
    s ^= (s << 13) & M
    s ^= s >> 7
    s ^= (s << 17) & M
    state[0] = s
    return s % n

def cycle(coms, fenced):
    n = len(coms)
    loc = lambda i: f"x{i % n}"
    threads, cond, name = [], [], []
    for i in range(n):
        into, out = coms[(i + n - 1) % n], coms[i]
        body = ""
        if into == "Rfe":
            body += f"  let r0 = {loc(i + n - 1)};\n"
            cond.append(f"P{i}:r0 == 1")
        elif into == "Fre":
            body += f"  {loc(i + n - 1)} = 1;\n"
        else:
            body += f"  {loc(i + n - 1)} = 2;\n"
            cond.append(f"{loc(i + n - 1)} == 2")
        if fenced[i]:
            body += "  fence;\n"
        if out in ("Rfe", "Wse"):
            body += f"  {loc(i)} = 1;\n"
        else:
            body += f"  let r1 = {loc(i)};\n"
            cond.append(f"P{i}:r1 == 0")
        kinds = ("R" if into == "Rfe" else "W") + ("R" if out == "Fre" else "W")
        name.append(f"{'MFence' if fenced[i] else 'Po'}d{kinds}")
        name.append(out)
        threads.append(f"thread P{i} {{\n{body}}}\n")
    shared = ", ".join(f"{loc(i)} = 0" for i in range(n))
    return f"litmus {'+'.join(name)}\nshared {shared};\n{''.join(threads)}exists ({' && '.join(cond)});\n"

def random(max_threads):
    n = 2 + below(max_threads - 1)
    coms = [["Rfe", "Fre", "Wse"][below(3)] for _ in range(n)]
    fenced = [below(3) == 0 for _ in range(n)]
    return cycle(coms, fenced)

out, count = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 200
os.makedirs(out, exist_ok=True)
for i in range(count):
    with open(os.path.join(out, f"t{i:05}.litmus"), "w") as f:
        f.write(random(4))
