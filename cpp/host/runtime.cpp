#include "host/runtime.h"

#include <algorithm>

namespace c2t::host {

namespace {

// Every launcher's kernel launch. cuTile picks each kernel's pipelining depth
// itself; Triton's default num_stages=3 (NVIDIA) keeps that many buffers of
// every tile loaded inside a loop in shared memory, so tile sizes chosen for
// cuTile can overflow it (TileGym's MLA decoding and gemma attention on the
// H200: "out of resource: shared memory"; num_stages=1 fits). A mature
// launcher steps the stages down rather than failing, and remembers per
// specialization what fit, so later launches neither fail first nor lose
// pipelining on specializations that fit at the default.
const char* kRunKernel = R"PY(
import threading as _c2t_threading

# Pipeline stages that fit in shared memory: {kernel: {specialization: num_stages or None}}.
_c2t_fitting_stages = {}
# Launch options the tuning search chose (_c2t_exhaustive_search): {kernel: {specialization and
# scalar arguments: {"num_stages": n, "num_warps": w, "tma": True, "pointer": {...}}, those it
# changed from the launch's own}}; "tma": the kernel's TMA descriptor path where the launch's
# tensors allow it, "pointer": the stages and warps chosen on the pointer path, for those that do not.
_c2t_tuned_options = {}
_c2t_constexpr_positions = {}  # kernel -> indices of its constexpr parameters
# While _c2t_exhaustive_search times a config: {thread id: probe}, a set to which each of that
# thread's launches adds its (kernel, _c2t_stages_key(..., scalars=True)), and whose `warps` gets
# the num_warps each launch chose before the probe's `options` (what the search tries) replaced
# them, `tma` whether its tensors allow TMA descriptors; they go through kernel[grid] (no reuse, no
# earlier search's choice). Changed under _c2t_probe_lock.
_c2t_stage_probe = None
_c2t_probe_lock = _c2t_threading.Lock()


def _c2t_stages_key(kernel, args, kwargs, scalars=False):
    """A launch's specialization for the stages tables: constexpr values, tensor dtypes and the
    options (less num_stages, which these tables decide); with `scalars`, also the other arguments
    that are not tensors (extents, strides, scalars): a search's choice holds for the launches it
    timed, not for every shape its config serves. Cheap to build (positions cached): every launch of
    a kernel that once overflowed or was tuned builds it."""
    at = _c2t_constexpr_positions.get(kernel)
    if at is None:
        at = _c2t_constexpr_positions[kernel] = tuple(
            i for i, p in enumerate(getattr(kernel, "params", ())) if p.is_constexpr)
    key = (tuple(args[i] for i in at if i < len(args)), tuple(a.dtype for a in args if hasattr(a, "dtype")),
           tuple(sorted((k, v) for k, v in kwargs.items() if k != "num_stages")))
    if scalars:
        key += (tuple(a for i, a in enumerate(args) if i not in at and not hasattr(a, "dtype")),)
    try:
        hash(key)
    except TypeError:
        key = repr(key)
    return key


def _c2t_with_stages(kernel, args, kwargs, stages):
    """kwargs plus num_stages=stages, and the same stages for the kernel's prefetching grid-stride
    loops where the launch may set them."""
    extra = {"num_stages": stages}
    if _c2t_prefetch_param(kernel, args, kwargs):
        extra["C2T_PREFETCH_STAGES"] = stages
    return {**kwargs, **extra}


def _c2t_prefetch_param(kernel, args, kwargs):
    """Whether the launch may set the kernel's C2T_PREFETCH_STAGES, the constexpr stages of its
    grid-stride loops (cutile2triton: cpp/lower/loop_pipelining.h). The converter appends it after
    the parameters the launcher passes: a parameter of that name among the positional arguments is
    the kernel's own (passing it again would be a TypeError), and the caller's own value stays."""
    names = getattr(kernel, "arg_names", ())
    return ("C2T_PREFETCH_STAGES" in names and "C2T_PREFETCH_STAGES" not in kwargs
            and list(names).index("C2T_PREFETCH_STAGES") >= len(args))


_c2t_missing = object()

try:  # cutile2triton's native launch of reused kernels; without cutile2triton, launches go through Triton
    from cutile2triton.fast_launch import ABI as _c2t_fast_abi, plan as _c2t_fast_plan
    if _c2t_fast_abi != 2:  # another cutile2triton's launch() (arguments this runtime does not pass)
        _c2t_fast_plan = None
except ImportError:
    _c2t_fast_plan = None


def _c2t_launch_state(kernel):
    """(device, settings, stream, Triton's kernel cache, binder) of a launch of `kernel` that may
    reuse a compiled kernel; None where it must go through kernel[grid]; () before the kernel's
    first launch on the device, which builds Triton's binder. None (always kernel[grid]) for the
    TRITON_INTERPRET=1 interpreter, pre-run hooks, launch hooks (e.g. the proton profiler), global
    values that changed since compiling (run raises), and Triton versions without these internals.
    settings: the kernel's and Triton's debug flags and Triton's instrumentation mode, which
    JITFunction.run compiles with."""
    caches = getattr(kernel, "device_caches", None)
    if caches is None:
        return None
    try:
        runtime = triton.knobs.runtime
        if kernel.pre_run_hooks or runtime.launch_enter_hook.calls or runtime.launch_exit_hook.calls:
            return None
        if kernel.used_global_vals:
            for (name, _), (value, scope) in kernel.used_global_vals.items():
                if scope.get(name, _c2t_missing) != value:
                    return None
        driver = triton.runtime.driver.active
        device = driver.get_current_device()
        per_device = caches.get(device)
        if per_device is None:
            return ()
        # JITFunction.run's debug option: kwargs.get("debug", kernel.debug) or knobs.runtime.debug.
        settings = (getattr(kernel, "debug", None), runtime.debug, triton.knobs.compilation.instrumentation_mode)
        return device, settings, driver.get_current_stream(device), per_device[0], per_device[4]
    except AttributeError:
        return None


def _c2t_compiled_slot(kernel, args, kwargs):
    """(table, key, bound arguments, state) under which a launch's compiled kernel is remembered,
    state being _c2t_launch_state's; None or () as _c2t_launch_state.

    Why: Triton 3.6's JITFunction.run does per-launch host work beyond binding the arguments and
    launching (cache key string, launch metadata, hooks): on the H200's host ~17 us per launch
    beyond the launch itself, where cuTile's whole ct.launch takes ~7 us (cutile2triton's
    BENCHMARKS.md, "Host launch path"); at small shapes that host time is what
    triton.testing.do_bench measures. The key is Triton's own specialization of the arguments (its
    binder: signature types, 16-byte pointer alignment, integer divisibility and value 1, constexpr
    values; one entry per kernel parameter, so the flat key is unambiguous) plus the launch options
    and the state's settings: the compiled kernel reused is the one JITFunction.run would pick. Keys
    that cannot be hashed fail the caller's table lookup (TypeError) and go through kernel[grid]."""
    state = _c2t_launch_state(kernel)
    if not state:
        return state
    device, settings, kernel_cache = state[0], state[1], state[3]
    bound, specialization, _ = state[4](*args, **kwargs)
    slots = kernel.__dict__.get("_c2t_compiled")
    if slots is None:
        slots = kernel._c2t_compiled = {}
    slot = slots.get(device)
    if slot is None or slot[0] is not kernel_cache:  # Triton's cache was rebuilt (e.g. new source)
        slot = slots[device] = (kernel_cache, {})
    # The rule's warps (_C2TRuleWarps) equal a caller's same count but may launch at the spill step's.
    return slot[1], (*specialization, *kwargs.items(), *settings, _c2t_is_rule_warps(kwargs.get("num_warps"))), \
        bound, state


def _c2t_launch_entry(compiled, kernel_cache, specialization, bound, nargs):
    """(launch, its arguments before the grid's, compiled, Triton's cache key of it, native plan)
    for a launched CompiledKernel, or None if Triton's cache does not hold it: what
    JITFunction.run does once it holds the kernel, less the launch hooks (_c2t_launch_state checked
    that none is set) and their metadata. The key lets each reuse check that Triton's cache still
    holds this kernel (a cache cleared or overwritten in place, e.g. by JITFunction.preload, makes
    Triton compile again). Triton 3.6's CudaLauncher.__call__ allocates the global and profiling
    scratch buffers and calls its C launch; for a kernel that needs neither buffer the C launch is
    called directly (a Python frame less per launch). The plan (cutile2triton.fast_launch, None
    without it) launches the kernel natively while the arguments keep this specialization."""
    key = next((k for k, v in kernel_cache.items() if v is compiled), _c2t_missing)
    if key is _c2t_missing:
        return None
    try:  # another cutile2triton's plan() (the installed one, not this module's converter): Triton launches
        plan = _c2t_fast_plan(compiled, specialization, bound, nargs) if _c2t_fast_plan is not None else None
    except Exception:
        plan = None
    run = compiled.run
    launch = getattr(run, "launch", None)
    if (launch is not None and getattr(run, "global_scratch_size", None) == 0
            and getattr(run, "profile_scratch_size", None) == 0 and hasattr(run, "launch_cooperative_grid")
            and hasattr(run, "launch_pdl")):
        return launch, (compiled.function, run.launch_cooperative_grid, run.launch_pdl, None, None,
                        compiled.packed_metadata, None, None, None), compiled, key, plan
    return run, (compiled.function, compiled.packed_metadata, None, None, None), compiled, key, plan


def _c2t_run_native(kernel, grid, args, kwargs, expand=None):
    """The compiled kernel launched natively (kernel._c2t_fast: device, settings, keyword arguments
    and their types, Triton's cache, key and compiled kernel, and cutile2triton.fast_launch's launch
    and plan), or None where this launch may differ from the last reused one: another device,
    settings, stream-independent state, keyword arguments (by value and type: 1, True and 1.0 are
    equal but specialize apart), grid function, or an argument's specialization (checked natively).
    args: the kernel's positional arguments, or with `expand` (bytes, one code per argument) a
    converted launcher's, arrays standing for themselves, their extents and strides, which the
    native launch expands as the launcher does (cutile2triton: cpp/host/launcher.cpp): a launcher's
    reused launch is then one native call (BENCHMARKS.md, "Host time per call"). A kernel with a
    tuning search's choices (which hold per shape) is launched natively from a launcher only for the
    exact shape of an earlier launch (kernel._c2t_fast_shapes, keyed by _c2t_shape_key)."""
    fast = kernel.__dict__.get("_c2t_fast")
    if expand is not None and _c2t_tuned_options and kernel in _c2t_tuned_options:
        # Choices hold per shape: natively only a shape launched before (never _c2t_fast, which
        # another module's runtime, without this module's choices, may have set).
        shapes = kernel.__dict__.get("_c2t_fast_shapes")
        try:
            fast = shapes.get(_c2t_shape_key(args)) if shapes else None
        except TypeError:  # an argument that cannot be hashed
            fast = None
    if fast is None or callable(grid) or (expand is not None and "num_stages" in kwargs):
        return None  # a launcher's num_stages also sets its prefetching loops' (_c2t_run_kernel): not here
    if _c2t_stage_probe is not None and _c2t_threading.get_ident() in _c2t_stage_probe:
        return None  # the tuning search times this thread's launches: _c2t_run_kernel records them
    device, settings, options, option_types, cache, key, compiled, native, plan = fast
    state = _c2t_launch_state(kernel)
    try:  # types in the keywords' order: the same order too
        same = (state and state[0] == device and state[1] == settings and kwargs == options
                and list(kwargs) == list(options) and tuple(map(type, kwargs.values())) == option_types)
    except (TypeError, ValueError):  # a value without a plain ==
        same = False
    if same and state[3] is cache and cache.get(key) is compiled:
        n = len(grid)
        if native(plan, grid[0], grid[1] if n > 1 else 1, grid[2] if n > 2 else 1, state[2], args, None, expand):
            return compiled
    return None


def _c2t_shape_key(args):
    """A launcher's arguments by exact extent: each array's dtype, shape and strides, every other
    argument itself (hashing it raises TypeError for an unhashable one). A tuning search's choice
    holds per shape (_c2t_stages_key with scalars), which the native launch's check of Triton's
    specialization (divisibility, alignment) does not see; the dtype keeps launches of one shape
    in several dtypes apart (each native)."""
    return tuple((a.dtype, a.shape, a.stride()) if hasattr(a, "data_ptr") else a for a in args)


def _c2t_check_tile_dims(kernel, *dims):
    """Raises ValueError naming the kernel and parameter for a tile dimension (a constexpr
    parameter the kernel's tiles are shaped by: dims are (name, value) pairs) that is an int but
    not a power of two. cuTile requires tile dimensions to be powers of two, and Triton's
    tl.arange / block shapes do too, but fail deep inside compilation without saying which."""
    for name, value in dims:
        if type(value) is int and (value <= 0 or value & (value - 1)):
            raise ValueError(f"kernel {kernel}: tile dimension {name}={value} is not a power of two "
                             "(cuTile requires powers of two, and so do Triton's block shapes)")


def _c2t_run_kernel(kernel, grid, /, *args, **kwargs):
    """kernel[grid](*args, **kwargs), with fewer software-pipeline stages if the kernel does not
    fit in shared memory. cuTile chooses a kernel's pipelining depth itself; Triton's default
    num_stages=3 keeps three buffers of each tile loaded in a loop, which at cuTile's tile sizes
    can exceed a block's shared memory. Unless the caller set num_stages, an OutOfResources for
    shared memory is retried with 2, then 1 stages (for the kernel's prefetching grid-stride
    loops too; _c2t_run_kernel_jit says when 2 is skipped), and the stages that fit are
    remembered for the kernel's specialization (constexpr values, dtypes, options). Once a specialization has launched, later launches of it
    reuse its compiled kernel directly (_c2t_compiled_slot, _c2t_launch_entry); while the
    arguments keep the last launch's specialization and options, natively in one call
    (_c2t_run_native), without Triton's binder. Specializations the tuning search timed at other
    stages, warps or TMA descriptors launch with its choice (_c2t_tuned_options).
    A launcher passes _c2t_tma (its kernel's TMA flag, e.g. "USE_TMA") where the pointer path was
    asked for by default but the tensors allow descriptors: the search may time them, or has."""
    tma = kwargs.pop("_c2t_tma", None)
    shape = kwargs.pop("_c2t_shape", None)  # a launcher's arguments, where it tried the native launch
    probe = _c2t_stage_probe.get(_c2t_threading.get_ident()) if _c2t_stage_probe else None
    if probe is not None:
        probe.add((kernel, _c2t_stages_key(kernel, args, kwargs, scalars=True)))
        warps = kwargs.get("num_warps")
        getattr(probe, "warps", set()).add(warps if _c2t_is_rule_warps(warps) else None)  # None: the caller's
        getattr(probe, "tma", set()).add(tma is not None)
        options = getattr(probe, "options", {})
        kwargs = {**kwargs, **{k: v for k, v in options.items() if k != "tma"}}
        if tma and options.get("tma"):
            kwargs = _c2t_described(kwargs, tma)
    if "num_stages" in kwargs:  # the caller's stages bound the prefetching loops' too
        kwargs = _c2t_with_stages(kernel, args, kwargs, kwargs["num_stages"])
    if probe is not None:  # timed as asked (the spill step's choice too): neither reused nor at an earlier search's
        result = _c2t_run_kernel_jit(kernel, grid, args, kwargs, tma)
        # where the shared-memory retry stepped the stages down (None: as asked)
        stepped = None if "num_stages" in kwargs else _c2t_fitting_stages.get(kernel, {}).get(
            _c2t_stages_key(kernel, args, kwargs))
        getattr(probe, "stages", set()).add(stepped)
        return result
    # Descriptors the spill step chose for this specialization (where its tensors allow them).
    spill_tma = _c2t_spill_tma_kwargs(kernel, args, kwargs, tma) if tma and _c2t_spill_warps else None
    if _c2t_tuned_options and kernel in _c2t_tuned_options:
        # The search's choices hold per shape (scalar arguments), which Triton's specialization does
        # not see: the launch is keyed by the options chosen for its shape (as kernel[grid] gets
        # them), and launched natively only from a launcher and for that exact shape (not with
        # _c2t_fast, which the search removed and which keys by the specialization alone).
        chosen = _c2t_tuned_choice(kernel, args, kwargs)
        if chosen and chosen.get("tma"):  # holds only where the tensors allow descriptors: not natively
            shape = None
        at = _c2t_tuned_kwargs(kernel, args, kwargs, tma, chosen)
        if at is None and spill_tma is not None:  # no choice for this shape: the spill step's descriptors
            return _c2t_run_compiled(kernel, grid, args, spill_tma,
                                     lambda: _c2t_run_kernel_jit(kernel, grid, args, spill_tma))
        if at is not None and tma and at.get(tma):  # the spill step's descriptors (the search timed them): likewise
            shape = None
        if at is not None:
            try:  # the table's key holds the options the kernel was compiled with: no retry inside
                return _c2t_run_compiled(kernel, grid, args, at, lambda: kernel[grid](*args, **at), kwargs, shape,
                                         chosen)
            except triton.runtime.errors.OutOfResources as e:
                if e.name != "shared memory":
                    raise
                _c2t_drop_choice(kernel, args, kwargs)  # timed on another device: this shape as untuned
        described = []  # filled where the launch took the spill step's descriptors: not kept under these options
        return _c2t_run_compiled(kernel, grid, args, kwargs,
                                 lambda: _c2t_run_kernel_jit(kernel, grid, args, kwargs, tma, described), kwargs, shape,
                                 None, described)
    if spill_tma is not None:  # keyed by its own options: never reused for a pointer launch
        return _c2t_run_compiled(kernel, grid, args, spill_tma, lambda: _c2t_run_kernel_jit(kernel, grid, args, spill_tma))
    compiled = _c2t_run_native(kernel, grid, args, kwargs)
    if compiled is not None:
        return compiled
    described = []
    return _c2t_run_compiled(kernel, grid, args, kwargs, lambda: _c2t_run_kernel_jit(kernel, grid, args, kwargs, tma, described),
                             described=described)


def _c2t_run_compiled(kernel, grid, args, kwargs, run, asked=None, shape=None, chosen=None, described=None):
    """Launches the compiled kernel an earlier launch of the same specialization and options
    (kwargs) got, without JITFunction.run (_c2t_compiled_slot); else run() (kernel[grid] at a
    search's choice, or with _c2t_run_kernel_jit's retries: either decides the kernel from the
    same inputs) and remembers the kernel it compiled or found. Once reused, the next
    launches like it are launched natively (_c2t_run_native): kernels without a tuning search's
    choices by specialization (_c2t_fast); kernels with them only where a launcher passed its
    arguments (shape), by their exact shape, with the options it asked for (asked: the keyword
    arguments before the search's choice, as the launcher's native attempt passes them) while the
    search's choice for the shape is still `chosen`. described: a list run() fills where the kernel it
    launched took descriptors that kwargs did not ask for (the spill step's), kept then under none."""
    slot = _c2t_compiled_slot(kernel, args, kwargs)
    if slot:
        table, table_key, bound, state = slot
        try:
            entry = table.get(table_key)
        except TypeError:  # a key that cannot be hashed (an unhashable option or constexpr)
            entry, slot = None, None
        if entry is not None and state[3].get(entry[3]) is entry[2]:  # still Triton's kernel for it
            launch, head, compiled, key, plan = entry
            if callable(grid):
                grid = grid(bound)
            n = len(grid)
            launch(grid[0], grid[1] if n > 1 else 1, grid[2] if n > 2 else 1, state[2], *head, *bound.values())
            if plan is not None and _c2t_spill_warps and _c2t_is_rule_warps(kwargs.get("num_warps")) and \
                    _c2t_spill_chose_tma(kernel, args, kwargs):
                pass  # pointers where the spill step chose descriptors: not natively (a launch checks its tensors first)
            elif plan is not None and kernel not in _c2t_tuned_options:  # the next launches like it: natively
                kernel._c2t_fast = (state[0], state[1], kwargs, tuple(map(type, kwargs.values())), state[3], key,
                                    compiled, *plan)
            elif plan is not None and shape is not None:  # a tuned kernel: natively for this shape only
                shapes = kernel.__dict__.get("_c2t_fast_shapes")
                if shapes is None or len(shapes) >= 256:  # bounded: shapes differ from call to call in some ops
                    shapes = kernel._c2t_fast_shapes = {}
                try:
                    exact = _c2t_shape_key(shape)
                    shapes[exact] = (state[0], state[1], asked, tuple(map(type, asked.values())), state[3], key,
                                     compiled, *plan)
                    # A search in another thread may have changed the shape's choice since this launch
                    # read it, its removal of the native launches coming first: then not natively.
                    if _c2t_tuned_choice(kernel, args, asked) is not chosen:
                        shapes.pop(exact, None)
                except TypeError:  # an argument that cannot be hashed: not natively
                    pass
            return compiled
    result = run()
    if slot == ():  # the device's first launch: Triton has built its binder now
        slot = _c2t_compiled_slot(kernel, args, kwargs)
    if described:  # the spill step's descriptors: kept under their own options (_c2t_spill_tma_kwargs), not these
        slot = None
    if slot and getattr(result, "function", None) is not None:  # launched, not a future
        table, table_key, bound, state = slot
        # The key starts with the binder's specialization, one entry per kernel parameter.
        entry = _c2t_launch_entry(result, state[3], table_key[:len(bound)], bound, len(args))
        try:
            if entry is None:
                table.pop(table_key, None)
            else:
                table[table_key] = entry
        except TypeError:
            pass
    return result


def _c2t_run_kernel_jit(kernel, grid, args, kwargs, tma=None, described=None):
    """_c2t_run_kernel through kernel[grid] without a tuning search's choice: the shared-memory
    retry, the stages of a kernel with a cuTile occupancy (_c2t_occupancy_start), and the warps or
    TMA descriptors (tma: the kernel's flag, where this launch's tensors allow them) of a kernel that
    spills at the rule's warps (_c2t_spill_free, decided once per specialization; `described`, a list,
    gets True where the launch took its descriptors). The retry
    tries 2 stages, then 1; a kernel whose pipelined loops are only grid-stride prefetches (the
    converter's mark _c2t_prefetch_only: no tl.dot), launched at the 16 warps the launcher's rule
    gives tiles of 16384+ elements, goes straight to 1, as measured: TileGym's RMSNorm backward,
    fp32 rows of 16384 on the H200, 767 GB/s at 2 stages and 2943 at 1 at 16 warps (rows of 16384
    gained nothing from prefetching either). At 8 warps it was the other way (476 at 1 stage, 2941
    at 2), so other warps keep the 2-then-1 order (cutile2triton's BENCHMARKS.md, s24)."""
    rule_warps = _c2t_is_rule_warps(kwargs.get("num_warps"))
    if rule_warps:  # Triton gets a plain int
        kwargs = {**kwargs, "num_warps": int(kwargs["num_warps"])}
    asked = kwargs  # the stages table's key: as asked, before the spill step's warps
    spills = None  # the spill step's table and key where it has yet to decide this specialization's warps
    if rule_warps and _c2t_spill_candidate(kernel, kwargs):
        spills, spill_key = _c2t_spill_warps.setdefault(kernel, {}), _c2t_stages_key(kernel, args, kwargs)
        if spill_key in spills:
            if tma and spills[spill_key][4]:  # descriptors, where this launch's tensors allow them
                kwargs = _c2t_described(kwargs, tma, described)
            else:
                kwargs = {**kwargs, "num_warps": spills[spill_key][0]}
            spills = None
    fits, start = _c2t_fitting_stages.get(kernel), 0
    occupied = "num_stages" not in kwargs and getattr(kernel, "_c2t_occupancy", 1) > 1
    if (fits is None and not occupied) or "num_stages" in kwargs:  # never overflowed, or stages chosen
        try:
            at = kwargs if spills is None else _c2t_spill_free(kernel, grid, args, kwargs, spills, spill_key, tma,
                                                                 described)
            return kernel[grid](*args, **at)
        except triton.runtime.errors.OutOfResources as e:
            if e.name != "shared memory" or "num_stages" in kwargs:
                raise
        start = 1  # the default stages just failed
    fits = _c2t_fitting_stages.setdefault(kernel, {})
    key = _c2t_stages_key(kernel, args, asked)  # every later launch of a kernel that once overflowed
    occupancy_start = 0
    if occupied and key not in fits:
        occupancy_start = _c2t_occupancy_start(kernel, grid, args, kwargs)
    # Start from what fit before; the key holds dtypes, not Triton's other
    # specializations (e.g. divisibility by 16), so a remembered count may still overflow.
    order = (None, 2, 1)
    # (not for a specialization that fit before: its remembered stages stand, e.g. an occupancy's 2)
    prefetch_only = key not in fits and not occupancy_start and getattr(kernel, "_c2t_prefetch_only", False) and \
        rule_warps and kwargs["num_warps"] >= 16 and _c2t_prefetch_param(kernel, args, kwargs)
    for stages in order[order.index(fits[key]) if key in fits else max(start, occupancy_start):]:
        if stages == 2 and prefetch_only:
            continue
        at = kwargs if stages is None else _c2t_with_stages(kernel, args, kwargs, stages)  # None: Triton's default
        try:
            if spills is not None:
                at = _c2t_spill_free(kernel, grid, args, at, spills, spill_key, tma, described)
            result = kernel[grid](*args, **at)
        except triton.runtime.errors.OutOfResources as e:
            if e.name != "shared memory" or stages == 1:
                raise
            continue
        if order.index(stages) > occupancy_start and key not in fits:  # an overflow: said once per specialization
            import sys
            import warnings

