// Text of the host runtime block (runtime.h, runtime_source): lists of arrays, as device tables of
// addresses, extents and strides.
#include "host/runtime_sections.h"

namespace c2t::host::runtime_text {

// A list of arrays as its kernel takes it (host/launcher.cpp list_args_source).
extern const char* const kArrayLists = R"PY(
# The lists checked, as (table on the device, facts), by the kernel's list type (rank, int32
# indexing) and the elements' (address, shape, strides, dtype, device, negated and conjugated view
# bits: a view that only flips them shares the rest, and the checks refuse it): the last 256 used;
# and those a CUDA graph captured, which live as long as the module (the graph holds their
# addresses). Tables made while a graph was being captured hold their words only once that graph
# replays: kept alive (the graph holds their addresses and host words) but never reused.
_c2t_list_tables, _c2t_list_tables_captured, _c2t_list_tables_graph_only = {}, {}, []
_c2t_list_lock = _c2t_threading.Lock()  # launches may come from several threads


def _c2t_array_list(name, arrays, rank, int32):
    """A cuTile list of arrays as the converted kernel takes it: (the arrays as a Python list, an
    int64 tensor on their device of (address, shapes..., strides...) per element -- cuTile's launch
    layout of a list, compilation.rst ListConstraint -- and the list's facts). `arrays` must be a
    list or tuple of tensors with `rank` dimensions and one dtype and device (one cuTile list
    type), and with int32 indexing (no ct.IndexedWithInt64) shapes and strides that fit in int32;
    ValueError otherwise, naming the list parameter `name`.
    facts: bit k when word k of every element is a multiple of 16, bit 1 + 2 * rank + (rank - 1 - d)
    when every element's stride d is 1 (1 + 2 * rank: the last stride) -- for the list what Triton's launcher specializes for one array argument
    (16-byte aligned pointers, integers divisible by 16), which the kernel hints so that Triton
    vectorizes and pipelines the elements' loads (cutile2triton: lower/value.h ArrayListVal).
    A list seen before (the same elements' addresses, shapes, strides, dtypes and devices) reuses
    its checks, facts and table: a launch then costs no host-to-device copy and little host time,
    which small grouped GEMMs (TileGym's group_gemm at 1024^3, timed with the host's launch cost)
    are sensitive to (the key reads each element's device as get_device(), an int: building
    torch.device objects, and torch.cuda.current_stream, cost microseconds per call on the H200's
    host). A table used on another stream than it was made on is recorded on that stream, so the
    allocator reuses its memory only after that stream's work (PyTorch's Tensor.record_stream;
    on its own stream there is nothing to record); one used while a CUDA graph is being captured is kept for good, since
    the graph replays its address. A table made while capturing (a list first seen there, e.g.
    K-major copies of fp8 operands, new arrays at each launch) is copied from pinned host memory,
    which capture allows and replays, and serves that capture only: it holds its words once the
    graph replays, so later launches and captures make their own (Triton's first launch of a kernel
    compiles, which capture does not allow: capture after a launch). A list seen before is found
    natively where cutile2triton's native module is built (_c2t_list_native_init): 10-28 us less
    host time per call of TileGym's group_gemm (three lists) on the H200."""
    native = _c2t_list_native or _c2t_list_native_init()
    if native[0] is not None:  # a list seen before, in one native call (cutile2triton.fast_launch)
        hit = native[0](arrays, rank, int32, _c2t_list_tables, _c2t_list_tables_captured, native[1])
        if hit is not None:
            return hit
    if not isinstance(arrays, (list, tuple)):
        raise ValueError(f"{name}: expected a list of arrays, got {type(arrays).__name__}")
    items = list(arrays)
    if not items:
        raise ValueError(f"{name}: an empty list of arrays has no element dtype to launch with")
    try:
        key = (rank, int32, *((t.data_ptr(), t.shape, t.stride(), t.dtype, t.get_device(), t.is_neg(), t.is_conj())
                              for t in items))
        hash(key)
    except (AttributeError, TypeError, RuntimeError):  # not a tensor; a sparse one (no strides)
        raise ValueError(f"{name}: every element of the list must be an array (a strided tensor), got "
                         f"{', '.join(sorted({type(t).__name__ for t in items}))}") from None
    import torch

