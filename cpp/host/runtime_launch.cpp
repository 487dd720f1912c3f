// Text of the host runtime block (runtime.h, runtime_source): the launch itself, every launcher's
// _c2t_run_kernel (reuse, native launch, shared-memory retry), then the launch options it chooses (a
// tuning search's, a cuTile occupancy's stages, warps from tile sizes).
#include "host/runtime_sections.h"

namespace c2t::host::runtime_text {

// Every launcher's kernel launch. cuTile picks each kernel's pipelining depth
// itself; Triton's default num_stages=3 (NVIDIA) keeps that many buffers of
// every tile loaded inside a loop in shared memory, so tile sizes chosen for
// cuTile can overflow it (TileGym's MLA decoding and gemma attention on the
// H200: "out of resource: shared memory"; num_stages=1 fits). A mature
// launcher steps the stages down rather than failing, and remembers per
// specialization what fit, so later launches neither fail first nor lose
// pipelining on specializations that fit at the default.
extern const char* const kLaunchCore = R"PY(
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
    at = _c2t_constexpr_at(kernel)
    constants = tuple(args[i] for i in at if i < len(args))
    # With the values' kinds: 4 and 4.0 (or 0.0 and -0.0) are equal keys but compile apart.
    key = (constants, _c2t_kinds(constants), tuple(a.dtype for a in args if hasattr(a, "dtype")),
           tuple(sorted((k, v, _c2t_value_kind(v)) for k, v in kwargs.items() if k != "num_stages")))
    if scalars:
        others = tuple(a for i, a in enumerate(args) if i not in at and not hasattr(a, "dtype"))
        key += (others, _c2t_kinds(others))
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
    JITFunction.run compiles with. Puts _C2TTypedKeys in place of Triton's memo of cache keys."""
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
        if type(per_device[1]) is dict:  # Triton's memo of cache keys, made to tell 1, True and 1.0 apart
            per_device = caches[device] = (per_device[0], _C2TTypedKeys(per_device[1]), *per_device[2:])
        # JITFunction.run's debug option: kwargs.get("debug", kernel.debug) or knobs.runtime.debug.
        settings = (getattr(kernel, "debug", None), runtime.debug, triton.knobs.compilation.instrumentation_mode)
        return device, settings, driver.get_current_stream(device), per_device[0], per_device[4]
    except AttributeError:
        return None


def _c2t_value_kind(value):
    """A value's type, a float's with its sign: 1, True and 1.0 compare equal, and so do 0.0 and -0.0
    (1 / x differs), and keys holding them; cuTile compiles each apart (ConstantConstraint compares
    types), Triton 3.6 types 1 as int32, True as int1 and 1.0 as fp32."""
    return (float, str(value)[0] == "-") if type(value) is float else type(value)


def _c2t_kinds(values):
    """tuple(map(_c2t_value_kind, values)), cheaper where no value is a float (most launches)."""
    kinds = tuple(map(type, values))
    return kinds if float not in kinds else tuple(map(_c2t_value_kind, values))


def _c2t_constexpr_at(kernel):
    """The positions of a @triton.jit kernel's constexpr parameters (JITFunction.params), cached."""
    at = _c2t_constexpr_positions.get(kernel)
    if at is None:
        at = _c2t_constexpr_positions[kernel] = tuple(
            i for i, p in enumerate(getattr(kernel, "params", ())) if p.is_constexpr)
    return at


def _c2t_constexpr_types(specialization):
    """The kinds (_c2t_value_kind) of the constexpr values in a Triton binder's specialization (one
    (kind, value) entry per kernel parameter; a None argument's entry is ("constexpr", None) too)."""
    return _c2t_kinds([e[1] for e in specialization if type(e) is tuple and e[0] == "constexpr"])


class _C2TTypedKeys(dict):
    """Triton 3.6's memo of kernel cache keys (JITFunction.device_caches[device][1]), keyed also by the
    types of the constexpr values. Triton looks its string cache key up by the tuple (specialization,
    str(options)) (runtime/jit.py, compute_cache_key), in which the constexprs 4 and 4.0 (or 1 and True)
    are equal: a launch with 4.0 after one with 4 got the kernel compiled for the int, whose arithmetic
    differs (4 // 3, the type of x * 4). cuTile compiles them apart (its ConstantConstraint compares
    types). Only get and item assignment are what Triton calls."""
    __slots__ = ()

