// Text of the host runtime block (runtime.h, runtime_source): fp8 matrix-product operands laid out
// K-major by the runtime's own copies.
#include "host/runtime_sections.h"

namespace c2t::host::runtime_text {

// fp8 matrix-product operands laid out K-major (lower/k_major.h, host/launcher.cpp k_major_source).
extern const char* const kKMajor = R"PY(
# CUDA's fp8 types (the fnuz ones are ROCm's, which Triton does not build for sm_90)
_C2T_FP8 = ("torch.float8_e4m3fn", "torch.float8_e5m2")
_C2T_K_MAJOR_MIN_ELEMENTS = 1 << 22  # an operand's elements from which a copy pays (below: its host time)
_C2T_K_MAJOR_MIN_REUSE = 256  # the product's other dimension from which it is compute-bound


def _c2t_k_major(x, *layouts):
    """x, or a copy of it (of each element, for a list or tuple of arrays) that is contiguous along
    the axis a matrix product's depth K runs along. layouts: (k axis, other axis[, the product's
    other operand, its other axis]) of each of the kernel's products that take the array as an
    operand, None where the launch's constexpr branch does not take the product; the copy is made
    when the layouts taken agree, for fp8 CUDA tensors on an sm_90 device (not ROCm) that are
    contiguous along the other axis and not along K, where the array (a list's largest) has at
    least _C2T_K_MAJOR_MIN_ELEMENTS elements and the product's other operand (if known) at least
    _C2T_K_MAJOR_MIN_REUSE along its other axis; C2T_K_MAJOR=0 (read once) turns copies off. Why:
    Hopper's wgmma reads 8-bit operands only K-major, and Triton 3.6 transposes such an operand
    through registers without pipelining its loads: TileGym's group_gemm in fp8, B of 4 x 4096 x
    4096 with N contiguous, 0.32x cuTile on the H200, 1.12x with PyTorch's copies and 1.65x with
    the runtime's own: one launch of _c2t_k_major_copy for the whole list (_c2t_k_major_copies; 40 us
    for 4 x 4096^2 fp8 against PyTorch's 397; cutile2triton's BENCHMARKS.md, s28). Below 2^22
    elements the copies' host time is what counts: at 4 x 1024^3 the product runs in 20.5 us of
    device time with them and 56.7 without (CUDA graph replays), but a call timed with its host
    launch (do_bench) took 107.8 us with them and 62.3 without. A product with few
    rows (decoding) is bound by reading B, which a copy reads twice more. The converter passes here
    only arrays the kernel just reads (ct.load, shapes), so the copy cannot change what it computes,
    and reads through TMA descriptors at most transposed (order= moving the last axis): a copy then
    fails the launcher's descriptor checks and the launch takes pointers (none is made where the
    caller forces descriptors). Under CUDA graph capture the copy is made as outside it
    (the captured launch then matches an eager warm-up's), into the graph's memory."""
    try:  # the common case first: not fp8 (one dtype per list), nothing to do
        if str((x[0] if isinstance(x, (list, tuple)) else x).dtype) not in _C2T_FP8:
            return x
    except (AttributeError, TypeError, IndexError, KeyError):
        return x
    if not _c2t_k_major_on():
        return x
    items = x if isinstance(x, (list, tuple)) else [x]
    try:  # a list is laid out alike (mixed layouts would lose its unit-stride facts): by its largest.
        # The size first: it turns away most calls (small products) for the least host time.
        if max(t.numel() for t in items) < _C2T_K_MAJOR_MIN_ELEMENTS or not _c2t_k_major_device(items[0]):
            return x
    except (AttributeError, TypeError, RuntimeError):
        return x
    taken = [layout for layout in layouts if layout is not None]
    if not taken or any(layout[:2] != taken[0][:2] for layout in taken):
        return x
    k, other = taken[0][:2]
    reuse = [_c2t_min_extent(layout[2], layout[3]) for layout in taken if len(layout) == 4]
    if any(r is not None and r < _C2T_K_MAJOR_MIN_REUSE for r in reuse):
        return x
    out = _c2t_k_major_copies(items, k, other)
    if all(o is t for o, t in zip(out, items)):
        return x  # nothing copied: the caller's own object, as on every other path
    return out if isinstance(x, (list, tuple)) else out[0]


_c2t_k_major_switch = []  # [bool]: C2T_K_MAJOR read once


def _c2t_k_major_on():
    if not _c2t_k_major_switch:
        import os

