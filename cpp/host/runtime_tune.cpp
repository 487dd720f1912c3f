// Text of the host runtime block (runtime.h, runtime_source): cuda.tile.tune.exhaustive_search on
// Triton.
#include "host/runtime_sections.h"

namespace c2t::host::runtime_text {

// cuTile's tune.exhaustive_search: same signature and result shape
// (result.best.config, .successes, .failures). Configs are timed from a CUDA
// graph: a converted launch costs tens of microseconds of Python on the host
// (launcher, hints, Triton's argument binding), more than a small kernel runs,
// so plain do_bench timed the host and the search picked among equal numbers
// (TileGym's bmm at 1024^3 on the H200: 34 us chosen where 22 us existed).
extern const char* const kTune = R"PY(
_C2T_SEARCH_STAGES = 4  # the tuning search's other num_stages for pipelined kernels
_C2T_STAGE_MARGIN = 1.25  # configs this close to the fastest are timed at other launch options too
_C2T_STAGE_CONFIGS = 3    # at most this many (a compile each: TileGym's mhc searches 40 configs)
# Kernels with matrix products (the converter's mark _c2t_dot_tiles): the warps the launcher's rule
# chose -> the other count timed. 8 -> 16 only: on the H200 TileGym's fp8 matmul at 256x128x64 ran
# 176-186 TFLOPS at 8 warps and 215-228 at 16 (fp16: 8 was faster); 128x128 tiles at 4 warps lost
# at 8 in both dtypes (cutile2triton's BENCHMARKS.md, "CTA clusters as per-program tiles").
_C2T_SEARCH_WARPS = {8: 16}


def _c2t_more_warps(warps):
    """The other num_warps the search times for a kernel with matrix products whose launcher rule chose
    `warps` (_C2T_SEARCH_WARPS), or None. None on Blackwell (compute capability 10 and up): there Triton
    3.6 compiles tl.dot at 16 warps to mma.sync instead of tcgen05 (the tensor-memory MMA), spilling
    registers, where 8 warps take tcgen05 (TileGym's attention, fused attention and matmul kernels
    compiled for sm_100a; cutile2triton's BENCHMARKS.md, s36)."""
    more = _C2T_SEARCH_WARPS.get(warps)
    if more:
        import torch

        try:
            major = torch.cuda.get_device_capability()[0] if torch.cuda.is_available() else 0
        except (AssertionError, RuntimeError):  # no CUDA device to ask after all (a CPU build of torch)
            major = 0
        if major >= 10:
            return None
    return more
# TMA descriptors are timed for configs of at least this many microseconds of device time only. A
# launch whose choice takes descriptors is never launched natively (the choice holds only where the
# tensors allow them; their scratch is allocated per launch): it runs through Triton's binder, checks
# the descriptors' preconditions and allocates, ~30 us of host time that the search's CUDA-graph
# timing does not see. On the H200, TileGym's bmm at 2 x 1024^3 (13 us) chose descriptors and ran 95
# TFLOPS per call instead of 281; matmul at 16384^3 (13-38 ms) gained 5-22% (cutile2triton's
# BENCHMARKS.md, "The warps phase on the GPU"). Other choices are launched natively per shape.
_C2T_TMA_MIN_US = 100.0
# Descriptors are kept only when they time this fraction faster than the choices so far: on the H200,
# flashinfer's paged decode kernel (TileGym fmha_decode_bsr.py, batch 64 at 8192 tokens) timed 296.8 us
# with descriptors against 299.7-305.2 us through pointers in the search, yet the op then ran 463-650 us per
# call with them against 392-414 us without (cutile2triton's BENCHMARKS.md, s37). Wins that matter are
# larger (matmul 5-22%, fp8 matmul 13-20%).
_C2T_TMA_MARGIN = 0.03


def _c2t_device_ms(fn):
    """Milliseconds of device time per fn() call: replayed from a CUDA graph
    (triton.testing.do_bench_cudagraph), so the host's launch cost does not hide the kernel's;
    plain do_bench when fn cannot be captured."""
    import torch
    import triton.testing

