# SPDX-License-Identifier: Apache-2.0
"""README.md and the guides in docs/: every link resolves, to a file and to a heading, and every
code block is tied to what checks it. A block is one of:

* an output between `<!-- NAME: begin -->` and `<!-- NAME: end -->`, which a test compares with
  what a command prints (`cuguard_readme_block(NAME ...)`, or a test that reads the markers): the
  test must exist;
* code from a file the build compiles or a test runs, announced by `<!-- code: PATH -->` on the
  line before its fence: every line of the block, without its comment and its indentation, is a
  line of PATH, in the same order (PATH may hold more lines in between);
* a listing of the repository, announced by `<!-- paths -->`: the first word of every line that
  does not continue the one above (indented) is a path that exists.
"""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
FENCE = re.compile(r"^(\s*)```")


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation other than - and _ dropped, spaces -."""
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    found, fenced = set(), False
    for line in path.read_text().split("\n"):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and re.match(r"#+ ", line):
            found.add(slug(line.lstrip("#")))
    return found


def blocks(path):
    """(first line number, the line before the fence, the block's lines, the output marker it sits in)."""
    lines = path.read_text().split("\n")
    out, i, marker = [], 0, None
    while i < len(lines):
        begin = re.match(r"<!-- ([\w-]+): begin -->", lines[i])
        if begin:
            marker = begin.group(1)
        if re.match(r"<!-- [\w-]+: end -->", lines[i]):
            marker = None
        if FENCE.match(lines[i]):
            j = i + 1
            while not FENCE.match(lines[j]):
                j += 1
            before = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
            out.append((i + 1, before.strip(), lines[i + 1:j], marker))
            i = j
        i += 1
    return out


def code_lines(text_lines):
    """Lines without comments (// and #, where a # is not a preprocessor directive), indentation and
    trailing space; empty ones dropped."""
    kept = []
    for line in text_lines:
        line = re.sub(r"\s+//.*$|^\s*//.*$", "", line)
        if not re.match(r"\s*#(include|define|if|endif|pragma)\b", line):
            line = re.sub(r"(^|\s)#(\s.*)?$", "", line)
        line = line.strip()
        if line:
            kept.append(line)
    return kept


def checked_block_names():
    """Names of output blocks a test compares: cuguard_readme_block(NAME ...), -DBLOCK=NAME, and
    tests that read '<!-- NAME: begin -->' themselves."""
    names = set()
    for path in list(ROOT.glob("**/CMakeLists.txt")) + list((ROOT / "tests").glob("**/*.py")):
        if any(part in (".ci", "build", ".git") or part.startswith("build") for part in path.relative_to(ROOT).parts):
            continue
        text = path.read_text(errors="replace")
        names.update(re.findall(r"cuguard_readme_block\(([\w-]+)", text))
        names.update(re.findall(r"-DBLOCK=([\w-]+)", text))
        if path.suffix == ".py" and path.name != "test_docs.py":
            names.update(re.findall(r"<!-- ([\w-]+): begin -->", text))
    return names


def built_or_run(path):
    """True if the build or a test uses the file: its name in a CMakeLists.txt or a test's Python,
    or a script CI runs."""
    rel = path.relative_to(ROOT)
    if rel.parts[0] in (".ci", "scripts"):
        return True
    for user in list(ROOT.glob("**/CMakeLists.txt")) + list((ROOT / "tests").glob("**/*.py")):
        if any(part in (".ci", ".git") or part.startswith("build") for part in user.relative_to(ROOT).parts):
            continue
        if path.name in user.read_text(errors="replace"):
            return True
    return False


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_every_link_resolves_to_a_file_and_a_heading(document):
    text = document.read_text()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        file_part, _, anchor = target.partition("#")
        linked = (document.parent / file_part).resolve() if file_part else document
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading '{anchor}' in {linked.relative_to(ROOT)}")
    assert not broken, f"{document.relative_to(ROOT)}: " + "; ".join(broken)


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_every_code_block_is_compiled_run_or_compared(document):
    checked = checked_block_names()
    unchecked = []
    for line, before, body, marker in blocks(document):
        where = f"{document.relative_to(ROOT)}:{line}"
        if marker is not None:
            if marker not in checked:
                unchecked.append(f"{where}: the output block '{marker}' is compared by no test")
            continue
        code = re.match(r"<!-- code: (\S+) -->", before)
        if code:
            source = ROOT / code.group(1)
            if not source.exists():
                unchecked.append(f"{where}: {code.group(1)} does not exist")
                continue
            if not built_or_run(source):
                unchecked.append(f"{where}: no build or test uses {code.group(1)}")
            have = code_lines(source.read_text().split("\n"))
            at = 0
            for wanted in code_lines(body):
                while at < len(have) and have[at] != wanted:
                    at += 1
                if at == len(have):
                    unchecked.append(f"{where}: '{wanted}' is not in {code.group(1)} (in this order)")
                    break
                at += 1
            continue
        if before == "<!-- paths -->":
            for entry in body:
                if entry[:1].isspace():
                    continue  # the entry above, continued
                first = entry.split()[0] if entry.split() else ""
                if first and not (ROOT / first).exists():
                    unchecked.append(f"{where}: {first} does not exist")
            continue
        unchecked.append(f"{where}: a code block with neither an output marker, '<!-- code: PATH -->' nor '<!-- paths -->'")
    assert not unchecked, "\n".join(unchecked)


def test_readme_is_a_front_page():
    assert len((ROOT / "README.md").read_text().split("\n")) <= 251  # 250 lines and the last newline


def test_the_rules_fail_where_they_should(tmp_path):
    # The checks above must be able to fail: a block whose code is not in its file, and a link to
    # a heading that does not exist.
    assert code_lines(["int x = 1;  // one", "# a comment", "#include <a>"]) == ["int x = 1;", "#include <a>"]
    assert slug("`sanitize=True`: no edit") == "sanitizetrue-no-edit"
    doc = tmp_path / "doc.md"
    doc.write_text("# Title\n\n## A part\n")
    assert "a-part" in anchors(doc) and "title" in anchors(doc)
    assert "missing" not in anchors(doc)
