# SPDX-License-Identifier: Apache-2.0
"""Checked pointers by the build: the edits that make a CUDA source's raw pointers in device code
cuguard::ptr, the user's file unchanged (the build's copy; emulate.translate applies them with
``pointers=True``).

In each function defined or declared ``__global__`` or ``__device__`` (not ``__host__
__device__``, which host code calls with host pointers):

* a parameter ``T* name`` (``const T*``, ``T const*``, with ``__restrict__``, a default, a
  ``const`` after the star) is ``::cuguard::ptr<T> name`` (``T*& name``: ``::cuguard::ptr<T>&
  name``): its accesses are checked against the allocation or tensor the launch's argument
  points into;
* a local ``T* name = ...;`` or ``T* name;`` (``T *a, *b = p;`` too, an array of them too;
  ``auto* name`` is ``auto name``) is ``::cuguard::ptr<T> name``, so that a pointer computed
  from a parameter (``out + row * n``) keeps its bounds, and a returned ``T*`` of a device
  function is ``::cuguard::ptr<T>``;
* a cast to a pointer type, ``(U*)e``, ``reinterpret_cast<U*>(e)`` or ``static_cast<U*>(e)``, is
  ``::cuguard::detail::pointer_cast<U>(e)``: a checked pointer's bounds, in bytes, kept
  (detail/view/pointer_translation.hpp), a raw pointer or an integer cast as written;
* ``&name[i]`` of a parameter or local made checked is ``(name + (i))``: a pointer to an element
  keeps its bounds;
* a ``__host__ __device__`` function that takes a pointer is defined again after it, for device
  code only, with its pointers checked: the overload a call with a checked pointer picks (host
  code calls the original with host pointers); so is a ``__device__`` function template (a raw
  pointer, a ``__shared__`` array's, deduces no ``T`` of ``cuguard::ptr<T>``: it calls the
  original; with two pointer parameters, it is also defined with each of them checked alone; with
  a ``const T*`` parameter, also with its pointers to ``T``, which a checked pointer to ``T``
  deduces);
* a kernel template is followed by its deducer (_deducer), through which a launch deduces its
  template arguments from the raw pointers;
* a pointer member (an array of them too) of a class that a device function takes by value or
  by reference (named in its parameters, in this file or in the source that includes it) is
  ``::cuguard::ptr<T>``: a launch's argument of that class converts it on the host.

Pointers to pointers, function pointers and declarations of a pointer beside a value (``float
*a, b;``) are left as written, and so are the function templates and ``__host__ __device__`` functions defined in a
macro (a function defined in a macro is made checked as any other). So is the body of the function after a ``#pragma
cuguard unchecked`` line (hot code the user trusts): its pointer parameters are checked ones, so
that checked callers call it, unwrapped (_raw_edits); ``#pragma cuguard unchecked file`` keeps
the whole file as written (emulate.py blanks those lines in every copy: no compiler warns of them).
"""
import re
import sys

if __package__:
    from .emulate import _device_bodies, _function_at, _in_directive, _match_forward, _operand_end, _space_macros, \
        _spelled, _top_level_pieces
else:  # (beside emulate.py run as a script: installed as cuguard_pointers.py beside cuguard_emulate.py)
    _emulate = sys.modules["__main__"] if hasattr(sys.modules["__main__"], "_function_at") else __import__("emulate")
    _function_at, _match_forward, _operand_end = _emulate._function_at, _emulate._match_forward, _emulate._operand_end
    _in_directive, _device_bodies = _emulate._in_directive, _emulate._device_bodies
    _space_macros, _spelled, _top_level_pieces = _emulate._space_macros, _emulate._spelled, _emulate._top_level_pieces

__all__ = ["pointer_edits", "passed_types", "tensor_edits", "UNCHECKED", "DEDUCE", "PRELUDE", "TENSORS"]

PRELUDE = "#include <cuguard/detail/view/pointer_translation.hpp>\n"
PTR = "::cuguard::ptr"
CAST = "::cuguard::detail::pointer_cast"

_KEYWORD = re.compile(r"\b(?:__global__|__device__)\b")
# A type as a declaration spells it before its star: qualifiers, a (qualified) name with template
# arguments, qualifiers after.
_TYPE = r"(?:(?:const|volatile|unsigned|signed|struct|typename)\s+)*(?:::\s*)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*" \
        r"(?:\s*<[^;{}()]*?>)?(?:\s+(?:const|volatile|int|long|short|char))*"
