// Text of the host runtime block (runtime.h, runtime_source): cuTile host APIs other than the launch
// (kernel objects with hints, ct.launch of a kernel object, launches on another stream,
// ct.compiler_timeout, ct.ByTarget, private cuda.tile APIs, torch queries).
#include "host/runtime_sections.h"

namespace c2t::host::runtime_text {

// Kernel objects with cuTile hints. Hints map to Triton launch options where
// Triton has one; the others are dropped (see _c2t_launch_options).
extern const char* const kKernel = R"PY(
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

extern const char* const kLaunch = R"PY(
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

extern const char* const kOnStream = R"PY(
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

extern const char* const kTimeout = R"PY(
def _c2t_compiler_timeout(timeout_sec):
    """ct.compiler_timeout bounds cuTile's tileiras compile time; Triton has no such limit."""
    import contextlib

    return contextlib.nullcontext()
)PY";

extern const char* const kByTarget = R"PY(
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
extern const char* const kPrivateApis = R"PY(
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
extern const char* const kTorchQueries = R"PY(
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

}  // namespace c2t::host::runtime_text
