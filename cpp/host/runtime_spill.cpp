// Text of the host runtime block (runtime.h, runtime_source): the spill step, warps or TMA descriptors
// for kernels with tl.dot that spill registers at the warps rule's choice.
#include "host/runtime_sections.h"

namespace c2t::host::runtime_text {

// Part of every launcher's launch (between kLaunchCore and kLaunchOptions in the emitted text).
extern const char* const kSpillStep = R"PY(
# What the spill step chose: {kernel: {_c2t_stages_key of the launch as asked: (num_warps through
# pointers, words of local memory per thread at the rule's warps, at twice them or None where not
# compiled, with TMA descriptors at the rule's warps or None where not compiled, whether it launches
# with descriptors where the launch's tensors allow them)}}.
_c2t_spill_warps = {}
_c2t_spill_switch = []  # [bool]: C2T_SPILL_WARPS read once
# The step acts where the rule's warps spill at least this many 4-byte words per thread: descriptors
# at the rule's warps, or else twice the warps, where they spill at most half as many. Measured on the
# H200 (cutile2triton's BENCHMARKS.md, s32 and s33): cutile-python's fmha decode kernel at its 64 x 256
# tiles spills 296 words at 4 warps and 40 at 8, and ran 2.2x faster at 8; at 64 x 128 tiles ptxas
# (CPU compile) gives 30 words at 4 and 12 at 8, where 8 warps ran slower (17.8 against 12.6 us,
# s31). With descriptors for Q, V and Out at 4 warps (ptxas on the CPU: 98 words, against 768
# through pointers) it ran 21.4 and 26.5 us where pointers at 8 ran 24.4 and 51.4 (s31). The kernels
# of TileGym's attention and GEMM benchmarks that the rule gives 4 warps (gemma, MLA prefill,
# sliding-window, bmm, matmul) spill none.
_C2T_SPILL_MIN_WORDS = 128


def _c2t_spill_candidate(kernel, kwargs):
    """Whether the spill step decides the warps of a launch at the rule's warps (kwargs: plain ints)."""
    return kwargs["num_warps"] < 8 and getattr(kernel, "_c2t_dot_tiles", None) and _c2t_spill_step_on()


def _c2t_spill_entry(kernel, args, kwargs):
    """The spill step's entry for the launch's specialization (kwargs as asked), or None."""
    return _c2t_spill_warps.get(kernel, {}).get(_c2t_stages_key(kernel, args, kwargs))


def _c2t_spill_decided(kernel, args, kwargs):
    """The warps through pointers the spill step decided for the launch's specialization (kwargs at
    the rule's warps as plain ints), or kwargs' own where it decided none."""
    decided = _c2t_spill_entry(kernel, args, kwargs) if _c2t_spill_candidate(kernel, kwargs) else None
    return kwargs["num_warps"] if decided is None else decided[0]


def _c2t_spill_tma_open(kernel, options):
    """Whether a launcher's launch at the rule's warps (options: its keyword arguments) should check
    that its tensors allow TMA descriptors, which the spill step may choose or has chosen for the
    kernel (a kernel with tl.dot and a descriptor path; cutile2triton: cpp/host/launcher.cpp)."""
    return _c2t_is_rule_warps(options.get("num_warps")) and bool(_c2t_spill_candidate(kernel, options))


def _c2t_spill_chose_tma(kernel, args, kwargs):
    """Whether the spill step chose TMA descriptors for the launch's specialization (kwargs as asked)."""
    decided = _c2t_spill_entry(kernel, args, kwargs)
    return decided is not None and decided[4]


def _c2t_spill_tma_kwargs(kernel, args, kwargs, tma):
    """The launch's keyword arguments with the descriptors the spill step chose for its specialization
    (tma: the kernel's flag; the launcher passes it only where the launch's tensors allow them), at
    the rule's warps as a plain int (no step again), or None where it chose none (or has yet to). Their
    stages are the stage retry's own: descriptors take other shared memory than pointers (fmha decode
    at 64 x 256, compiled unspecialized on the CPU: two stages overflow through pointers and fit with
    descriptors; on the H200 both overflow)."""
    warps = kwargs.get("num_warps")
    if not _c2t_is_rule_warps(warps):
        return None
    asked = {**kwargs, "num_warps": int(warps)}
    if not _c2t_spill_candidate(kernel, asked) or not _c2t_spill_chose_tma(kernel, args, asked):
        return None
    return _c2t_described(asked, tma)


def _c2t_described(kwargs, tma, described=None):
    """kwargs with the kernel's TMA flag `tma` set, where the runtime (not the launcher) chose descriptors
    for a launch whose tensors allow them, with Triton's allocator for their scratch (_c2t_tma_allocator).
    `described` (a list) gets True."""
    _c2t_tma_allocator()
    if described is not None:
        described.append(True)
    return {**kwargs, tma: True}


def _c2t_spill_step_on():
    if not _c2t_spill_switch:
        import os