_PARAMETER = re.compile(r"^(\s*)(" + _TYPE + r")\s*\*\s*((?:(?:__restrict__|__restrict|const|volatile)\s*)*(?:&\s*)?)"
                        r"([A-Za-z_]\w*)?(\s*(?:=[\s\S]*)?)$")
_NOT_TYPES = {"return", "case", "goto", "delete", "else", "do", "throw", "typedef", "using", "extern", "new", "sizeof"}
_LOCAL = re.compile(r"(?<=[;{}(])(\s*)(?!(?:" + "|".join(sorted(_NOT_TYPES)) + r")\b)(" + _TYPE + r")\s*\*\s*"
                    r"((?:(?:__restrict__|__restrict|const)\s*)*)([A-Za-z_]\w*)\s*(?=;|\[|=(?!=)|,)")
# A member declaration: as a local, after an access specifier too.
_MEMBER = re.compile(r"(?:(?<=[;{}])|(?<=[^:]:))" + _LOCAL.pattern[len("(?<=[;{}(])"):])
# A function's head after its execution space: specifiers, then a pointer type it returns.
_RETURNED = re.compile(r"((?:\s|\b(?:__forceinline__|__noinline__|inline|static|constexpr)\b)*)(" + _TYPE +
                       r")\s*\*\s*((?:const\s*)?)([A-Za-z_]\w*)\s*$")
_CAST_TYPE = r"(" + _TYPE + r")\s*\*\s*"
_NAMED_CAST = re.compile(r"\b(?:reinterpret_cast|static_cast)\s*<\s*" + _CAST_TYPE + r">\s*\(")
_C_CAST = re.compile(r"\(\s*" + _CAST_TYPE + r"\)")
_ELEMENT_ADDRESS = re.compile(r"&\s*([A-Za-z_]\w*)\s*\[")
# `#pragma cuguard unchecked` (the function after it as written), `... unchecked file` (the file).
UNCHECKED = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+cuguard[ \t]+unchecked\b[ \t]*(\w*)[^\n]*", re.M)


def _pointer_type(spelled):
    """The element type of ``cuguard::ptr<...>`` for a type spelled before a star ("" where it is
    not one to make checked)."""
    words = spelled.split()
    if not words or words[0] in _NOT_TYPES or "__shared__" in words or "static" in words:
        return ""
    return " ".join(w for w in words if w not in ("struct",))


def _parameter(piece, mutable=()):
    """The parameter `piece` as a checked pointer, or None where it is not a pointer to make one
    (`mutable`: names of template parameters whose `const T*` is a ptr<T>)."""
    m = _PARAMETER.match(piece)
    if m is None or "*" in m.group(2) or "(" in piece.split("=")[0]:
        return None
    element = _pointer_type(m.group(2))
    if not element:
        return None
    bare = re.sub(r"^const\s+|\s+const$", "", element)
    element = bare if bare in mutable else element
    top_const = "const " if re.search(r"\bconst\b", m.group(3)) else ""
    name = f" {m.group(4)}" if m.group(4) else ""
    reference = "&" if "&" in m.group(3) else ""  # (`const T *&p`: mmcv's ms_deform_attn_im2col_bilinear)
    return f"{m.group(1)}{top_const}{PTR}<{element}>{reference}{name}{m.group(5)}"


def _functions(masked, words, host_device=False):
    """[(head, keyword, paren, close, body, keyword_end)] of the functions defined or declared
    __global__ or __device__ (not __host__ __device__; with `host_device`, those only), spelled so
    or by a macro of `words`; body None for a declaration."""
    device = [n for n, spelled in words.items() if _KEYWORD.search(spelled)]
    keyword = re.compile(r"\b(?:__global__|__device__" + "".join("|" + re.escape(n) for n in device) + r")\b")
    found, seen = [], set()
    for m in keyword.finditer(masked):
        if _in_directive(masked, m.start()):
            continue  # (a macro's definition: the function is found where the macro is used)
        head, paren, close, body = _function_at(masked, m)
        if paren >= 0 and close >= 0 and re.search(r"\boperator\s*$", masked[m.end():paren]):
            paren = masked.find("(", close + 1)  # (operator()'s parameters follow its name's parentheses)
            close = _match_forward(masked, paren, "(", ")") if paren >= 0 else -1
            after = _QUALIFIERS.match(masked, close + 1) if close >= 0 else None
            brace = after.end() if after else -1
            end = _match_forward(masked, brace, "{", "}") if 0 <= brace < len(masked) and masked[brace] == "{" else -1
            body = (brace, end) if end >= 0 else None
        if paren < 0 or close < 0 or re.search(r"[;{}=]", masked[m.end():paren]):
            continue
        if ("__host__" in _spelled(masked[head:paren], words)) != host_device or paren in seen:
            continue
        seen.add(paren)
        found.append((head, "__global__" if "__global__" in _spelled(m.group(0), words) else "__device__", paren, close,
                      body, m.end()))
    return found


