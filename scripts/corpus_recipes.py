# SPDX-License-Identifier: Apache-2.0
"""The recipes of scripts/corpus: how each published extension's setup.py builds it, and its ops.

A recipe names the extension's checkout (``<owner>+<name>``), its modules (sources as paths or
glob patterns relative to the checkout, include directories, the defines and flags its setup.py
passes to the C++ compiler: the nvcc-only ones have no meaning under emulation) and, where the
ops are known, a function from the loaded modules (a Python module, or None for a library whose
ops are registered with TORCH_LIBRARY and reached through torch.ops) to the ops to run: each
makes small CPU inputs, calls the op and, where one exists, gives the reference result (the
extension's CPU implementation or a few lines of plain torch) for the same inputs.
"""
import dataclasses
import glob
import os
from typing import Callable, Optional

try:  # (torch is needed only where ops run; recipes are read without it too)
    import torch
    import torch.nn.functional as F
except ImportError:  # pragma: no cover
    torch = F = None


@dataclasses.dataclass
class Module:
    name: str                     # the extension's name, dots made underscores (TORCH_EXTENSION_NAME)
    sources: list                 # paths or glob patterns, relative to the checkout
    include_dirs: list = dataclasses.field(default_factory=list)
    cflags: list = dataclasses.field(default_factory=list)
    ldflags: list = dataclasses.field(default_factory=list)
    cuda_flags: list = dataclasses.field(default_factory=list)  # setup.py's "nvcc" flags (its -D and -U count)
    python_module: bool = True    # False: ops registered with TORCH_LIBRARY, loaded as a library
    twin: bool = False            # True: its C++ sources built by PyTorch's own load with no CUDA
                                  # (the extension's CPU implementation: the ops' reference)
    exclude: tuple = ()           # glob patterns the sources leave out
    checkout: str = ""            # set by Recipe

    def source_files(self):
        """The sources, globs expanded in the checkout, relative to it."""
        out = []
        for pattern in self.sources:
            if any(c in pattern for c in "*?["):
                found = sorted(glob.glob(os.path.join(self.checkout, pattern), recursive=True))
                out += [os.path.relpath(f, self.checkout) for f in found]
            else:
                out.append(pattern)
        excluded = {os.path.relpath(f, self.checkout) for p in self.exclude
                    for f in glob.glob(os.path.join(self.checkout, p), recursive=True)}
        return [s for s in dict.fromkeys(out) if s not in excluded]

    def cuda_sources(self):
        return [] if self.twin else [s for s in self.source_files() if s.endswith(".cu")]

    def empty_include_dirs(self):
        """The include directories missing or empty in the checkout (git submodules not checked
        out, typically)."""
        paths = {d: os.path.join(self.checkout, d) for d in self.include_dirs}
        return [d for d, path in paths.items() if not os.path.isdir(path) or not os.listdir(path)]


@dataclasses.dataclass
class Op:
    name: str
    inputs: Callable              # () -> tuple of arguments
    call: Callable                # (*inputs) -> result
    reference: Optional[Callable] = None   # (*inputs) -> expected result, or None
    compare: Optional[Callable] = None     # (result, expected) -> bool; default: allclose / equal
    module: Optional[str] = None           # the module whose build the op needs (where several)
    rtol: float = 1e-4
    atol: float = 1e-5


@dataclasses.dataclass
class Recipe:
    key: str                      # <owner>+<name>: the checkout's folder
    modules: list
    ops: Optional[Callable] = None        # ({module name: loaded module}) -> [Op]
    note: str = ""                # where the recipe differs from the extension's own build
    commit: str = ""              # the commit measured, where it is not the repository's newest

    def at(self, checkout):
        for m in self.modules:
            m.checkout = str(checkout)
        return self


# ---------------------------------------------------------------------------------------------
# erikwijmans+Pointnet2_PyTorch (pointnet2_ops_lib)
# ---------------------------------------------------------------------------------------------

def _gather_last(points, idx):
    """points[b, c, idx[b, ...]] for points (B, C, N) and int idx (B, ...)."""
    b, c = points.shape[:2]
    flat = idx.long().reshape(b, 1, -1).expand(b, c, -1)
    return points.gather(2, flat).reshape(b, c, *idx.shape[1:])


def _scatter_last(grad, idx, n):
    b, c = grad.shape[:2]
    flat = idx.long().reshape(b, 1, -1).expand(b, c, -1)
    return torch.zeros(b, c, n).scatter_add_(2, flat, grad.reshape(b, c, -1))


def _furthest_point_sampling(points, m):
    b, n, _ = points.shape
    out = torch.zeros(b, m, dtype=torch.int32)
    for i in range(b):
        dist = torch.full((n,), 1e10)
        last = 0
        for j in range(1, m):
            dist = torch.minimum(dist, ((points[i] - points[i, last]) ** 2).sum(1))
            last = int(dist.argmax())
            out[i, j] = last
    return out


def _ball_query(new_xyz, xyz, radius, nsample):
    b, m, _ = new_xyz.shape
    out = torch.zeros(b, m, nsample, dtype=torch.int32)
    for i in range(b):
        d2 = ((new_xyz[i, :, None, :] - xyz[i, None, :, :]) ** 2).sum(-1)
        for j in range(m):
            inside = (d2[j] < radius * radius).nonzero().flatten()[:nsample]
            if len(inside):
                out[i, j, :] = int(inside[0])
                out[i, j, :len(inside)] = inside.int()
    return out


def _three_nn(unknown, known):
    d2 = ((unknown[:, :, None, :] - known[:, None, :, :]) ** 2).sum(-1)
    dist, idx = d2.topk(3, dim=2, largest=False)
    return dist, idx.int()


def _three_interpolate(points, idx, weight):
    return sum(_gather_last(points, idx[:, :, k]) * weight[:, None, :, k] for k in range(3))


def _three_interpolate_grad(grad, idx, weight, m):
    return sum(_scatter_last(grad * weight[:, None, :, k], idx[:, :, k], m) for k in range(3))


def pointnet2_ops(mods):
    e = mods["pointnet2_ops__ext"]
    B, C, N, M, S = 2, 3, 32, 8, 4

    def pts():
        return torch.rand(B, N, 3)

    def idx(*shape, n=N):
        return torch.randint(0, n, (B, *shape), dtype=torch.int32)

    def weights():
        w = torch.rand(B, M, 3)
        return w / w.sum(-1, keepdim=True)

    return [
        Op("gather_points", lambda: (torch.rand(B, C, N), idx(M)), e.gather_points, _gather_last),
        Op("gather_points_grad", lambda: (torch.rand(B, C, M), idx(M), N), e.gather_points_grad, _scatter_last),
        Op("furthest_point_sampling", lambda: (pts(), M), e.furthest_point_sampling, _furthest_point_sampling),
        Op("three_nn", lambda: (torch.rand(B, M, 3), pts()), e.three_nn, _three_nn),
        Op("three_interpolate", lambda: (torch.rand(B, C, N), idx(M, 3), weights()), e.three_interpolate,
           _three_interpolate),
        Op("three_interpolate_grad", lambda: (torch.rand(B, C, M), idx(M, 3), weights(), N),
           e.three_interpolate_grad, _three_interpolate_grad),
        Op("ball_query", lambda: (torch.rand(B, M, 3), pts(), 0.4, S), e.ball_query, _ball_query),
        Op("group_points", lambda: (torch.rand(B, C, N), idx(M, S)), e.group_points, _gather_last),
        Op("group_points_grad", lambda: (torch.rand(B, C, M, S), idx(M, S), N), e.group_points_grad,
           _scatter_last),
    ]


# ---------------------------------------------------------------------------------------------
# rusty1s: pytorch_scatter, pytorch_spline_conv, pytorch_sparse (one module a csrc/*.cpp)
# ---------------------------------------------------------------------------------------------

def _openmp_flags():
    """setup.py's OpenMP flags, given where torch's parallel backend is OpenMP."""
    if torch is None:
        return []
    info = torch.__config__.parallel_info()
    openmp = "backend: OpenMP" in info and "OpenMP not found" not in info
    return ["-DAT_PARALLEL_OPENMP", "-fopenmp"] if openmp else []


def _rusty1s(package, mains, cflags, defines, include_dirs=("csrc",)):
    """The CUDA modules of a rusty1s package: csrc/<main>.cpp with csrc/cpu/<main>_cpu.cpp and
    csrc/cuda/<main>_cuda.cu, named torch_<x>._<main>_cuda."""
    modules = []
    for main in mains:
        sources = [f"csrc/{main}.cpp", f"csrc/cpu/{main}_cpu.cpp", f"csrc/cuda/{main}_cuda.cu"]
        modules.append(Module(f"{package}__{main}_cuda", sources, list(include_dirs),
                              cflags + _openmp_flags() + [f"-D{d}" for d in defines] + ["-DWITH_CUDA"],
                              ["-s"], python_module=False))
    return modules


def _index(n, rows):
    return torch.cat([torch.arange(rows), torch.randint(0, rows, (n - rows,))])