        _c2t_spill_switch.append(os.environ.get("C2T_SPILL_WARPS", "1").strip().lower() not in ("0", "false", "off", "no"))
    return _c2t_spill_switch[0]


def _c2t_spilled_words(kernel, grid, args, at):
    """Words of local memory per thread of the kernel compiled ahead at `at` (JITFunction.warmup, no
    launch; ptxas's spills, CompiledKernel.n_spills after _init_handles loads the module), None where
    the backend does not say. Raises what the compile raises, OutOfResources included."""
    compiled = kernel.warmup(*args, grid=grid, **at)
    compiled._init_handles()
    return compiled.n_spills


def _c2t_spill_free(kernel, grid, args, at, spills, key, tma=None, described=None):
    """`at` with TMA descriptors, or else twice the rule's warps, where the kernel, compiled ahead at
    the rule's warps through pointers, spills registers (_C2T_SPILL_MIN_WORDS) and so compiled spills
    at most half as much; the choice is remembered in `spills` under `key` (a kernel with tl.dot
    launched at the launcher rule's 4 warps). tma: the kernel's TMA flag where this launch's tensors
    allow descriptors, else None (descriptors not tried, and not taken by later launches of the
    specialization either); described: a list that gets True where they are taken. Why: the rule
    reads tile sizes, not registers. cutile-python's fmha
    decode kernel with its B200 64 x 256 tiles fits one pipeline stage on the H200 and spills at 4
    warps: 12.0 us in cuTile, 46.9 converted, 24.4 at 8 warps, 21.4 with descriptors at 4
    (cutile2triton's BENCHMARKS.md, s31 to s33 sections). Never more than one step. Raises Triton's
    OutOfResources as the launch at `at` would (e.g. shared memory, for the stage retry); a kernel
    without a device (the interpreter) keeps `at`. C2T_SPILL_WARPS=0 (read once per process) turns
    the step off."""
    try:
        spilled = _c2t_spilled_words(kernel, grid, args, at) or 0
    except triton.runtime.errors.OutOfResources:
        raise
    except Exception:  # no device, no warmup (the interpreter): as asked, and not tried again
        spills[key] = (at["num_warps"], None, None, None, False)
        return at
    warps, fewer, words_tma, chose_tma = at["num_warps"], None, None, False
    if spilled >= _C2T_SPILL_MIN_WORDS:
        try:
            fewer = _c2t_spilled_words(kernel, grid, args, {**at, "num_warps": 2 * warps})
            if fewer is not None and 2 * fewer <= spilled:
                warps *= 2
        except Exception:  # e.g. too many threads: the rule's warps
            fewer = None
        if tma:
            try:  # Q, V and Out of fmha decode through descriptors: fewer address registers
                words_tma = _c2t_spilled_words(kernel, grid, args, {**at, tma: True})
                chose_tma = words_tma is not None and 2 * words_tma <= spilled
            except Exception:  # e.g. their shared memory does not fit: through pointers
                words_tma = None
    spills[key] = (warps, spilled, fewer, words_tma, chose_tma)
    return _c2t_described(at, tma, described) if chose_tma else {**at, "num_warps": warps}

)PY";

}  // namespace c2t::host::runtime_text