def _return_edit(masked, keyword_end, paren):
    """The edit that makes a device function's returned T* a checked pointer (its body returns
    one), or None."""
    m = _RETURNED.match(masked, keyword_end, paren)
    if m is None or not _pointer_type(m.group(2)) or _pointer_type(m.group(2)) in ("auto", "const auto"):
        return None
    return [(m.start(2), m.end(3), f"{PTR}<{_pointer_type(m.group(2))}> ")]


def _parameter_edits(text, masked, paren, close, checked, only=None, mutable=(), named=None):
    """The edits of the pointer parameters (with `only`, of those whose ordinals among the
    pointer parameters it holds; `mutable`: as _parameter's); their names go into `checked`, and
    into the list `named` those of the pointers the function holds (not a reference's)."""
    edits = []
    at = paren + 1
    ordinal = 0
    for piece in _top_level_pieces(masked[paren + 1:close]):
        new = _parameter(text[at:at + len(piece)], mutable) or _parameter(piece, mutable) if "*" in piece else None
        ordinal += new is not None
        if new is not None and (only is None or ordinal - 1 in only):
            edits.append([(at, at + len(piece), new)])
            name = re.search(r"([A-Za-z_]\w*)\s*(?:=|$)", piece.split("=")[0] + "=")
            if name:
                checked.add(name.group(1))
                if named is not None and "&" not in new:
                    named.append(name.group(1))
        at += len(piece) + 1
    return edits


NAME = "::cuguard::detail::in_function(__PRETTY_FUNCTION__"


def _naming_edit(body, named):
    """The edit that makes a function's checked pointer parameters name it in their reports, as
    it starts (``in_function(__PRETTY_FUNCTION__, a, b);``), on the line of its brace."""
    return [[(body[0] + 1, body[0] + 1, f" {NAME}, {', '.join(named)});")]] if named else []


def _local_edits(masked, begin, end, checked):
    edits = []
    for m in _LOCAL.finditer(masked, begin, end):
        if masked[m.start() - 1] == "(" and not re.search(r"\bfor\s*\($", masked[begin:m.start()]):
            continue  # (after a parenthesis, a declaration is a for's: `f(a * b = c)` is none)
        element = _pointer_type(m.group(2))
        statement_end = masked.find(";", m.end())
        if not element or statement_end < 0:
            continue
        others = _other_declarators(masked, m.end(), statement_end)
        if others is None or (others and (m.group(3).strip() or element in ("auto", "const auto"))):
            continue  # (`float *a, b;`: a pointer and a float, as written)
        top_const = "const " if re.search(r"\bconst\b", m.group(3)) else ""
        declared = "auto" if element in ("auto", "const auto") else f"{PTR}<{element}>"
        declared = "const auto" if element == "const auto" else declared
        edits.append([(m.start(2), m.end(4), f"{top_const}{declared} {m.group(4)}")] +
                     [(star, after, "") for star, after, _ in others])
        checked.update([m.group(4)] + [name for _, _, name in others])
    return edits


_DECLARATOR = re.compile(r"\s*(\*\s*)([A-Za-z_]\w*)\s*(?:=|\[|$)")


def _other_declarators(masked, begin, end):
    """The declarators after the first of a declaration of pointers (`float *a, *b = p;`), each
    (its star, where its name starts, the name): [] where there is one; None where one is not a
    plain pointer (`float *a, b;`, `float *a, **b;`)."""
    level = _top_level(masked[begin:end])
    commas = [i for i, c in enumerate(level) if c == ","]
    found = []
    for at, upto in zip(commas, commas[1:] + [len(level)]):
        piece = masked[begin + at + 1:begin + upto]
        m = _DECLARATOR.match(piece)
        if m is None:
            return None
        found.append((begin + at + 1 + m.start(1), begin + at + 1 + m.end(1), m.group(2)))
    return found