    fn()  # compiles (and settles the pipeline stages) outside any capture
    try:
        return triton.testing.do_bench_cudagraph(fn)
    except Exception:  # not capturable (e.g. a host sync): time it with the host in the loop
        torch.cuda.synchronize()
        return triton.testing.do_bench(fn)


class _C2TMeasurement:
    def __init__(self, config, mean_us):
        self.config, self.mean_us, self.num_samples, self.error_margin_us = config, mean_us, 1, 0.0
        self.num_stages = self.num_warps = None  # None: the launch's own (Triton's default stages)
        self.tma = False  # True: the kernel's TMA descriptor path, where the default was the pointer path
        self.pointer = None  # with tma: the choice on the pointer path, for launches that cannot take descriptors

    def choices(self):
        """The launch options chosen other than the launch's own: num_stages, num_warps, tma."""
        return {k: v for k, v in (("num_stages", self.num_stages), ("num_warps", self.num_warps),
                                  ("tma", self.tma or None)) if v is not None}


class _C2TTuningResult:
    def __init__(self, best, successes, failures):
        self.best, self.successes, self.failures = best, successes, failures


class _C2TProbe(set):
    """One timed run's launches: (kernel, specialization) pairs; `warps`, the num_warps the
    launcher's rule chose for them (None for a caller's own); `stages`, the stages the shared-memory
    retry stepped down to (None: as asked); `tma`, whether each launch's tensors allow the TMA
    descriptor path its launcher did not take by default; `options`, the launch options the search
    tries on them (_c2t_run_kernel; "tma": descriptors where allowed)."""

    def __init__(self, options=None):
        super().__init__()
        self.options, self.warps, self.stages, self.tma = dict(options or {}), set(), set(), set()


class _C2TRun:
    """What timing one config takes: the launcher's module (runtime), the hinted kernel, grid and
    arguments, whether more stages (pipelined) and warps (warps) may be tried, and the probe of its
    fastest run so far."""

    def __init__(self, runtime, k, grid, args, pipelined, warps):
        self.runtime, self.k, self.grid, self.args = runtime, k, grid, args
        self.pipelined, self.warps, self.probe = pipelined, warps, None


def _c2t_changes(before, after):
    """{position: new value} where two argument tuples differ (tensors by identity, values by ==);
    None when their lengths differ."""
    if len(before) != len(after):
        return None
    same = lambda a, b: a is b or (type(a) is type(b) and isinstance(a, (int, float, bool, str)) and a == b)
    return {i: b for i, (a, b) in enumerate(zip(before, after)) if not same(a, b)}


def _c2t_with_field(cfg, value, want, effect):
    """A copy of cfg with the one int field now equal to `value` set to `want`, such that
    effect(copy) holds; None without one."""
    import copy