            level, frame = 1, sys._getframe()  # said at the first caller outside this module (the op's caller)
            while frame is not None and frame.f_globals is globals():
                level, frame = level + 1, frame.f_back
            if frame is None:  # the module runs as a script: its outermost frame
                level -= 1
            warnings.warn(f"cutile2triton: {getattr(kernel, '__name__', kernel)} overflows shared memory at "
                          f"Triton's default num_stages; launched with num_stages={stages}", stacklevel=level)
        fits[key] = stages
        return result


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


def _c2t_spill_decided(kernel, args, kwargs):
    """The warps through pointers the spill step decided for the launch's specialization (kwargs at
    the rule's warps as plain ints), or kwargs' own where it decided none."""
    if not _c2t_spill_candidate(kernel, kwargs):
        return kwargs["num_warps"]
    decided = _c2t_spill_warps.get(kernel, {}).get(_c2t_stages_key(kernel, args, kwargs))
    return kwargs["num_warps"] if decided is None else decided[0]


def _c2t_spill_tma_open(kernel, options):
    """Whether a launcher's launch at the rule's warps (options: its keyword arguments) should check
    that its tensors allow TMA descriptors, which the spill step may choose or has chosen for the
    kernel (a kernel with tl.dot and a descriptor path; cutile2triton: cpp/host/launcher.cpp)."""
    warps = options.get("num_warps")
    return _c2t_is_rule_warps(warps) and warps < 8 and bool(getattr(kernel, "_c2t_dot_tiles", None)) and \
        _c2t_spill_step_on()


def _c2t_spill_chose_tma(kernel, args, kwargs):
    """Whether the spill step chose TMA descriptors for the launch's specialization (kwargs as asked)."""
    decided = _c2t_spill_warps.get(kernel, {}).get(_c2t_stages_key(kernel, args, kwargs))
    return decided is not None and decided[4]


def _c2t_spill_tma_kwargs(kernel, args, kwargs, tma):
    """The launch's keyword arguments with the descriptors the spill step chose for its specialization
    (tma: the kernel's flag; the launcher passes it only where the launch's tensors allow them), at
    the rule's warps as a plain int (no step again), or None where it chose none (or has yet to). Their
    stages are the stage retry's own: descriptors take other shared memory than pointers (fmha decode
    at 64 x 256: two stages overflow through pointers and fit with descriptors, ptxas on the CPU)."""
    warps = kwargs.get("num_warps")
    if not _c2t_is_rule_warps(warps):
        return None
    asked = {**kwargs, "num_warps": int(warps)}
    if not _c2t_spill_candidate(kernel, asked) or not _c2t_spill_chose_tma(kernel, args, asked):
        return None
    return _c2t_described(asked, tma)


def _c2t_described(kwargs, tma, described=None):
    """kwargs with the kernel's TMA flag `tma` set, where the runtime (not the launcher) chose descriptors
    for a launch whose tensors allow them; Triton's allocator for the descriptors' scratch installed where
    none is (torch, on the current CUDA device). `described` (a list) gets True."""
    from triton.runtime import _allocation

