#!/usr/bin/env python3
"""Checks where unit tests live (ARCHITECTURE.md, "Where tests live").

Usage: python3 hack/check-test-placement.py [CRATE_DIR...]
(default: every workspace crate), or `--self-test`: the checker must
report exactly `hack/tests/placement-violation/expected.txt` on that
fixture, which breaks each rule once, and pass the workspace. Prints each offender as
`path:line: what is wrong`, and exits 1 when there is one.

Checked under each crate's `src/`:

- a file has at most one test module, named `tests`;
- an inline test module is the file's last item and has at most
  INLINE_MAX body lines (longer ones move to a sibling `tests.rs`);
- a sibling `tests.rs` has more than SIBLING_MIN lines (shorter ones move
  back inline; the gap keeps a module from moving at every edit);
- a `tests/` directory holds several files (`mod.rs` and at least one
  more);
- `tests.rs` files and `tests/` directories are declared by their parent as
  `#[cfg(test)] mod tests;`;
- no `#[test]` function sits outside a test module;
- no unit test starts a control plane (`kubegen_testenv`): end-to-end
  tests go to the crate's top-level `tests/`.

A test module is a `#[cfg(test)]` module holding `#[test]` functions, or
named `tests`; a `#[cfg(test)]` module without tests (shared fixtures) is
not one. Which ported suites a `tests/` directory holds is for reviewers.
"""

import os
import re
import subprocess
import sys

INLINE_MAX = 300
SIBLING_MIN = 250
CRATES = [
    "kubegen-core",
    "kubegen-codegen",
    "kubegen-derive",
    "kubegen-cli",
    "kubegen-crd",
    "kubegen-base",
    "kubegen-engine",
    "kubegen-runtime",
    "tests/kubegen-testenv",
    "examples/my-application",
]
TEST_ATTR = re.compile(r"#\[\s*(?:[\w:]+::)?test\b")
CFG_TEST_MOD = re.compile(
    r"#\[\s*cfg\(\s*test\s*\)\s*\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*([;{])"
)


def blank(text):
    """`text` with comments, strings and char literals blanked (lines kept)."""
    out, i, n = [], 0, len(text)

    def keep_lines(chunk):
        return re.sub(r"[^\n]", " ", chunk)

    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 0, i
            while j < n:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                    if depth == 0:
                        break
                else:
                    j += 1
            out.append(keep_lines(text[i:j]))
            i = j
        elif (m := re.match(r'b?r(#*)"', text[i : i + 260])) and (
            i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")
        ):
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append(keep_lines(text[i:j]))
            i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append(keep_lines(text[i:j]))
            i = j
        elif text[i] == "'" and (m := re.match(r"'(\\.[^']*|[^\\'])'", text[i : i + 12])):
            out.append(keep_lines(m.group(0)))
            i += len(m.group(0))
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def blank_macros(code):
    """`code` with the input of every macro call blanked (delimiters and
    lines kept): tokens a macro quotes (`quote! { #[test] ... }`) are not
    this file's items."""
    out = list(code)
    pairs = {"(": ")", "[": "]", "{": "}"}
    for m in re.finditer(r"\b\w+!\s*([(\[{])", code):
        start = m.end() - 1
        if out[start] == " ":
            continue  # inside a macro already blanked
        depth = 0
        for k in range(start, len(code)):
            if code[k] in pairs:
                depth += 1
            elif code[k] in ")]}":
                depth -= 1
                if depth == 0:
                    break
        for j in range(start + 1, k):
            if out[j] != "\n":
                out[j] = " "
    return "".join(out)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def closing(text, open_pos):
    """The position of the `}` matching the `{` at `open_pos`."""
    depth = 0
    for k in range(open_pos, len(text)):
        if text[k] == "{":
            depth += 1
        elif text[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(text) - 1


def module_dir(path):
    """The directory where `mod x;` in `path` looks for `x.rs` / `x/mod.rs`."""
    base = os.path.basename(path)
    if base in ("mod.rs", "lib.rs", "main.rs"):
        return os.path.dirname(path)
    return path[: -len(".rs")]


def rust_files(crate):
    src = os.path.join(crate, "src")
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".rs"):
                yield os.path.join(root, f)


