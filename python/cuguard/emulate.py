# SPDX-License-Identifier: Apache-2.0
"""A .cu file as the host compiler can build it under emulation, the user's file unchanged.

translate(text, path) gives the build's copy of a CUDA source: the same lines (a #line directive
names the user's file, so reports and compiler errors point at it), in which

* ``kernel<<<grid, block[, shared[, stream]]>>>(args)`` becomes a cuguard launch
  (``::cuguard::detail::chevron_named<Launch>(call, pointer, "kernel", site, grid, block, shared,
  stream)(args)``, where ``call`` is a lambda that calls the kernel by name, so that the host
  compiler can inline it and a kernel template's arguments are deduced from the launch's as nvcc
  deduces them, and ``pointer`` gives the kernel's pointer where the name names one function;
  ``Launch`` is ``::cuguard::detail::plain_launch``, or with ``torch=True``
  ``::cuguard::detail::torch_adapter::torch_launch``, which launches on PyTorch's current stream
  and raises reports as PyTorch errors), its launch site named after the enclosing function even
  inside a lambda (AT_DISPATCH); a kernel given by an expression, or a launch outside every
  function, is ``::cuguard::detail::chevron<Launch>(kernel, site, ...)(args)``;
* ``extern __shared__ T name[];`` becomes the block's dynamic shared memory
  (``T (&name)[] = *reinterpret_cast<T (*)[]>(::cuguard::dynamic_shared<T>());`` in a function, a
  reference to the array as nvcc's is one, so that ``reinterpret_cast<S&>(name)`` reads it, or a
  ``T* const`` where a lambda of the block captures by copy; at namespace scope an
  object that converts to ``T*``);
* ``#include "file"`` names the file beside the user's source by its absolute path, or, where that
  file holds a launch or an ``extern __shared__`` array, its translation (written beside the
  output, as the source's is, its own includes likewise);
* ``__CUDACC__`` reads as defined (``CUGUARD_IMPL_CUDACC``, which <cuguard/emulation.hpp> defines): nvcc
  defines it for both passes of a .cu file; ``__CUDACC_VER_MAJOR__`` and the like read as the
  toolkit's version;
* ``__CUDA_ARCH__`` in a conditional that selects device code (in a device function's body, a
  class of device functions, a region of device code only) reads as the emulated device's
  (``CUGUARD_DEVICE_CUDA_ARCH``), in the file and in the quoted headers that hold one;
* ``__restrict__`` after a ``cuguard::ptr<T>`` (a ``T* __restrict__`` parameter renamed) is
  dropped: the qualifier cannot apply to a class (nvcc builds spell it ``CUGUARD_RESTRICT``);
* with ``torch=True``, the tests of a tensor's device take the emulated device's meaning, the CPU
  (what ``cuguard::torch::on_device`` does): ``x.is_cuda()`` (of a tensor or a device) is
  ``x.is_cpu()``, ``x.type().is_cuda()`` is ``x.is_cpu()``, ``kCUDA`` is ``kCPU``,
  ``DeviceType::CUDA`` is ``DeviceType::CPU``, ``x.get_device()`` is 0, the emulated device's
  index, and ``CUDA`` as a macro's argument (``TORCH_LIBRARY_IMPL(ns, CUDA, m)``) is ``CPU``.
  translate_host gives the same for an extension's C++ sources and the headers they include
  (beside them, or in the build's include directories), and includes the emulated runtime first
  in those that call the CUDA runtime API.

Comments, string and character literals are left alone. Run as a script:
``python emulate.py [--torch] SOURCE.cu OUTPUT.cpp`` (what cuguard_emulate does in CMake).
"""
import hashlib
import os
import re
import sys

__all__ = ["translate", "translate_file", "translate_host_file", "translate_nvcc", "translate_nvcc_file",
           "translate_tensors_file"]