    if isinstance(_allocation._allocator.get(), _allocation.NullAllocator):
        import torch

        triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
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


def _c2t_tuned_choice(kernel, args, kwargs):
    """The tuning search's choice for the launch's shape (_c2t_tuned_options: {"num_stages",
    "num_warps", "tma", "pointer"} as it chose), or None where it chose nothing for it or the
    caller set num_stages."""
    tuned = _c2t_tuned_options.get(kernel)
    if not tuned or "num_stages" in kwargs:
        return None
    return tuned.get(_c2t_stages_key(kernel, args, kwargs, scalars=True))


def _c2t_drop_choice(kernel, args, kwargs):
    """Forgets the tuning search's choice for the launch's shape (one that overflows shared memory
    here, e.g. timed on another device): its launches then go as untuned, with the retry."""
    tuned = _c2t_tuned_options.get(kernel, {})
    tuned.pop(_c2t_stages_key(kernel, args, kwargs, scalars=True), None)
    if not tuned:
        _c2t_tuned_options.pop(kernel, None)


def _c2t_tuned_kwargs(kernel, args, kwargs, tma, chosen):
    """The launch's keyword arguments with `chosen` (_c2t_tuned_choice) applied, or None where it
    changes nothing. tma: the kernel's TMA flag where the launch's tensors allow descriptors (a
    choice timed with them holds only there; other launches take what the search chose on the
    pointer path, "pointer"). Warps the search chose replace only the rule's: a caller's own
    warps stay, and so does the rest of a choice timed at other warps."""
    if chosen and chosen.get("tma") and not tma:
        chosen = chosen["pointer"]
    rule = _c2t_is_rule_warps(kwargs.get("num_warps"))
    if not chosen or ("num_warps" in chosen and not rule):
        return None
    at = {**kwargs, **{k: v for k, v in chosen.items() if k not in ("num_stages", "tma", "pointer")}}
    if rule and "num_warps" not in chosen:  # Triton gets a plain int
        at["num_warps"] = int(kwargs["num_warps"])
    if chosen.get("tma"):
        at = _c2t_described(at, tma)
    if "num_stages" in chosen:
        at = _c2t_with_stages(kernel, args, at, chosen["num_stages"])
    if rule and "num_warps" not in chosen:  # what the search timed: the spill step's choice, where it decided
        if tma and not chosen.get("tma") and _c2t_spill_chose_tma(kernel, args, at):
            at = _c2t_described(at, tma)  # its descriptors at the rule's warps (the search's launches took them)
        else:
            at["num_warps"] = _c2t_spill_decided(kernel, args, at)
    return at


def _c2t_occupancy_start(kernel, grid, args, kwargs):
    """1 (launch with num_stages=2) where the kernel's cuTile option occupancy=N asks for N resident
    blocks per SM that Triton's default stages leave no shared memory for and two stages do; else 0.
    cuTile compiles a kernel for its occupancy hint; Triton has no such option, and its default three
    pipeline stages can hold one block per SM where cuTile's kernel runs two: TileGym's gemma attention
    (occupancy 2, head dim 256, 64x32 tiles) at N_CTX 8192 took 2126 us at three stages, 1759 at two,
    1698 in cuTile (cutile2triton's BENCHMARKS.md, "A launcher's reused launch in one native call").
    Measured by compiling without launching (JITFunction.warmup); a block also holds 1 KB of the SM's
    shared memory for the system. Never one stage (no pipelining) for occupancy's sake."""
    try:
        driver = triton.runtime.driver.active
        per_sm = driver.utils.get_device_properties(driver.get_current_device())["max_shared_mem"] + 1024