class Checker:
    def __init__(self):
        self.offenders = []
        self.declared = set()  # test files/dirs declared `#[cfg(test)] mod tests;`
        self.test_files = set()  # files that are test code as a whole

    def report(self, path, line, message):
        self.offenders.append(f"{path}:{line}: {message}")

    def scan(self, path):
        text = open(path, encoding="utf-8").read()
        code = blank_macros(blank(text))
        modules = []
        for m in CFG_TEST_MOD.finditer(code):
            name, kind = m.group(1), m.group(2)
            start = line_of(code, m.start())
            if kind == "{":
                end = closing(code, m.end() - 1)
                body = code[m.end() : end]
                is_test = name == "tests" or TEST_ATTR.search(body)
                if is_test:
                    modules.append((name, start, "inline", m.start(), end))
            else:
                target = self.resolve(path, name)
                if target is None:
                    continue
                if os.path.isdir(target):
                    is_test = True
                else:
                    is_test = name == "tests" or TEST_ATTR.search(blank(open(target).read()))
                if is_test:
                    modules.append((name, start, target, m.start(), m.end()))
                    self.declared.add(target)
                    self.test_files.add(target)
                    if os.path.isdir(target):
                        for root, _, files in os.walk(target):
                            self.test_files.update(os.path.join(root, f) for f in files)
        self.check_modules(path, code, modules)
        return code, modules

    def resolve(self, path, name):
        d = module_dir(path)
        for candidate in (os.path.join(d, f"{name}.rs"), os.path.join(d, name, "mod.rs")):
            if os.path.exists(candidate):
                return candidate if candidate.endswith(f"{name}.rs") else os.path.dirname(candidate)
        return None

    def check_modules(self, path, code, modules):
        if len(modules) > 1:
            self.report(path, modules[1][1], f"{len(modules)} test modules; one, named `tests`")
        for name, line, where, start, end in modules:
            if name != "tests":
                self.report(path, line, f"test module `{name}`: name it `tests`")
            if where == "inline":
                body = line_of(code, end) - line_of(code, start) - 2
                if body > INLINE_MAX:
                    self.report(
                        path, line, f"inline test module of {body} lines: over {INLINE_MAX}, move it to a sibling tests.rs"
                    )
                if code[end + 1 :].strip():
                    self.report(path, line, "inline test module is not the file's last item")
            elif os.path.isdir(where):
                files = [f for _, _, fs in os.walk(where) for f in fs if f.endswith(".rs")]
                if len(files) < 2:
                    self.report(where, 1, "a tests/ directory with one file: make it tests.rs")
            else:
                lines = open(where).read().count("\n")
                if os.path.basename(where) == "tests.rs" and lines <= SIBLING_MIN:
                    self.report(where, 1, f"tests.rs of {lines} lines: {SIBLING_MIN} or fewer, move it back inline")

    def stray_tests(self, path, code, modules):
        """`#[test]` functions outside every test module of a non-test file."""
        if path in self.test_files:
            return
        spans = [(s, e) for _, _, where, s, e in modules if where == "inline"]
        for m in TEST_ATTR.finditer(code):
            if not any(s <= m.start() <= e for s, e in spans):
                self.report(path, line_of(code, m.start()), "#[test] outside a test module")

    def control_plane(self, path, code, modules):
        """Test code that starts a real control plane."""
        if "kubegen-testenv" in path:
            return
        spans = [(s, e) for _, _, where, s, e in modules if where == "inline"]
        for m in re.finditer(r"\bkubegen_testenv\b", code):
            if path in self.test_files or any(s <= m.start() <= e for s, e in spans):
                self.report(path, line_of(code, m.start()), "unit test uses kubegen_testenv: an end-to-end test belongs in the crate's tests/")

    def undeclared(self, crate):
        for root, dirs, files in os.walk(os.path.join(crate, "src")):
            for d in dirs:
                p = os.path.join(root, d)
                if d == "tests" and p not in self.declared:
                    self.report(p, 1, "tests/ directory not declared `#[cfg(test)] mod tests;`")
            for f in files:
                p = os.path.join(root, f)
                if f == "tests.rs" and p not in self.declared and os.path.dirname(p) not in self.test_files:
                    if not any(p.startswith(t + os.sep) for t in self.declared if os.path.isdir(t)):
                        self.report(p, 1, "tests.rs not declared `#[cfg(test)] mod tests;`")


def self_test():
    """Fails unless the checker reports the violating fixture's expected
    offenders, line for line, and exits 1 on it."""
    fixture = "hack/tests/placement-violation"
    run = subprocess.run([sys.executable, __file__, fixture], capture_output=True, text=True)
    with open(os.path.join(fixture, "expected.txt")) as f:
        expected = f.read()
    if run.returncode != 1 or run.stdout != expected:
        print(f"self-test failed: on {fixture} the checker exited {run.returncode} with\n{run.stdout}expected exit 1 with\n{expected}")
        return 1
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    crates = sys.argv[1:] or CRATES
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True).stdout.strip()
    if top:
        os.chdir(top)
    checker = Checker()
    scanned = []
    for crate in crates:
        for path in rust_files(crate):
            code, modules = checker.scan(path)
            scanned.append((path, code, modules))
    for path, code, modules in scanned:
        checker.stray_tests(path, code, modules)
        checker.control_plane(path, code, modules)
    for crate in crates:
        checker.undeclared(crate)
    for o in checker.offenders:
        print(o)
    if checker.offenders:
        print(f"{len(checker.offenders)} test-placement offender(s); see ARCHITECTURE.md, \"Where tests live\"")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