def _mask(text):
    """The text with comments, string literals and character literals blanked (newlines kept),
    so that a search of it finds only code."""
    out = list(text)
    i, n = 0, len(text)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif c == 'R' and i + 1 < n and text[i + 1] == '"' and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]{0,16})\(', text[i:])
            if m:
                end = text.find(")" + m.group(1) + '"', i + m.end())
                end = n if end < 0 else end + len(m.group(1)) + 2
                blank(i + 1, end)
                i = end
            else:
                i += 1
        elif c in "\"'":
            # A digit separator (1'000) is not a character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum() and re.match(r"[0-9a-fA-F]", text[i + 1:i + 2] or " ") \
                    and re.search(r"\b[0-9][0-9a-fA-FxX']*$", text[max(0, i - 40):i]):
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            blank(i + 1, min(j, n))
            i = j + 1
        else:
            i += 1
    return "".join(out)


_IDENT = re.compile(r"[A-Za-z_]\w*")


def _match_back(masked, close_at, open_ch, close_ch):
    """Index of the bracket that opens the one closing at close_at (-1 if none). Angle brackets
    are not the comparisons `>=`, `<=` or the arrow `->` (`k<8, F, tws >= 8>`: Torch 2's
    CUDALoops.cuh)."""
    depth = 0
    for k in range(close_at, -1, -1):
        ch = masked[k]
        if open_ch == "<" and ch in "<>" and k != close_at and (
                masked[k + 1:k + 2] == "=" or (ch == ">" and masked[k - 1:k] == "-")):
            continue
        if ch == close_ch:
            depth += 1
        elif ch == open_ch:
            depth -= 1
            if depth == 0:
                return k
        elif ch in ";{}":
            return -1
    return -1


def _kernel_start(masked, end):
    """Where the kernel expression that ends before `end` (the <<<) starts: an id-expression with
    template arguments (ns::kernel<T, 4>, ::k) or a parenthesized expression; -1 if none."""
    def back_over_space(k):  # (and over a macro's line continuations)
        while k > 0 and (masked[k - 1].isspace() or (masked[k - 1] == "\\" and masked[k:k + 1] == "\n")):
            k -= 1
        return k

    def ident(ch):
        return ch.isalnum() or ch == "_"

    k = back_over_space(end)
    while True:
        if k > 0 and masked[k - 1] == ")":
            return _match_back(masked, k - 1, "(", ")")
        if k > 0 and masked[k - 1] == ">":
            k = _match_back(masked, k - 1, "<", ">")
            if k < 0:
                return -1
            k = back_over_space(k)
        j = k
        while j > 0 and ident(masked[j - 1]):
            j -= 1
        if j == k:
            return -1
        k = j
        m = back_over_space(k)
        if masked[max(0, m - 2):m] != "::":
            return k
        k = back_over_space(m - 2)
        if k == 0 or not (ident(masked[k - 1]) or masked[k - 1] == ">"):
            return m - 2  # a leading ::


def _match_forward(masked, open_at, open_ch, close_ch):
    depth = 0
    for k in range(open_at, len(masked)):
        ch = masked[k]
        if ch == open_ch:
            depth += 1
        elif ch == close_ch:
            depth -= 1
            if depth == 0:
                return k
    return -1


# A launch's chevrons as nvcc reads them: `<<<` and `>>>`, or spelled as a formatter may leave them
# (`<< <`, `>> >`), with white space, comments (blank in the masked text) or a macro's line
# continuations between their characters. No other C++ has `<<` followed by `<`, but for a
# template's `operator<< <T>`.
_SPACE = r"(?:\s|\\\n)*"
_CHEVRON_OPEN = re.compile(r"<<" + _SPACE + "<")
_CHEVRON_CLOSE = re.compile(r">>" + _SPACE + ">")


def _chevron_opens(masked, pos=0):
    """The `<<<` of each launch in `masked` from `pos` on, as matches (not a template's
    `operator<< <T>`)."""
    for m in _CHEVRON_OPEN.finditer(masked, pos):
        if not re.search(r"\boperator\s*$", masked[:m.start()]):
            yield m


def _config_end(masked, begin):
    """The `>>>` that closes a launch configuration starting at `begin` (a match; None if none)."""
    depth = 0
    k = begin
    while k < len(masked):
        ch = masked[k]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and ch == ">":
            close = _CHEVRON_CLOSE.match(masked, k)
            if close:
                return close
        k += 1
    return None


def _line_of(text, at):
    return text.count("\n", 0, at) + 1


class TranslationError(ValueError):
    pass


def _named_launch(masked, start, at):
    """True where the launch names its kernel (``k``, ``ns::k<T, 3>``, a local pointer) inside a
    function or a macro: its threads then call it by name, through a lambda that the host
    compiler can inline into the loop over a block's threads (parenthesized: no
    argument-dependent lookup; ``[&]``: a name of a local function pointer works too, as the
    launch runs before the lambda goes). A kernel given by an expression ``(...)``, or a launch
    outside every function and macro, is called through its pointer."""
    return not (masked[start] == "(" or (_namespace_scope(masked, start) and not _in_directive(masked, start)))


_GLOBAL = re.compile(r"\b__global__\b")


def _parameter_name(parameter):
    """The name a parameter declares ("" where it has none, or it cannot be told from a type)."""
    declared = re.sub(r"\[[^\]]*\]\s*$", "", parameter.split("=")[0].strip())
    names = _IDENTIFIER.findall(declared)
    return names[-1] if len(names) >= 2 and names[-1] not in _NOT_NAMES else ""


def _function_at(masked, m):
    """What the __global__ / __device__ keyword matched by `m` begins: (head, paren, close, body):
    where the declaration's head starts (after the previous ';', '{' or '}'), its parameter list's
    parentheses (past any __launch_bounds__(...); paren -1 and close -1 where none follows), and
    its body's braces (begin, end), None for a declaration."""
    before = masked[:m.start()]
    head = max(before.rfind(";"), before.rfind("}"), before.rfind("{")) + 1
    paren = masked.find("(", m.end())
    while paren >= 0 and re.search(r"__launch_bounds__\s*$", masked[m.end():paren]):
        paren = masked.find("(", _match_forward(masked, paren, "(", ")") + 1)
    close = _match_forward(masked, paren, "(", ")") if paren >= 0 else -1
    body = None
    if close >= 0:
        brace = close + 1
        while brace < len(masked) and masked[brace] not in "{;":
            brace += 1
        end = _match_forward(masked, brace, "{", "}") if brace < len(masked) and masked[brace] == "{" else -1
        body = (brace, end) if end >= 0 else None
    return head, paren, close, body


def _kernel_parameters(masked):
    """{kernel's name: its parameters' names, comma-separated} for the __global__ functions the
    file declares (None where two declarations of one name disagree): the labels a launch gives
    arguments that carry none."""
    found = {}
    for m in _GLOBAL.finditer(masked):
        _, paren, close, _ = _function_at(masked, m)
        head = masked[m.end():paren] if paren >= 0 else ""
        names = _IDENTIFIER.findall(head)
        if close < 0 or not names or any(c in head for c in ";{}"):
            continue
        listed = ",".join(_parameter_name(p) for p in _top_level_pieces(masked[paren + 1:close]) if p.strip())
        found[names[-1]] = listed if found.get(names[-1], listed) == listed else None
    return found


def _parameters_of(kernels, name):
    """`, ::cuguard::detail::parameter_names{"a,b"}` for the launch of `name` (`ns::k<float>`)
    where the file declares the kernel, else ""."""
    base = name.split("<")[0].split("::")[-1].strip()
    listed = kernels.get(base)
    return f', ::cuguard::detail::parameter_names{{"{listed}"}}' if listed else ""


def _launches(text, masked, path, torch, pointers=False, deduced=()):
    """[(begin, end, replacement)] for every <<<...>>>(...) launch (`pointers`: of kernels whose
    raw pointers are checked, cuguard/pointers.py: a deduced template's pointer arguments made
    checked pointers on the host, and a kernel of `deduced` called through its deducer, which
    deduces its template arguments from the raw pointers)."""
    edits = []
    kernels = _kernel_parameters(masked)
    launch = "::cuguard::detail::torch_adapter::torch_launch" if torch else "::cuguard::detail::plain_launch"
    site = "::cuguard::detail::chevron_site(__PRETTY_FUNCTION__)"
    pos = 0
    while True:
        opening = next(_chevron_opens(masked, pos), None)
        if opening is None:
            return edits
        at = opening.start()
        start = _kernel_start(masked, at)
        closing = _config_end(masked, opening.end())
        if start < 0 or start == at or closing is None:
            raise TranslationError(f"{path}:{_line_of(text, at)}: cannot read the kernel launch at '<<<'")
        paren = closing.end()
        while paren < len(masked) and masked[paren].isspace():
            paren += 1
        if paren >= len(masked) or masked[paren] != "(":
            raise TranslationError(f"{path}:{_line_of(text, at)}: a launch '<<<...>>>' must be followed by its arguments")
        end = _match_forward(masked, paren, "(", ")")
        if end < 0:
            raise TranslationError(f"{path}:{_line_of(text, at)}: the launch's argument list is not closed")
        # Lines are kept: the newlines of the kernel's name and of the chevrons are written again
        # (in a macro, each after its continuation).
        newline = "\\\n" if _in_directive(masked, start) else "\n"
        lines = text.count("\n", start, opening.end())
        config = text[opening.end():closing.start()]
        gap = newline * text.count("\n", closing.start(), closing.end()) + text[closing.end():paren]
        args = text[paren:end + 1]
        if _named_launch(masked, start, at):
            name = " ".join(masked[start:at].replace("\\\n", " ").split())
            pointer = f"::cuguard::detail::kernel_pointer({name}, cuguard_impl_tag)"
            # The call's lambda comes first: GCC 12 fails (an internal compiler error) on the
            # pointer's lambda before it where the name has an enclosing lambda's local constant
            # (`k<scalar_t, DEGREE>` in a dispatch macro).
            call = f"({name})"
            if pointers and re.sub(r"\s*<.*$", "", name, flags=re.S).split("::")[-1].strip() in deduced:
                deducer = re.sub(r"([A-Za-z_]\w*)(\s*(?:<.*>)?)$", r"cuguard_impl_deduce_\1\2", name, flags=re.S)
                call = f"({deducer}(::cuguard::detail::raw_argument(cuguard_impl_params)...))"
            given = "::cuguard::detail::deduced_argument(cuguard_impl_params)..." if call != f"({name})" \
                else "cuguard_impl_params..."
            head = (f"::cuguard::detail::chevron_named<{launch}{', true' if pointers else ''}>("
                    f"[&](auto&... cuguard_impl_params) {{ {call}({given}); }}, "
                    f"[&](auto cuguard_impl_tag) -> decltype({pointer}) {{ return {pointer}; }}, "
                    f"\"{name}\"{_parameters_of(kernels, name)}{newline * lines}, ")
        else:
            kernel = text[start:at].rstrip()
            head = f"::cuguard::detail::chevron<{launch}>({kernel}{newline * (lines - kernel.count(chr(10)))}, "
        edits.append((start, end + 1, f"{head}{site}, {config}){gap}{args}"))
        pos = end + 1


_LAUNCH_CALL = re.compile(r"(?:::\s*)?\b(cudaLaunchCooperativeKernel|cudaLaunchKernel)\s*\(")
_VOID_CAST = re.compile(r"^\s*(?:\(\s*(?:const\s+)?void\s*\*\s*\)|(?:reinterpret|static)_cast\s*<\s*(?:const\s+)?void\s*\*\s*>)\s*")
_KERNEL_NAME = re.compile(r"^&?\s*(?:::)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*\s*(?:<.*>)?$", re.S)


def _argument_launches(text, masked, path, torch):
    """[(begin, end, replacement)] for each cudaLaunchKernel / cudaLaunchCooperativeKernel call of a
    kernel template's instance (``(void*)k<float>``, ``reinterpret_cast<void*>(&ns::k<4>)``): a launch
    with the instance's parameter types (``::cuguard::detail::launch_with_arguments``), which reads
    them from the call's ``void** args``. Other kernels are registered where they are defined
    (_registrations), and the call is left as it is."""
    edits = []
    launch = "::cuguard::detail::torch_adapter::torch_launch" if torch else "::cuguard::detail::plain_launch"
    for m in _LAUNCH_CALL.finditer(masked):
        paren = m.end() - 1
        close = _match_forward(masked, paren, "(", ")")
        if close < 0:
            continue
        first = _top_level_pieces(masked[paren + 1:close])[0]
        kernel = text[paren + 1:paren + 1 + len(first)]
        cast = _VOID_CAST.match(kernel)
        name = kernel[cast.end():] if cast else kernel
        name = name.strip()
        while name.startswith("(") and name.endswith(")") and _match_forward(name, 0, "(", ")") == len(name) - 1:
            name = name[1:-1].strip()
        if not _KERNEL_NAME.match(name) or "<" not in name or len(first) == close - paren - 1:
            continue  # (a kernel that is no template instance: registered where it is defined)
        name = name.lstrip("&").strip()
        cooperative = "true" if m.group(1) == "cudaLaunchCooperativeKernel" else "false"
        newlines = "\n" * text.count("\n", m.start(), paren + 1 + len(first))
        edits.append((m.start(), paren + 1 + len(first),
                      f"::cuguard::detail::launch_with_arguments<{launch}>(::cuguard::detail::kernel_pointer({name}, 0), "
                      f"{cooperative}, ::cuguard::detail::chevron_site(__PRETTY_FUNCTION__){newlines}"))
    return edits


def _registrations(text, masked, torch):
    """[(at, at, registration)] after each definition of a kernel that is no template, at namespace
    scope: ``static const bool cuguard_impl_kernel_N = ::cuguard::detail::register_kernel<Launch>(...)``,
    which lets cudaLaunchKernel and cudaLaunchCooperativeKernel launch it by address."""
    edits = []
    launch = "::cuguard::detail::torch_adapter::torch_launch" if torch else "::cuguard::detail::plain_launch"
    for m in _GLOBAL.finditer(masked):
        head, paren, close, body = _function_at(masked, m)
        if re.search(r"\btemplate\b", masked[head:m.start()]) or not _namespace_scope(masked, m.start()):
            continue
        names = _IDENTIFIER.findall(masked[m.end():paren]) if paren >= 0 else []
        if body is None or not names or any(c in masked[m.end():paren] for c in ";{}<"):
            continue  # (no body: a declaration)
        end = body[1]
        if _in_directive(masked, end):
            continue
        name = names[-1]
        pointer = f"::cuguard::detail::kernel_pointer({name}, cuguard_impl_tag)"
        edits.append((end + 1, end + 1,
                      f" static const bool cuguard_impl_kernel_{len(edits)}_{name} = ::cuguard::detail::register_kernel<{launch}>("
                      f"[](auto cuguard_impl_tag) -> decltype({pointer}) {{ return {pointer}; }});"))
    return edits


_CUDACC = re.compile(r"\b__CUDACC(?:_VER_(MAJOR|MINOR|BUILD))?__\b")
CUDACC = "CUGUARD_IMPL_CUDACC"


def _cudacc(masked):
    """[(at, at + len, CUDACC)] for each __CUDACC__: nvcc defines it in both passes of a .cu file,
    so the file's own code (and its headers', translated with it) reads it as defined, as
    <cuguard/emulation.hpp> defines CUGUARD_IMPL_CUDACC; the toolkit's and other libraries'
    headers keep their host compiler's paths. nvcc's version, __CUDACC_VER_MAJOR__ (and _MINOR__,
    _BUILD__), reads as the toolkit's (CUGUARD_IMPL_CUDACC_VER_MAJOR: xformers' nvcc_info.cu)."""
    return [(m.start(), m.end(), CUDACC + (f"_VER_{m.group(1)}" if m.group(1) else "")) for m in _CUDACC.finditer(masked)]


_DEVICE = re.compile(r"\b(?:__global__|__device__)\b")
_ARCH = re.compile(r"\b__CUDA_ARCH__\b")
_CONDITIONAL = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b", re.M)
DEVICE_ARCH = "CUGUARD_DEVICE_CUDA_ARCH"


# A macro that spells CUDA's execution space (tiny-cuda-nn's `#define TCNN_DEVICE __device__`).
_SPACE_MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+((?:\w+[ \t]*)+)$", re.M)
_SPACE_WORDS = {"__host__", "__device__", "__global__", "__forceinline__", "__noinline__", "inline", "static"}


def _space_macros(masked, words):
    """Adds to `words` ({macro: its expansion}) the macros `masked` defines as an execution space
    (`__device__`, `__host__ __device__`, with `inline` and the like, or a macro of `words` that
    spells one: detectron2's `HOST_DEVICE_INLINE HOST_DEVICE __forceinline__`), so that a header
    that declares its functions `TCNN_DEVICE` reads as device code as `__device__` does; one
    defined `__host__ __device__` in any branch of an #if stays so (mmcv's TV_HOST_DEVICE_INLINE)."""
    for m in _SPACE_MACRO.finditer(masked):
        spelled = " ".join(words.get(w, w) for w in m.group(2).split())
        if "__host__" in words.get(m.group(1), "") and "__host__" not in spelled:
            continue  # (defined __host__ __device__ in another branch of an #if: host code may call it)
        if set(spelled.split()) <= _SPACE_WORDS and re.search(r"\b__(?:host|device|global)__\b", spelled):
            words[m.group(1)] = spelled
    return words


def _spelled(text, words):
    """`text` with the execution-space macros of `words` expanded (positions move: for a test)."""
    if not words:
        return text
    return re.sub(r"\b(?:" + "|".join(map(re.escape, words)) + r")\b", lambda m: words[m.group(0)], text)


def _device_bodies(masked, words=None, host_device=False):
    """[(begin, end)] of the bodies of the functions defined __global__ or __device__, or by a
    macro of `words` that spells one: device code only (not __host__ __device__), or with
    `host_device` those too, outermost only (the code a kernel runs)."""
    words = words or {}
    device = [n for n, spelled in words.items() if _DEVICE.search(spelled)]
    keyword = re.compile(r"\b(?:__global__|__device__" + "".join("|" + re.escape(n) for n in device) + r")\b")
    bodies = []
    for m in keyword.finditer(masked):
        head, paren, _, body = _function_at(masked, m)
        if paren < 0 or body is None or re.search(r"[;{}=]", masked[m.end():paren]):
            continue  # a variable, or a declaration
        if host_device and (not bodies or body[0] > bodies[-1][1]):
            bodies.append(body)
        elif not host_device and "__host__" not in _spelled(masked[head:paren], words):
            bodies.append(body)
    return bodies


def _device_only(region, words=None):
    """True if the text between two conditional directives declares device code only (functions
    __device__, __global__ or __host__ __device__, spelled so or by a macro of `words`, and types:
    xformers' decoder.cu keeps its helpers in `#if __CUDA_ARCH__ >= 700`, a constructor of theirs
    __host__ __device__), or only includes headers (`#if __CUDA_ARCH__ >= 700` around
    `#include <cuda/pipeline>`: what the device pass's kernels use, harmless to the host's)."""
    if region.strip() and all(re.match(r"\s*#\s*include\b", line) for line in region.splitlines() if line.strip()):
        return True
    region = _spelled(region, words)
    host = re.sub(r"\b__host__\s+__device__\b|\b__device__\s+__host__\b", "", region)
    return _DEVICE.search(region) is not None and "__host__" not in host and not re.search(r"\bmain\s*\(", region)


def _in_device_class(masked, at, words=None):
    """True if `at` lies in the body of a class (struct, union) whose members are device code only
    (_device_only): sputnik's Barrier keeps a member `thread_mask` under `#if __CUDA_ARCH__ >= 700`
    that its __device__ functions, in the same test, use."""
    depth = 0
    for k in range(at - 1, -1, -1):
        if masked[k] == "}":
            depth += 1
        elif masked[k] == "{":
            if depth > 0:
                depth -= 1
                continue
            head = masked[max(masked.rfind(";", 0, k), masked.rfind("}", 0, k), masked.rfind("{", 0, k)) + 1:k]
            if not re.search(r"\b(?:struct|class|union)\b", head):
                return False
            close = _match_forward(masked, k, "{", "}")
            return close > 0 and _device_only(masked[k + 1:close], words)
    return False


def _device_arch(masked, words=None):
    """[(at, at + len, DEVICE_ARCH)] for each __CUDA_ARCH__ of a conditional directive that selects
    device code: inside the body of a __global__ or __device__ function (spelled so or by a macro
    of `words`), or at namespace scope
    where every branch it selects declares device code only. nvcc's device pass sees
    __CUDA_ARCH__ there; under emulation one compilation serves host and device, where
    __CUDA_ARCH__ stays undefined (the host's branch, and CCCL's host code)."""
    bodies = _device_bodies(masked, words)
    edits = []
    directives = list(_CONDITIONAL.finditer(masked))
    for i, d in enumerate(directives):
        line_end = masked.find("\n", d.start())
        while line_end > 0 and masked[line_end - 1] == "\\":
            line_end = masked.find("\n", line_end + 1)
        line_end = len(masked) if line_end < 0 else line_end
        arches = [a for a in _ARCH.finditer(masked, d.start(), line_end)]
        if not arches or d.group(1) in ("else", "endif"):
            continue
        inside = any(b <= d.start() <= e for b, e in bodies) or _in_device_class(masked, d.start(), words)
        if not inside:
            # The regions of this #if chain, to its #endif.
            depth, regions, start = 0, [], line_end
            for n in directives[i + 1:]:
                kind = n.group(1)
                if kind in ("if", "ifdef", "ifndef"):
                    depth += 1
                elif kind == "endif" and depth > 0:
                    depth -= 1
                elif depth == 0:
                    regions.append(masked[start:n.start()])
                    start = n.end()
                    if kind == "endif":
                        break
            if not regions or not all(_device_only(r, words) or not r.strip() for r in regions):
                continue
        edits += [(a.start(), a.end(), DEVICE_ARCH) for a in arches]
    return edits


# CUDA's conversions of a floating-point value to a 32- or 64-bit integer saturate (NaN: 0), where
# the host's give its own answer (x86: the minimum): a cast to one in device code is a call of
# ::cuguard::detail::gpu_cast<T> (detail/emulation/math_conversions.hpp), which converts as cvt.rzi
# does and is any other cast otherwise.
_INTEGER_TYPE = (r"(?:(?:un)?signed\s+)?(?:long\s+long|long|int)(?:\s+int)?|(?:un)?signed|(?:std\s*::\s*)?"
                 r"(?:u?int(?:32|64)_t|size_t|ptrdiff_t|intptr_t|uintptr_t)")
_STATIC_CAST = re.compile(r"\bstatic_cast\s*<\s*(" + _INTEGER_TYPE + r")\s*>\s*\(")
_C_CAST = re.compile(r"\(\s*(" + _INTEGER_TYPE + r")\s*\)")
_NUMBER = re.compile(r"(?:0[xX][0-9a-fA-F']+|\d[\d']*\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)[uUlLfF]*")
_NAME = re.compile(r"(?:::\s*)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*")
GPU_CAST = "::cuguard::detail::gpu_cast"


def _operand_end(masked, i):
    """The end of the unary expression that starts at `i` (a cast's operand: prefix operators,
    nested casts, a name, literal or parenthesized expression, then calls, subscripts and member
    accesses), or -1 where it is not one this reads (a template's arguments, a string)."""
    n = len(masked)
    while True:
        while i < n and masked[i] in " \t\n\\":
            i += 1
        cast = _C_CAST.match(masked, i)
        if masked.startswith(("++", "--"), i):
            i += 2
        elif i < n and masked[i] in "-+!~*&" and not masked.startswith("&&", i):
            i += 1
        elif cast is not None:
            i = cast.end()
        else:
            break
    if i >= n:
        return -1
    if masked[i] == "(":
        close = _match_forward(masked, i, "(", ")")
        if close < 0:
            return -1
        i = close + 1
    else:
        m = _NUMBER.match(masked, i) or _NAME.match(masked, i)
        if m is None or m.group(0) in ("sizeof", "static_cast", "reinterpret_cast", "const_cast", "new", "delete"):
            return -1
        i = m.end()
    while True:
        j = i
        while j < n and masked[j] in " \t":
            j += 1
        if j < n and masked[j] in "([":
            close = _match_forward(masked, j, masked[j], ")" if masked[j] == "(" else "]")
            if close < 0:
                return -1
            i = close + 1
        elif (m := re.compile(r"(?:\.|->)\s*[A-Za-z_]\w*").match(masked, j)) is not None:
            i = m.end()
        elif j == i and j < n and masked[j] == "<" and not masked.startswith(("<<", "<="), j):
            return -1  # (`name<`: perhaps a template's arguments; `x < y`, spaced, a comparison)
        else:
            return i


def _gpu_casts(masked, bodies):
    """[[(at, at + len, new), ...]] for each cast to a 32- or 64-bit integer in `bodies` (device
    code), each the edits of one cast: ``static_cast<int>(`` is ``gpu_cast<int>(``; ``(int)x``
    is ``gpu_cast<int>(x)`` where x is a unary expression _operand_end reads (after an operator,
    not after a name, which makes it a declaration's parameter list)."""
    casts = []
    for begin, end in bodies:
        for m in _STATIC_CAST.finditer(masked, begin, end):
            casts.append([(m.start(), m.end(), f"{GPU_CAST}<{m.group(1)}>(")])
        for m in _C_CAST.finditer(masked, begin, end):
            before = masked[begin:m.start()].rstrip()
            word = re.search(r"\w+$", before)
            if not before or (word is not None and word.group(0) not in ("return", "case", "else", "do", "throw")) \
                    or before[-1] in ")]>\"'":
                continue
            operand = _operand_end(masked, m.end())
            if operand < 0 or operand > end or not masked[m.end():operand].strip():
                continue
            casts.append([(m.start(), m.end(), f"{GPU_CAST}<{m.group(1)}>("), (operand, operand, ")")])
    return casts


def _named_tensors(text, words=None):
    """`text` with its host code taking each tensor's data pointer through name_tensor
    (cuguard/pointers.py's tensor_edits; its lines kept), and whether it does anywhere: made
    before the other edits, which then read it (a launch's arguments hold most of them)."""
    edits = sorted(e for group in _pointers().tensor_edits(text, _mask(text), dict(words or {})) for e in group)
    return "".join(_edited(text, edits, "")), bool(edits)


def _unchecked_pragmas(masked):
    """[(begin, end, "")] blanking each ``#pragma cuguard unchecked`` line (cuguard/pointers.py
    reads them; a host compiler's -Wall warns of a pragma it does not know)."""
    return [(m.start(), m.end(), "") for m in _pointers().UNCHECKED.finditer(masked)]


def _without_overlaps(casts, edits):
    """The edits of the casts (_gpu_casts) that overlap none of `edits` nor each other's (a cast
    in an asm statement's operand, which the interpreter's call rewrites, is left as written)."""
    taken = sorted((b, e) for b, e, _ in edits)
    kept = []
    for cast in casts:
        spans = [(b, e) for b, e, _ in cast]
        if any(b < te and tb < e or (b == e and tb < b < te) for b, e in spans for tb, te in taken):
            continue
        kept += cast
        taken = sorted(taken + [(b, e) for b, e in spans if b < e])
    return kept


_SHARED_ALIGNAS = re.compile(r"\b__shared__\s+(?:static\s+)?(alignas)\s*\(")


def _shared_alignas(masked):
    """``__shared__ alignas(N) T x[...]`` (nvcc's order, where __shared__ is thread_local here and a
    standard attribute cannot follow it) with ``__attribute__((aligned(N)))`` for ``alignas(N)``."""
    edits = []
    for m in _SHARED_ALIGNAS.finditer(masked):
        paren = m.end() - 1
        close = _match_forward(masked, paren, "(", ")")
        if close < 0:
            continue
        edits += [(m.start(1), paren + 1, "__attribute__((aligned("), (close, close + 1, ")))")]
    return edits


_EXTERN_SHARED = re.compile(r"\bextern\s+([^;{}()]*?)\b__shared__\s+([^;{}]*?)\b([A-Za-z_]\w*)\s*\[\s*\]\s*;")
_ALIGN = re.compile(r"\b(?:__align__|alignas)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)")


def _namespace_scope(masked, at):
    """True if `at` lies outside every function and class body (only namespace braces around it)."""
    stack = []
    for m in re.finditer(r"[{}]", masked[:at]):
        if m.group() == "{":
            before = masked[max(0, m.start() - 200):m.start()]
            stack.append(bool(re.search(r'(?:\bnamespace(?:\s+[\w:]+)?|\bextern\s*"C"|\bextern\s+"C\+\+")\s*$', before)
                              or re.search(r"\bextern\s*$", before)))
        elif stack:
            stack.pop()
    return all(stack)


def _enclosing_block(masked, at):
    """The text of the innermost brace block around `at` (from its `{` to its `}`)."""
    depth = 0
    for k in range(at - 1, -1, -1):
        if masked[k] == "}":
            depth += 1
        elif masked[k] == "{":
            if depth == 0:
                end = _match_forward(masked, k, "{", "}")
                return masked[k:end + 1 if end >= 0 else len(masked)]
            depth -= 1
    return masked


_COPY_CAPTURE = re.compile(r"\[\s*=")


def _extern_shared(text, masked):
    edits = []
    for m in _EXTERN_SHARED.finditer(masked):
        declared = text[m.start(1):m.end(1)] + " " + text[m.start(2):m.end(2)]  # (`extern double __shared__ s[]` too)
        element = " ".join(_ALIGN.sub(" ", declared).split())
        name = m.group(3)
        newlines = "\n" * text.count("\n", m.start(), m.end())
        if _namespace_scope(masked, m.start()):
            new = f"static ::cuguard::detail::dynamic_shared_array<{element}> {name};"
        elif _COPY_CAPTURE.search(_enclosing_block(masked, m.start())):
            # (a lambda capturing by copy: a pointer, which it can copy)
            new = f"{element}* const {name} = ::cuguard::dynamic_shared<{element}>();"
        else:
            # A reference to an array of unknown bound, as the array is: `reinterpret_cast<T&>(name)`
            # reads the shared memory (CUB's TempStorage over it), not a pointer to it.
            new = f"{element} (&{name})[] = *reinterpret_cast<{element} (*)[]>(::cuguard::dynamic_shared<{element}>());"
        edits.append((m.start(), m.end(), new + newlines))
    return edits


_SHARED = re.compile(r"\b__shared__\b")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_NOT_NAMES = {"const", "volatile", "static", "unsigned", "signed", "int", "char", "short", "long", "float", "double",
              "bool", "auto", "struct", "class", "__restrict__", "__restrict"}


def _in_directive(masked, at):
    """True if `at` lies in a preprocessor directive (a #define's body included)."""
    start = masked.rfind("\n", 0, at) + 1
    while True:
        if masked[start:at].lstrip().startswith("#"):
            return True
        if start < 2 or masked[start - 2] != "\\":
            return False
        at = start - 1
        start = masked.rfind("\n", 0, at) + 1


def _top_level_pieces(declared):
    """A declaration or a parameter list split at its top-level commas (those of template
    arguments, calls and initializers kept)."""
    pieces, depth, angle, begin = [], 0, 0, 0
    for i, c in enumerate(declared):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "<" and depth == 0:
            angle += 1
        elif c == ">" and depth == 0 and angle > 0:
            angle -= 1
        elif c == "," and depth == 0 and angle == 0:
            pieces.append(declared[begin:i])
            begin = i + 1
    pieces.append(declared[begin:])
    return pieces


def _declarators(declared):
    """The names a declaration declares (`int a[4], b` -> a, b): its top-level commas split it."""
    names = []
    for piece in _top_level_pieces(declared):
        words = _IDENTIFIER.findall(piece.split("[", 1)[0].split("=", 1)[0])
        if words and words[-1] not in _NOT_NAMES:
            names.append(words[-1])
    return names


def _shared_variables(text, masked):
    """After each `__shared__` declaration (not `extern`): CUGUARD_IMPL_SHARED_VARIABLE(name) for
    each name it declares, which lists the variable for the race detector where a sanitized build
    sees raw accesses (detail/emulation/shared_variables.hpp), on the same line; each name
    declared as CUGUARD_IMPL_SHARED_NAME(name) (there: the storage, which `name` then refers to)."""
    edits = []
    for m in _SHARED.finditer(masked):
        before = masked[:m.start()]
        statement = max(before.rfind(";"), before.rfind("{"), before.rfind("}"))
        if re.search(r"\bextern\b", before[statement + 1:]) or _in_directive(masked, m.start()):
            continue
        depth, end = 0, m.end()
        while end < len(masked) and not (masked[end] in ";{}" and depth == 0):
            depth += masked[end] in "([" and 1 or masked[end] in ")]" and -1 or 0
            end += 1
        if end >= len(masked) or masked[end] != ";":
            continue
        declared = _ALIGN.sub(" ", before[statement + 1:m.start()] + " " + masked[m.end():end])
        names = _declarators(declared)
        for n in names:
            # (the declarator: the name, not a type's or a qualified one, before [ ; , or =)
            at = re.search(rf"(?<![\w:.]){re.escape(n)}\b(?=\s*[\[;,=])", masked[m.end():end + 1])
            if at is not None:
                edits.append((m.end() + at.start(), m.end() + at.end(), f"CUGUARD_IMPL_SHARED_NAME({n})"))
        if names:
            edits.append((end + 1, end + 1, "".join(f" CUGUARD_IMPL_SHARED_VARIABLE({n})" for n in names)))
    return edits


_RESTRICT = re.compile(r"\b__restrict(?:__)?\b")


def _restricted_pointers(masked):
    """`__restrict__` after a `ptr<...>` (a T* renamed cuguard::ptr<T>, its qualifier kept): blanked,
    as the qualifier cannot apply to the class a checked pointer is (CUGUARD_RESTRICT is the
    spelling nvcc builds need)."""
    edits = []
    for m in _RESTRICT.finditer(masked):
        close = len(masked[:m.start()].rstrip()) - 1
        if close < 0 or masked[close] != ">":
            continue
        depth, k = 0, close
        while k >= 0:
            depth += {">": 1, "<": -1}.get(masked[k], 0)
            if depth == 0:
                break
            k -= 1
        if k > 0 and re.search(r"\bptr\s*$", masked[:k]):
            edits.append((m.start(), m.end(), " " * (m.end() - m.start())))
    return edits


_INCLUDE = re.compile(r'^([ \t]*#[ \t]*include[ \t]*)(?:"([^"\n]+)"|<([^>\n]+)>)', re.M)


def _included(m, here, include_dirs):
    """The file an #include (an _INCLUDE match) finds among the user's files: a quoted name beside
    the includer (in `here`), else in the first of `include_dirs` (the build's own include
    directories) that holds it; a name in angle brackets in `include_dirs` only (the toolkit's and
    the system's headers are never the user's); (path, True if beside), or (None, False)."""
    if m.group(3) is not None:
        return _found(m.group(3), None, include_dirs)
    return _found(m.group(2), here, include_dirs)


# A test of a tensor's (or a device's) type, in an extension's sources: `x.type().is_cuda()` first
# (DeprecatedTypeProperties has no is_cpu()), then `.is_cuda()`, `kCUDA` and `DeviceType::CUDA`;
# and `CUDA` alone as a macro's argument, a dispatch key or device type by name
# (`TORCH_LIBRARY_IMPL(ns, CUDA, m)`, mmcv's `REGISTER_DEVICE_IMPL(op, CUDA, f)`, which pastes
# `at::k##device`), or a CUDA dispatch key of another kind (`SparseCUDA`, `AutogradCUDA`, ...):
# an extension's CUDA implementation is registered for the emulated device's tensors.
_DEVICE_TEST = re.compile(r"(\.|->)\s*type\s*\(\s*\)\s*\.\s*is_cuda\s*\(\s*\)|(?<=\.|>)\s*is_cuda\s*\(\s*\)"
                          r"|\bkCUDA\b|\bDeviceType\s*::\s*CUDA\b|(?<=\.|>)\s*get_device\s*\(\s*\)"
                          r"|(?<=[(,])\s*(?:Sparse|SparseCsr|Quantized|NestedTensor|Autograd)?CUDA(?=\s*[,)])")


def _device_tests(masked):
    """Edits giving each test of a tensor's device under emulation its meaning there: the CPU,
    and a tensor's device index the emulated device's, 0 (`x.get_device()` reads
    `x.get_device() * 0`: a CPU tensor's is -1; `* 0` keeps the call's precedence)."""
    edits = []
    for m in _DEVICE_TEST.finditer(masked):
        found = m.group(0)
        if "get_device" in found:
            edits.append((m.end(), m.end(), " * 0"))
            continue
        if m.group(1):
            new = m.group(1) + "is_cpu()"
        elif "is_cuda" in found:
            new = found[:len(found) - len(found.lstrip())] + "is_cpu()"
        elif "kCUDA" in found:
            new = "kCPU"
        elif "DeviceType" not in found:  # (a macro's argument)
            new = found[:len(found) - 4] + "CPU"
        else:
            new = "DeviceType::CPU"
        edits.append((m.start(), m.end(), new))
    return edits


def _needs_translation(text):
    """True if a header holds what only the translation makes C++: a launch, an extern __shared__
    array, a kernel (registered for cudaLaunchKernel), a test of __CUDACC__, inline PTX (an
    asm statement, for the interpreter), or a test of __CUDA_ARCH__ that selects device code
    (sputnik's barrier.h: `#if __CUDA_ARCH__ >= 700` around the __syncwarp() of a device
    function, without which a sub-warp's lanes read what the others have not stored yet)."""
    masked = _mask(text)
    return next(_chevron_opens(masked), None) is not None or _EXTERN_SHARED.search(masked) is not None or _LAUNCH_CALL.search(masked) is not None \
        or _GLOBAL.search(masked) is not None or _CUDACC.search(masked) is not None or _ASM.search(masked) is not None \
        or (_ARCH.search(masked) is not None and bool(_device_arch(masked)))


def _reaches(path, needs, seen, include_dirs=()):
    """True if `needs(text)` holds of the file at `path` or of a header it includes with quotes
    (beside it or in `include_dirs`, at any depth); `seen` collects the files read."""
    path = os.path.abspath(path)
    if path in seen or not os.path.exists(path):
        return False
    seen.add(path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if needs(text):
        return True
    here = os.path.dirname(path)
    found = (_included(m, here, include_dirs)[0] for m in _INCLUDE.finditer(text))
    return any(f is not None and _reaches(f, needs, seen, include_dirs) for f in found)


def _chain_needs_translation(path, include_dirs=()):
    """True if the header at `path` needs translation, or a header it includes does: its
    includer's copy must then name that header's translation (a.h including common.h, which
    tests __CUDACC__)."""
    return _reaches(path, _needs_translation, set(), include_dirs)


def _found(name, here, include_dirs):
    """The file an #include of `name` finds: beside the includer (in `here`, None for a name in
    angle brackets), else in the first of `include_dirs` that holds it; (path, True if beside),
    or (None, False)."""
    if os.path.isabs(name):
        return None, False
    beside = None if here is None else os.path.abspath(os.path.join(here, name))
    if beside is not None and os.path.exists(beside):
        return beside, True
    for d in include_dirs:
        path = os.path.abspath(os.path.join(d, name))
        if os.path.exists(path):
            return path, False
    return None, False


def _pointers():
    """cuguard/pointers.py (imported beside this file where it runs as a script: installed,
    cuguard_pointers.py)."""
    if __package__:
        from . import pointers
        return pointers
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)
    return __import__("cuguard_pointers" if os.path.exists(os.path.join(here, "cuguard_pointers.py")) else "pointers")


def _has_device_functions(text):
    """True if a header defines or declares __global__ or __device__ functions (whose raw
    pointers a build with checked pointers makes checked: their callers pass checked ones)."""
    return _DEVICE.search(_mask(text)) is not None


def _includes(text, path, out_dir, headers, torch=False, include_dirs=(), words=None, pointers=False, deduced=None,
              nvcc=False, passed=None):
    """Edits naming each file a quoted #include finds beside `path` by its absolute path; where
    that file, or one an #include (quoted or in angle brackets) finds in `include_dirs` (the
    build's own include directories: tiny-cuda-nn's `<tiny-cuda-nn/common.h>`), holds a
    launch, an extern __shared__ array or a test of __CUDACC__, or includes a header that does
    (_chain_needs_translation; with `torch`, or a test of a tensor's device), and
    `out_dir` is given, by the path of its translation there (written as the source's is; nested
    headers too). `headers` collects the files found (a build's dependencies), `words` the
    execution-space macros they define (_space_macros); with `pointers`, a header of device
    functions is translated too (cuguard/pointers.py), `deduced` collecting its kernel templates'
    deducers (and `passed` the classes whose pointer members are checked); with `nvcc`, only
    those, for nvcc (translate_nvcc)."""
    here = os.path.dirname(os.path.abspath(path))
    edits = []
    for m in _INCLUDE.finditer(text):
        found, beside = _included(m, here, include_dirs)
        if found is None:
            continue
        target = found
        again = found in headers  # (its translation written, or under way: headers that include each other)
        if not again:
            headers.append(found)
            with open(found, encoding="utf-8") as f:
                content = f.read()
            if words is not None:
                _space_macros(content, words)
        if out_dir is not None:
            emulated = not nvcc and (_chain_needs_translation(found, include_dirs)
                                     or (torch and _host_needs_translation(found, include_dirs)))
            if emulated or (pointers and _reaches(found, _has_device_functions, set(), include_dirs)):
                digest = hashlib.sha1(found.encode("utf-8")).hexdigest()[:8]
                target = os.path.join(out_dir, f"{os.path.basename(found)}.{digest}.h")
                if not again and nvcc:
                    _write_if_changed(target, translate_nvcc(content, found, out_dir, headers, header=True,
                                                             include_dirs=include_dirs, words=words, deduced=deduced,
                                                             passed=passed, torch=torch))
                elif not again:
                    _write_if_changed(target, translate(content, found, torch, out_dir, headers, header=True,
                                                        include_dirs=include_dirs, words=words, pointers=pointers,
                                                        deduced=deduced, passed=passed))
            elif not beside:
                continue  # (found through the build's include directories, as the compiler finds it)
        edits.append((m.start(), m.end(), m.group(1) + '"' + target.replace("\\", "/") + '"'))
    return edits


def _edited(text, edits, path):
    """The pieces of `text` with the sorted `edits` ((begin, end, new text)) made."""
    pieces, at = [], 0
    for begin, end, new in edits:
        if begin < at:
            raise TranslationError(f"{path}:{_line_of(text, begin)}: overlapping constructs cannot be translated")
        pieces += [text[at:begin], new]
        at = end
    pieces.append(text[at:])
    return pieces


def _source_name(path):
    """`path` as a translation's comment and #line directive name it (absolute, / separators, quotes escaped)."""
    return os.path.abspath(path).replace("\\", "/").replace('"', '\\"')


def macro_lines(flags):
    """The ``-D``/``-U`` options among a compiler's `flags` (``-DX``, ``-DX=1``, ``-D X``, ``-UX``),
    in their order, as the lines that give a file the same macros (``#define X 1``, ``#undef X``):
    what nvcc's command line gives a .cu file, for its translation, built by the host compiler
    with the C++ sources' flags."""
    lines, flags = [], list(flags)
    for i, flag in enumerate(flags):
        kind, rest = flag[:2], flag[2:]
        if kind not in ("-D", "-U"):
            continue
        if not rest and i + 1 < len(flags):
            rest = flags[i + 1]
        name, equals, value = rest.partition("=")
        if not re.fullmatch(r"[A-Za-z_]\w*", name):
            continue
        lines.append(f"#undef {name}\n" if kind == "-U" else f"#define {name} {value if equals else '1'}\n")
    return "".join(lines)


def translate(text, path, torch=False, out_dir=None, headers=None, header=False, include_dirs=(), macros="", words=None,
              pointers=False, deduced=None, passed=None):
    """The build's copy of the CUDA source `text` read from `path` (see the module's doc). With
    `out_dir`, included headers that need it are translated there too (`headers` collects every
    file included; quoted includes are looked for beside the file, then in `include_dirs`);
    `header`: the copy of such a header (no prelude: its includer's came first); `macros`: lines
    written before everything else (macro_lines of nvcc's options); `words`: the execution-space
    macros its includers defined (_space_macros); `pointers`: the raw pointers of its device code
    made checked (cuguard/pointers.py), its headers' too (`deduced`: the kernel templates given a
    deducer in the headers translated so far; `passed`: the classes whose pointer members are
    checked, named by its includer)."""
    headers = [] if headers is None else headers
    text, tensors = _named_tensors(text, words) if pointers and torch else (text, False)
    masked = _mask(text)
    words = _space_macros(masked, {} if words is None else words)
    deduced = set() if deduced is None else deduced
    passed = (_pointers().passed_types(masked, words) if pointers else set()) if passed is None else passed
    included = _includes(text, path, out_dir, headers, torch, include_dirs, words, pointers, deduced, passed=passed)
    checked = _pointers().pointer_edits(text, masked, words, deduced, passed, _source_name(path)) if pointers else []
    kept = pointers and any(m.group(1) == "file" for m in _pointers().UNCHECKED.finditer(masked))
    edits = _launches(text, masked, path, torch, pointers and not kept, deduced) + _argument_launches(text, masked, path, torch) + _registrations(text, masked, torch) + _device_arch(masked, words) + _asm_statements(text, masked) + _shared_alignas(masked) + _extern_shared(text, masked) + _shared_variables(text, masked) \
        + included + _restricted_pointers(masked) + _cudacc(masked) + (_device_tests(masked) if torch else []) \
        + _unchecked_pragmas(masked)
    edits += _without_overlaps(checked, edits)
    edits = sorted(edits + _without_overlaps(_gpu_casts(masked, _device_bodies(masked, words, host_device=True)), edits))
    pieces = _edited(text, edits, path)
    where = _source_name(path)
    # Half precision's device-only intrinsics, where the file speaks of it (their header costs every
    # other file a fraction of a second).
    half = "#include <cuguard/detail/emulation/half_intrinsics.hpp>\n" if _HALF.search(masked) else ""
    half += PTX_INTERPRETER if _ASM.search(masked) else ""
    half += "#include <cuguard/detail/view/pointer_translation.hpp>\n" if pointers else ""
    half += _pointers().TENSORS if tensors else ""
    if header:
        return f"// generated by cuguard from {where}: its <<<>>> launches and extern __shared__ arrays for emulation\n" \
               f"{half}#line 1 \"{where}\"\n" + "".join(pieces)
    # (torch: ATen's CUDA host API with its CPU meaning, which includes the emulated runtime)
    prelude = "#include <cuguard/torch.hpp>\n#include <cuguard/detail/adapters/torch_cuda_host.hpp>\n" if torch \
        else "#include <cuguard/cuguard.hpp>\n#include <cuguard/emulated_runtime.hpp>\n"
    prelude += "#include <cuguard/detail/runtime/chevron.hpp>\n" + half
    if _WMMA.search(masked) or any(_mentions(h, _WMMA) for h in headers):
        prelude += "#include <cuguard/detail/emulation/wmma.hpp>\n"  # (nvcuda::wmma, <mma.h>'s for nvcc only)
    if _INLINE_PTX.search(masked) or any(_mentions(h, _INLINE_PTX) for h in headers):
        prelude += PTX_OPTIMIZATION
    return f"// generated by cuguard from {where}: its <<<>>> launches and extern __shared__ arrays for emulation\n" \
           f"{macros}{prelude}#line 1 \"{where}\"\n" + "".join(pieces)


def _deduced_launches(text, masked, deduced):
    """[(begin, end, replacement)] for nvcc: the kernel of each <<<...>>>(args) launch of a kernel
    template given a deducer (cuguard/pointers.py) as the instance its deducer picks from the
    arguments, ``static_cast<decltype(cuguard_impl_deduce_k(args))>(&k)``, so that the template's
    arguments are deduced from the raw pointers (the arguments are not evaluated twice)."""
    edits = []
    for opening in _chevron_opens(masked):
        at = opening.start()
        start = _kernel_start(masked, at)
        closing = _config_end(masked, opening.end())
        if start < 0 or start == at or closing is None or masked[start] == "(":
            continue
        name = masked[start:at].strip()
        if re.sub(r"\s*<.*$", "", name, flags=re.S).split("::")[-1].strip() not in deduced:
            continue
        paren = closing.end()
        while paren < len(masked) and masked[paren].isspace():
            paren += 1
        end = _match_forward(masked, paren, "(", ")") if paren < len(masked) and masked[paren] == "(" else -1
        if end < 0:
            continue
        deducer = re.sub(r"([A-Za-z_]\w*)(\s*(?:<.*>)?)$", r"cuguard_impl_deduce_\1\2", text[start:at].strip(), flags=re.S)
        args = " ".join(text[paren + 1:end].replace("\\\n", " ").split())  # (in a macro: its lines joined)
        edits.append((start, at, f"static_cast<decltype({deducer}({args}))>(&{text[start:at].strip()})"))
    return edits


def translate_nvcc(text, path, out_dir=None, headers=None, header=False, include_dirs=(), words=None, deduced=None,
                   passed=None, torch=False):
    """The build's copy of the CUDA source `text` read from `path` for nvcc, with the raw pointers
    of its device code checked (cuguard/pointers.py; the headers of device functions it includes
    translated too, in `out_dir`), and launches of its kernel templates deducing their arguments
    from the raw pointers (_deduced_launches); its lines kept (a #line directive names the user's
    file); with `torch`, its host code takes each tensor's data pointer through name_tensor
    (cuguard/pointers.py's tensor_edits: the bounds and the name of the checked pointers made from
    it). The other arguments as translate's."""
    headers = [] if headers is None else headers
    text, tensors = _named_tensors(text, words) if torch else (text, False)
    masked = _mask(text)
    words = _space_macros(masked, {} if words is None else words)
    deduced = set() if deduced is None else deduced
    passed = _pointers().passed_types(masked, words) if passed is None else passed
    edits = _includes(text, path, out_dir, headers, torch, include_dirs, words, True, deduced, nvcc=True, passed=passed)
    checked = _pointers().pointer_edits(text, masked, words, deduced, passed, _source_name(path))
    edits += _unchecked_pragmas(masked)
    edits = sorted(edits + _deduced_launches(text, masked, deduced) + _without_overlaps(checked, edits))
    where = _source_name(path)
    prelude = "" if header else "#include <cuguard/cuguard.hpp>\n"
    prelude += "#include <cuguard/detail/view/pointer_translation.hpp>\n" + (_pointers().TENSORS if tensors else "")
    return f"// generated by cuguard from {where}: its raw pointers in device code checked\n" \
           f"{prelude}#line 1 \"{where}\"\n" + \
        "".join(_edited(text, edits, path))


def translate_nvcc_file(source, output, include_dirs=(), torch=False):
    """Writes translate_nvcc() of `source` to `output` (the headers it includes that need
    translating beside it), and `output`.d, the files it read, as a compiler's depfile."""
    headers = []
    with open(source, encoding="utf-8") as f:
        text = translate_nvcc(f.read(), source, os.path.dirname(os.path.abspath(output)), headers, include_dirs=include_dirs,
                              torch=torch)
    _write_if_changed(output, text)
    escape = lambda p: p.replace("\\", "/").replace(" ", "\\ ")  # noqa: E731
    _write_if_changed(output + ".d", f"{escape(output)}: {' '.join(escape(p) for p in [os.path.abspath(source)] + headers)}\n")


# A file with inline PTX, its own or CUB's (whose warp primitives are inline PTX, for the
# interpreter too), is GCC's -O0 after cuguard's headers: each asm operand's address goes to the
# interpreter, so every local register escapes, and GCC 12's alias queries at -O1 grow with the
# square of a kernel's size (torchsparse's implicit-GEMM file: past 15 minutes and 7 GB, -O0:
# 29 s and 1.9 GB; pytorch3d's farthest-point sampling, a cub::BlockReduce of up to 1024 threads:
# past 7 minutes and 5.8 GB, -O0: 18 s and 1 GB). The interpreter, which reads each statement's
# text, is the cost at run time there anyway.
PTX_OPTIMIZATION = "#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC optimize(\"O0\")\n#endif\n"


_WMMA = re.compile(r"\bwmma\b")


def _mentions(path, pattern):
    """True if the code of the file at `path` (comments and strings aside) matches `pattern`."""
    try:
        with open(path, encoding="utf-8") as f:
            return pattern.search(_mask(f.read())) is not None
    except (OSError, UnicodeDecodeError):
        return False


_HALF = re.compile(r"(?i:half|bfloat16|fp16|bf16)|\b__h(?:fma|add|sub|mul|div|neg|abs|max|min)\w*|\bh2\w+"
                   r"|\bh(?:sqrt|rsqrt|rcp|exp|log|sin|cos|tanh|floor|ceil|trunc|rint)\w*|\b__hcmadd\b")


_ASM = re.compile(r"\b(?:asm|__asm__|__asm)\b(?:\s*(?:volatile|__volatile__|inline|goto)\b)*\s*\(")
# (inline PTX of the file's own, or CUB's: see PTX_OPTIMIZATION)
_INLINE_PTX = re.compile(_ASM.pattern + r"|\bcub\s*::|#\s*include\s*<(?:cub|thrust)/")
_CONSTRAINT = re.compile(r'"([=+]?&?[rlhfdnm])"\s*\(')
PTX_INTERPRETER = "#include <cuguard/detail/emulation/ptx_interpreter.hpp>\n"


def _top_level_colons(masked, begin, end):
    """Positions of the colons that separate an asm statement's sections at the top level of
    masked[begin:end] (a ``::`` before a name is a scope)."""
    colons, depth, k = [], 0, begin
    while k < end:
        c = masked[k]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ":" and depth == 0:
            rest = masked[k + 2:end].lstrip()
            if masked.startswith("::", k) and rest[:1] and (rest[0].isalpha() or rest[0] == "_"):
                k += 2  # a scope (ns::x), not two empty sections (asm("exit;" ::: "memory"))
                continue
            colons.append(k)
        k += 1
    return colons


def _asm_label(masked, at):
    """True if the asm at `at` follows a declarator (`int f(int) __asm__("g")`, `x[4] asm("y")`):
    a label naming a symbol, not a statement (`if (c) asm("trap;")`)."""
    before = masked[:at].rstrip()
    if not before:
        return False
    if before[-1] == ")":
        opened = _match_back(masked, len(before) - 1, "(", ")")
        word = re.search(r"(\w+)\s*$", masked[:opened]) if opened >= 0 else None
        return word is not None and word.group(1) not in ("if", "while", "for", "switch", "else", "do")
    word = re.search(r"(\w+)$", before)
    return before[-1] == "]" or (word is not None and word.group(1) not in ("else", "do"))


def _asm_statements(text, masked):
    """[(begin, end, replacement)] for each ``asm [volatile] ("template" : outputs : inputs :
    clobbers)``: a call of ``::cuguard::detail::ptx::run(__FILE__, __LINE__, "template",
    operands...)`` (the interpreter of detail/emulation/ptx_interpreter.hpp), each operand
    ``"=r"(x)`` written ``operand("=r", x)``; in macros too, lines kept. The host's own are left:
    an assembler directive (`__asm__(".symver powf,powf@GLIBC_2.2.5");` at file scope:
    pytorch_spline_conv's basis_cuda.h) and a declaration's asm label (`int f() __asm__("g");`)."""
    edits = []
    for m in _ASM.finditer(masked):
        open_at = m.end() - 1
        close = _match_forward(masked, open_at, "(", ")")
        if close < 0:
            continue
        colons = _top_level_colons(masked, open_at + 1, close)
        if not colons and (re.match(r'"\s*\.', text[open_at + 1:close].strip()) or _asm_label(masked, m.start())):
            continue
        bounds = [open_at + 1] + [c + 1 for c in colons] + [close + 1]
        sections = [text[bounds[i]:bounds[i + 1] - 1] for i in range(len(bounds) - 1)]
        kept = [_CONSTRAINT.sub(_operand_call, sec) for sec in sections if sec.strip() and sec.strip() != "\\"]
        edits.append((m.start(), close + 1, "::cuguard::detail::ptx::run(__FILE__, __LINE__, " + ", ".join(kept) + ")"))
    return edits


def _operand_call(c):
    """An asm operand's call for the interpreter: `operand` (a reference) for an output, an
    in-out and a memory operand, `input` (a copy) for another input."""
    constraint = c.group(1)
    kind = "operand" if constraint[0] in "=+" or constraint[-1] == "m" else "input"
    return f'::cuguard::detail::ptx::{kind}("{constraint}", '


def translate_ptx(text):
    """A header whose inline PTX the host compiler cannot assemble, with each asm statement a call
    of the PTX interpreter (_asm_statements), which it includes first."""
    pieces, at = [], 0
    for begin, end, new in _asm_statements(text, _mask(text)):
        pieces += [text[at:begin], new]
        at = end
    pieces.append(text[at:])
    return PTX_INTERPRETER + "".join(pieces)


# libcu++'s headers that the emulation adds to (shadow_cccl), each with a pattern and what follows
# each match: the host atomics (cuda::std::atomic, atomic_ref, barrier and pipeline compiled for
# the host), each function `__atomic_<op>_host(_Tp* __a, ...)` an operation on *__a; the notify
# functions (a barrier's phase completes: the waiting threads go on); and cuda::memcpy_async,
# whose barrier forms are nvcc's only (the end of the file: the emulation's).
_CCCL_MARKS = {
    "cuda/std/__atomic/functions/host.h": (r"\b__atomic_(?!force_align)\w+_host\(\s*_Tp\*\s*__a\b[^;{]*\{",
                                           " CUGUARD_IMPL_HOST_ATOMIC(__a);"),
    "cuda/std/__atomic/wait/notify_wait.h": (r"\b__atomic_notify_(?:one|all)\([^;{]*\{", " CUGUARD_IMPL_HOST_NOTIFY();"),
    "cuda/__memcpy_async/memcpy_async.h": (r"\Z", "\n#include <cuguard/detail/emulation/async_copies.hpp>\n"),
}


def mark_cccl(text, path, pattern, mark):
    """A libcu++ header marked for the emulation (_CCCL_MARKS; detail/emulation/host_atomics.hpp):
    so that a cuda::barrier or cuda::atomic_ref in shared memory is not held to race as plain
    stores would, a barrier's phase orders what the threads did before it with what they do
    after it, and cuda::memcpy_async takes a barrier."""
    return f'#include <cuguard/detail/emulation/host_atomics.hpp>\n#line 1 "{path}"\n' + \
        re.sub(pattern, lambda m: m.group(0) + mark, text)


# The toolkit's headers (beside CCCL's folder) that declare the built-in variables for their host
# pass (`extern const dim3 blockDim;`), which under emulation are the emulation's: copied without
# those declarations (blank lines, so that lines stay), with their includers, whose quoted
# includes then find the copies.
_TOOLKIT_BUILTINS = re.compile(r"^[ \t]*extern[ \t]+const[ \t]+(?:dim3|uint3)[ \t]+(?:blockDim|threadIdx|blockIdx|gridDim)[ \t]*;",
                               re.M)
_TOOLKIT_COPIES = ("curand_mtgp32_kernel.h", "curand_kernel.h")


def _shadow_toolkit(cccl, out_dir):
    """The copies of _TOOLKIT_COPIES written into `out_dir` (the toolkit's include folder is
    `cccl`'s parent where that is CCCL's own folder)."""
    include = os.path.dirname(os.path.abspath(cccl)) if os.path.basename(os.path.abspath(cccl)) == "cccl" else cccl
    written = []
    for name in _TOOLKIT_COPIES:
        path = os.path.join(include, name)
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            text = _TOOLKIT_BUILTINS.sub("", f.read())
        target = os.path.join(out_dir, name)
        _write_if_changed(target, f'#line 1 "{_source_name(path)}"\n' + text)
        written.append(target)
    return written


def shadow_cccl(cccl, out_dir):
    """Writes into `out_dir` (to be searched before the toolkit's headers) the translate_ptx() copy of
    each CUB header under `cccl` that holds inline PTX, the translate() copy of each CUB or Thrust
    header that launches a kernel with <<<>>> (CUB's device-wide algorithms launch through one),
    and libcu++'s headers marked (mark_cccl), and the toolkit's headers that declare the built-in
    variables, without them (_shadow_toolkit); the others are the toolkit's own."""
    written = _shadow_toolkit(cccl, out_dir)
    for header, (pattern, mark) in _CCCL_MARKS.items():
        path = os.path.join(cccl, header)
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                target = os.path.join(out_dir, header)
                _write_if_changed(target, mark_cccl(f.read(), path, pattern, mark))
                written.append(target)
    for library in ("cub", "thrust"):
        for folder, _, files in os.walk(os.path.join(cccl, library)):
            for name in files:
                path = os.path.join(folder, name)
                if not name.endswith((".cuh", ".h")):
                    continue
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                masked = _mask(text)
                if next(_chevron_opens(masked), None) is not None:  # (the launch of CUB's device-wide algorithms: thrust's triple_chevron)
                    translated = "#include <cuguard/detail/runtime/chevron.hpp>\n" + translate(text, path, header=True)
                elif library == "cub" and _ASM.search(masked) is not None:
                    translated = translate_ptx(text)
                else:
                    continue
                target = os.path.join(out_dir, os.path.relpath(path, cccl))
                _write_if_changed(target, translated)
                written.append(target)
    return written


# Torch's CUDA headers, where an extension's .cu may include one that launches a kernel
# (<ATen/cuda/CUDAApplyUtils.cuh>: CUDA_tensor_apply2).
_TORCH_CUDA_FOLDERS = ("ATen/cuda", "ATen/native/cuda")


# Torch's headers whose CUDA half of a type (c10::Half's conversions to and from __half, which
# extensions call as `x.operator __half()`) nvcc's passes see: copied with __CUDACC__ read as
# defined where the emulation is (_cudacc), so that an emulated .cu file sees them too.
# (Torch 1.x: c10/util; 2.x: torch/headeronly, where C10_LAUNCH_BOUNDS_* too are defined only for nvcc)
_TORCH_CUDACC_HEADERS = ("c10/util/Half.h", "c10/util/Half-inl.h", "c10/util/BFloat16.h", "c10/util/BFloat16-inl.h",
                         "torch/headeronly/util/Half.h", "torch/headeronly/util/BFloat16.h",
                         "torch/headeronly/macros/Macros.h")


def shadow_torch(torch_include, out_dir):
    """Writes into `out_dir` (to be searched before Torch's headers) the translate() copy of each
    header of Torch's CUDA folders under `torch_include` that launches a kernel with <<<>>>, as
    shadow_cccl does for CUB's (a header the translator cannot read is left as it is: its
    compiler error names it), and _TORCH_CUDACC_HEADERS with __CUDACC__ read as defined."""
    written = []
    for header in _TORCH_CUDACC_HEADERS:
        path = os.path.join(torch_include, header)
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                text = f.read()
            target = os.path.join(out_dir, header)
            _write_if_changed(target, f'#line 1 "{_source_name(path)}"\n' + "".join(_edited(text, _cudacc(_mask(text)), path)))
            written.append(target)
    for sub in _TORCH_CUDA_FOLDERS:
        folder = os.path.join(torch_include, sub)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if not name.endswith((".cuh", ".h")) or not os.path.isfile(path):
                continue
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if next(_chevron_opens(_mask(text)), None) is None:
                continue
            try:
                translated = "#include <cuguard/detail/runtime/chevron.hpp>\n" + translate(text, path, torch=True, header=True)
            except TranslationError:
                continue
            target = os.path.join(out_dir, sub, name)
            _write_if_changed(target, translated)
            written.append(target)
    return written


def _write_if_changed(output, text):
    """Writes `text` to `output` where that changes the file (so that builds that compare times do not rebuild)."""
    try:
        with open(output, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    with open(output, "w", encoding="utf-8") as f:
        f.write(text)


def translate_file(source, output, torch=False, include_dirs=(), macros="", pointers=False):
    """Writes translate() of `source` to `output` (the headers it includes that need translating
    beside it), and `output`.d, the files it read, as a compiler's depfile."""
    headers = []
    with open(source, encoding="utf-8") as f:
        text = translate(f.read(), source, torch, os.path.dirname(os.path.abspath(output)), headers,
                         include_dirs=include_dirs, macros=macros, pointers=pointers)
    _write_if_changed(output, text)
    escape = lambda p: p.replace("\\", "/").replace(" ", "\\ ")  # noqa: E731
    _write_if_changed(output + ".d", f"{escape(output)}: {' '.join(escape(p) for p in [os.path.abspath(source)] + headers)}\n")


# A call of a CUDA runtime function (cudaMalloc(...), ::cudaGetLastError()), not of a member.
_RUNTIME_CALL = re.compile(r"(?<![\w.>])(?:::\s*)?\bcuda[A-Z]\w*\s*\(")


def _host_calls_runtime(path, include_dirs=()):
    """True if the C++ file at `path`, or a header it includes (as _reaches), calls the CUDA
    runtime API (OpenPCDet's iou3d_nms.cpp: cudaMalloc, cudaMemcpy, cudaGetLastError)."""
    return _reaches(path, lambda text: _RUNTIME_CALL.search(_mask(text)) is not None, set(), include_dirs)


def _host_needs_translation(path, include_dirs=()):
    """True if the C++ file at `path`, or a header it includes (quoted, beside it or in
    `include_dirs`, at any depth), tests a tensor's device (translate_host's rewrites apply) or
    calls the CUDA runtime API (the emulated runtime's, <cuguard/emulated_runtime.hpp>)."""
    return _reaches(path, lambda text: _DEVICE_TEST.search(_mask(text)) is not None, set(), include_dirs) \
        or _host_calls_runtime(path, include_dirs)


def translate_host(text, path, out_dir=None, headers=None, include_dirs=(), runtime=False, tensors=False):
    """An extension's C++ source (its bindings) for an emulated build: its tests of a tensor's
    device with the CPU's meaning (see the module's doc), and its quoted includes named by their
    paths (translated in `out_dir` where they need it); with `runtime` (it calls the CUDA runtime
    API), the emulated runtime included first, as cuguard_emulate gives every source of a target,
    with __CUDACC__'s stand-in undefined again: a C++ source is not nvcc's, and the headers it
    shares with the .cu files take their host branch in it (pytorch3d's pulsar/global.h includes
    <torch/extension.h> where __CUDACC__ is not defined). With `tensors`, it takes each tensor's
    data pointer through name_tensor (_named_tensors: a build with checked pointers)."""
    headers = [] if headers is None else headers
    text, named = _named_tensors(text) if tensors else (text, False)
    masked = _mask(text)
    pieces = _edited(text, sorted(_device_tests(masked) + _includes(text, path, out_dir, headers, True, include_dirs)), path)
    where = _source_name(path)
    return f"// generated by cuguard from {where}: its tests of a tensor's device for emulation\n" \
           + (f"#include <cuguard/emulated_runtime.hpp>\n#undef {CUDACC}\n" if runtime else "") \
           + (_pointers().TENSORS if named else "") \
           + f"#line 1 \"{where}\"\n" + "".join(pieces)


def translate_host_file(source, output, include_dirs=(), tensors=False):
    """Writes translate_host() of `source` to `output` (and the headers it includes that need it
    beside it) and returns True, where `source` or such a header (beside it or in `include_dirs`)
    tests a tensor's device or calls the CUDA runtime API, or (`tensors`) `source` takes a
    tensor's data pointer; else writes nothing and returns False (the source builds as it is)."""
    with open(source, encoding="utf-8") as f:
        text = f.read()
    tensors = tensors and _takes_data_pointers(text)
    if not tensors and not _host_needs_translation(source, include_dirs):
        return False
    text = translate_host(text, source, os.path.dirname(os.path.abspath(output)), [], include_dirs,
                          _host_calls_runtime(source, include_dirs), tensors)
    _write_if_changed(output, text)
    return True


def _takes_data_pointers(text):
    return bool(_pointers().tensor_edits(text, _mask(text)))


def translate_tensors_file(source, output, include_dirs=()):
    """For nvcc's build with checked pointers: writes `source` (a C++ source of a Torch extension,
    its bindings) to `output` taking each tensor's data pointer through name_tensor (the bounds and
    the name of a checked pointer a .cu file's launch makes of it), its quoted includes named by
    their paths, and returns True; False where it takes none (nothing written)."""
    with open(source, encoding="utf-8") as f:
        text, named = _named_tensors(f.read())
    if not named:
        return False
    where = _source_name(source)
    pieces = _edited(text, sorted(_includes(text, source, None, [], False, include_dirs)), source)
    _write_if_changed(output, f"// generated by cuguard from {where}: its tensors' data pointers named\n"
                              f"{_pointers().TENSORS}#line 1 \"{where}\"\n" + "".join(pieces))
    return True


def main(argv):
    if argv[:1] == ["--cccl"] and len(argv) == 3:
        shadow_cccl(argv[1], argv[2])
        return 0
    torch = "--torch" in argv
    pointers = "--pointers" in argv
    nvcc = "--nvcc" in argv
    tensors = "--tensors" in argv
    rest = [a for a in argv if a not in ("--torch", "--pointers", "--nvcc", "--tensors")]
    if len(rest) != 2:
        print("usage: emulate.py [--torch] [--pointers] SOURCE.cu OUTPUT.cpp | emulate.py --nvcc [--torch] SOURCE.cu "
              "OUTPUT.cu | emulate.py --tensors SOURCE.cpp OUTPUT.cpp | "
              "emulate.py --cccl CCCL_INCLUDE_DIR OUT_DIR", file=sys.stderr)
        return 2
    try:
        if tensors:
            if not translate_tensors_file(rest[0], rest[1]):
                with open(rest[0], encoding="utf-8") as f:
                    _write_if_changed(rest[1], f.read())  # (it takes no data pointer: as it is)
        elif nvcc:
            translate_nvcc_file(rest[0], rest[1], torch=torch)
        else:
            translate_file(rest[0], rest[1], torch, pointers=pointers)
    except TranslationError as e:
        print(f"{e}: error: cuguard cannot build this file under emulation", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