        def footprint(stages):  # the shared memory one resident block takes, launched at these stages
            at = kwargs if stages is None else _c2t_with_stages(kernel, args, kwargs, stages)
            return kernel.warmup(*args, grid=grid, **at).metadata.shared + 1024

        if kernel._c2t_occupancy * footprint(None) <= per_sm:
            return 0
        return 1 if kernel._c2t_occupancy * footprint(2) <= per_sm else 0
    except Exception:  # no device (the interpreter), no warmup, an overflow: the retry decides
        return 0


_c2t_num_warps_of = {}  # (dots, tiles) -> num_warps: launches repeat their tile sizes


class _C2TRuleWarps(int):
    """num_warps that _c2t_num_warps chose, not the caller: the tuning search may time another
    count for it and keep it (_c2t_exhaustive_search); to Triton, an int like any other."""

    _c2t_rule_warps = True


def _c2t_is_rule_warps(warps):
    return getattr(type(warps), "_c2t_rule_warps", False)


def _c2t_num_warps(dots, tiles):
    """num_warps for a launch that chose none, from the kernel's tile sizes. cuTile sizes each
    kernel's thread blocks itself; Triton's default is 4 warps whatever the tiles, which on the
    H200 spills registers and starves large tiles (cutile2triton's BENCHMARKS.md, "Launch options":
    e.g. TileGym's static persistent RMSNorm over 16384-wide rows 2.4 -> 3.7 TB/s with 8 warps,
    attention with 128x128 tiles 3.5x faster).
    dots(): (rows, elements, depth K or 0 if unknown) of each tl.dot accumulator; tiles(): the
    elements of each tile the kernel loads or stores. With tl.dot: 8 warps when the accumulators
    hold more than 16384 elements (128 x 128 fp32: 128 registers per thread at 4 warps) and at most
    65536 (beyond, they spill at 8 warps as well, and gemma attention's 256 x 128 tiles over a
    256-wide head ran faster at 4), and one has 128 rows or more (Hopper's wgmma gives each 4-warp
    group 64 rows); or when one accumulator of 128+ rows and 16384+ elements is 128 or more deep
    (TileGym's group_gemm at 128 x 128 x 128 on the H200: fp8 586 -> 929 TFLOPS at 4096^3 with 8
    warps, fp16 336 -> 407 at 1024^3; 128 x 128 x 32 matmul tiles ran as fast or faster at 4);
    or when they hold at most 65536 and a loaded or stored tile has 65536 elements or more
    (decoding kernels at head dim 512: TileGym's split-KV MLA decoding, 128 x 512 K tiles and
    16-column accumulators, uses 255 registers and spills at 4 warps, none at 8, and ran 1.34x
    faster at 8 on the H200, 16 slower; at head dim 128, 4 warps as fast or faster; the flash,
    gemma and attention-sink decoding kernels and MLA prefill at head dim 512 get 8 too, unmeasured);
    else 4 -- e.g. attention with 128 x 64 tiles spills registers at 4 warps, a 128 x 128 x 32 GEMM
    tile ran as fast or faster at 4. Otherwise 4, 8 or 16 warps: the largest power of two not
    above one warp per 1024 elements of the largest tile (32 per thread), from 4 to 16."""
    try:
        key = (dots(), tiles())
        warps = _c2t_num_warps_of.get(key)
        if warps is None:
            d, t = key
            if d:
                acc, rows, big = sum(e for _, e, _ in d), max(r for r, _, _ in d), max(t, default=0)
                deep = any(r >= 128 and e >= 16384 and k >= 128 for r, e, k in d)
                warps = 8 if acc <= 65536 and ((acc > 16384 and rows >= 128) or deep or big >= 65536) else 4
            else:
                big, warps = max(t, default=0), 4
                while warps < 16 and big >= 2048 * warps:
                    warps *= 2
            warps = _c2t_num_warps_of[key] = _C2TRuleWarps(warps)
    except (TypeError, ZeroDivisionError):  # an extent not an int at run time, a walked loop of 0-wide tiles
        return _C2TRuleWarps(4)  # Triton's default; the launcher's tile checks name a bad extent
    return warps
)PY";

// Kernel objects with cuTile hints. Hints map to Triton launch options where
// Triton has one; the others are dropped (see _c2t_launch_options).
const char* kKernel = R"PY(
class _C2TKernel:
    """A converted kernel plus cuTile launch hints (what kernel.replace_hints(...) and
    ct.kernel(k._pyfunc, ...) return in cuTile)."""