def _top_level(text):
    """`text` with what its brackets enclose blanked (the commas of a declaration's own level)."""
    out, depth = [], 0
    for c in text:
        depth += c in "([{<"
        depth -= c in ")]}>" and depth > 0
        out.append(c if depth == 0 or c in "([{<" else " ")
    return "".join(out)


def _cast_edits(masked, begin, end):
    edits = []
    for m in _NAMED_CAST.finditer(masked, begin, end):
        edits.append([(m.start(), m.end(), f"{CAST}<{m.group(1).strip()}>(__PRETTY_FUNCTION__, ")])
    for m in _C_CAST.finditer(masked, begin, end):
        before = masked[begin:m.start()].rstrip()
        word = re.search(r"\w+$", before)
        if not before or (word is not None and word.group(0) not in ("return", "case", "else", "do")) \
                or before[-1] in ")]>":
            continue  # (a declaration's parameters, a call's arguments: not a cast)
        operand = _operand_end(masked, m.end())
        if operand < 0 or operand > end or not masked[m.end():operand].strip():
            continue
        edits.append([(m.start(), m.end(), f"{CAST}<{m.group(1).strip()}>(__PRETTY_FUNCTION__, "),
                      (operand, operand, ")")])
    return edits


def _address_edits(masked, begin, end, checked):
    edits = []
    for m in _ELEMENT_ADDRESS.finditer(masked, begin, end):
        before = masked[begin:m.start()].rstrip()
        if m.group(1) not in checked or (before and (before[-1].isalnum() or before[-1] in "_)]&")):
            continue  # (`a & b[i]`: a bitwise and; `a && b[i]`: a logical one)
        close = _match_forward(masked, m.end() - 1, "[", "]")
        after = masked[close + 1:close + 3].lstrip() if close > 0 else "."
        if close < 0 or after[:1] in (".", "[") or after.startswith("->"):
            continue  # (&p[i].m, &p[i][j]: the address of a part)
        edits.append([(m.start(), m.end(), f"({m.group(1)} + ("), (close, close + 1, "))")])
    return edits


DEDUCE = "cuguard_impl_deduce_"


def _template_arguments(head):
    """The arguments that name a template's parameters as declared in `head` (``typename T, int
    N, class... Ts``: ``T, N, Ts...``), or None where one cannot be read."""
    names = []
    for piece in _top_level_pieces(head):
        declared = piece.split("=")[0]
        found = re.findall(r"[A-Za-z_]\w*", declared)
        if not found or found[-1] in ("typename", "class"):
            return None
        names.append(found[-1] + ("..." if "..." in declared else ""))
    return ", ".join(names)


def _template_head(masked, head, paren):
    """The parameters of the last ``template <...>`` between `head` and `paren` ("" where none)."""
    template = ([None] + list(re.finditer(r"\btemplate\s*<", masked[head:paren])))[-1]
    if template is None:
        return ""
    opening = head + template.end() - 1
    closing = _match_forward(masked, opening, "<", ">")
    return masked[opening + 1:closing] if closing > 0 else ""


def _deducer(text, masked, head, paren, close):
    """After a kernel template's definition: a function of its unchanged parameters that gives the
    kernel's instance their types deduce (``cuguard_impl_deduce_k(raw...)``), so that a launch
    whose arguments are checked pointers deduces its template arguments as nvcc does from the
    raw ones (emulate.py's launches call it); "" for a kernel that is not a template."""
    template = ([None] + list(re.finditer(r"\btemplate\s*<", masked[head:paren])))[-1]
    name = re.search(r"([A-Za-z_]\w*)\s*$", masked[head:paren])
    if template is None or name is None:
        return ""
    opening = head + template.end() - 1
    closing = _match_forward(masked, opening, "<", ">")
    arguments = _template_arguments(masked[opening + 1:closing]) if closing > 0 else None
    if arguments is None:
        return ""
    kernel = f"{name.group(1)}<{arguments}>"
    parameters = " ".join(masked[paren + 1:close].split())  # (comments blanked: `int mode,  // 0 - max`)
    return (f" template <{' '.join(masked[opening + 1:closing].split())}> auto "
            f"{DEDUCE}{name.group(1)}({parameters}) -> decltype(&{kernel}) {{ return &{kernel}; }}")


