#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Paths through a kernel's SASS (cuobjdump -sass, as ptx_static.sass_listing lists it: [(address,
instruction)]): its innermost loop and the instructions one iteration of it runs on the path where
every check passes, or, for a kernel without a loop, the instructions of that path from its entry to
its exit. bench/static/user_kernels.py and ptx_static.py measure checked against unchecked code with
them.

The innermost loop is the back edge (a branch to an earlier address) whose range holds no other back
edge, of the loops a thread reaches before it claims a report (code past the claim writes the
report: cuguard's record is written by a loop); where the compiler split a loop (an unrolled body and
a remainder), the one with the most iterations per pass. Instructions per iteration are those of
its hot path (hot_path: from the loop's first instruction to its back edge, every check passing,
every access made) divided by the source iterations one pass runs (its count of marker
instructions, e.g. stores, over the markers of one iteration). A kernel without a loop: its hot
path from entry to exit.
"""
import re


def branch_target(instruction):
    m = re.search(r"\bBRA(?:\.\S+)?\s+(?:\S+,\s*)?0x([0-9a-f]+)", instruction)
    return int(m.group(1), 16) if m else None


def body_end(code):
    """The instructions up to the last EXIT or branch, without the padding after it."""
    last = max(i for i, (_, ins) in enumerate(code) if re.search(r"\bEXIT\b|\bBRA\b", ins))
    return code[:last + 1]


def successors(code, index, i, head, tail):
    """Where the instruction at index i may go next, inside [head, tail]: the next instruction,
    and a branch's target (an unconditional branch only there; BRA.DIV, taken where the warp
    diverged, is conditional); an unconditional EXIT nowhere."""
    ins = code[i][1]
    if re.match(r"EXIT\b", ins):
        return []
    target = branch_target(ins)
    nexts = []
    if target is not None and index.get(target) is not None and head <= index[target] <= tail:
        nexts.append(index[target])
    if (target is None or ins.startswith("@") or re.match(r"BRA\.DIV\b", ins)) and i + 1 <= tail:
        nexts.append(i + 1)
    return nexts


# Instructions that access memory (not constant memory): the accesses a kernel's source makes.
ACCESS = re.compile(r"\b(?:LDG|STG|LDS|STS|LD|ST|ATOMG?|ATOMS|RED|LDGSTS)(?:\.|\s)")


def hot_path(code, head, ends, marker):
    """The instructions of the kernel's hot path from index `head` to one of the indices `ends`
    along forward branches (a loop's body up to its back edge, or a kernel without a loop from its
    entry to an exit): of the paths on which every check passes (a failing check branches away to
    its report, which never comes back), the one that runs the most marker instructions, then the
    most memory accesses (a check of an access the code branches around is counted), then the
    fewest instructions (the fast side of a branch both versions share, such as a 64-bit division's
    32-bit path); None where no path reaches an end."""
    index = {addr: i for i, (addr, _) in enumerate(code)}
    last = max(ends)
    best = {head: ((0, 0, 0), None)}
    for i in range(head, last + 1):
        if i not in best:
            continue
        ins = code[i][1]
        (markers, accesses, length), _ = best[i]
        score = (markers + bool(re.search(marker, ins)), accesses + bool(ACCESS.search(ins)), length - 1)
        best[i] = (score, best[i][1])
        for j in successors(code, index, i, head, last):
            if j > i and (j not in best or best[j][0] < score):
                best[j] = (score, i)
    reached = [e for e in ends if e in best]
    if not reached:
        return None
    i = max(reached, key=lambda e: best[e][0])
    path = []
    while i is not None:
        path.append(code[i][1])
        i = best[i][1]
    return path[::-1]


def before_a_report(code):
    """Indices of the instructions a thread may run before it claims a report (an atomic
    compare-and-swap, as cuguard's record and the hand check's take): the kernel's work. Code past
    a claim writes a report (cuguard writes its record in a loop) and is not the kernel's loop."""
    index = {addr: i for i, (addr, _) in enumerate(code)}
    seen, stack = {0}, [0]
    while stack:
        i = stack.pop()
        if re.search(r"\bATOM\S*\.CAS\b", code[i][1]):
            continue
        for j in successors(code, index, i, 0, len(code) - 1):
            if j not in seen:
                seen.add(j)
                stack.append(j)
    return seen


def dominates(code, index, head, tail):
    """True if every path from the kernel's entry to index `tail` passes index `head`: a branch
    back to `head` closes a loop. (Not so for a block the compiler placed after the code it
    returns to, such as a divergent shuffle's collective fallback.)"""
    if head == 0:
        return True
    seen, stack = {0}, [0]
    while stack:
        i = stack.pop()
        if i == tail:
            return False
        for j in successors(code, index, i, 0, len(code) - 1):
            if j != head and j not in seen:
                seen.add(j)
                stack.append(j)
    return True


def innermost_loop(code, marker, per_iteration):
    """(instructions per iteration, iterations per pass, nested) of the innermost loop, or None.
    `nested`: another loop sits inside it (one without markers, e.g. an inner loop the compiler did
    not unroll); the hot path runs that loop once, so the count is not what one pass costs."""
    index = {addr: i for i, (addr, _) in enumerate(code)}
    work = before_a_report(code)
    edges = []
    for i, (addr, ins) in enumerate(code):
        target = branch_target(ins)
        if target is not None and target < addr and target in index and index[target] in work and \
                dominates(code, index, index[target], i):
            edges.append((index[target], i))
    # Loops whose hot path runs the kernel's work (its markers); of those the innermost (holding
    # no other), and of those the one that runs the most iterations per pass.
    loops = []
    for h, t in edges:
        path = hot_path(code, h, {t}, marker)
        if path:
            iterations = sum(1 for ins in path if re.search(marker, ins)) / per_iteration
            if iterations > 0:
                loops.append((h, t, len(path) / iterations, iterations))
    inner = [l for l in loops if not any(l[0] <= m[0] and m[1] <= l[1] and m[:2] != l[:2] for m in loops)]
    if not inner:
        return None
    best = max(inner, key=lambda l: (l[3], -l[2]))
    nested = any(best[0] <= h and t <= best[1] and (h, t) != best[:2] for h, t in edges)
    return best[2], best[3], nested


def kernel_hot_path(code, marker, per_iteration):
    """(instructions, what) of the kernel's hot path: per iteration of its innermost loop
    (innermost_loop; what: "loop", or "loop+" where it holds an inner loop that the count runs
    once), or, for a kernel without a loop, the hot path from its entry to an exit (what: "no
    loop"); None where neither is found."""
    loop = innermost_loop(code, marker, per_iteration)
    if loop is not None:
        return loop[0], "loop+" if loop[2] else "loop"
    work = before_a_report(code)
    exits = {i for i in work if re.match(r"(?:@!?U?P\w+\s+)?EXIT\b", code[i][1])}
    path = hot_path(code, 0, exits, marker) if exits else None
    return (len(path), "no loop") if path and any(re.search(marker, ins) for ins in path) else None