    _c2t_kernel_object = True  # every converted module has its own copy of this class

    def __init__(self, fn, hints):
        # Read-only, as in cuTile (replace_hints makes a new kernel object): launches keep the
        # options computed from them (_c2t_launch).
        import types

        self._pyfunc, self.hints = fn, types.MappingProxyType(dict(hints))

    def replace_hints(self, **hints):
        return _C2TKernel(self._pyfunc, {**self.hints, **hints})


def _c2t_is_kernel_object(obj):
    """A _C2TKernel of any converted module (kernel objects cross modules, e.g. TileGym's
    utils.cached_replace_hints re-hints kernels of the calling module)."""
    return getattr(type(obj), "_c2t_kernel_object", False)


def _c2t_kernel(fn, **hints):
    """ct.kernel(fn, **hints) / kernel.replace_hints(**hints) on a converted kernel."""
    if _c2t_is_kernel_object(fn):
        return fn.replace_hints(**hints)
    return _C2TKernel(fn, hints)


def _c2t_launch_options(hints):
    """Triton launch options for cuTile hints. num_worker_warps -> num_warps (the warps that
    run the tile code). occupancy and opt_level have no Triton equivalent and are dropped (a
    kernel's own occupancy option is kept: _c2t_occupancy_start);
    num_ctas (CTA clusters) is dropped: Triton 3.6's num_ctas=2 gave wrong bmm results and a
    compile failure on the H200, and slowed matmul (cutile2triton's BENCHMARKS.md, "Launch options")."""
    options = {}
    warps = _c2t_resolve(hints.get("num_worker_warps"))
    if warps:
        # Triton needs a power of two: the next one up (more warps only change speed).
        options["num_warps"] = 1 << (int(warps) - 1).bit_length()
    return options


def _c2t_resolve(value):
    return value.resolve() if hasattr(value, "resolve") else value
)PY";