_QUALIFIERS = re.compile(r"(?:\s|\b(?:const|volatile|noexcept|override|final)\b|&)*")
_CLASS = re.compile(r"\b(?:struct|class)\s+([A-Za-z_]\w*)\s*(?:final\s*)?(?::[^{;()]*)?\{")
_SPECIFIERS = ("const", "volatile", "struct", "class", "typename", "unsigned", "signed")


def passed_types(masked, words=None):
    """The names of the class types the device functions of `masked` take, by value or by
    reference (``Params p``, ``const ns::Table<2>& t``): their pointer members are made checked."""
    names = set()
    for _, _, paren, close, _, _ in _functions(masked, _space_macros(masked, {} if words is None else dict(words))):
        for piece in _top_level_pieces(masked[paren + 1:close]):
            declared = piece.split("=")[0]
            while re.search(r"<[^<>]*>", declared):
                declared = re.sub(r"<[^<>]*>", " ", declared)  # (template arguments)
            found = [w for w in re.findall(r"[A-Za-z_]\w*", declared) if w not in _SPECIFIERS]
            if "*" not in declared and found:
                names.add(found[-2] if len(found) >= 2 else found[0])
    return names


def _member_edits(masked, passed):
    """The edits that make the pointer members of the classes named in `passed` checked: a
    launch's argument of that class converts each member on the host (bounded by the allocation
    it points into), and device code uses it as it did."""
    edits = []
    for m in _CLASS.finditer(masked):
        if m.group(1) not in passed:
            continue
        begin, end = m.end() - 1, _match_forward(masked, m.end() - 1, "{", "}")
        for member in _MEMBER.finditer(masked, begin + 1, max(end, begin + 1)):
            inside = masked[begin + 1:member.start()]
            element = _pointer_type(member.group(2))
            if not element or inside.count("{") != inside.count("}") or element in ("auto", "const auto"):
                continue  # (in a member function's body: a local, made checked where the function is device code)
            edits.append([(member.start(2), member.end(4), f"{PTR}<{element}> {member.group(4)}")])
    return edits


_NOT_RETURNED = {"__host__", "__device__", "__forceinline__", "__noinline__", "inline", "static", "constexpr", "explicit",
                 "virtual"}


def _device_copy(text, masked, words, function, where, only=None, raw=False, mutable=()):
    """A __host__ __device__ function that takes a pointer, defined again for device code only
    with its pointers checked (an overload that a call with a checked pointer picks; host code
    calls the function as it is written, with host pointers), between #line directives that give
    the copy the original's lines: (where, text) to insert after the original's last line; None
    where the function takes no pointer.""" 
    head, _, paren, close, body, keyword_end = function
    checked, named = set(), []
    groups = _parameter_edits(text, masked, paren, close, checked, only, mutable, named)
    if not checked or body is None:
        return None
    if raw:  # (#pragma cuguard unchecked: its body as written)
        groups = _raw_edits(text, masked, paren, close, body)
    else:
        returned = _return_edit(masked, keyword_end, paren)
        groups += ([returned] if returned else []) + _naming_edit(body, named) + \
            _local_edits(masked, body[0], body[1], checked) + _cast_edits(masked, body[0], body[1]) + \
            _address_edits(masked, body[0], body[1], checked)
    start = head  # (the declaration's first line: past the directives and blank lines before it)
    while True:
        line = re.match(r"[ \t]*(?:#[^\n]*)?\n", masked[start:])
        if line is None:
            break
        start += line.end()
    declared = re.sub(r"\btemplate\s*<[^{};]*?>", " ", masked[start:paren])
    if len([w for w in re.findall(r"[A-Za-z_]\w*", declared) if w not in _NOT_RETURNED and w not in words]) < 2:
        return None  # (a constructor: the members it sets are as written)
    for m in re.finditer(r"\b(?:__host__|" + "|".join([re.escape(w) for w in words] or ["__host__"]) + r")\b",
                         masked[start:paren]):
        spelled = words.get(m.group(0), m.group(0))
        if "__host__" in spelled:
            groups.append([(start + m.start(), start + m.end(), re.sub(r"\b__host__\b", "", spelled))])
    copy, at = [], start
    for begin, end, new in sorted(e for g in groups for e in g):
        if begin < at:
            return None  # (overlapping edits: left as written)
        copy += [text[at:begin], new]
        at = end
    copy.append(text[at:body[1] + 1])
    eol = text.find("\n", body[1])
    eol = len(text) if eol < 0 else eol
    first, after = text.count("\n", 0, start) + 1, text.count("\n", 0, body[1]) + 2
    return eol, f'\n#line {first} "{where}"\n{"".join(copy)}\n#line {after} "{where}"'