    for field, v in vars(cfg).items():
        if type(v) is int and v == value:
            trial = copy.copy(cfg)
            setattr(trial, field, want)
            if effect(trial):
                return trial
    return None


def _c2t_programs(grid):
    """The number of programs of a launch grid (a tuple of ints), None if it is not one."""
    n = 1
    for g in grid if isinstance(grid, (tuple, list)) else (None,):
        if type(g) is not int:
            return None
        n *= g
    return n


def _c2t_cluster_shares(cfg, fn, grid_fn, args_fn, hints_fn):
    """The per-program shares of a config whose hints ask for a CTA cluster (num_ctas 2 or 4), as
    other configs; [] for other configs or where none can be made.
    cuTile runs a cluster's num_ctas CTAs on one tile; Triton 3.6 runs no clusters
    (_c2t_launch_options drops num_ctas), so the config as it is gives one program num_ctas times the
    tile, which overflows shared memory or spills. A share splits the matrix product's tile among the
    CTAs and sets num_ctas to 1: a 2-CTA tile along its rows or along its columns (both are shares;
    which runs faster depends on the dtype), a 4-CTA tile along both. The converter marks which
    kernel parameters are the accumulator's rows and columns (fn._c2t_dot_tiles, positions in
    args_fn's tuple); the config's fields feeding them are found by trying them: a copy of cfg
    counts only if args_fn and hints_fn show exactly the intended change, and halving a tile gives
    the grid more programs (a kernel whose one program covers a whole extent, or a persistent grid,
    gets no share: the host code does not spread that tile over programs). On the H200 (TileGym's
    matmul, 256x256x64 in 2-CTA clusters; cutile2triton's BENCHMARKS.md, "CTA clusters as
    per-program tiles"): fp16 16384^3 as 128x256x64 programs 650 TFLOPS and as 256x128x64 645 (the
    list's 128x128x32: 556; cuTile 552); fp8 as 256x128x64 228 at 16 warps, as 128x256x64 93."""
    tiles = getattr(fn, "_c2t_dot_tiles", None)
    hints = hints_fn(cfg) if hints_fn else {}
    ctas = _c2t_resolve(hints.get("num_ctas")) if isinstance(hints, dict) else None
    if type(ctas) is not int or ctas not in (2, 4) or not tiles or not hasattr(cfg, "__dict__"):
        return []
    rows, cols = ({t[i] for t in tiles} for i in (0, 1))
    row, col = (next(iter(d)) if len(d) == 1 else None for d in (rows, cols))  # one parameter each, or None
    shares = []
    for split in ([row], [col]) if ctas == 2 else ([row, col],):
        share = None if None in split else cfg
        for pos in split:
            share = share if share is None else _c2t_halved(share, pos, grid_fn, args_fn)
        if share is not None:
            args = tuple(args_fn(share))
            share = _c2t_with_field(share, ctas, 1, lambda t: _c2t_changes(args, tuple(args_fn(t))) == {}
                                    and _c2t_resolve(hints_fn(t).get("num_ctas")) == 1)
        if share is not None:
            shares.append(share)
    return shares


def _c2t_halved(cfg, pos, grid_fn, args_fn):
    """A copy of cfg whose argument at `pos` (a tile extent, at least 128 and even) is halved, and
    nothing else, and whose grid has more programs; None without one."""
    args, programs = tuple(args_fn(cfg)), _c2t_programs(grid_fn(cfg))
    value = args[pos] if pos < len(args) else None
    if type(value) is not int or value < 128 or value % 2 or programs is None:  # halves of >= 64 (a wgmma's rows)
        return None
    return _c2t_with_field(cfg, value, value // 2, lambda t: _c2t_changes(args, tuple(args_fn(t))) == {pos: value // 2}
                           and (_c2t_programs(grid_fn(t)) or 0) > programs)


def _c2t_exhaustive_search(search_space, stream, grid_fn, kernel, args_fn, hints_fn=None, *, quiet=False,
                           single_run_timeout_sec=None):
    """cuTile's tune.exhaustive_search on Triton: times every config (device time, see
    _c2t_device_ms) and returns the fastest. Without a CUDA device (e.g. the
    TRITON_INTERPRET=1 interpreter, where do_bench cannot run) the first config is
    returned untimed, as with TILEGYM_DISABLE_AUTOTUNE.
    CTA clusters: a config asking for num_ctas 2 or 4 brings its per-program shares as more configs
    (_c2t_cluster_shares), which the search may return.
    Launch options: cuTile's compiler chooses a kernel's pipelining depth and threads itself, Triton
    takes num_stages (default 3) and num_warps (the launcher's rule, _c2t_num_warps). The configs
    within _C2T_STAGE_MARGIN of the fastest (at most _C2T_STAGE_CONFIGS of them: each costs a
    compile) are timed again: at _C2T_SEARCH_STAGES if the kernel has a loop Triton
    software-pipelines (the converter's mark _c2t_pipelined), then, for a kernel with matrix products
    whose warps the hints leave to the rule (_c2t_dot_tiles), at _C2T_SEARCH_WARPS, then, where the
    launcher took its default pointer path but every tensor allows TMA descriptors and the config runs
    at least _C2T_TMA_MIN_US, with descriptors (at the warps chosen, and at _C2T_SEARCH_WARPS too
    where the rule's were kept: TileGym's fp8 matmul at 256x128x64 on the H200 ran 190-199 TFLOPS
    through pointers at 8 warps and 160 at 16, but 215-231 with descriptors at 16; BENCHMARKS.md,
    "The warps phase on the GPU"). The winner's
    choices are kept for the launches it timed (_c2t_tuned_options of the launcher's module: kernel
    objects cross modules), which later launches of the same kernel, constexprs, dtypes, options
    and other non-tensor arguments use. Measured on the H200: TileGym's matmul 128x128x32 at 1024^3
    fp16 196 -> 215 TFLOPS at 4 stages, 556 -> 532 at 8192^3 (cutile2triton's BENCHMARKS.md,
    "Pipeline stages in the tuning search")."""
    import os

