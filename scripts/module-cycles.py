#!/usr/bin/env python3
"""Import cycles between the modules of each crate.

For every source file under a crate's `src/` it reads the paths that name another module of
the same crate (`crate::a::b`, `super::c`, `self::d`, in `use` lines and in code, including
grouped `use crate::{a, b::c}`), resolves each to the longest module it names, and reports
every strongly connected group of more than one module. `mod` declarations are not edges.

Usage: scripts/module-cycles.py [CRATE_DIR ...]   (default: every workspace crate)
Exit status 1 when a cycle exists.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = ["tool-sdk", "tool-sdk-macros", "tool-registry", "examples"]
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def modules(src):
    """Module path (a tuple) of every .rs file under `src`."""
    found = {}
    for directory, _, files in os.walk(src):
        for name in files:
            if not name.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(directory, name), src)[:-3].split(os.sep)
            if rel[-1] in ("lib", "main", "mod"):
                rel = rel[:-1]
            if rel and rel[0] == "bin":
                continue
            found[tuple(rel)] = os.path.join(directory, name)
    return found


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line.split("//")[0] for line in text.splitlines())


def expand_groups(prefix, body):
    """`a, b::{c, d}, e::f` under `prefix` -> every full path."""
    out, depth, start = [], 0, 0
    parts = []
    for i, ch in enumerate(body):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    for part in parts:
        part = part.strip()
        if not part:
            continue
        if "{" in part:
            head, rest = part.split("{", 1)
            out += expand_groups(prefix + [s for s in head.split("::") if s], rest.rsplit("}", 1)[0])
        else:
            out.append(prefix + [s.strip() for s in part.split(" as ")[0].split("::") if s.strip()])
    return out


def references(module, text):
    """Absolute paths (lists of segments) named in `text`, a file of `module`."""
    paths = []
    for match in re.finditer(r"\b(crate|super|self)((?:::(?:" + IDENT + r"|\{))+)", text):
        anchor, tail = match.group(1), match.group(2)
        if tail.endswith("{"):
            depth, i = 1, match.end()
            while i < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                i += 1
            head = [s for s in tail[:-1].split("::") if s]
            groups = expand_groups(head, text[match.end():i - 1])
        else:
            groups = [[s for s in tail.split("::") if s]]
        for group in groups:
            base = list(module)
            if anchor == "crate":
                base = []
            elif anchor == "super":
                base = base[:-1]
            segments = group
            while segments and segments[0] == "super":
                base, segments = base[:-1], segments[1:]
            paths.append(base + segments)
    return paths


def sccs(graph):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on.discard(top)
                group.append(top)
                if top == node:
                    break
            out.append(group)

    sys.setrecursionlimit(10000)
    for node in list(graph):
        if node not in index:
            visit(node)
    return out


def main(crates):
    cycles = 0
    for crate in crates:
        mods = modules(os.path.join(ROOT, crate, "src"))
        graph = {}
        for module, path in mods.items():
            text = strip_comments(open(path, encoding="utf-8").read())
            for target in references(module, text):
                while target and tuple(target) not in mods:
                    target = target[:-1]
                target = tuple(target)
                if target and target != module:
                    graph.setdefault(module, set()).add(target)
        for group in sccs(graph):
            if len(group) > 1:
                cycles += 1
                names = sorted("::".join(m) for m in group)
                print(f"{crate}: cycle among {', '.join(names)}")
        print(f"{crate}: {len(mods)} modules checked", file=sys.stderr)
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or DEFAULT))
