# SPDX-License-Identifier: Apache-2.0
"""The house rules of the headers (include/cuguard) and the kernels (kernels/), by reading the
source: each file one concept, so none over MAX_LINES lines and no function of MAX_FUNCTION lines
or more; and each header includes only cuguard headers it uses (a name one of them declares
appears in it); no namespace `detail` but cuguard::detail (a nested one shadows it). Headers of includes only (the umbrella) pass their includes on; includes after a
header's last namespace (the parts of <cuguard/checked_view.hpp>) are parts of it, not uses; an
include marked `// IWYU pragma: export` is given to the header's users (report.hpp gives
violation_error.hpp).

Used by layers.py; `house.py <source tree>` runs it alone.
"""
import os
import re
import sys

MAX_LINES = 450
MAX_FUNCTION = 60

INCLUDE = re.compile(r"^\s*#\s*include\s*<cuguard/([^>]+)>", re.M)
EXPORT = re.compile(r"^\s*#\s*include\s*<cuguard/([^>]+)>\s*//\s*IWYU pragma: export", re.M)
# What a header declares, as far as a reading by patterns finds it: types, aliases, macros,
# variables, and functions (a name before "(" on a line that begins a declaration).
DECLARES = [
    re.compile(r"\b(?:struct|class|union|enum(?:\s+class)?)\s+(?:\[\[[^\]]*\]\]\s*)?([A-Za-z_]\w*)"),
    re.compile(r"\busing\s+([A-Za-z_]\w*)\s*="),
    re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)", re.M),
    re.compile(r"\bnamespace\s+([A-Za-z_]\w*)\s*="),
    re.compile(r"^\s*(?:template\s*<.*>\s*)?(?:\[\[[^\]]*\]\]\s*)?(?:[A-Za-z_][\w:<>,*&\s]*?[\s*&>])([A-Za-z_]\w*)\s*(?:\(|\{|=|;|\[)",
               re.M),
    re.compile(r"^\s*(?:inline\s+)?(?:constexpr\s+)?[A-Za-z_][\w:<>]*\s+([A-Za-z_]\w*)\s*=", re.M),
]
# Words a declaration pattern also catches that name nothing of a header's own.
NOT_NAMES = {"return", "inline", "constexpr", "static", "const", "template", "typename", "noexcept", "if", "for",
             "while", "switch", "else", "namespace", "cuguard", "detail", "std", "operator", "sizeof", "decltype",
             "defined", "case", "default", "public", "private", "protected", "struct", "class", "enum", "using"}
CONTROL = re.compile(r"^\s*(if|for|while|switch|else|do|try|catch|struct|class|namespace|enum|union|extern|return)\b")
NAMESPACE_END = re.compile(r"CUGUARD_IMPL_END_NAMESPACE|^\s*}\s*//\s*namespace", re.M)