    import torch
    import triton.testing

    configs = list(search_space)
    if not configs:
        raise ValueError("exhaustive_search: empty search space")
    if os.environ.get("TRITON_INTERPRET") == "1" or not torch.cuda.is_available():
        return _C2TTuningResult(_C2TMeasurement(configs[0], float("nan")), [], [])
    if isinstance(stream, torch.cuda.Stream) and stream != torch.cuda.current_stream(stream.device):
        with torch.cuda.stream(stream):  # cuTile times the configs on the stream it is given
            return _c2t_exhaustive_search(configs, None, grid_fn, kernel, args_fn, hints_fn, quiet=quiet)

    def timed(run, probing, options=None):  # run's launch with probe `options`: (us, its probe or None)
        runtime, probe, me = run.runtime, _C2TProbe(options), _c2t_threading.get_ident()

        def swap(value):  # this thread's probe in the launcher's module (copied: other threads read it)
            with runtime["_c2t_probe_lock"]:
                probes = dict(runtime["_c2t_stage_probe"] or {})
                before = probes.pop(me, None)
                if value is not None:
                    probes[me] = value
                runtime["_c2t_stage_probe"] = probes or None
            return before

        before = swap(probe) if probing else None
        try:
            us = _c2t_device_ms(lambda: _c2t_launch(run.grid, run.k, *run.args)) * 1000.0
            return us, probe if probing else None
        finally:
            if probing:
                swap(before)

    def hinted(cfg):
        k = kernel(cfg) if callable(kernel) and not hasattr(kernel, "_c2t_launcher") and not _c2t_is_kernel_object(
            kernel) else kernel
        return _c2t_kernel(k, **(hints_fn(cfg) if hints_fn else {}))

    listed = len(configs)
    for cfg in configs[:listed]:
        try:
            shares = _c2t_cluster_shares(cfg, hinted(cfg)._pyfunc, grid_fn, args_fn, hints_fn)
        except Exception:  # a config the shares' fields do not fit: only the config as given
            shares = []
        for share in shares:
            if not any(vars(share) == getattr(c, "__dict__", None) for c in configs):
                configs.append(share)

    successes, failures, runs = [], [], {}
    for i, cfg in enumerate(configs):
        try:
            k = hinted(cfg)
            grid, args = grid_fn(cfg), args_fn(cfg)
        except Exception as e:  # a share the host code's functions do not take: recorded (a listed config's raises)
            if i < listed:
                raise
            failures.append((cfg, type(e), str(e)))
            continue
        launcher = getattr(k._pyfunc, "_c2t_launcher", None)
        runtime = getattr(launcher, "__globals__", {})  # the launcher's module: its _c2t_run_kernel
        probing = "_c2t_stage_probe" in runtime
        run = _C2TRun(runtime, k, grid, args, pipelined=probing and getattr(k._pyfunc, "_c2t_pipelined", False),
                      warps=probing and bool(getattr(k._pyfunc, "_c2t_dot_tiles", None))
                      and "num_worker_warps" not in k.hints)
        try:
            us, run.probe = timed(run, probing)  # every launch recorded: other options may be timed
        except Exception as e:  # a config that does not compile or run is recorded, as in cuTile
            failures.append((cfg, type(e), str(e)))
            continue
        m = _C2TMeasurement(cfg, us)
        successes.append(m)
        runs[id(m)] = run
    if not successes:
        raise RuntimeError(f"exhaustive_search: all {len(configs)} configs failed; first: {failures[0][2]}")