RAW = "cuguard_impl_raw_"


def _raw_edits(text, masked, paren, close, body):
    """The edits of a function a ``#pragma cuguard unchecked`` keeps as written: its pointer
    parameters checked ones (``ptr<T> cuguard_impl_raw_p``), so that checked callers call it, and
    its body's first statements the raw pointers it uses under their names (``T* p =
    cuguard::unchecked(cuguard_impl_raw_p);``), the rest of it unchanged."""
    edits, raw = [], []
    at = paren + 1
    for piece in _top_level_pieces(masked[paren + 1:close]):
        written = text[at:at + len(piece)]
        m = _PARAMETER.match(written) if "*" in piece else None
        if m is not None and m.group(4) and "&" not in m.group(3) and _parameter(written) is not None:
            edits.append([(at, at + len(piece), _parameter(written[:m.start(4)] + RAW + written[m.start(4):]))])
            raw.append(f" {m.group(2)}* {m.group(3)}{m.group(4)} = ::cuguard::unchecked({RAW}{m.group(4)});")
        at += len(piece) + 1
    return edits + ([[(body[0] + 1, body[0] + 1, "".join(raw))]] if body is not None and raw else [])


def _unchecked(masked, words):
    """The parentheses (parameter lists' openings) of the functions a ``#pragma cuguard
    unchecked`` keeps as written, each the first function after one; None where the file is
    kept as written (``#pragma cuguard unchecked file``)."""
    pragmas = list(UNCHECKED.finditer(masked))
    if any(m.group(1) == "file" for m in pragmas):
        return None
    parens = sorted(f[2] for f in _functions(masked, words) + _functions(masked, words, host_device=True))
    return {next((p for p in parens if p > m.end()), -1) for m in pragmas}


def pointer_edits(text, masked, words=None, deduced=None, passed=None, where=""):
    """[[(begin, end, replacement), ...]] that make the raw pointers of `text`'s device code
    checked (see the module's doc), each the edits of one change (a cast's two ends); `masked` is
    the text with comments and literals blanked. `deduced` collects the names of the kernel
    templates given a deducer (_deducer); `passed` names the class types whose pointer members are
    made checked (passed_types of the file and of the source that includes it); `where` is the
    file's name in #line directives (_device_copy). A function defined in a macro's body (on its
    continued lines) is read as if its lines were not continued, and its edits continue them."""
    words = _space_macros(masked, {} if words is None else dict(words))
    flat = masked.replace("\\\n", " \n")
    edits = _edits(text.replace("\\\n", " \n"), flat, words, deduced, passed, where)
    if flat == masked:
        return edits
    kept = []
    for group in edits:
        if any(_in_directive(masked, b) and "#line" in new for b, _, new in group):
            continue  # (a copy with #line directives, in a macro: the function left as written)
        kept.append([(b, e, new.replace(" \n", "\\\n") if _in_directive(masked, b) else new) for b, e, new in group])
    return kept