    first = items[0]
    cuda = first.is_cuda
    capturing = cuda and torch.cuda.is_current_stream_capturing()
    with _c2t_list_lock:
        entry = _c2t_list_tables_captured.get(key) or _c2t_list_tables.pop(key, None)
    made = entry is None
    if made:
        entry = _c2t_list_entry(name, items, rank, int32, capturing)
    with _c2t_list_lock:
        if capturing and made:
            _c2t_list_tables_graph_only.append(entry)
        elif capturing:
            _c2t_list_tables_captured[key] = entry
        elif key not in _c2t_list_tables_captured:
            _c2t_list_tables[key] = entry  # now the most recently used
            while len(_c2t_list_tables) > 256:
                del _c2t_list_tables[next(iter(_c2t_list_tables))]
    if cuda and not capturing:
        stream = _c2t_raw_stream(torch, first)
        if stream is None or stream != entry[2]:
            entry[0].record_stream(torch.cuda.current_stream(first.device))
    return items, entry[0], entry[1]


_c2t_list_native = []  # [list_hit or None, its CUDA queries or None], set at the first list


def _c2t_list_native_init():
    """cutile2triton.fast_launch's native list_hit -- _c2t_array_list's reuse path, the same key and
    tables, without the Python around it -- with the CUDA queries it needs for a
    CUDA list (capture under way, the current raw stream), or None: without cutile2triton, its
    native module (no C compiler; C2T_FAST_LAUNCH=0) or those queries, the Python path runs."""
    fn = queries = None
    try:
        from cutile2triton.fast_launch import LIST_KEY, list_hit_function

        # Another cutile2triton's list_hit may build another key (it would never find this module's).
        fn = list_hit_function() if LIST_KEY == 2 else None
    except ImportError:
        pass
    if fn is not None:
        import torch

        capturing = getattr(torch._C, "_cuda_isCurrentStreamCapturing", None)
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        queries = (capturing, raw) if capturing is not None and raw is not None else None
    _c2t_list_native[:] = [fn, queries]
    return _c2t_list_native


def _c2t_raw_stream(torch, t):
    """The handle of the current CUDA stream on tensor t's device (what Triton's launcher queries:
    no Stream object), or None where torch lacks the query (then every use is recorded)."""
    try:
        return torch._C._cuda_getCurrentRawStream(t.get_device())
    except AttributeError:
        return None


def _c2t_list_entry(name, items, rank, int32, capturing=False):
    """The checks of _c2t_array_list on a non-empty list of tensors, then (its table on their
    device, its facts, the current stream's handle for a table on a CUDA device it was made on,
    the table's host words while a CUDA graph is being captured, else None)."""
    import torch

    first = items[0]
    if not all(t.dim() == rank and t.dtype == first.dtype and t.device == first.device for t in items):
        raise ValueError(f"{name}: every array of the list must have {rank} dimensions, and all the same dtype and "
                         "device")
    if any(t.is_neg() or t.is_conj() for t in items):  # the kernel would read the memory without the sign
        raise ValueError(f"{name}: a negated or conjugated view is not an array the kernel can read; pass "
                         "t.resolve_neg() / t.resolve_conj()")
    n = 1 + 2 * rank  # words per element: address, shapes, strides
    words = [v for t in items for v in (t.data_ptr(), *t.shape, *t.stride())]
    if int32 and not all(-2**31 <= v < 2**31 for i, v in enumerate(words) if i % n):
        raise ValueError(f"{name}: shapes and strides must fit in int32 (annotate the list with ct.IndexedWithInt64 "
                         "elements)")
    facts = sum(1 << k for k in range(n) if all(v % 16 == 0 for v in words[k::n]))
    for d in range(rank):  # unit strides (a list of transposed views is contiguous along its first)
        if all(v == 1 for v in words[1 + rank + d::n]):
            facts |= 1 << (n + rank - 1 - d)
    made_on = _c2t_raw_stream(torch, first) if first.is_cuda else None
    if not capturing:  # copied before any use, on whichever stream (the host waits for the copy)
        return torch.tensor(words, dtype=torch.int64, device=first.device), facts, made_on, None
    # Capture allows a copy from pinned host memory, made asynchronously on the capturing stream: the
    # graph replays it from these host words, which the entry keeps alive.
    host = torch.tensor(words, dtype=torch.int64, pin_memory=torch.cuda.is_available())
    return host.to(first.device, non_blocking=True), facts, made_on, host
)PY";

}  // namespace c2t::host::runtime_text