def scatter_ops(mods):
    ts = torch.ops.torch_scatter
    E, F_, R = 10, 3, 4

    def reduced(how, include_self=False, fill=0.0):
        def ref(src, index, dim):
            out = torch.full((R, src.shape[1]), fill)
            return out.scatter_reduce_(0, index[:, None].expand_as(src), src, how, include_self=include_self)
        return ref

    def first(result, expected):
        return torch.allclose(result[0], expected, rtol=1e-4, atol=1e-5)

    def coo():
        return torch.rand(E), _index(E, R).sort().values

    def csr():
        index = _index(E, R).sort().values
        counts = torch.bincount(index, minlength=R)
        return torch.rand(E), torch.cat([torch.zeros(1, dtype=torch.long), counts.cumsum(0)])

    def by_segment(how):
        def ref(src, index_or_ptr, *_):
            index = index_or_ptr if len(index_or_ptr) == len(src) else \
                torch.repeat_interleave(torch.arange(R), index_or_ptr.diff())
            return torch.zeros(R).scatter_reduce_(0, index, src, how, include_self=False)
        return ref

    def gathered(src, index_or_ptr):
        return src[index_or_ptr] if len(index_or_ptr) == E else src.repeat_interleave(index_or_ptr.diff())

    def sc():
        return torch.rand(E, F_), _index(E, R), 0

    ops = [
        Op("scatter_sum", sc, lambda s, i, d: ts.scatter_sum(s, i, d, None, None), reduced("sum")),
        Op("scatter_mul", sc, lambda s, i, d: ts.scatter_mul(s, i, d, None, None), reduced("prod")),
        Op("scatter_mean", sc, lambda s, i, d: ts.scatter_mean(s, i, d, None, None), reduced("mean")),
        Op("scatter_min", sc, lambda s, i, d: ts.scatter_min(s, i, d, None, None), reduced("amin"), first),
        Op("scatter_max", sc, lambda s, i, d: ts.scatter_max(s, i, d, None, None), reduced("amax"), first),
        Op("segment_sum_coo", coo, lambda s, i: ts.segment_sum_coo(s, i, None, R), by_segment("sum")),
        Op("segment_mean_coo", coo, lambda s, i: ts.segment_mean_coo(s, i, None, R), by_segment("mean")),
        Op("segment_min_coo", coo, lambda s, i: ts.segment_min_coo(s, i, None, R), by_segment("amin"), first),
        Op("segment_max_coo", coo, lambda s, i: ts.segment_max_coo(s, i, None, R), by_segment("amax"), first),
        Op("gather_coo", lambda: (torch.rand(R), _index(E, R).sort().values),
           lambda s, i: ts.gather_coo(s, i, None), lambda s, i: s[i]),
        Op("segment_sum_csr", csr, lambda s, p: ts.segment_sum_csr(s, p, None), by_segment("sum")),
        Op("segment_mean_csr", csr, lambda s, p: ts.segment_mean_csr(s, p, None), by_segment("mean")),
        Op("segment_min_csr", csr, lambda s, p: ts.segment_min_csr(s, p, None), by_segment("amin"), first),
        Op("segment_max_csr", csr, lambda s, p: ts.segment_max_csr(s, p, None), by_segment("amax"), first),
        Op("gather_csr", lambda: (torch.rand(R), csr()[1]), lambda s, p: ts.gather_csr(s, p, None), gathered),
    ]
    for op in ops:
        op.module = "torch_scatter__" + ("scatter" if op.name.startswith("scatter") else
                                         "segment_" + op.name[-3:]) + "_cuda"
    return ops