def _edits(text, masked, words, deduced, passed, where):
    """pointer_edits of a text whose lines are not continued."""
    unchecked = _unchecked(masked, words)
    if unchecked is None:
        return []
    edits = _member_edits(masked, passed_types(masked, words) | set(passed or ()))
    for head, keyword, paren, close, body, keyword_end in _functions(masked, words):
        if paren in unchecked:
            edits += _raw_edits(text, masked, paren, close, body)
            continue
        if keyword == "__device__" and body is not None and re.search(r"\btemplate\s*<", masked[head:paren]):
            # A template is kept for raw pointers (a __shared__ array, from which a ptr<T> deduces
            # no T) and defined again for checked ones.
            function = (head, keyword, paren, close, body, keyword_end)
            count = len(_parameter_edits(text, masked, paren, close, set()))
            # (two pointers: a copy for each of them checked alone too, for a call that gives one
            # a register array: apex's load_store(r_in, in, ...))
            subsets = [(None, ()), ({0}, ()), ({1}, ())] if count == 2 else [(None, ())]
            # (a `const T*` given a checked pointer to T, T a template parameter: a copy whose
            # pointers are to T, which deduces T where ptr<const T> does not)
            names = set(re.findall(r"[A-Za-z_]\w*", _template_arguments(_template_head(masked, head, paren)) or ""))
            if _parameter_edits(text, masked, paren, close, set(), mutable=names) != \
                    _parameter_edits(text, masked, paren, close, set()):
                subsets.append((None, names))
            copies = [c for c in (_device_copy(text, masked, words, function, where, only, mutable=mutable)
                                  for only, mutable in subsets) if c]
            edits += [[(copies[0][0], copies[0][0], "".join(c[1] for c in copies))]] if copies else []
            continue
        checked, named = set(), []
        returned = _return_edit(masked, keyword_end, paren) if keyword == "__device__" else None
        edits += [returned] if returned else []
        edits += _parameter_edits(text, masked, paren, close, checked, named=named)
        if body is None:
            continue
        edits += _naming_edit(body, named)
        deducer = _deducer(text, masked, head, paren, close) if keyword == "__global__" and checked else ""
        if deducer:
            edits.append([(body[1] + 1, body[1] + 1, deducer)])
            if deduced is not None:
                deduced.add(re.search(r"([A-Za-z_]\w*)\s*$", masked[head:paren]).group(1))
        edits += _local_edits(masked, body[0], body[1], checked)
        edits += _cast_edits(masked, body[0], body[1])
        edits += _address_edits(masked, body[0], body[1], checked)
    for function in _functions(masked, words, host_device=True):
        copy = _device_copy(text, masked, words, function, where, raw=function[2] in unchecked)
        if copy:
            edits.append([(copy[0], copy[0], copy[1])])
    return edits


TENSORS = "#include <cuguard/detail/adapters/torch_pointers.hpp>\n"
NAMED = "::cuguard::detail::torch_adapter::name_tensor"
# Torch's ways of taking a tensor's data pointer: `.data_ptr<T>()`, `.data_ptr()`, `.data<T>()`,
# `.const_data_ptr<T>()`, `.mutable_data_ptr<T>()` (after `.` or `->`).
_TAKEN = re.compile(r"(\.|->)\s*(?:template\s+)?(?:(data_ptr|const_data_ptr)\s*(?=\(\s*\))|"
                    r"(data_ptr|data|const_data_ptr|mutable_data_ptr)\s*(?=<(?:[^;{}()<>]|<[^;{}()<>]*>)*>\s*\(\s*\)))")
_CASTS = {"static_cast", "const_cast", "reinterpret_cast", "dynamic_cast"}
_NOT_OPERANDS = _NOT_TYPES | _CASTS | {"if", "while", "for", "switch", "co_return", "co_yield"}


def _operand_start(masked, end):
    """Where the postfix expression that ends at `end` begins (``x``, ``lists[0][3]``,
    ``self.weight``, ``t.contiguous()``, ``ns::f(a)``, ``std::get<0>(r)``,
    ``const_cast<at::Tensor&>(x)``); `end` where none does."""
    at, templated = end, False
    while True:
        back = at
        while back > 0 and masked[back - 1].isspace():
            back -= 1
        if back > 0 and masked[back - 1] in ")]" and not templated:
            opening = _match_backward(masked, back - 1, {")": "(", "]": "["})
            if opening < 0:
                return at
            at = opening
            before = opening
            while before > 0 and masked[before - 1].isspace():
                before -= 1
            if masked[opening] == "(" and before > 0 and masked[before - 1] == ">":
                angle = _match_backward(masked, before - 1, {">": "<"})  # (a template's arguments before the call)
                at, templated = (angle, True) if angle >= 0 else (at, False)
            continue
        word = re.search(r"[A-Za-z_]\w*$", masked[max(0, back - 256):back])
        if word is None or (not templated and (word.group(0) in _NOT_OPERANDS or (back < at and masked[at] not in "(["))):
            return at
        at = back - len(word.group(0))
        if templated and word.group(0) in _CASTS:
            return at
        templated = False
        joint = re.search(r"(?:\.|->|::)\s*$", masked[max(0, at - 64):at])
        if joint is None:
            return at
        at -= len(joint.group(0))


