#!/usr/bin/env python3
"""Import circles between the modules (files) of each crate of the workspace.

A module's arrows are the modules it names: `crate::a::b`, `super::x`, and
in a module with submodules, `child::` (how a parent reaches its children).
The crate root (lib.rs/main.rs) is left out: it only declares modules and
re-exports. Prints each circle with its arrows; exits 1 if there is one.
Usage: scripts/import-circles.py [CRATE_SRC_DIR...] (default: every crate)
"""
import os, re, sys

def modules(root):
    files = {}
    for d, _, fs in os.walk(root):
        for f in fs:
            if f.endswith(".rs"):
                p = os.path.join(d, f)
                parts = os.path.relpath(p, root)[:-3].split("/")
                if parts[-1] in ("mod", "lib", "main"):
                    parts = parts[:-1]
                files["::".join(parts)] = p
    return files

def circles(root):
    files = modules(root)
    mods = set(files)

    def resolve(path):
        segs = path.split("::")
        for i in range(len(segs), 0, -1):
            m = "::".join(segs[:i])
            if m in mods:
                return m
        return None

    edges = {m: set() for m in mods}
    for m, p in files.items():
        if m == "":
            continue
        src = open(p).read()
        cut = src.find("#[cfg(test)]\nmod tests")
        if cut >= 0:
            src = src[:cut]
        src = re.sub(r"//.*", "", src)
        targets = set()
        for mm in re.finditer(r"crate::((?:\w+::)*\w+)", src):
            targets.add(resolve(mm.group(1)))
        # `use crate::{a::{b, c}, d}`: one level of nesting.
        for mm in re.finditer(r"use crate::\{([^;]*)\};", src, re.S):
            for item in re.finditer(r"(\w+)(?:::\{([^}]*)\}|((?:::\w+)*))", mm.group(1)):
                base = item.group(1)
                if item.group(2):
                    for sub in re.findall(r"\w+", item.group(2)):
                        targets.add(resolve(base + "::" + sub))
                else:
                    targets.add(resolve(base + (item.group(3) or "")))
        parent = "::".join(m.split("::")[:-1])
        for mm in re.finditer(r"super::(?:(\w+)|\{([^}]*)\})", src):
            for name in [mm.group(1)] if mm.group(1) else re.findall(r"\w+", mm.group(2)):
                targets.add(resolve((parent + "::" if parent else "") + name) or (parent or None))
        for c in mods:
            if c.startswith(m + "::") and c.count("::") == m.count("::") + 1:
                name = c.split("::")[-1]
                if re.search(r"(?<![:\w])" + name + r"::", src):
                    targets.add(c)
        edges[m] = {t for t in targets if t and t != m}
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    for v in sorted(mods):
        if v not in index:
            visit(v)
    return [(sorted(c), edges) for c in out if len(c) > 1]

here = os.path.dirname(os.path.abspath(__file__))
roots = sys.argv[1:] or [os.path.join(here, "..", d) for d in ("src", "ir/src", "dsl/src", "checker/src", "present/src", "history/src", "hardware/src", "lsp/src", "cat/src")]
found = 0
for root in roots:
    for comp, edges in circles(root):
        found += 1
        print(f"{os.path.relpath(root)}: a circle of {len(comp)}")
        for a in comp:
            print(f"    {a or '(root)'} -> {', '.join(sorted(x for x in edges[a] if x in comp))}")
print(f"{len(roots)} crates, {found} import circles")
sys.exit(1 if found else 0)