const char* kLaunch = R"PY(
def _c2t_launch(grid, kernel, *args, **options):
    """ct.launch(stream, grid, kernel, args) for a kernel object that is not a literal kernel
    name: chosen at run time, stored in a dict, imported from another module, or re-hinted.
    options: Triton launch options on top of the hints' (the tuning search's num_stages)."""
    hinted = _c2t_is_kernel_object(kernel)
    fn = kernel._pyfunc if hinted else kernel
    launcher = getattr(fn, "_c2t_launcher", None)
    if launcher is None:
        raise TypeError(f"{fn!r} is not a kernel converted by cutile2triton")
    if not hinted:
        return launcher(grid, *args, **options)
    # The hints' launch options, kept on the kernel object (launches repeat it) unless a hint is
    # resolved at each launch: a cuTile ByTarget hint takes the current device's value.
    hints, kept = kernel.hints, kernel.__dict__.get("_c2t_options")
    if kept is not None and kept[0] is hints:
        hinted = kept[1]
    else:
        hinted = _c2t_launch_options(hints)
        if not any(hasattr(v, "resolve") for v in hints.values()):
            kernel._c2t_options = (hints, hinted)  # for these hints (an assignment of new ones recomputes)
    return launcher(grid, *args, **({**hinted, **options} if options else hinted))
)PY";