    def __init__(self, memo=()):
        super().__init__()
        if isinstance(memo, _C2TTypedKeys):  # its keys are typed already
            super().update(memo)
        else:
            for key, value in dict(memo).items():
                self[key] = value

    @staticmethod
    def _typed(key):
        return key, _c2t_constexpr_types(key[0])

    def get(self, key, default=None):
        return super().get(self._typed(key), default)

    def __getitem__(self, key):
        return super().__getitem__(self._typed(key))

    def __setitem__(self, key, value):
        super().__setitem__(self._typed(key), value)


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
    # The kinds, as Triton's memo's (_C2TTypedKeys): the constexprs 4 and 4.0 compile apart. (Entries
    # of other parameters that hold a constant, None, equal only None.)
    kinds = (_c2t_kinds([specialization[i][1] for i in _c2t_constexpr_at(kernel)]) if hasattr(kernel, "params")
             else _c2t_constexpr_types(specialization))
    return slot[1], (*specialization, *kwargs.items(), *settings, _c2t_is_rule_warps(kwargs.get("num_warps")),
                     kinds, tuple(map(type, kwargs.values()))), bound, state


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


def _c2t_tma_allocator():
    """Installs the allocator Triton's device-side TMA descriptors take their scratch from (torch, on the
    current CUDA device), where none is set (triton.set_allocator; cutile2triton's triton_target.md)."""
    from triton.runtime import _allocation

    if isinstance(_allocation._allocator.get(), _allocation.NullAllocator):
        import torch

        triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))


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
    asked for by default but the tensors allow descriptors: the search may time them, or has; and
    _c2t_tma_auto (the flag's name) where it chose descriptors itself (use_tma=None): if Triton then
    fails to compile that path, the launch takes pointers (_c2t_tma_fallback)."""
    auto = kwargs.pop("_c2t_tma_auto", None)
    if auto is not None:
        return _c2t_tma_fallback(kernel, grid, args, kwargs, auto)
    return _c2t_run_kernel_at(kernel, grid, args, kwargs)


def _c2t_run_kernel_at(kernel, grid, args, kwargs):
    """_c2t_run_kernel's launch, after the fallback of descriptors a launcher chose itself."""
    tma = kwargs.pop("_c2t_tma", None)
    shape = kwargs.pop("_c2t_shape", None)  # a launcher's arguments, where it tried the native launch
    probe = _c2t_stage_probe.get(_c2t_threading.get_ident()) if _c2t_stage_probe else None
    if probe is not None:
        probe.add((kernel, _c2t_stages_key(kernel, args, kwargs, scalars=True)))
        warps = kwargs.get("num_warps")
        getattr(probe, "warps", set()).add(warps if _c2t_is_rule_warps(warps) else None)  # None: the caller's
        getattr(probe, "tma", set()).add(tma is not None)
        options = getattr(probe, "options", {})
        kwargs = _c2t_with_probe_options(kwargs, probe)
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


_c2t_tma_failed = set()  # (kernel, specialization key with the options, num_stages) whose descriptors Triton could not build
_c2t_tma_warned = set()  # (kernel, specialization key): the fallback said once
_c2t_tma_failed_lock = _c2t_threading.Lock()


def _c2t_tma_fallback(kernel, grid, args, kwargs, flag):
    """A launch whose launcher chose descriptors itself (use_tma=None, the tensors allow them): where
    Triton 3.6 fails to compile the descriptor path (e.g. "'tt.descriptor_load' op pipeliner doesn't
    know how to predicate this op" for TileGym's sparse MLA index tiles on the H200, s34; a descriptor
    box that does not fit in shared memory at one stage) and the pointer path then runs, the launch
    takes pointers, said once per specialization and not compiled again for its options and stages
    (a tuning search's timed launches add its config's: each config is tried once). Where the pointer
    path fails too, its error is raised and nothing is remembered. A caller's use_tma=True raises
    Triton's error."""
    probe = _c2t_stage_probe.get(_c2t_threading.get_ident()) if _c2t_stage_probe else None
    at = kwargs if probe is None else _c2t_with_probe_options(kwargs, probe)
    key = (kernel, _c2t_stages_key(kernel, args, at), at.get("num_stages"))
    pointers = {**kwargs, flag: False}
    if key in _c2t_tma_failed:
        return _c2t_run_kernel_at(kernel, grid, args, pointers)
    try:
        return _c2t_run_kernel_at(kernel, grid, args, dict(kwargs))
    except Exception as e:
        if not _c2t_failed_compile(e):
            raise
        error = e
    result = _c2t_run_kernel_at(kernel, grid, args, pointers)
    with _c2t_tma_failed_lock:
        _c2t_tma_failed.add(key)
        said = (kernel, _c2t_stages_key(kernel, args, kwargs))
        first = said not in _c2t_tma_warned
        _c2t_tma_warned.add(said)
    if first:
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        reason = f"{type(error).__name__}: {lines[-1][:300]}" if lines else type(error).__name__
        _c2t_warn_outside(f"cutile2triton: Triton could not compile {getattr(kernel, '__name__', kernel)}'s TMA "
                          f"descriptor path ({reason}); launched through pointers")
    return result


def _c2t_with_probe_options(kwargs, probe):
    """kwargs with the launch options a tuning search's timed launch sets (its config's stages, warps;
    its "tma" is the descriptor flag's value, set apart by the caller)."""
    return {**kwargs, **{k: v for k, v in getattr(probe, "options", {}).items() if k != "tma"}}


def _c2t_failed_compile(e):
    """Whether `e` is Triton failing to build a kernel (its front end, an MLIR pass, ptxas, or shared
    memory it cannot fit at any stages): not a failure of the kernel's run."""
    errors = triton.runtime.errors
    return isinstance(e, (triton.compiler.errors.CompilationError, errors.PTXASError)) or (
        isinstance(e, errors.OutOfResources) and e.name == "shared memory") or (
        isinstance(e, RuntimeError) and "PassManager::run failed" in str(e))


def _c2t_warn_outside(message):
    """warnings.warn at the first caller outside this module (the op's caller, not the launcher)."""
    import sys
    import warnings

    level, frame = 1, sys._getframe()
    while frame is not None and frame.f_globals is globals():
        level, frame = level + 1, frame.f_back
    if frame is None:  # the module runs as a script: its outermost frame
        level -= 1
    warnings.warn(message, stacklevel=level)


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
            _c2t_warn_outside(f"cutile2triton: {getattr(kernel, '__name__', kernel)} overflows shared memory at "
                              f"Triton's default num_stages; launched with num_stages={stages}")
        fits[key] = stages
        return result

)PY";

// A tuning search's choices at launch; stages for a cuTile occupancy; warps from tile sizes (the rule).
extern const char* const kLaunchOptions = R"PY(
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

// Constants a kernel reads at launch (sema KernelInfo::launch_constants): checked by the launcher, only in
// modules with such kernels.
extern const char* const kLaunchConstants = R"PY(
def _c2t_check_launch_constants(kernel, *values):
    """Raises TypeError naming the kernel and the name for a constant read at launch (a module-level
    value or a kernel factory's name the kernel's body reads, passed as a tl.constexpr: values are
    (name, value) pairs) that is not an int, float, bool or None: the kernel uses it as a number or a
    flag, and another value would fail deep inside Triton's compiler instead."""
    for name, value in values:
        if value is not None and not isinstance(value, (bool, int, float)):
            raise TypeError(f"kernel {kernel}: '{name}' is read at launch as a constant and must be an int, "
                            f"float, bool or None, not {type(value).__name__}")
)PY";

}  // namespace c2t::host::runtime_text