def _match_backward(masked, close, pairs):
    """The bracket that `close` closes (`pairs`: closing to opening, of one kind or two); -1
    where none does before a statement's start."""
    depth = 0
    for i in range(close, -1, -1):
        if masked[i] in pairs:
            depth += 1
        elif masked[i] in pairs.values():
            depth -= 1
            if depth == 0:
                return i if pairs[masked[close]] == masked[i] else -1
        elif masked[i] in ";{}":
            return -1
    return -1


# A store into a struct's member, before the pointer taken: `tl.addresses[0][i] = `.
_STORED = re.compile(r"(?<=[;{}])\s*([A-Za-z_]\w*(?:\s*\[[^\[\];{}]*\])*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*"
                     r"(?:\s*\[[^\[\];{}]*\])*)+)\s*=\s*(?:\(\s*[A-Za-z_][\w:<>\s]*\*?\s*\)\s*)?$")


def _literal(spelled):
    return '"' + spelled.replace("\\", "\\\\").replace('"', '\\"') + '"'


INDEXED = "::cuguard::detail::torch_adapter::indexed"
# A subscript that may be read a second time for a name: names, numbers, members and arithmetic
# (no call, no assignment, no increment).
_PLAIN_SUBSCRIPT = re.compile(r"^(?!.*(?:\+\+|--|[\w)]\s*\())[\s\w.+\-*/%()<>:]*$", re.S)


def _name(text, masked, begin, end):
    """The C++ expression that names what text[begin:end] spells (a tensor, a struct's member):
    its text as a literal, or where it has subscripts that can be read again (``lists[0][t]``),
    ``indexed("lists[0][t]", {subscript_of(0), subscript_of(t)})``, which puts their values in."""
    literal = _literal(" ".join(text[begin:end].split()))
    subscripts, depth, opened = [], 0, begin
    for i in range(begin, end):
        if masked[i] == "[":
            depth += 1
            opened = i + 1 if depth == 1 else opened
        elif masked[i] == "]" and depth > 0:
            depth -= 1
            if depth == 0:
                subscripts.append((text[opened:i], masked[opened:i]))
    if all(t.strip().isdigit() for t, _ in subscripts) or \
            any(t != m or not _PLAIN_SUBSCRIPT.match(t) or not t.strip() for t, m in subscripts):
        return literal  # (none, numbers alone: as written)
    values = ", ".join(f"::cuguard::detail::torch_adapter::subscript_of({' '.join(t.split())})" for t, _ in subscripts)
    return f"{INDEXED}({literal}, {{{values}}})"


def tensor_edits(text, masked, words=None):
    """[[(begin, end, replacement), ...]] that make host code take each tensor's data pointer
    through ``name_tensor(x, "x")`` (detail/adapters/torch_pointers.hpp: it notes the tensor's
    elements, the bounds and the name of a checked pointer converted from a pointer into them):
    ``x.data_ptr<T>()`` is ``name_tensor(x, "x").template data_ptr<T>()``, ``p->data_ptr()``
    ``name_tensor(*p, "p").data_ptr()``, and a store into a struct's member names the member too
    (``tl.a[i] = t.data_ptr();``: ``name_tensor(t, "t", "tl.a[i]")``), each name with the values of
    its subscripts where they can be read again (_name); in host code (not in device code, nor in
    a directive)."""
    bodies = _device_bodies(masked, _space_macros(masked, {} if words is None else dict(words)), host_device=True)
    edits = []
    for m in _TAKEN.finditer(masked):
        if any(b <= m.start() <= e for b, e in bodies) or _in_directive(masked, m.start()):
            continue
        start = _operand_start(masked, m.start())
        if start == m.start() or "\n" in text[start:m.start()] and "\\" in text[start:m.start()]:
            continue
        deref = "*" if m.group(1) == "->" else ""
        method = m.group(2) or m.group(3)
        keyword = "template " if m.group(3) else ""
        stored = _STORED.search(masked, max(masked.rfind(c, 0, start) for c in ";{}"), start)
        member = f", {_name(text, masked, stored.start(1), stored.end(1))}" if stored else ""
        edits.append([(start, start, f"{NAMED}({deref}"),
                      (m.start(), m.end(), f", {_name(text, masked, start, m.start())}{member}).{keyword}{method}")])
    return edits
