#!/usr/bin/env python3
"""Finds import circles between the modules of every crate in the workspace.

A module is a file (`lib.rs`, `foo.rs`, `foo/mod.rs`); an edge A -> B means code in A (outside
its `#[cfg(test)]` modules, comments and strings) names an item of B, through a `use` or an
inline path. `mod` declarations are not edges; a `pub use` re-export is followed to where the
item lives. A parent module whose code uses a child, while the child uses the parent's own
items, is a circle too: shared items belong in a module of their own.

    check-module-cycles.py [ROOT]          exit 1 and list the circles, if any
    check-module-cycles.py ROOT --tree CRATE   print a crate's module tree with line counts
    check-module-cycles.py --self-test     check the checker on crates made for it
"""

import re
import sys
from pathlib import Path

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip_code(text):
    """The text with comments, string and char literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
            continue
        if text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("\n" * text.count("\n", i, j))
            i = j
            continue
        raw = re.match(r'b?r(#*)"', text[i:i + 80])
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = '"' + raw.group(1)
            j = text.find(end, i + raw.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j + 1
            continue
        char = re.match(r"'(\\.[^']*|[^\\'])'", text[i:i + 12])
        if c == "'" and char:
            out.append("' '")
            i += char.end()
            continue
        out.append(c)
        i += 1
    return "".join(out)


def remove_test_modules(code):
    """Blanks `#[cfg(test)] mod name { ... }` blocks."""
    while True:
        match = re.search(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+" + IDENT + r"\s*\{", code)
        if not match:
            return code
        depth, j = 1, match.end()
        while j < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        code = code[:match.start()] + "\n" * code.count("\n", match.start(), j) + code[j:]


def expand_use_tree(tree):
    """`a::{b, c::{d, e}}` -> [a::b, a::c::d, a::c::e]; `x as y` comes back as `x@y`."""
    tree = re.sub(r"\s+as\s+", "@", tree)
    tree = re.sub(r"\s+", "", tree)

    def split_top(inner):
        parts, depth, start = [], 0, 0
        for k, ch in enumerate(inner):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(inner[start:k])
                start = k + 1
        parts.append(inner[start:])
        return [part for part in parts if part]

    brace = tree.find("{")
    if brace < 0:
        return [tree]
    prefix, inner = tree[:brace], tree[brace + 1:tree.rfind("}")]
    paths = []
    for part in split_top(inner):
        for sub in expand_use_tree(part):
            paths.append(prefix[:-2] if sub == "self" else prefix + sub)
    return paths


class Module:
    def __init__(self, path, file, is_dir_owner):
        self.path = path  # ("crate", "suites", "load")
        self.file = file
        self.is_dir_owner = is_dir_owner  # lib.rs, main.rs, mod.rs: children live beside it
        self.children = {}
        self.reexports = {}  # name -> absolute path of what it re-exports
        self.refs = []  # (absolute path as a tuple, line)
        self.lines = 0


def child_file(module, name):
    base = module.file.parent if module.is_dir_owner else module.file.with_suffix("")
    for candidate, owner in ((base / f"{name}.rs", False), (base / name / "mod.rs", True)):
        if candidate.is_file():
            return candidate, owner
    return None, False


def parse_crate(root_file):
    modules = {}

    def load(path, file, owner):
        module = Module(path, file, owner)
        modules[path] = module
        text = file.read_text()
        module.lines = text.count("\n")
        code = remove_test_modules(strip_code(text))
        for match in re.finditer(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*;", code, re.M):
            name = match.group(1)
            found, is_owner = child_file(module, name)
            if found:
                module.children[name] = load(path + (name,), found, is_owner)
        for match in re.finditer(r"^\s*(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", code, re.M):
            line = code.count("\n", 0, match.start()) + 1
            for raw in expand_use_tree(match.group(2)):
                path_text, _, alias = raw.partition("@")
                alias = alias or None
                absolute = resolve_relative(module, path_text.split("::"))
                if absolute is None:
                    continue
                module.refs.append((absolute, line))
                if match.group(1) and match.group(1).startswith("pub") and absolute[-1] != "*":
                    module.reexports[alias or absolute[-1]] = absolute
        body = re.sub(r"^\s*(pub(?:\([^)]*\))?\s+)?use\s+[^;]+;", lambda m: "\n" * m.group(0).count("\n"), code, flags=re.M)
        # A visibility restricted to a path (`pub(in crate::http2)`) names where an item may be
        # seen, not an item it uses.
        body = re.sub(r"\bpub\s*\(\s*in\s+[^)]*\)", "pub", body)
        heads = "|".join(["crate", "super", "self"] + [re.escape(name) for name in module.children])
        for match in re.finditer(r"(?<![A-Za-z0-9_:])(" + heads + r")((?:::" + IDENT + r")+)", body):
            line = body.count("\n", 0, match.start()) + 1
            absolute = resolve_relative(module, [match.group(1)] + match.group(2).split("::")[1:])
            if absolute is not None:
                module.refs.append((absolute, line))
        return module

    def resolve_relative(module, segments):
        if not segments:
            return None
        head = segments[0]
        if head == "crate":
            return ("crate",) + tuple(segments[1:])
        if head in ("self", "super"):
            base = list(module.path)
            rest = list(segments)
            while rest and rest[0] in ("self", "super"):
                if rest.pop(0) == "super":
                    base.pop()
            return tuple(base + rest)
        if head in module.children:
            return module.path + tuple(segments)
        return None  # another crate, std, or a name in scope

    load(("crate",), root_file, True)
    return modules


def target_module(modules, absolute, seen=None):
    """The module that holds the item named by `absolute`, following `pub use` re-exports."""
    seen = seen or set()
    for length in range(len(absolute), 0, -1):
        prefix = absolute[:length]
        if prefix in modules:
            module = modules[prefix]
            rest = absolute[length:]
            if rest and rest[0] in module.reexports and (prefix, rest[0]) not in seen:
                seen.add((prefix, rest[0]))
                return target_module(modules, module.reexports[rest[0]] + rest[1:], seen)
            return prefix
    return None


def cycles(modules):
    edges = {path: {} for path in modules}
    for path, module in modules.items():
        for absolute, line in module.refs:
            target = target_module(modules, absolute)
            if target and target != path:
                edges[path].setdefault(target, line)
    index, low, stack, on_stack, result, counter = {}, {}, [], set(), [], [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in edges[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                result.append(sorted(component))

    sys.setrecursionlimit(10000)
    for node in modules:
        if node not in index:
            visit(node)
    return result, edges


def crate_roots(root):
    for manifest in sorted(root.glob("**/Cargo.toml")):
        if "target" in manifest.parts or manifest.parent == root and "[package]" not in manifest.read_text():
            continue
        name = re.search(r'^name\s*=\s*"([^"]+)"', manifest.read_text(), re.M)
        if not name:
            continue
        crate = manifest.parent
        for kind in ("lib.rs", "main.rs"):
            if (crate / "src" / kind).is_file():
                yield f"{name.group(1)} ({kind})", crate / "src" / kind
        for test in sorted((crate / "tests").glob("*/main.rs")):
            yield f"{name.group(1)} (tests/{test.parent.name})", test


def print_tree(modules, module, depth=0):
    name = module.path[-1] if depth else str(module.file)
    print(f"{'  ' * depth}{name}  ({module.lines} lines)")
    for child in sorted(module.children.values(), key=lambda m: m.path):
        print_tree(modules, child, depth + 1)


def self_test():
    """Two throwaway crates: one with a circle through a parent's own item and an aliased
    grouped import, one without (a parent re-exporting a child's item is no circle)."""
    import tempfile

    cases = {
        "circular": {
            "src/lib.rs": "mod a;\nmod b;\npub struct Shared;\npub fn f() { a::g(); }\n",
            "src/a.rs": "use crate::{b::{self as other}, Shared};\npub fn g() { other::h(); }\n",
            "src/b.rs": "// use crate::a; (a comment is no import)\npub fn h() {}\n",
        },
        "acyclic": {
            "src/lib.rs": "mod a;\nmod b;\npub use b::Shared;\npub fn f() { a::g(); }\n",
            "src/a.rs": "mod c;\nuse crate::Shared;\npub fn g() { let _ = Shared; c::k(); }\n",
            "src/b.rs": "pub struct Shared;\n#[cfg(test)]\nmod tests { use crate::a; }\n",
            # A child's item visible only as far as its parent is no use of the parent.
            "src/a/c.rs": "pub(in crate::a) fn k() {}\n",
        },
    }
    found = {}
    with tempfile.TemporaryDirectory() as directory:
        for name, files in cases.items():
            crate = Path(directory) / name
            for path, text in files.items():
                (crate / path).parent.mkdir(parents=True, exist_ok=True)
                (crate / path).write_text(text)
            (crate / "Cargo.toml").write_text(f'[package]\nname = "{name}"\n')
            found[name], _ = cycles(parse_crate(crate / "src" / "lib.rs"))
    expected = [[("crate",), ("crate", "a")]]
    if found["circular"] != expected or found["acyclic"]:
        print(f"self-test failed: {found}")
        return 1
    print("self-test: the circle was found, and no circle where there is none")
    return 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    root = Path(argv[1] if len(argv) > 1 and not argv[1].startswith("-") else ".").resolve()
    if "--tree" in argv:
        wanted = argv[argv.index("--tree") + 1]
        for label, file in crate_roots(root):
            if label.split(" ")[0] == wanted and "(lib.rs)" in label:
                modules = parse_crate(file)
                print_tree(modules, modules[("crate",)])
        return 0
    failed = False
    for label, file in crate_roots(root):
        modules = parse_crate(file)
        found, edges = cycles(modules)
        for component in found:
            failed = True
            members = set(component)
            print(f"circle in {label}:")
            for source in component:
                for target, line in sorted(edges[source].items()):
                    if target in members:
                        print(f"  {modules[source].file.relative_to(root)}:{line} uses {'::'.join(target)}")
    if not failed:
        print("no module circles")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
