#!/usr/bin/env python3
"""The import graph of a Rust source folder, at the level of its rooms.

A *room* is a top-level module of the folder (`vm/`, `broker/`,
`runtime.rs`, ...). An arrow A -> B means a file of A names `crate::B`
(or, inside a nested folder given with --base, `crate::<base>::B` /
`super::B`). Prints the rooms, arrows and every circle (strongly connected
component with more than one room); exits 1 when there is a circle or a
forbidden arrow (--forbid A:B).

  scripts/import-graph.py host/src --forbid vm:broker --forbid vm:store
  scripts/import-graph.py host/src/broker --base broker
"""
import argparse, os, re, sys

def rooms_of(folder):
    rooms = {}
    for entry in sorted(os.listdir(folder)):
        path = os.path.join(folder, entry)
        if entry.endswith('.rs') and entry not in ('lib.rs', 'main.rs', 'mod.rs'):
            rooms[entry[:-3]] = [path]
        elif os.path.isdir(path) and os.path.exists(os.path.join(path, 'mod.rs')):
            files = []
            for root, _, names in os.walk(path):
                files += [os.path.join(root, n) for n in names if n.endswith('.rs')]
            rooms[entry] = files
    return rooms

def strip_tests(text):
    # `#[cfg(test)] mod tests { ... }` at the end of a file is not part of the layering.
    m = re.search(r'\n#\[cfg\(test\)\]\s*\nmod tests\b', text)
    return text[:m.start()] if m else text

def arrows(folder, base):
    rooms = rooms_of(folder)
    prefix = r'crate::' + (re.escape(base) + r'::' if base else '')
    pat = re.compile(r'\b' + prefix + r'([a-z_][a-z0-9_]*)|\bcrate::\{([^}]*)\}')
    sup = re.compile(r'\bsuper::([a-z_][a-z0-9_]*)') if base else None
    out = {r: set() for r in rooms}
    for room, files in rooms.items():
        for f in files:
            text = strip_tests(open(f, encoding='utf-8').read())
            text = re.sub(r'//[^\n]*', '', text)
            for m in pat.finditer(text):
                names = [m.group(1)] if m.group(1) else [n.strip().split('::')[0] for n in m.group(2).split(',')]
                for n in names:
                    if n in rooms and n != room:
                        out[room].add(n)
            # `super::x` from a top-level file of a nested folder.
            if sup and os.path.dirname(f) == folder:
                for m in sup.finditer(text):
                    if m.group(1) in rooms and m.group(1) != room:
                        out[room].add(m.group(1))
    return out

def circles(graph):
    index, low, stack, on, comps, i = {}, {}, [], set(), [], [0]
    def visit(v):
        index[v] = low[v] = i[0]; i[0] += 1; stack.append(v); on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v: break
            if len(comp) > 1: comps.append(sorted(comp))
    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index: visit(v)
    return comps

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('folder'); ap.add_argument('--base', default='')
    ap.add_argument('--forbid', action='append', default=[])
    ap.add_argument('--quiet', action='store_true')
    a = ap.parse_args()
    g = arrows(a.folder, a.base)
    n = sum(len(v) for v in g.values())
    if not a.quiet:
        for r in sorted(g):
            print(f'{r:14} -> {", ".join(sorted(g[r])) or "-"}')
    print(f'{a.folder}: {len(g)} rooms, {n} arrows')
    bad = 0
    for c in circles(g):
        print('circle:', ' <-> '.join(c)); bad = 1
    for f in a.forbid:
        x, y = f.split(':')
        if y in g.get(x, ()):
            print(f'forbidden arrow: {x} -> {y}'); bad = 1
    sys.exit(bad)

main()