const char* kOnStream = R"PY(
def _c2t_on_stream(stream, launcher, grid, *args):
    """ct.launch on an explicit stream: Triton launches on torch's current stream, so the
    launch runs inside torch.cuda.stream(stream) unless that stream is already current."""
    import torch

    if isinstance(stream, torch.cuda.Stream):
        try:  # the raw-handle query Triton's own launcher uses: torch.cuda.current_stream() costs ~10 us
            current = torch._C._cuda_getCurrentRawStream(stream.device_index) == stream.cuda_stream
        except AttributeError:
            current = stream == torch.cuda.current_stream(stream.device)
        if not current:
            with torch.cuda.stream(stream):
                return launcher(grid, *args)
    return launcher(grid, *args)
)PY";

// cuTile's tune.exhaustive_search: same signature and result shape
// (result.best.config, .successes, .failures). Configs are timed from a CUDA
// graph: a converted launch costs tens of microseconds of Python on the host
// (launcher, hints, Triton's argument binding), more than a small kernel runs,
// so plain do_bench timed the host and the search picked among equal numbers
// (TileGym's bmm at 1024^3 on the H200: 34 us chosen where 22 us existed).
const char* kTune = R"PY(
_C2T_SEARCH_STAGES = 4  # the tuning search's other num_stages for pipelined kernels
_C2T_STAGE_MARGIN = 1.25  # configs this close to the fastest are timed at other launch options too
_C2T_STAGE_CONFIGS = 3    # at most this many (a compile each: TileGym's mhc searches 40 configs)
# Kernels with matrix products (the converter's mark _c2t_dot_tiles): the warps the launcher's rule
# chose -> the other count timed. 8 -> 16 only: on the H200 TileGym's fp8 matmul at 256x128x64 ran
# 176-186 TFLOPS at 8 warps and 215-228 at 16 (fp16: 8 was faster); 128x128 tiles at 4 warps lost
# at 8 in both dtypes (cutile2triton's BENCHMARKS.md, "CTA clusters as per-program tiles").
_C2T_SEARCH_WARPS = {8: 16}
# TMA descriptors are timed for configs of at least this many microseconds of device time only. A
# launch whose choice takes descriptors is never launched natively (the choice holds only where the
# tensors allow them; their scratch is allocated per launch): it runs through Triton's binder, checks
# the descriptors' preconditions and allocates, ~30 us of host time that the search's CUDA-graph
# timing does not see. On the H200, TileGym's bmm at 2 x 1024^3 (13 us) chose descriptors and ran 95
# TFLOPS per call instead of 281; matmul at 16384^3 (13-38 ms) gained 5-22% (cutile2triton's
# BENCHMARKS.md, "The warps phase on the GPU"). Other choices are launched natively per shape.
_C2T_TMA_MIN_US = 100.0


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
        if us >= m.mean_us:
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
        more = _C2T_SEARCH_WARPS.get(next(iter(rule))) if len(rule) == 1 and None not in rule else None
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

const char* kTimeout = R"PY(
def _c2t_compiler_timeout(timeout_sec):
    """ct.compiler_timeout bounds cuTile's tileiras compile time; Triton has no such limit."""
    import contextlib

    return contextlib.nullcontext()
)PY";

const char* kByTarget = R"PY(
class _C2TByTarget:
    """cuTile's ByTarget(sm_XY=value, default=...): a hint value chosen by the device's compute
    capability when the kernel is launched."""

    def __init__(self, *, default=None, **by_target):
        self.default, self.by_target = default, by_target

    def resolve(self):
        import torch

        if not torch.cuda.is_available():
            return self.default
        major, minor = torch.cuda.get_device_capability()
        return self.by_target.get(f"sm_{major}{minor}", self.default)
)PY";

// Host helpers from cuTile's private modules that cutile-python's samples use
// to gate themselves (BlockScaledMatMul.py: compute capability >= 10 and a
// tileiras that accepts Tile IR bytecode 13.3). Triton compiles the converted
// kernels, so no tileiras is involved: every bytecode version counts as
// supported; the capability is the device's, as in cuTile.
const char* kPrivateApis = R"PY(
def _c2t_get_compute_capability(device_id=0):
    """cuTile's _cext.get_compute_capability: (major, minor) of the CUDA device; (0, 0) without one."""
    import torch

    if not torch.cuda.is_available():
        return (0, 0)
    return tuple(torch.cuda.get_device_capability(device_id))


def _c2t_dev_features_enabled():
    """cuTile's _cext.dev_features_enabled: cuTile's developer-only features; none on Triton."""
    return False


import enum as _c2t_enum


class _C2TBytecodeVersion(_c2t_enum.IntEnum):
    """cuTile's _bytecode.version.BytecodeVersion (cuda-tile 1.7): Tile IR bytecode versions
    (major*10000 + minor*100 + tag), an IntEnum whose members have major(), minor(), tag() and
    as_string(), as cuTile's own test helpers call on them (cutile-python's conftest.requires_tileiras)."""

    V_13_1 = 130100
    V_13_2 = 130200
    V_13_3 = 130300
    V_13_4 = 130400
    V_13_5 = 130500  # dev only

    def major(self):
        return self._value_ // 10000

    def minor(self):
        return (self._value_ // 100) % 100

    def tag(self):
        return self._value_ % 100

    def as_string(self):
        return f"{self.major()}.{self.minor()}" + (f".{self.tag()}" if self.tag() else "")


def _c2t_max_supported_bytecode_version(temp_dir=None, allow_dev=False):
    """cuTile's _compile._get_max_supported_bytecode_version probes tileiras, cuTile's compiler, for
    the newest bytecode it accepts. Triton compiles the converted kernels, so all versions are."""
    return _C2TBytecodeVersion.V_13_5 if allow_dev else _C2TBytecodeVersion.V_13_4
)PY";