    def adopt(m, options):  # m timed again with `options` on top of its choices so far, kept if faster
        run, now = runs[id(m)], m.choices()
        try:
            us, probe = timed(run, True, {**now, **options})
        except Exception:  # e.g. more stages overflow shared memory, a compile fails at those warps: as it was
            return False
        if us >= m.mean_us * (1.0 - (_C2T_TMA_MARGIN if options.get("tma") and not m.tma else 0.0)):
            return False
        if options.get("tma") and not m.tma:  # what the pointer path chose, for launches without descriptors
            m.pointer = now
        m.mean_us, run.probe = us, probe
        m.num_stages, m.num_warps = options.get("num_stages", m.num_stages), options.get("num_warps", m.num_warps)
        m.tma = options.get("tma", m.tma)
        stepped = probe.stages
        if m.num_stages is None and len(stepped) == 1 and None not in stepped:
            m.num_stages = next(iter(stepped))  # where the shared-memory retry stepped down
        return True

    fastest = min(m.mean_us for m in successes)
    close = sorted((m for m in successes if m.mean_us <= fastest * _C2T_STAGE_MARGIN),
                   key=lambda m: m.mean_us)[:_C2T_STAGE_CONFIGS]
    for m in close:  # more pipeline stages
        if runs[id(m)].pipelined:
            adopt(m, {"num_stages": _C2T_SEARCH_STAGES})

    for m in close:  # more warps, at the stages chosen; then TMA descriptors, at the warps chosen
        run = runs[id(m)]
        rule = run.probe.warps if run.warps else {None}  # the warps the launcher's rule chose (None: not the rule)
        more = _c2t_more_warps(next(iter(rule))) if len(rule) == 1 and None not in rule else None
        if more:
            adopt(m, {"num_warps": more})
        # Every launch's tensors allow the TMA descriptors its launcher did not take by default.
        if run.probe is not None and run.probe.tma == {True} and m.mean_us >= _C2T_TMA_MIN_US:
            # With descriptors the warps balance differs: where the rule's warps were kept, both counts.
            adopt(m, {"tma": True})
            if more and m.num_warps is None:
                adopt(m, {"tma": True, "num_warps": more})
    best = min(successes, key=lambda m: m.mean_us)
    chosen = {**best.choices(), **({"pointer": best.pointer} if best.tma else {})}
    table = runs[id(best)].runtime.get("_c2t_tuned_options", {})
    for kern, key in runs[id(best)].probe or ():
        if chosen:
            table.setdefault(kern, {})[key] = chosen
        elif key in table.get(kern, {}):  # the launch's own options won this time
            del table[kern][key]
            if not table[kern]:
                del table[kern]  # its launches are reused again (_c2t_run_kernel)
        # Launches reused natively or from the compiled-kernel table keep the options they were
        # compiled with: the next launch of each specialization goes through kernel[grid] again.
        kern.__dict__.pop("_c2t_fast", None)
        kern.__dict__.pop("_c2t_fast_shapes", None)
        kern.__dict__.pop("_c2t_compiled", None)
    if not quiet:
        at = "".join(f" {k}={v}" for k, v in chosen.items())
        print(f"exhaustive_search: best of {len(successes)} configs: {best.config}{' at' + at if at else ''} "
              f"({best.mean_us:.1f} us)")
    return _C2TTuningResult(best, successes, failures)
)PY";

}  // namespace c2t::host::runtime_text