def strip(text):
    """The text without comments, string and character literals."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"'(?:\\.|[^'\\\n])*'", "''", text)


def declared(code):
    names = set()
    for pattern in DECLARES:
        names.update(m.group(1) for m in pattern.finditer(code))
    return names - NOT_NAMES


def longest_functions(code):
    """(lines, first line, signature) of each function body in `code` (stripped): a line ending
    with '{' whose last lines name a function, to its closing brace."""
    lines = code.split("\n")
    found = []
    for i, line in enumerate(lines):
        head = line.split("(")[0]
        if not line.rstrip().endswith("{") or CONTROL.match(line) or "=" in head or "[" in head:
            continue
        if ")" not in line and not (line.strip() == "{" and i > 0 and ")" in lines[i - 1]):
            continue
        context = " ".join(lines[max(0, i - 3):i + 1])
        if not re.search(r"\b[A-Za-z_][\w:~<>]*\s*\(", context):
            continue
        depth = 0
        for j in range(i, len(lines)):
            depth += lines[j].count("{") - lines[j].count("}")
            if depth <= 0:
                break
        found.append((j - i + 1, i + 1, line.strip()[:70]))
    return found


def shadowing_details(text):
    """The lines of `text` that open a namespace `detail` anywhere but directly in cuguard's: a
    nested one (cuguard::torch::detail) would shadow cuguard::detail inside it. Namespaces close
    with `} // namespace <name>` (the project's convention)."""
    stack, found = [], []
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith("#"):
            if "CUGUARD_IMPL_BEGIN_NAMESPACE" in line or "CUGUARD_IMPL_END_NAMESPACE" in line:
                continue  # the macros' own definitions
        if re.match(r"\s*CUGUARD_IMPL_BEGIN_NAMESPACE", line):
            stack.append("cuguard")
        elif re.match(r"\s*CUGUARD_IMPL_END_NAMESPACE", line) or re.match(r"\s*}\s*//\s*namespace\b", line):
            if stack:
                stack.pop()
        else:
            opened = re.match(r"\s*namespace\s+([\w:]+)\s*\{", line)
            if opened:
                stack.append(opened.group(1))
                if opened.group(1) == "detail" and stack[:-1] != ["cuguard"]:
                    found.append(n)
    return found


def check(root, failures):
    include = os.path.join(root, "include", "cuguard")
    files = {}
    for base in (include, os.path.join(root, "kernels")):
        for folder, _, names in os.walk(base):
            for f in names:
                if f.endswith((".hpp", ".cuh", ".cu")):
                    path = os.path.join(folder, f)
                    with open(path) as h:
                        files[path] = h.read()
    before = len(failures)
    longest = (0, "", 0, "")
    for path, text in sorted(files.items()):
        rel = os.path.relpath(path, root)
        count = text.count("\n")
        if count > MAX_LINES:
            failures.append(f"house: {rel} has {count} lines, more than {MAX_LINES} (one concept a file)")
        for line in shadowing_details(text):
            failures.append(f"house: {rel}:{line}: a namespace detail inside another of cuguard's shadows cuguard::detail")
        for n, line, signature in longest_functions(strip(text)):
            if n >= MAX_FUNCTION:
                failures.append(f"house: {rel}:{line}: a function of {n} lines ({MAX_FUNCTION} or more): {signature}")
            longest = max(longest, (n, rel, line, signature))

    # Each header includes only what it uses.
    headers = {os.path.relpath(p, include).replace(os.sep, "/"): strip(t)
               for p, t in files.items() if p.startswith(include + os.sep)}
    own = {rel: declared(INCLUDE.sub("", code)) for rel, code in headers.items()}
    # Includes marked "IWYU pragma: export": what the header gives its users besides its own.
    exports = {os.path.relpath(p, include).replace(os.sep, "/"): set(EXPORT.findall(t))
               for p, t in files.items() if p.startswith(include + os.sep)}

    def body(code):
        return re.sub(r"^\s*#\s*(include|pragma)\b[^\n]*", "", code, flags=re.M)

    def includes_only(rel):
        rest = re.sub(r"^\s*#[^\n]*", "", headers[rel], flags=re.M)
        return not rest.replace("CUGUARD_IMPL_BEGIN_NAMESPACE", "").replace("CUGUARD_IMPL_END_NAMESPACE", "").strip()

    provided = {}

    def provides(rel, seen=()):
        if rel in provided:
            return provided[rel]
        names = set(own.get(rel, set()))
        if rel in headers and includes_only(rel) and rel not in seen:
            for t in INCLUDE.findall(headers[rel]):
                names |= provides(t, seen + (rel,))
        provided[rel] = names
        return names

    unused = 0
    for rel, code in sorted(headers.items()):
        if includes_only(rel):
            continue
        ends = [m.start() for m in NAMESPACE_END.finditer(code)]
        last = ends[-1] if ends else len(code)
        words = set(re.findall(r"[A-Za-z_]\w*", body(code)))
        for m in INCLUDE.finditer(code):
            target = m.group(1)
            if m.start() > last or target not in headers or target in exports[rel]:
                continue  # a part of this header, included after it; a re-export; a missing header is layers' finding
            if not provides(target) & words:
                unused += 1
                failures.append(f"house: {rel} includes <cuguard/{target}> and uses none of its names")
    if len(failures) == before:
        print(f"ok   house: {len(files)} files of at most {MAX_LINES} lines, the longest function "
              f"{longest[0]} lines ({longest[1]}:{longest[2]}), every include of {len(headers)} headers used")


if __name__ == "__main__":
    found = []
    check(sys.argv[1], found)
    for f in found:
        print("FAIL " + f)
    sys.exit(1 if found else 0)