        _c2t_k_major_switch.append(os.environ.get("C2T_K_MAJOR", "1").strip().lower() not in ("0", "false", "off", "no"))
    return _c2t_k_major_switch[0]


def _c2t_min_extent(arrays, axis):
    """The smallest extent along `axis` of an array or list of arrays; None if not known."""
    try:
        if isinstance(arrays, (list, tuple)):
            return min(t.shape[axis] for t in arrays) if arrays else None
        return arrays.shape[axis]
    except (AttributeError, TypeError, IndexError):
        return None


_c2t_k_major_plans = {}  # (id of a source list's table, k, other) -> (the table, layouts, total, grid): at most 256, oldest out first


def _c2t_k_major_copies(items, k, other):
    """items (a list of arrays), each array _c2t_k_major_wanted lays out K-major replaced by its copy,
    contiguous along axis k, with the other axes in their order: all copies in one launch of
    _c2t_k_major_copy into one buffer (each copy at a multiple of 128 elements), the arrays read and
    written through their list tables (_c2t_array_list, which keeps them for lists seen before).
    Arrays of rank other than 2 and 3, of more than 65535 matrices (a grid axis), or not of one
    dtype and device are copied one by one by PyTorch instead (_c2t_k_major_array)."""
    import torch

    picked = [i for i, t in enumerate(items) if _c2t_k_major_wanted(t, k, other)]
    if not picked:
        return list(items)
    src = [items[i] for i in picked]
    first = src[0]
    rank = first.dim()
    batch = 3 - k - other if rank == 3 else None
    if (rank not in (2, 3) or len(src) > 65535 or (batch is not None and max(t.shape[batch] for t in src) > 65535)
            or any(t.dim() != rank or t.dtype != first.dtype or t.device != first.device for t in src)):
        out = list(items)
        for i in picked:
            out[i] = _c2t_k_major_array(items[i], k, other)
        return out
    _, src_table, src_facts = _c2t_array_list("K-major copy", src, rank, False)
    # The copies' layout depends on the sources' shapes, strides, dtype and device, which the table
    # (kept for lists seen before) stands for: worked out once per table.
    plan = _c2t_k_major_plans.get((id(src_table), k, other))
    if plan is None or plan[0] is not src_table:  # (the table kept: its id is not another's)
        order = [d for d in range(rank) if d != k] + [k]  # the copy's axes, outermost first
        layouts, total = [], 0
        for t in src:
            strides, step = [0] * rank, 1
            for d in reversed(order):
                strides[d], step = step, step * t.shape[d]
            layouts.append((t.shape, tuple(strides), total))
            total += -(-t.numel() // 128) * 128
        tiles = max(-(-t.shape[k] // 64) * -(-t.shape[other] // 64) for t in src)
        grid = (tiles, 1 if batch is None else max(t.shape[batch] for t in src), len(src))
        plan = (src_table, layouts, total, grid)
        with _c2t_list_lock:
            _c2t_k_major_plans[(id(src_table), k, other)] = plan
            while len(_c2t_k_major_plans) > 256:
                del _c2t_k_major_plans[next(iter(_c2t_k_major_plans))]
    _, layouts, total, grid = plan
    buf = torch.empty(total, dtype=first.dtype, device=first.device)
    dst = [buf.as_strided(shape, strides, offset) for shape, strides, offset in layouts]
    # The launcher's table of the copies, where its list indexes with int32 (the usual case): the
    # same key, so one table for both.
    _, dst_table, dst_facts = _c2t_array_list("K-major copy", dst, rank, total < 2**31)
    # Only the facts bits the kernel reads (others would compile more variants): addresses, the
    # extents along k and other, the strides along k, other and the batch axis.
    used = 1 | (1 << (1 + k)) | (1 << (1 + other)) | (1 << (1 + rank + k)) | (1 << (1 + rank + other))
    if batch is not None:
        used |= 1 << (1 + rank + batch)
    args = (src_table, first, src_facts & used, dst_table, dst[0], dst_facts & used, rank, k, other, 64, 64)
    options = {"num_warps": 4}
    # Its own launch path: not _c2t_run_kernel, whose tuning search would time this kernel as the
    # launcher's and give it the launcher's options.
    if _c2t_run_native(_c2t_k_major_copy, grid, args, options) is None:
        _c2t_run_compiled(_c2t_k_major_copy, grid, args, options, lambda: _c2t_k_major_copy[grid](*args, **options))
    out = list(items)
    for i, copy in zip(picked, dst):
        out[i] = copy
    return out


@triton.jit
def _c2t_k_major_copy(src, src_first, SRC_FACTS: tl.constexpr, dst, dst_first, DST_FACTS: tl.constexpr,
                      RANK: tl.constexpr, K_AXIS: tl.constexpr, OTHER_AXIS: tl.constexpr, TILE_K: tl.constexpr,
                      TILE_O: tl.constexpr):
    """Array g of list table dst = array g of list table src (tables and facts as _c2t_array_list
    makes them, src_first / dst_first their first arrays, for the element type), for arrays of rank
    RANK (2 or 3; the third axis is a batch of matrices) contiguous along OTHER_AXIS in src and along
    K_AXIS in dst. Grid: (tiles of TILE_K x TILE_O over the largest array, its batch, arrays);
    programs past an array's extent store nothing. Loads run along OTHER_AXIS, stores along K_AXIS:
    Triton exchanges the tile through shared memory between the two."""
    W: tl.constexpr = 1 + 2 * RANK
    s_words = src + tl.program_id(2) * W
    d_words = dst + tl.program_id(2) * W
    # The facts' hints as in the converted kernels: without them Triton moves one byte at a time.
    k_n = tl.load(s_words + 1 + K_AXIS)
    k_n = tl.multiple_of(k_n, 16) if SRC_FACTS & (1 << (1 + K_AXIS)) else k_n
    o_n = tl.load(s_words + 1 + OTHER_AXIS)
    o_n = tl.multiple_of(o_n, 16) if SRC_FACTS & (1 << (1 + OTHER_AXIS)) else o_n
    o_tiles = tl.cdiv(o_n, TILE_O)
    k = (tl.program_id(0) // o_tiles) * TILE_K + tl.arange(0, TILE_K)
    o = (tl.program_id(0) % o_tiles) * TILE_O + tl.arange(0, TILE_O)
    s_ptr = tl.load(s_words).to(src_first.dtype)
    s_ptr = tl.multiple_of(s_ptr, 16) if SRC_FACTS & 1 else s_ptr
    d_ptr = tl.load(d_words).to(dst_first.dtype)
    d_ptr = tl.multiple_of(d_ptr, 16) if DST_FACTS & 1 else d_ptr
    s_k = tl.load(s_words + 1 + RANK + K_AXIS)
    s_k = tl.multiple_of(s_k, 16) if SRC_FACTS & (1 << (1 + RANK + K_AXIS)) else s_k
    d_o = tl.load(d_words + 1 + RANK + OTHER_AXIS)
    d_o = tl.multiple_of(d_o, 16) if DST_FACTS & (1 << (1 + RANK + OTHER_AXIS)) else d_o
    mask = (k[:, None] < k_n) & (o[None, :] < o_n)
    if RANK == 3:
        BATCH: tl.constexpr = 3 - K_AXIS - OTHER_AXIS
        b = tl.program_id(1)
        mask = mask & (b < tl.load(s_words + 1 + BATCH))
        # hinted too: an unhinted batch stride loses the pointers' alignment (one byte per access)
        s_b = tl.load(s_words + 1 + RANK + BATCH)
        s_b = tl.multiple_of(s_b, 16) if SRC_FACTS & (1 << (1 + RANK + BATCH)) else s_b
        d_b = tl.load(d_words + 1 + RANK + BATCH)
        d_b = tl.multiple_of(d_b, 16) if DST_FACTS & (1 << (1 + RANK + BATCH)) else d_b
        s_ptr += b * s_b
        d_ptr += b * d_b
    x = tl.load(s_ptr + k[:, None] * s_k + o[None, :], mask=mask)
    tl.store(d_ptr + k[:, None] + o[None, :] * d_o, x, mask=mask)


def _c2t_k_major_wanted(t, k, other):
    """Whether _c2t_k_major copies array t: an fp8 array contiguous along axis `other` but not along
    axis k, both longer than 1 (axes as the launcher names them: from 0); False for anything else
    (the launcher's own checks then speak about it)."""
    try:
        return (k >= 0 and other >= 0 and str(t.dtype) in _C2T_FP8 and t.stride(other) == 1 and t.stride(k) != 1
                and t.shape[k] > 1 and t.shape[other] > 1)
    except (AttributeError, TypeError, IndexError, RuntimeError):  # not an array of that rank
        return False


def _c2t_k_major_array(t, k, other):
    """t's copy contiguous along axis k, by PyTorch (see _c2t_k_major_copies), where
    _c2t_k_major_wanted; t itself otherwise."""
    if not _c2t_k_major_wanted(t, k, other):
        return t
    return t.detach().movedim(k, -1).contiguous().movedim(-1, k)


def _c2t_k_major_device(t):
    """Whether tensor t's device is one _c2t_k_major lays operands out for: a CUDA device of compute
    capability 9.x (Hopper; the layout was measured there), not a ROCm one (which reports 9.x too)."""
    if not t.is_cuda:
        return False
    import torch

    return _c2t_device_capability(torch, t.device)[0] == 9 and not getattr(torch.version, "hip", None)
)PY";

}  // namespace c2t::host::runtime_text