def _spline_basis(pseudo, kernel_size, is_open_spline, degree):
    """Degree 1 (linear) B-spline basis and weight indices, as the CUDA kernel computes them."""
    E, D = pseudo.shape
    S = 2 ** D
    basis = torch.ones(E, S, dtype=pseudo.dtype)
    wi = torch.zeros(E, S, dtype=torch.long)
    offset = 1
    for d in range(D):
        k_mod = (torch.arange(S) // 2 ** d) % 2
        v = pseudo[:, d] * (kernel_size[d] - is_open_spline[d].long())
        wi += ((v.long()[:, None] + k_mod) % kernel_size[d]) * offset
        offset *= int(kernel_size[d])
        frac = (v - v.floor())[:, None]
        basis *= torch.where(k_mod == 0, 1 - frac, frac)
    return basis, wi


def spline_conv_ops(mods):
    ts = torch.ops.torch_spline_conv  # (its ops looked up when called: a module may be missing)
    E, D, Cin, Cout = 6, 2, 3, 4
    kernel_size = torch.tensor([3, 4])
    is_open = torch.tensor([1, 0], dtype=torch.uint8)

    def weighting_inputs():
        basis, wi = _spline_basis(torch.rand(E, D), kernel_size, is_open, 1)
        return torch.rand(E, Cin), torch.rand(int(kernel_size.prod()), Cin, Cout), basis, wi

    def weighting(x, weight, basis, wi):
        return torch.einsum("es,ei,esio->eo", basis, x, weight[wi])

    return [
        Op("spline_basis", lambda: (torch.rand(E, D), kernel_size, is_open, 1), lambda *a: ts.spline_basis(*a),
           _spline_basis, module="torch_spline_conv__basis_cuda"),
        Op("spline_weighting", weighting_inputs, lambda *a: ts.spline_weighting(*a), weighting,
           module="torch_spline_conv__weighting_cuda"),
    ]


# ---------------------------------------------------------------------------------------------
# facebookresearch+detectron2 (detectron2/layers/csrc)
# ---------------------------------------------------------------------------------------------

def _axis_aligned_iou(a, b):
    """IoU of boxes (x_center, y_center, w, h, angle 0)."""
    def corners(x):
        return x[:, 0] - x[:, 2] / 2, x[:, 1] - x[:, 3] / 2, x[:, 0] + x[:, 2] / 2, x[:, 1] + x[:, 3] / 2
    ax0, ay0, ax1, ay1 = corners(a)
    bx0, by0, bx1, by1 = corners(b)
    w = (torch.minimum(ax1[:, None], bx1) - torch.maximum(ax0[:, None], bx0)).clamp(min=0)
    h = (torch.minimum(ay1[:, None], by1) - torch.maximum(ay0[:, None], by0)).clamp(min=0)
    inter = w * h
    return inter / (a[:, 2:3] * a[:, 3:4] + (b[:, 2] * b[:, 3])[None] - inter)


def _boxes(n):
    xy, wh = torch.rand(n, 2) * 10, torch.rand(n, 2) * 4 + 1
    return torch.cat([xy, wh, torch.zeros(n, 1)], 1)


def _nms(boxes, scores, threshold):
    order = scores.argsort(descending=True)
    iou = _axis_aligned_iou(boxes, boxes)
    keep = []
    for i in order.tolist():
        if all(iou[i, k] <= threshold for k in keep):
            keep.append(i)
    return torch.tensor(keep, dtype=torch.long)


def _roi_align_rotated(x, rois, scale, ph, pw, sampling):
    """ROIAlignRotated (aligned: centers moved by half a pixel; angles in degrees, counterclockwise)
    in plain torch, bilinear samples on a sampling x sampling grid per bin, as detectron2 defines it."""
    import math
    _, C, H, W = x.shape
    out = []
    for roi in rois.tolist():
        b, cx, cy, w, h, a = roi
        cx, cy, w, h = cx * scale - 0.5, cy * scale - 0.5, w * scale, h * scale
        cos, sin = math.cos(a * math.pi / 180), math.sin(a * math.pi / 180)
        bins = x.new_zeros(C, ph, pw)
        for i in range(ph):
            for j in range(pw):
                for iy in range(sampling):
                    for ix in range(sampling):
                        yy = -h / 2 + i * h / ph + (iy + 0.5) * h / ph / sampling
                        xx = -w / 2 + j * w / pw + (ix + 0.5) * w / pw / sampling
                        y, xpos = yy * cos - xx * sin + cy, yy * sin + xx * cos + cx
                        if y < -1 or y > H or xpos < -1 or xpos > W:
                            continue
                        y, xpos = max(y, 0.0), max(xpos, 0.0)
                        y0, x0 = int(y), int(xpos)
                        y1, x1 = min(y0 + 1, H - 1), min(x0 + 1, W - 1)
                        if y0 >= H - 1:
                            y0 = y1 = H - 1
                            y = float(y0)
                        if x0 >= W - 1:
                            x0 = x1 = W - 1
                            xpos = float(x0)
                        ly, lx = y - y0, xpos - x0
                        f = x[int(b)]
                        bins[:, i, j] = bins[:, i, j] + ((1 - ly) * (1 - lx) * f[:, y0, x0] + (1 - ly) * lx * f[:, y0, x1]
                                                         + ly * (1 - lx) * f[:, y1, x0] + ly * lx * f[:, y1, x1])
        out.append(bins / (sampling * sampling))
    return torch.stack(out)


def detectron2_ops(mods):
    c = mods["detectron2__C"]
    d2 = torch.ops.detectron2
    N, C, H, W, O, K = 2, 3, 8, 8, 4, 3

    def deform_inputs():
        x, w = torch.rand(N, C, H, W), torch.rand(O, C, K, K)
        return x, w, torch.zeros(N, 2 * K * K, H - K + 1, W - K + 1)

    def deform(x, w, offset):
        out = x.new_empty(N, O, H - K + 1, W - K + 1)
        c.deform_conv_forward(x, w, offset, out, x.new_empty(0), x.new_empty(0), K, K, 1, 1, 0, 0, 1, 1, 1, 1, N)
        return out

    def rois():
        return torch.tensor([[0, 4.0, 4.0, 4.0, 3.0, 30.0], [1, 3.0, 5.0, 2.0, 5.0, -45.0]])

    def roi_align_rotated_grad(grad, r, scale, ph, pw, n, channels, height, width, sampling):
        x = torch.zeros(n, channels, height, width, requires_grad=True)
        _roi_align_rotated(x, r, scale, ph, pw, sampling).backward(grad)
        return x.grad

    return [
        Op("box_iou_rotated", lambda: (_boxes(5), _boxes(4)), lambda *a: d2.box_iou_rotated(*a), _axis_aligned_iou,
           atol=1e-4),
        Op("nms_rotated", lambda: (_boxes(12), torch.rand(12), 0.3), lambda *a: d2.nms_rotated(*a), _nms),
        Op("roi_align_rotated_forward", lambda: (torch.rand(N, C, H, W), rois(), 1.0, 2, 2, 2),
           lambda *a: d2.roi_align_rotated_forward(*a), _roi_align_rotated),
        Op("roi_align_rotated_backward", lambda: (torch.rand(2, C, 2, 2), rois(), 1.0, 2, 2, N, C, H, W, 2),
           lambda *a: d2.roi_align_rotated_backward(*a), roi_align_rotated_grad),
        Op("deform_conv_forward (zero offsets: conv2d)", deform_inputs, deform,
           lambda x, w, _: F.conv2d(x, w), rtol=1e-4, atol=1e-4),
    ]


# ---------------------------------------------------------------------------------------------
# Dao-AILab+causal-conv1d
# ---------------------------------------------------------------------------------------------

def _causal_conv1d(x, weight, bias, silu):
    out = F.conv1d(x, weight[:, None, :], bias, padding=weight.shape[1] - 1, groups=x.shape[1])[..., :x.shape[2]]
    return F.silu(out) if silu else out


def causal_conv1d_ops(mods):
    c = mods["causal_conv1d_cuda"]
    B, D, L, W = 2, 8, 16, 4

    def fwd(x, weight, bias, silu):
        out = torch.empty_like(x)
        c.causal_conv1d_fwd(x, weight, bias, None, None, out, None, silu)
        return out

    def bwd(x, weight, bias, dout):
        dx, dweight, dbias = torch.empty_like(x), torch.zeros_like(weight), torch.zeros_like(bias)
        c.causal_conv1d_bwd(x, weight, bias, dout, None, None, None, dx, dweight, dbias, None, True)
        return dx, dweight, dbias

    def bwd_ref(x, weight, bias, dout):
        x, weight, bias = (t.clone().requires_grad_() for t in (x, weight, bias))
        _causal_conv1d(x, weight, bias, True).backward(dout)
        return x.grad, weight.grad, bias.grad

    def update(x, state, weight, bias):
        out = torch.empty_like(x)
        c.causal_conv1d_update(x, state, weight, bias, out, False, None, None)
        return out, state

    def update_ref(x, state, weight, bias):
        full = torch.cat([state, x], -1)
        out = F.conv1d(full, weight[:, None, :], bias, groups=D)[..., -x.shape[2]:]
        return out, full[..., -state.shape[2]:]

    def inputs():
        return torch.rand(B, D, L), torch.rand(D, W), torch.rand(D)

    return [
        Op("causal_conv1d_fwd", lambda: (*inputs(), False), fwd, _causal_conv1d),
        Op("causal_conv1d_fwd (silu)", lambda: (*inputs(), True), fwd, _causal_conv1d),
        Op("causal_conv1d_bwd (silu)", lambda: (*inputs(), torch.rand(B, D, L)), bwd, bwd_ref, atol=1e-4),
        Op("causal_conv1d_update", lambda: (torch.rand(B, D, 1), torch.rand(B, D, W - 1), torch.rand(D, W),
                                            torch.rand(D)), update, update_ref),
    ]


# ---------------------------------------------------------------------------------------------
# state-spaces+mamba (csrc/selective_scan)
# ---------------------------------------------------------------------------------------------

def _selective_scan(u, delta, A, B, C, D, z, delta_bias, softplus):
    """The selective scan in plain torch, for real A (D, N) and B, C of one group (batch, 1, N, L):
    x_t = exp(delta_t A) x_{t-1} + delta_t B_t u_t, y_t = C_t . x_t + D u_t, times silu(z)."""
    delta = delta + delta_bias[:, None]
    if softplus:
        delta = F.softplus(delta)
    x = torch.zeros(u.shape[0], u.shape[1], A.shape[1])
    ys = []
    for t in range(u.shape[2]):
        step = delta[:, :, t, None]
        x = torch.exp(step * A) * x + step * B[:, 0, None, :, t] * u[:, :, t, None]
        ys.append((x * C[:, 0, None, :, t]).sum(-1))
    out = torch.stack(ys, -1) + D[:, None] * u
    return out * F.silu(z) if z is not None else out


def mamba_ops(mods):
    m = mods["selective_scan_cuda"]
    batch, dim, dstate, length = 2, 4, 8, 40

    def inputs(with_z):
        g = torch.Generator().manual_seed(11)
        u, delta = torch.randn(batch, dim, length, generator=g), 0.5 * torch.rand(batch, dim, length, generator=g)
        A = -torch.rand(dim, dstate, generator=g) - 0.5
        B, C = torch.randn(batch, 1, dstate, length, generator=g), torch.randn(batch, 1, dstate, length, generator=g)
        D, bias = torch.randn(dim, generator=g), 0.1 * torch.randn(dim, generator=g)
        z = torch.randn(batch, dim, length, generator=g) if with_z else None
        return u, delta, A, B, C, D, z, bias, True

    def fwd(*args):
        return m.fwd(*args)[-1 if args[6] is not None else 0]

    def bwd(u, delta, A, B, C, D, z, bias, softplus):
        dout = torch.ones(batch, dim, length)
        _, x, *_ = m.fwd(u, delta, A, B, C, D, z, bias, softplus)
        du, ddelta, dA, dB, dC, dD, dbias = m.bwd(u, delta, A, B, C, D, z, bias, dout, x, None, None, softplus,
                                                 False)[:7]
        return du, ddelta, dA, dB, dC, dD, dbias

    def bwd_ref(u, delta, A, B, C, D, z, bias, softplus):
        leaves = [t.clone().requires_grad_() for t in (u, delta, A, B, C, D)]
        b = bias.clone().requires_grad_()
        _selective_scan(*leaves, z, b, softplus).sum().backward()
        return tuple(t.grad for t in leaves) + (b.grad,)

    return [
        Op("selective_scan_fwd", lambda: inputs(False), fwd, _selective_scan, rtol=1e-3, atol=1e-4),
        Op("selective_scan_fwd (z)", lambda: inputs(True), fwd, _selective_scan, rtol=1e-3, atol=1e-4),
        Op("selective_scan_bwd", lambda: inputs(False), bwd, bwd_ref, rtol=1e-3, atol=1e-3),
    ]


# ---------------------------------------------------------------------------------------------
# NVlabs+nvdiffrast (its CUDA rasterizer, interpolation and texture sampling)
# ---------------------------------------------------------------------------------------------

def _barycentrics(pos, tri, height, width):
    """For each pixel centre of a height x width image and the triangles `tri` of the clip-space
    vertices `pos` (V, 4) with w = 1: the (u, v) of vertices 0 and 1 in the last triangle that
    covers it and its id + 1 (0: none), and the smallest barycentric (how far inside it is)."""
    ys, xs = torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij")
    px, py = (xs + 0.5) / width * 2 - 1, (ys + 0.5) / height * 2 - 1
    u, v, tid, margin = (torch.zeros(height, width) for _ in range(4))
    for t, (a, b, c) in enumerate(tri.tolist()):
        (ax, ay), (bx, by), (cx, cy) = pos[a, :2].tolist(), pos[b, :2].tolist(), pos[c, :2].tolist()
        area = (bx - ax) * (cy - ay) - (cx - ax) * (by - ay)
        wa = ((bx - px) * (cy - py) - (cx - px) * (by - py)) / area
        wb = ((cx - px) * (ay - py) - (ax - px) * (cy - py)) / area
        low = torch.minimum(torch.minimum(wa, wb), 1 - wa - wb)
        inside = low > 0
        u, v = torch.where(inside, wa, u), torch.where(inside, wb, v)
        tid, margin = torch.where(inside, float(t + 1), tid), torch.where(inside, low, margin)
    return u, v, tid, margin


def nvdiffrast_ops(mods):
    m = mods["_nvdiffrast_c"]
    height, width = 24, 32
    pos = torch.tensor([[-0.9, -0.8, 0.5, 1.0], [0.8, -0.9, 0.2, 1.0], [-0.7, 0.9, 0.1, 1.0],
                        [0.9, 0.7, 0.3, 1.0]])
    tri = torch.tensor([[0, 1, 2], [1, 3, 2]], dtype=torch.int32)

    def rasterize(pos, tri):
        state = m.RasterizeCRStateWrapper(0)
        rast, _ = m.rasterize_fwd_cuda(state, pos[None], tri, (height, width), torch.empty(0, 2, dtype=torch.int32),
                                       -1)
        return rast[0]

    def rasterize_ref(pos, tri):
        return _barycentrics(pos, tri, height, width)

    def same_coverage(rast, expected):
        u, v, tid, margin = expected
        inner = margin > 0.02  # (pixels on an edge: the rasterizer's tie rules)
        outside = tid == 0
        return bool((rast[..., 3][inner] == tid[inner]).all() and (rast[..., 3][outside] == 0).all()
                    and torch.allclose(rast[..., 0][inner], u[inner], atol=1e-4)
                    and torch.allclose(rast[..., 1][inner], v[inner], atol=1e-4))

    def rast_inputs():
        g = torch.Generator().manual_seed(5)
        tid = torch.randint(0, 3, (1, height, width), generator=g).float()
        u, v = torch.rand(1, height, width, generator=g), torch.rand(1, height, width, generator=g)
        u, v = torch.minimum(u, 1 - v), v  # u + v <= 1
        return torch.stack([u, v, torch.zeros_like(u), tid], -1)

    def interpolate_inputs():
        return torch.randn(1, 4, 3, generator=torch.Generator().manual_seed(6)), rast_inputs(), tri

    def interpolate(attr, rast, tri):
        return m.interpolate_fwd(attr, rast, tri)[0]

    def interpolate_ref(attr, rast, tri):
        u, v, tid = rast[..., 0:1], rast[..., 1:2], rast[..., 3].long()
        corners = attr[0][tri.long()[(tid - 1).clamp(min=0)]]  # (1, H, W, 3 vertices, 3 attributes)
        out = u * corners[..., 0, :] + v * corners[..., 1, :] + (1 - u - v) * corners[..., 2, :]
        return torch.where(tid[..., None] > 0, out, torch.zeros_like(out))

    def texture_inputs():
        g = torch.Generator().manual_seed(7)
        return torch.rand(1, 8, 16, 3, generator=g), torch.rand(1, height, width, 2, generator=g)

    def texture(tex, uv):
        return m.texture_fwd(tex, uv, 1, 2)  # linear, clamp

    def texture_ref(tex, uv):
        grid = uv * 2 - 1
        out = F.grid_sample(tex.permute(0, 3, 1, 2), grid, mode="bilinear", padding_mode="border", align_corners=False)
        return out.permute(0, 2, 3, 1)

    return [
        Op("rasterize_fwd_cuda", lambda: (pos, tri), rasterize, rasterize_ref, compare=same_coverage),
        Op("interpolate_fwd", interpolate_inputs, interpolate, interpolate_ref),
        Op("texture_fwd (linear, clamp)", texture_inputs, texture, texture_ref, atol=1e-4),
    ]


# ---------------------------------------------------------------------------------------------
# graphdeco-inria+diff-gaussian-rasterization (3D Gaussian splatting's rasterizer)
# ---------------------------------------------------------------------------------------------

def _one_gaussian_scene(size=16):
    """One Gaussian straight ahead of a camera at the origin (view matrix the identity), for an
    image of one 16 x 16 tile: its inputs to rasterize_gaussians (colors given, no SH) and, as the
    rasterizer computes it (EWA projection with 0.3 added to the 2D covariance, alpha capped at
    0.99, fragments under 1/255 skipped), its alpha at each pixel."""
    tan_fov, z, scale, opacity = 0.5, 4.0, 0.05, 0.8
    znear, zfar = 0.01, 100.0
    projection = torch.tensor([[1 / tan_fov, 0, 0, 0], [0, 1 / tan_fov, 0, 0],
                               [0, 0, zfar / (zfar - znear), -zfar * znear / (zfar - znear)], [0, 0, 1, 0]])
    inputs = dict(background=torch.tensor([0.1, 0.2, 0.3]), means3D=torch.tensor([[0.0, 0.0, z]]),
                  colors=torch.tensor([[0.9, 0.5, 0.25]]), opacity=torch.tensor([[opacity]]),
                  scales=torch.full((1, 3), scale), rotations=torch.tensor([[1.0, 0.0, 0.0, 0.0]]),
                  viewmatrix=torch.eye(4), projmatrix=projection.t().contiguous(), tan_fov=tan_fov, size=size)
    focal = size / (2 * tan_fov)
    variance = (focal / z * scale) ** 2 + 0.3
    ys, xs = torch.meshgrid(torch.arange(size, dtype=torch.float32), torch.arange(size, dtype=torch.float32),
                            indexing="ij")
    centre = ((0.0 + 1.0) * size - 1.0) * 0.5
    power = -0.5 * ((centre - xs) ** 2 + (centre - ys) ** 2) / variance
    alpha = torch.clamp(opacity * torch.exp(power), max=0.99)
    return inputs, torch.where(alpha < 1 / 255, torch.zeros_like(alpha), alpha)


def gaussian_rasterization_ops(mods):
    m = mods["diff_gaussian_rasterization__C"]
    scene, alpha = _one_gaussian_scene()
    empty = torch.empty(0)

    def forward(s):
        return m.rasterize_gaussians(s["background"], s["means3D"], s["colors"], s["opacity"], s["scales"],
                                     s["rotations"], 1.0, empty, s["viewmatrix"], s["projmatrix"], s["tan_fov"],
                                     s["tan_fov"], s["size"], s["size"], empty, 0, torch.zeros(3), False, False)

    def render(s):
        return forward(s)[1]

    def render_ref(s):
        return s["colors"][0][:, None, None] * alpha + (1 - alpha) * s["background"][:, None, None]

    def color_gradient(s):
        rendered, image, radii, geometry, binning, pixels = forward(s)
        grads = m.rasterize_gaussians_backward(s["background"], s["means3D"], radii, s["colors"], s["scales"],
                                               s["rotations"], 1.0, empty, s["viewmatrix"], s["projmatrix"],
                                               s["tan_fov"], s["tan_fov"], torch.ones_like(image), empty, 0,
                                               torch.zeros(3), geometry, rendered, binning, pixels, False)
        return grads[1]  # d(sum of the image) / d(colors): each channel, the sum of the alphas

    def color_gradient_ref(s):
        return alpha.sum().expand(1, 3)

    return [
        Op("rasterize_gaussians", lambda: (scene,), render, render_ref, atol=1e-4),
        Op("rasterize_gaussians_backward (colors)", lambda: (scene,), color_gradient, color_gradient_ref,
           rtol=1e-3, atol=1e-3),
    ]


# ---------------------------------------------------------------------------------------------
# NVIDIA+apex (amp_C's multi-tensor apply, fused layer norm, syncbn's Welford)
# ---------------------------------------------------------------------------------------------

def apex_ops(mods):
    amp, norm, syncbn = mods.get("amp_C"), mods.get("fused_layer_norm_cuda"), mods.get("syncbn")
    chunk = 2048 * 32
    sizes = (1000, 70000, 33)  # (the second spans two chunks)

    def tensors(seed, n=1):
        g = torch.Generator().manual_seed(seed)
        return [[torch.randn(k, generator=g) for k in sizes] for _ in range(n)]

    def scale(ins):
        outs, noop = [torch.empty_like(t) for t in ins], torch.zeros(1, dtype=torch.int)
        amp.multi_tensor_scale(chunk, noop, [ins, outs], 0.5)
        return outs + [noop]

    def axpby(xs, ys):
        outs, noop = [torch.empty_like(t) for t in xs], torch.zeros(1, dtype=torch.int)
        amp.multi_tensor_axpby(chunk, noop, [xs, ys, outs], 2.0, -0.5, -1)
        return outs

    def l2norm(ts):
        total, per = amp.multi_tensor_l2norm(chunk, torch.zeros(1, dtype=torch.int), [ts], True)
        return total.reshape(1), per

    def l2norm_ref(ts):
        return torch.stack([t.norm() for t in ts]).norm().reshape(1), torch.stack([t.norm() for t in ts])

    def adam_inputs():
        g, p = tensors(3)[0], tensors(4)[0]
        return g, p, [torch.zeros_like(t) for t in p], [torch.zeros_like(t) for t in p]

    def adam(g, p, m, v, mode=1):
        p, m, v = ([t.clone() for t in ts] for ts in (p, m, v))
        for step in (1, 2):
            amp.multi_tensor_adam(chunk, torch.zeros(1, dtype=torch.int), [g, p, m, v], 1e-2, 0.9, 0.999, 1e-8, step,
                                  mode, 1, 0.01)
        return p + m + v

    def adam_ref(g, p, m, v, mode=1):
        p, m, v = ([t.clone() for t in ts] for ts in (p, m, v))
        for step in (1, 2):
            for i in range(len(p)):
                grad = g[i] + 0.01 * p[i] if mode == 0 else g[i]
                m[i] = 0.9 * m[i] + 0.1 * grad
                v[i] = 0.999 * v[i] + 0.001 * grad * grad
                update = (m[i] / (1 - 0.9 ** step)) / ((v[i] / (1 - 0.999 ** step)).sqrt() + 1e-8)
                p[i] = p[i] - 1e-2 * (update + (0.01 * p[i] if mode == 1 else 0))
        return p + m + v

    def norm_inputs():
        g = torch.Generator().manual_seed(9)
        return torch.randn(6, 5, 40, generator=g), torch.randn(5, 40, generator=g), torch.randn(5, 40, generator=g)

    def rms_ref(x, gamma, _):
        return x * torch.rsqrt(x.pow(2).mean((-2, -1), keepdim=True) + 1e-5) * gamma

    def welford(x):
        mean, var = syncbn.welford_mean_var(x)[:2]
        return mean, var

    def welford_ref(x):
        flat = x.transpose(0, 1).reshape(x.shape[1], -1)
        return flat.mean(1), flat.var(1, unbiased=False)

    ops = []
    if amp is not None:
        ops += [
            Op("multi_tensor_scale", lambda: tuple(tensors(1)), scale,
               lambda ins: [t * 0.5 for t in ins] + [torch.zeros(1, dtype=torch.int)], module="amp_C"),
            Op("multi_tensor_axpby", lambda: tuple(tensors(2, 2)), axpby,
               lambda xs, ys: [2.0 * x - 0.5 * y for x, y in zip(xs, ys)], module="amp_C"),
            Op("multi_tensor_l2norm", lambda: tuple(tensors(5)), l2norm, l2norm_ref, module="amp_C", rtol=1e-4),
            Op("multi_tensor_adam (AdamW)", adam_inputs, adam, adam_ref, module="amp_C", atol=1e-5),
            Op("multi_tensor_adam (L2)", adam_inputs, lambda *a: adam(*a, mode=0), lambda *a: adam_ref(*a, mode=0),
               module="amp_C", atol=1e-5)]
    if norm is not None:
        ops += [
            Op("layer_norm forward_affine", norm_inputs, lambda x, w, b: norm.forward_affine(x, [5, 40], w, b, 1e-5)[0],
               lambda x, w, b: F.layer_norm(x, [5, 40], w, b, 1e-5), module="fused_layer_norm_cuda", atol=1e-4),
            Op("rms_norm rms_forward_affine", norm_inputs,
               lambda x, w, b: norm.rms_forward_affine(x, [5, 40], w, 1e-5)[0], rms_ref,
               module="fused_layer_norm_cuda", atol=1e-4)]
    if syncbn is not None:
        ops.append(Op("welford_mean_var", lambda: (torch.randn(4, 3, 9, 7, generator=torch.Generator().manual_seed(10)),),
                      welford, welford_ref, module="syncbn", atol=1e-4))
    return ops


# ---------------------------------------------------------------------------------------------
# facebookresearch+pytorch3d (its CUDA ops against its own CPU implementations)
# ---------------------------------------------------------------------------------------------

def pytorch3d_ops(mods):
    emu, cpu = mods["pytorch3d__C"], mods.get("pytorch3d_cpu")

    def twin(name, inputs, compare=None, atol=1e-5, label=""):
        """The op `name` of the emulated build against the same op of the CPU build."""
        return Op(name + label, inputs, lambda *a: getattr(emu, name)(*a),
                  (lambda *a: getattr(cpu, name)(*a)) if cpu is not None else None, compare=compare, atol=atol)

    def same_neighbours(result, expected):
        """knn's (idx, dists) as sets: its CUDA kernels leave each point's K neighbours unsorted
        (pytorch3d's knn_points sorts them after), its CPU one sorts them."""
        (idx, dists), (ref_idx, ref_dists) = result, expected
        order = dists.argsort(-1)
        return torch.equal(idx.gather(-1, order), ref_idx) and torch.allclose(dists.gather(-1, order), ref_dists)

    def g(seed):
        return torch.Generator().manual_seed(seed)

    def clouds(seed, n=2, p=40):
        return torch.rand(n, p, 3, generator=g(seed))

    def lengths(*values):
        return torch.tensor(values, dtype=torch.int64)

    verts = torch.rand(12, 3, generator=g(21))
    faces = torch.randint(0, 12, (20, 3), generator=g(22))
    edges = torch.randint(0, 12, (30, 2), generator=g(23))
    return [
        twin("knn_points_idx", lambda: (clouds(1, p=30), clouds(2), lengths(30, 17), lengths(40, 25), 2, 4, -1),
             compare=same_neighbours),
        twin("ball_query", lambda: (clouds(3, p=30), clouds(4), lengths(30, 11), lengths(40, 33), 6, 0.3, False)),
        twin("sample_farthest_points", lambda: (clouds(5), lengths(40, 27), lengths(8, 5), lengths(0, 3), -1)),
        twin("packed_to_padded", lambda: (torch.rand(50, 4, generator=g(6)), lengths(0, 20, 35), 20)),
        twin("padded_to_packed", lambda: (torch.rand(3, 20, 4, generator=g(7)), lengths(0, 20, 35), 50)),
        twin("face_areas_normals_forward", lambda: (verts, faces), atol=1e-5),
        twin("gather_scatter", lambda: (torch.rand(12, 5, generator=g(8)), edges, False, False)),
        twin("gather_scatter", lambda: (torch.rand(12, 5, generator=g(9)), edges, True, True),
             label=" (directed, backward)"),
        twin("sigmoid_alpha_blend", lambda: (torch.randn(2, 6, 7, 3, generator=g(10)) * 1e-3,
                                             torch.randint(-1, 9, (2, 6, 7, 3), generator=g(11)), 1e-3)),
        twin("accum_alphacomposite", lambda: (torch.rand(4, 30, generator=g(12)), torch.rand(2, 3, 5, 6, generator=g(13)),
                                              torch.randint(-1, 30, (2, 3, 5, 6), generator=g(14)))),
        twin("accum_weightedsum", lambda: (torch.rand(4, 30, generator=g(15)), torch.rand(2, 3, 5, 6, generator=g(16)),
                                           torch.randint(-1, 30, (2, 3, 5, 6), generator=g(17)))),
        twin("point_face_dist_forward", lambda: (torch.rand(25, 3, generator=g(18)), lengths(0, 10), verts[faces],
                                                  lengths(0, 12), 15, 5e-3)),
    ]


# ---------------------------------------------------------------------------------------------
# mit-han-lab+torchsparse (its *_cuda ops against its own *_cpu ones)
# ---------------------------------------------------------------------------------------------

def torchsparse_ops(mods):
    m = mods["torchsparse_backend"]

    def pair(name, inputs, **kw):
        return Op(f"{name}_cuda", inputs, getattr(m, f"{name}_cuda"), getattr(m, f"{name}_cpu"), **kw)

    def fnv(coords):
        """hash_kernel's 64-bit FNV-1a of each row (its CPU twin folds the top 4 bits in: a
        difference upstream, so the reference is the kernel's formula)."""
        out = []
        for row in coords.tolist():
            h = 14695981039346656037
            for v in row:
                h = ((h ^ (v & 0xFFFFFFFF)) * 1099511628211) % 2 ** 64
            out.append(h - 2 ** 64 if h >= 2 ** 63 else h)
        return torch.tensor(out, dtype=torch.int64)

    def kernel_fnv(coords, offsets):
        """kernel_hash_kernel's hash of each row moved by each offset, (K, N) (the same formula)."""
        return torch.stack([fnv(torch.cat([coords[:, :1], coords[:, 1:] + o], 1)) for o in offsets])

    def g(seed):
        return torch.Generator().manual_seed(seed)

    coords = torch.randint(0, 6, (50, 4), generator=g(31), dtype=torch.int32)
    offsets = torch.tensor([[x, y, z] for x in (-1, 0, 1) for y in (-1, 0) for z in (0, 1)], dtype=torch.int32)
    keys = torch.unique(m.hash_cpu(coords))  # (distinct voxels: a hash table's keys)
    idx = torch.randint(0, 20, (60,), generator=g(32))
    counts = torch.bincount(idx, minlength=20).int()
    return [
        Op("hash_cuda", lambda: (coords,), m.hash_cuda, fnv),
        Op("kernel_hash_cuda", lambda: (coords, offsets), m.kernel_hash_cuda, kernel_fnv),
        pair("hash_query", lambda: (torch.cat([keys[::2], torch.tensor([7, 11])]), keys,
                                    torch.arange(len(keys), dtype=torch.int64))),
        pair("count", lambda: (idx.int(), 20)),
        pair("voxelize_forward", lambda: (torch.rand(60, 5, generator=g(33)), idx.int(), counts), atol=1e-6),
        pair("devoxelize_forward", lambda: (torch.rand(20, 5, generator=g(34)),
                                            torch.randint(0, 20, (40, 8), generator=g(35), dtype=torch.int32),
                                            torch.rand(40, 8, generator=g(36))), atol=1e-6),
    ]


# ---------------------------------------------------------------------------------------------
# The recipes
# ---------------------------------------------------------------------------------------------

_HALF_OPERATORS = ["-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF_CONVERSIONS__",
                   "-U__CUDA_NO_BFLOAT16_OPERATORS__", "-U__CUDA_NO_BFLOAT16_CONVERSIONS__",
                   "-U__CUDA_NO_BFLOAT162_OPERATORS__", "-U__CUDA_NO_BFLOAT162_CONVERSIONS__"]


# ---------------------------------------------------------------------------------------------
# open-mmlab+OpenPCDet (pcdet/ops: setup.py's seven modules)
# ---------------------------------------------------------------------------------------------

def _boxes3d(n, seed):
    """(n, 7) boxes [x, y, z, dx, dy, dz, heading] that do not overlap (each in its own cell)."""
    g = torch.Generator().manual_seed(seed)
    cells = torch.stack([torch.arange(n) % 4 * 6.0, torch.arange(n) // 4 * 6.0, torch.zeros(n)], 1)
    size = torch.rand(n, 3, generator=g) * 2 + 1
    return torch.cat([cells + torch.rand(n, 3, generator=g), size, (torch.rand(n, 1, generator=g) - 0.5) * 3], 1)


def _pcdet_modules():
    def module(name, folder, files):
        return Module(name, [f"pcdet/ops/{folder}/src/{f}" for f in files])
    stack = ["pointnet2_api.cpp", "ball_query.cpp", "ball_query_gpu.cu", "group_points.cpp", "group_points_gpu.cu",
             "sampling.cpp", "sampling_gpu.cu", "interpolate.cpp", "interpolate_gpu.cu"]
    return [
        module("iou3d_nms_cuda", "iou3d_nms", ["iou3d_cpu.cpp", "iou3d_nms_api.cpp", "iou3d_nms.cpp",
                                               "iou3d_nms_kernel.cu"]),
        module("roiaware_pool3d_cuda", "roiaware_pool3d", ["roiaware_pool3d.cpp", "roiaware_pool3d_kernel.cu"]),
        module("roipoint_pool3d_cuda", "roipoint_pool3d", ["roipoint_pool3d.cpp", "roipoint_pool3d_kernel.cu"]),
        module("pointnet2_stack_cuda", "pointnet2/pointnet2_stack",
               stack + ["voxel_query.cpp", "voxel_query_gpu.cu", "vector_pool.cpp", "vector_pool_gpu.cu"]),
        module("pointnet2_batch_cuda", "pointnet2/pointnet2_batch", stack),
        module("bev_pool_ext", "bev_pool", ["bev_pool.cpp", "bev_pool_cuda.cu"]),
        module("ingroup_inds_cuda", "ingroup_inds", ["ingroup_inds.cpp", "ingroup_inds_kernel.cu"]),
    ]


def openpcdet_ops(mods):
    iou = mods.get("iou3d_nms_cuda")
    pool = mods.get("roiaware_pool3d_cuda")
    batch = mods.get("pointnet2_batch_cuda")

    def iou_bev(a, b):
        out = a.new_zeros(len(a), len(b))
        iou.boxes_iou_bev_gpu(a, b, out)
        return out

    def iou_bev_ref(a, b):
        out = a.new_zeros(len(a), len(b))
        iou.boxes_iou_bev_cpu(a, b, out)
        return out

    def nms(boxes, scores):
        order = scores.sort(0, descending=True)[1]
        keep = torch.zeros(len(boxes), dtype=torch.long)
        count = iou.nms_gpu(boxes[order].contiguous(), keep, 0.1)
        return order[keep[:count]]

    def nms_ref(boxes, scores):
        order = scores.sort(0, descending=True)[1].tolist()
        ious = iou_bev_ref(boxes, boxes)
        keep = []
        for i in order:
            if all(ious[i, k] <= 0.1 for k in keep):
                keep.append(i)
        return torch.tensor(keep, dtype=torch.long)

    def overlapping(n, seed):  # (boxes near one another, so that some overlap)
        b = _boxes3d(n, seed)
        b[:, :2] = b[:, :2] * 0.25
        return b

    def in_boxes(boxes, pts):
        out = torch.full((1, len(pts)), -1, dtype=torch.int)
        pool.points_in_boxes_gpu(boxes[None], pts[None], out)
        return out[0]

    def in_boxes_ref(boxes, pts):
        inside = torch.zeros(len(boxes), len(pts), dtype=torch.int)
        pool.points_in_boxes_cpu(boxes, pts, inside)
        hit = inside.bool()
        return torch.where(hit.any(0), hit.int().argmax(0), torch.full((len(pts),), -1)).int()

    def points():
        return torch.rand(96, 3, generator=torch.Generator().manual_seed(4)) * torch.tensor([24.0, 12.0, 3.0])

    def fps(xyz):
        out = torch.zeros(1, 8, dtype=torch.int)
        batch.farthest_point_sampling_wrapper(1, xyz.shape[1], 8, xyz, torch.full((1, xyz.shape[1]), 1e10), out)
        return out

    def fps_ref(xyz):
        picked, dist = [0], torch.full((xyz.shape[1],), 1e10)
        for _ in range(7):
            dist = torch.minimum(dist, ((xyz[0] - xyz[0, picked[-1]]) ** 2).sum(1))
            picked.append(int(dist.argmax()))
        return torch.tensor([picked], dtype=torch.int)

    def gather(features, idx):
        out = features.new_zeros(features.shape[0], features.shape[1], idx.shape[1])
        batch.gather_points_wrapper(features.shape[0], features.shape[1], features.shape[2], idx.shape[1], features,
                                    idx, out)
        return out

    return [
        Op("boxes_iou_bev_gpu", lambda: (overlapping(6, 1), overlapping(5, 2)), iou_bev, iou_bev_ref,
           module="iou3d_nms_cuda", atol=1e-4),
        Op("nms_gpu", lambda: (overlapping(10, 3), torch.rand(10)), nms, nms_ref, module="iou3d_nms_cuda"),
        Op("points_in_boxes_gpu", lambda: (_boxes3d(8, 5), points()), in_boxes, in_boxes_ref,
           module="roiaware_pool3d_cuda"),
        Op("farthest_point_sampling_wrapper", lambda: (points()[None].contiguous(),), fps, fps_ref,
           module="pointnet2_batch_cuda"),
        Op("gather_points_wrapper", lambda: (torch.rand(2, 3, 10), torch.randint(0, 10, (2, 4)).int()), gather,
           lambda f, i: _gather_last(f, i), module="pointnet2_batch_cuda"),
    ]


# ---------------------------------------------------------------------------------------------
# open-mmlab+mmcv (mmcv/ops/csrc: each op against mmcv_cpu, its CPU implementations built by
# PyTorch without CUDA, or a few lines of plain torch)
# ---------------------------------------------------------------------------------------------

def _rotated_boxes(n, seed):
    g = torch.Generator().manual_seed(seed)
    xy, wh = torch.rand(n, 2, generator=g) * 10, torch.rand(n, 2, generator=g) * 4 + 1
    return torch.cat([xy, wh, (torch.rand(n, 1, generator=g) - 0.5) * 3], 1)


def _quadrilaterals(boxes):
    """The corners of rotated boxes (x, y, w, h, angle) as (n, 8)."""
    x, y, w, h, a = boxes.unbind(1)
    cos, sin = torch.cos(a), torch.sin(a)
    corners = []
    for dx, dy in ((-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)):
        corners += [x + dx * w * cos - dy * h * sin, y + dx * w * sin + dy * h * cos]
    return torch.stack(corners, 1)


def mmcv_ops(mods):
    c, t = mods["mmcv__ext"], mods.get("mmcv_cpu")
    N, C, H, W = 2, 3, 8, 8

    def twin(name, inputs, call, **kw):
        """An op whose reference is the same call of mmcv_cpu (inputs cloned for each)."""
        def ref(*a):
            return call(t, *(x.clone() if isinstance(x, torch.Tensor) else x for x in a))
        return Op(name, inputs, lambda *a: call(c, *a), ref, module="mmcv_cpu", **kw)

    def xyxy(n, seed):
        b = _rotated_boxes(n, seed)
        return torch.cat([b[:, :2], b[:, :2] + b[:, 2:4]], 1)

    def ious(fn, b1, b2, *flags):
        out = b1.new_zeros(len(b1) * len(b2))
        fn(b1, b2, out, *flags)
        return out

    def overlaps(m, b1, b2):
        out = b1.new_zeros(len(b1), len(b2))
        m.bbox_overlaps(b1, b2, out, 0, False, 0)
        return out

    def nms_rotated(m, dets, scores):
        order = scores.sort(0, descending=True)[1]
        return m.nms_rotated(dets, scores, order, dets.index_select(0, order), scores.new_empty(0, dtype=torch.int),
                             0.3, False)

    def rois(k):
        g = torch.Generator().manual_seed(k)
        xy = torch.rand(k, 2, generator=g) * 4
        return torch.cat([torch.arange(k).remainder(N)[:, None].float(), xy, xy + 3], 1)

    def roi_align(m, x, r):
        out = x.new_zeros(len(r), C, 2, 2)
        m.roi_align_forward(x, r, out, x.new_empty(0), x.new_empty(0), 2, 2, 1.0, 2, 1, True)
        return out

    def rotated_rois(k):
        b = _rotated_boxes(k, 11)
        b[:, :2] = b[:, :2] * 0.6
        return torch.cat([torch.arange(k).remainder(N)[:, None].float(), b], 1)

    def roi_align_rotated(m, x, r):
        out = x.new_zeros(len(r), C, 2, 2)
        m.roi_align_rotated_forward(x, r, out, 2, 2, 1.0, 2, True, False)
        return out

    def points_in_boxes(m, boxes, pts):
        out = torch.zeros(1, len(pts[0]), len(boxes[0]), dtype=torch.int)
        m.points_in_boxes_all_forward(boxes, pts, out)
        return out

    def points_in_boxes_ref(boxes, pts):
        out = torch.zeros(len(boxes[0]), len(pts[0]), dtype=torch.int)
        t.points_in_boxes_cpu_forward(boxes[0], pts[0], out)
        return out.t()[None]

    def box3d_inputs():
        g = torch.Generator().manual_seed(5)
        centers = torch.rand(4, 3, generator=g) * 6
        boxes = torch.cat([centers, torch.rand(4, 3, generator=g) * 2 + 1, torch.rand(4, 1, generator=g)], 1)
        return boxes[None], (torch.rand(1, 64, 3, generator=g) * 8)

    def arf(m, x, idx):
        o, i, orient, kh, kw = x.shape
        out = x.new_zeros(o * idx.shape[3], i * orient, kh, kw)
        m.active_rotated_filter_forward(x, idx, out)
        return out

    def arf_inputs():
        g = torch.Generator().manual_seed(2)
        return (torch.rand(4, 2, 8, 3, 3, generator=g),
                torch.randint(1, 8 * 3 * 3 + 1, (8, 3, 3, 8), generator=g).int())

    def feature_align(m, x, bboxes):
        out = torch.zeros_like(x)
        m.rotated_feature_align_forward(x, bboxes, out, 1.0, 5)
        return out

    def feature_align_inputs():
        b = _rotated_boxes(N * H * W, 8).reshape(N, H, W, 5)
        b[..., :2] = b[..., :2] * 0.7
        return torch.rand(N, C, H, W), b

    def deform(m, x, w, offset):
        out = x.new_zeros(N, 4, H - 2, W - 2)
        m.deform_conv_forward(x, w, offset, out, x.new_empty(0), x.new_empty(0), 3, 3, 1, 1, 0, 0, 1, 1, 1, 1, N)
        return out

    def deform_inputs():
        return torch.rand(N, C, H, W), torch.rand(4, C, 3, 3), torch.rand(N, 18, H - 2, W - 2) * 2 - 1

    def modulated(m, x, w, offset, mask):
        out = x.new_zeros(N, 4, H - 2, W - 2)
        m.modulated_deform_conv_forward(x, w, torch.ones(4), x.new_empty(0), offset, mask, out, x.new_empty(0),
                                        3, 3, 1, 1, 0, 0, 1, 1, 1, 1, True)
        return out

    def psamask(m, x):
        out = x.new_zeros(N, H * W, H, W)
        m.psamask_forward(x, out, 0, N, H, W, 3, 3, 1, 1)
        return out

    def focal(x, target):
        out = torch.zeros_like(x)
        c.sigmoid_focal_loss_forward(x, target, x.new_empty(0), out, 2.0, 0.25)
        return out

    def focal_ref(x, target):
        p = torch.sigmoid(x)
        pos = F.one_hot(target, x.shape[1]).bool()
        return torch.where(pos, -0.25 * (1 - p) ** 2 * torch.log(p.clamp(min=torch.finfo(p.dtype).tiny)),
                           -0.75 * p ** 2 * torch.log((1 - p).clamp(min=torch.finfo(p.dtype).tiny)))

    def gather(points, idx):
        out = points.new_zeros(N, C, idx.shape[1])
        c.gather_points_forward(points, idx, out, N, C, points.shape[2], idx.shape[1])
        return out

    def three_interpolate(points, idx, weight):
        out = points.new_zeros(N, C, idx.shape[1])
        c.three_interpolate_forward(points, idx, weight, out, N, C, points.shape[2], idx.shape[1])
        return out

    def three_interpolate_ref(points, idx, weight):
        return (_gather_last(points, idx) * weight[:, None]).sum(-1)

    quads = lambda n, seed: _quadrilaterals(_rotated_boxes(n, seed))  # noqa: E731
    return [
        twin("nms", lambda: (xyxy(12, 1), torch.rand(12), 0.3, 0), lambda m, *a: m.nms(*a)),
        twin("bbox_overlaps", lambda: (xyxy(5, 2), xyxy(4, 3)), overlaps),
        twin("box_iou_rotated", lambda: (_rotated_boxes(5, 4), _rotated_boxes(4, 5)),
             lambda m, a, b: ious(m.box_iou_rotated, a, b, 0, False), atol=1e-4),
        twin("nms_rotated", lambda: (_rotated_boxes(12, 6), torch.rand(12)), nms_rotated),
        twin("box_iou_quadri", lambda: (quads(5, 7), quads(4, 8)),
             lambda m, a, b: ious(m.box_iou_quadri, a, b, 0, False), atol=1e-4),
        twin("roi_align_forward", lambda: (torch.rand(N, C, H, W), rois(5)), roi_align),
        twin("roi_align_rotated_forward", lambda: (torch.rand(N, C, H, W), rotated_rois(5)), roi_align_rotated),
        Op("points_in_boxes_all_forward", box3d_inputs, lambda *a: points_in_boxes(c, *a), points_in_boxes_ref,
           module="mmcv_cpu"),
        twin("active_rotated_filter_forward", arf_inputs, arf),
        twin("rotated_feature_align_forward", feature_align_inputs, feature_align),
        twin("deform_conv_forward", deform_inputs, deform, atol=1e-4),
        twin("modulated_deform_conv_forward", lambda: deform_inputs() + (torch.rand(N, 9, H - 2, W - 2),), modulated,
             atol=1e-4),
        twin("psamask_forward", lambda: (torch.rand(N, 9, H, W),), psamask),
        Op("sigmoid_focal_loss_forward", lambda: (torch.randn(6, 4), torch.randint(0, 4, (6,))), focal, focal_ref),
        Op("gather_points_forward", lambda: (torch.rand(N, C, 10), torch.randint(0, 10, (N, 4)).int()), gather,
           lambda p, i: _gather_last(p, i)),
        Op("three_interpolate_forward",
           lambda: (torch.rand(N, C, 6), torch.randint(0, 6, (N, 5, 3)).int(), torch.rand(N, 5, 3)),
           three_interpolate, three_interpolate_ref),
    ]


# ---------------------------------------------------------------------------------------------
# facebookresearch+xformers (at a 2024 commit with its own kernels: sputnik's sparse ops, the
# small-k attention, SwiGLU's fused backward)
# ---------------------------------------------------------------------------------------------

def _csr(B, M, N, seed=3):
    """A random M x N pattern of a multiple of 4 nonzeros as sputnik takes it (row_indices: the
    rows by falling length, row_offsets, column_indices; int32), and its dense mask."""
    g = torch.Generator().manual_seed(seed)
    lengths = [(4, 8, 4, 2, 6, 4, 2, 2)[i % 8] for i in range(M)]  # (32 per 8 rows: a multiple of 4)
    mask = torch.zeros(M, N, dtype=torch.bool)
    for row, length in enumerate(lengths):
        mask[row, torch.randperm(N, generator=g)[:length]] = True
    counts = mask.sum(1)
    offsets = torch.cat([torch.zeros(1, dtype=torch.long), counts.cumsum(0)]).int()
    columns = mask.nonzero()[:, 1].int()
    rows = torch.argsort(counts, descending=True, stable=True).int()
    return rows, offsets, columns, mask


def _csr_rows(offsets):
    return torch.repeat_interleave(torch.arange(len(offsets) - 1), (offsets[1:] - offsets[:-1]).long())


def xformers_ops(mods):
    xf = torch.ops.xformers
    B, M, N, K = 2, 8, 16, 32

    def sddmm_inputs():
        rows, offsets, columns, _ = _csr(B, M, N)
        return torch.rand(B, M, K), torch.rand(B, N, K), rows, offsets, columns

    def sddmm_ref(a, b, rows, offsets, columns):
        return (a @ b.transpose(1, 2))[:, _csr_rows(offsets), columns.long()]

    def spmm_inputs():
        rows, offsets, columns, _ = _csr(B, M, N)
        return torch.rand(B, N, K), rows, torch.rand(B, len(columns)), offsets, columns, M

    def spmm_ref(b, rows, values, offsets, columns, m):
        dense = torch.zeros(B, m, b.shape[1])
        dense[:, _csr_rows(offsets), columns.long()] = values
        return dense @ b

    def softmax_inputs():
        rows, offsets, columns, _ = _csr(B, M, N)
        return M, N, rows, torch.randn(B, len(columns)), offsets, columns

    def softmax_ref(m, n, rows, values, offsets, columns):
        dense = torch.full((B, m, n), float("-inf"))
        r, c = _csr_rows(offsets), columns.long()
        dense[:, r, c] = values
        return torch.softmax(dense, -1)[:, r, c]

    def attention_inputs():
        return torch.rand(B, M, 16), torch.rand(B, N, 16), torch.rand(B, N, 16)

    def attention_ref(q, k, v):
        return torch.softmax(q @ k.transpose(1, 2) / q.shape[-1] ** 0.5, -1) @ v

    def attention_bwd(q, k, v, dout):
        out, lse, seed, offset = xf.efficient_attention_forward_small_k(q, k, v, True, None, 0.0)
        return xf.efficient_attention_backward_small_k(dout, q, k, v, lse, out, None, 0.0, seed, offset)

    def attention_bwd_ref(q, k, v, dout):
        q, k, v = (t.clone().requires_grad_() for t in (q, k, v))
        attention_ref(q, k, v).backward(dout)
        return q.grad, k.grad, v.grad

    def silu_bw_ref(x1, x2, dx4):
        x1r, x2r = x1.clone().requires_grad_(), x2.clone().requires_grad_()
        x4 = F.silu(x1r) * x2r
        x4.backward(dx4)
        return torch.stack([x1r.grad, x2r.grad], 1), x4.detach()

    return [
        Op("sddmm_sputnik", sddmm_inputs, lambda *a: xf.sddmm_sputnik(*a), sddmm_ref, atol=1e-4),
        Op("spmm_sputnik", spmm_inputs, lambda *a: xf.spmm_sputnik(*a), spmm_ref, atol=1e-4),
        Op("sparse_softmax_sputnik", softmax_inputs, lambda *a: xf.sparse_softmax_sputnik(*a), softmax_ref),
        Op("efficient_attention_forward_small_k", attention_inputs,
           lambda q, k, v: xf.efficient_attention_forward_small_k(q, k, v, False, None, 0.0)[0], attention_ref,
           atol=1e-4),
        Op("efficient_attention_backward_small_k", lambda: attention_inputs() + (torch.rand(B, M, 16),),
           attention_bwd, attention_bwd_ref, atol=1e-4),
        Op("silu_bw_fused", lambda: (torch.randn(4, 8), torch.randn(4, 8), torch.randn(4, 8)),
           lambda *a: xf.silu_bw_fused(*a), silu_bw_ref),
    ]


_TCNN_DEFINES = ["-std=c++17", "-DTCNN_PARAMS_UNALIGNED", "-DTCNN_RTC", "-DTCNN_RTC_USE_FAST_MATH",
                 "-DTCNN_HALF_PRECISION=1", "-DTCNN_MIN_GPU_ARCH=80"]

_XFORMERS_LEFT_OUT = (
    "xformers/csrc/**/hip_fmha/**", "xformers/csrc/attention/cpu/*.cpp", "xformers/csrc/sparse24/**",
    "xformers/csrc/attention/cuda/fmha/attention_*.cu", "xformers/csrc/attention/cuda/fmha/autogen/**",
    "xformers/csrc/swiglu/cuda/dual_gemm_silu_identity_mul.cu",
    "xformers/csrc/swiglu/cuda/gemm_fused_operand_sum.cu", "xformers/csrc/sequence_parallel_fused/**")


def _recipes():
    pn2 = "pointnet2_ops_lib/pointnet2_ops/_ext-src"
    d2 = "detectron2/layers/csrc"
    recipes = [
        Recipe("erikwijmans+Pointnet2_PyTorch", [
            Module("pointnet2_ops__ext", [f"{pn2}/src/*.cpp", f"{pn2}/src/*.cu"], [f"{pn2}/include"], ["-O3"])],
            pointnet2_ops),
        Recipe("rusty1s+pytorch_spline_conv", _rusty1s("torch_spline_conv", ["basis", "weighting"],
                                                         ["-O2", "-Wno-sign-compare"], []), spline_conv_ops),
        Recipe("rusty1s+pytorch_scatter", _rusty1s("torch_scatter", ["scatter", "segment_coo", "segment_csr"],
                                                     ["-O3", "-Wno-sign-compare"], ["WITH_PYTHON"]), scatter_ops),
        Recipe("facebookresearch+detectron2", [
            Module("detectron2__C", [f"{d2}/vision.cpp", f"{d2}/**/*.cpp", f"{d2}/**/*.cu", f"{d2}/*.cu"], [d2],
                   ["-DWITH_CUDA"])], detectron2_ops),
        Recipe("Dao-AILab+causal-conv1d", [
            Module("causal_conv1d_cuda", ["csrc/causal_conv1d.cpp", "csrc/causal_conv1d_fwd.cu",
                                          "csrc/causal_conv1d_bwd.cu", "csrc/causal_conv1d_update.cu"],
                   ["csrc"], ["-O3"], cuda_flags=_HALF_OPERATORS)], causal_conv1d_ops),
        # Compile counts only (no ops yet).
        Recipe("rusty1s+pytorch_sparse", _rusty1s("torch_sparse", ["convert", "diag", "rw", "spmm"],
                                                    ["-O3", "-Wno-sign-compare"], ["WITH_PYTHON"],
                                                    ["csrc", "third_party/parallel-hashmap"])),
        Recipe("state-spaces+mamba", [
            Module("selective_scan_cuda", ["csrc/selective_scan/selective_scan.cpp", "csrc/selective_scan/*.cu"],
                   ["csrc/selective_scan"], ["-O3", "-std=c++17"], cuda_flags=_HALF_OPERATORS)], mamba_ops),
        Recipe("NVlabs+nvdiffrast", [
            Module("_nvdiffrast_c", ["csrc/common/*.cpp", "csrc/common/*.cu", "csrc/common/cudaraster/impl/*.cpp",
                                     "csrc/common/cudaraster/impl/*.cu", "csrc/torch/*.cpp"], [],
                   ["-DNVDR_TORCH"], cuda_flags=["-DNVDR_TORCH"])], nvdiffrast_ops),
        Recipe("graphdeco-inria+diff-gaussian-rasterization", [
            Module("diff_gaussian_rasterization__C", ["cuda_rasterizer/*.cu", "rasterize_points.cu", "ext.cpp"],
                   ["third_party/glm"])], gaussian_rasterization_ops),
        Recipe("open-mmlab+OpenPCDet", _pcdet_modules(), openpcdet_ops),
        Recipe("mit-han-lab+torchsparse", [
            Module("torchsparse_backend", ["torchsparse/backend/pybind_cuda.cu",
                                           "torchsparse/backend/**/*_cpu.cpp",
                                           "torchsparse/backend/**/*_cuda.cu"], [],
                   ["-g", "-O3", "-fopenmp", "-lgomp"], exclude=("torchsparse/backend/pybind_cpu.cpp",))],
            torchsparse_ops),
        Recipe("bitsandbytes-foundation+bitsandbytes", [
            Module("bitsandbytes_cuda", ["csrc/*.cu", "csrc/*.cpp"], ["csrc", "include"], ["-DBUILD_CUDA"],
                   cuda_flags=["-DBUILD_CUDA"] + [f"-U__CUDA_NO_{m}__" for m in (
                       "HALF_OPERATORS", "HALF_CONVERSIONS", "BFLOAT16_CONVERSIONS", "HALF2_OPERATORS")],
                   python_module=False, exclude=("csrc/xpu_*.cpp",))],
            note="built by CMake upstream (a C library its Python calls through ctypes, not a torch extension): "
                 "csrc/ with BUILD_CUDA, without PyTorch's __CUDA_NO_HALF_OPERATORS__ and the like, without the "
                 "SYCL sources (xpu_*.cpp)"),
        Recipe("NVlabs+tiny-cuda-nn", [
            Module("tinycudann_bindings__80_C",
                   ["bindings/torch/tinycudann/bindings.cpp", "dependencies/fmt/src/format.cc",
                    "dependencies/fmt/src/os.cc"]
                   + [f"src/{f}.cu" for f in ("cpp_api", "common_host", "encoding", "object", "rtc_kernel",
                                              "network", "cutlass_mlp", "fully_fused_mlp")],
                   ["include", "dependencies", "dependencies/cutlass/include",
                    "dependencies/cutlass/tools/util/include", "dependencies/fmt/include"],
                   _TCNN_DEFINES, ["-lcuda", "-lnvrtc"],
                   cuda_flags=_TCNN_DEFINES + ["-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF_CONVERSIONS__",
                                               "-U__CUDA_NO_HALF2_OPERATORS__"])],
            note="bindings/torch/setup.py's module for compute capability 80 (its fmt submodule fetched at the "
                 "commit it pins; its cutlass one not)"),
        Recipe("NVIDIA+apex", [
            Module("amp_C", ["csrc/amp_C_frontend.cpp", "csrc/multi_tensor_*.cu", "csrc/update_scale_hysteresis.cu"],
                   ["csrc"], ["-O3"]),
            Module("syncbn", ["csrc/syncbn.cpp", "csrc/welford.cu"], ["csrc"], ["-O3"]),
            Module("fused_layer_norm_cuda", ["csrc/layer_norm_cuda.cpp", "csrc/layer_norm_cuda_kernel.cu"], ["csrc"],
                   ["-O3"]),
            Module("mlp_cuda", ["csrc/mlp.cpp", "csrc/mlp_cuda.cu"], ["csrc"], ["-O3"]),
            Module("fused_dense_cuda", ["csrc/fused_dense.cpp", "csrc/fused_dense_cuda.cu"], ["csrc"], ["-O3"])],
            apex_ops, note="setup.py's modules of csrc/ (of its 31 opt-in extensions)"),
        Recipe("open-mmlab+mmcv", [
            Module("mmcv__ext", ["mmcv/ops/csrc/pytorch/*.cpp", "mmcv/ops/csrc/pytorch/cpu/*.cpp",
                                 "mmcv/ops/csrc/pytorch/cuda/*.cu", "mmcv/ops/csrc/pytorch/cuda/*.cpp"],
                   ["mmcv/ops/csrc/common", "mmcv/ops/csrc/common/cuda"], ["-DMMCV_WITH_CUDA", "-std=c++17"]),
            Module("mmcv_cpu", ["mmcv/ops/csrc/pytorch/*.cpp", "mmcv/ops/csrc/pytorch/cpu/*.cpp"],
                   ["mmcv/ops/csrc/common"], ["-std=c++17"], twin=True)],
            mmcv_ops, note="setup.py's mmcv._ext (its CUDA implementations registered after its CPU ones answer "
                           "for the emulated device's tensors); ops against mmcv_cpu, its C++ sources built by "
                           "PyTorch without CUDA"),
        Recipe("facebookresearch+pytorch3d", [
            Module("pytorch3d__C", ["pytorch3d/csrc/**/*.cpp", "pytorch3d/csrc/**/*.cu"], ["pytorch3d/csrc"],
                   ["-DWITH_CUDA", "-std=c++17"]),
            Module("pytorch3d_cpu", ["pytorch3d/csrc/**/*.cpp"], ["pytorch3d/csrc"], ["-std=c++17"], twin=True)],
            pytorch3d_ops, note="ops against pytorch3d_cpu, its C++ sources built by PyTorch without CUDA"),
        Recipe("facebookresearch+xformers", [
            Module("xformers__C", ["xformers/csrc/**/*.cpp", "xformers/csrc/**/*.cu"],
                   ["xformers/csrc", "third_party/sputnik"], ["-O3"],
                   cuda_flags=["-DHAS_PYTORCH", "-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF_CONVERSIONS__",
                               "-D_ENABLE_EXTENDED_ALIGNED_STORAGE", "-DNDEBUG"],
                   python_module=False, exclude=_XFORMERS_LEFT_OUT)],
            xformers_ops, commit="fe0526babcd2114e70d9f4d9b10c729628461170",
            note="at a 2024 commit (2024-03-01), its own kernels: csrc/ without the CUTLASS ones (fmha's "
                 "cutlass forward, backward and rand_uniform, swiglu's two GEMMs, sparse24: CUTLASS is a "
                 "submodule, and CuTe needs nvcc), the HIP sources, or its CPU implementations (registered "
                 "for the key the CUDA ones take under emulation), or sequence_parallel_fused (CUDA 13.0's "
                 "nvcc fails its two files too: PFN_cuGetErrorName, cuda::atomic_ref); its -std=c++17 left "
                 "out (Torch 2's ATen needs C++20: nvcc would stop there too)"),
    ]
    return {r.key: r for r in recipes}


RECIPES = _recipes()