// torch.cuda queries that host code makes on every op call (TileGym's bmm: current_stream() and
// get_device_properties("cuda") per call). torch.cuda resolves the device index in Python each
// time: on the H200's host 4.3 us for current_stream() and 4.9 us for get_device_properties("cuda"),
// where these take 1.8 and 0.4 us (cutile2triton's BENCHMARKS.md, "Host time per call"). At the
// small shapes that triton.testing.do_bench times with the host in the loop, every microsecond of
// host code is one in the result.
const char* kTorchQueries = R"PY(
_c2t_device_props = {}  # (device argument, its type, current device) -> torch.cuda.get_device_properties(device)


def _c2t_torch_own(fn, name):
    """Whether fn is torch.cuda's own function `name`, not a replacement (a test's mock, a wrapper):
    a replacement is called as the original host code would call it."""
    return getattr(fn, "__module__", None) == "torch.cuda" and getattr(fn, "__name__", None) == name


def _c2t_current_stream(torch):
    """torch.cuda.current_stream() of the module the host code named `torch`: the same Stream (same
    stream id, device and type), from the C query torch.cuda.current_stream makes, given the current
    device directly."""
    cuda = torch.cuda
    if _c2t_torch_own(cuda.current_stream, "current_stream"):
        try:
            cuda._lazy_init()
            s = torch._C._cuda_getCurrentStream(torch._C._cuda_getDevice())
            return cuda.Stream(stream_id=s[0], device_index=s[1], device_type=s[2])
        except AttributeError:  # a torch without these internals (or without CUDA): torch's own call
            pass
    return cuda.current_stream()


def _c2t_device_properties(torch, device=None):
    """torch.cuda.get_device_properties(device), remembered per device argument (and its type: torch
    reads 1 and 1.0 apart) and current device (None and "cuda" name the current one): a device's
    properties do not change while a process runs, and torch returns the same object each time.
    A replaced get_device_properties is called each time. Errors as torch's."""
    get = torch.cuda.get_device_properties
    if not _c2t_torch_own(get, "get_device_properties"):
        return get(device)
    try:
        key = (device, type(device), torch._C._cuda_getDevice())
        props = _c2t_device_props.get(key)
    except Exception:  # an unhashable argument, no CUDA: torch's call decides, nothing remembered
        key = props = None
    if props is None:
        props = get(device)
        if key is not None:
            _c2t_device_props[key] = props
    return props


def _c2t_device_capability(torch, device=None):
    """torch.cuda.get_device_capability(device): (major, minor) of the device's properties (as torch
    computes it); a replaced get_device_capability is called instead."""
    if not _c2t_torch_own(torch.cuda.get_device_capability, "get_device_capability"):
        return torch.cuda.get_device_capability(device)
    props = _c2t_device_properties(torch, device)
    return props.major, props.minor
)PY";

// fp8 matrix-product operands laid out K-major (lower/k_major.h, host/launcher.cpp k_major_source).
const char* kKMajor = R"PY(
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
    only arrays the kernel just reads (ct.load, shapes) and never reads through a TMA descriptor, so
    the copy cannot change what it computes. Under CUDA graph capture the copy is made as outside it
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

// A list of arrays as its kernel takes it (host/launcher.cpp list_args_source).
const char* kArrayLists = R"PY(
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

}  // namespace

std::string runtime_source(const RuntimeNeeds& n) {
  if (!n.any()) return "";
  bool kernel = n.kernel || n.launch || n.tune;
  // Each block starts with '\n'; drop the first so the comment sits on the block.
  std::string body;
  if (n.run_kernel) body += std::string(kRunKernel) + "\n";
  if (kernel) body += std::string(kKernel) + "\n";
  if (n.launch || n.tune) body += std::string(kLaunch) + "\n";
  if (n.on_stream) body += std::string(kOnStream) + "\n";
  if (n.tune) body += std::string(kTune) + "\n";
  if (n.timeout) body += std::string(kTimeout) + "\n";
  if (n.by_target) body += std::string(kByTarget) + "\n";
  if (n.private_apis) body += std::string(kPrivateApis) + "\n";
  if (n.torch_queries || n.k_major) body += std::string(kTorchQueries) + "\n";  // _c2t_k_major: _c2t_device_capability
  if (n.array_lists || n.k_major) body += std::string(kArrayLists) + "\n";  // _c2t_k_major_copies: tables
  if (n.k_major) body += std::string(kKMajor) + "\n";
  // Blocks are separated by two blank lines (each block starts and ends with '\n').
  body = body.substr(1);
  while (body.size() >= 2 && body.compare(body.size() - 2, 2, "\n\n") == 0) body.pop_back();
  // Marked at both ends with its length, so that a reader of the generated module can skip to its
  // own code (the newcomer trial looked for the kernels among ~400 lines of it).
  size_t lines = std::count(body.begin(), body.end(), '\n') + 2;
  return "# ---- cutile2triton host runtime (" + std::to_string(lines) +
         " lines, to the end marker): kernel launch and the cuTile host APIs used, on Triton\n" + body +
         kRuntimeEndMarker;
}

std::string launcher_attachment(const std::string& kernel_fn, const std::string& launcher, int occupancy,
                                bool pipelined, const std::vector<std::pair<int, int>>& dot_tiles,
                                bool prefetch_only) {
  std::string o = kernel_fn + "._c2t_launcher = " + launcher + "\n";
  if (occupancy > 1)  // the runtime's _c2t_occupancy_start: pipeline stages that leave room for it
    o += kernel_fn + "._c2t_occupancy = " + std::to_string(occupancy) + "  # cuTile's kernel option occupancy\n";
  if (pipelined)  // the runtime's _c2t_exhaustive_search: pipeline stages are searched too
    o += kernel_fn + "._c2t_pipelined = True  # a loop Triton software-pipelines (num_stages applies)\n";
  if (prefetch_only)  // the runtime's shared-memory retry: one stage rather than two
    o += kernel_fn + "._c2t_prefetch_only = True  # its pipelined loops are grid-stride prefetches (no tl.dot)\n";
  if (!dot_tiles.empty()) {  // the runtime's _c2t_exhaustive_search: cluster shares, warps
    auto pos = [](int p) { return p < 0 ? std::string("None") : std::to_string(p); };
    std::string t;
    for (auto& [r, c] : dot_tiles) t += (t.empty() ? "(" : ", (") + pos(r) + ", " + pos(c) + ")";
    if (dot_tiles.size() == 1) t += ",";
    o += kernel_fn + "._c2t_dot_tiles = (" + t + ")  # its tl.dot accumulators' (rows, columns): cuTile parameter positions\n";
  }
  return o;
}

}  // namespace c2t::host
