// The host runtime block: small Python definitions inserted into a converted
// module when its host code uses cuTile host APIs that have no one-line
// Triton spelling. Only the pieces the module uses are emitted, so simple
// modules stay free of them.
//
//   _c2t_launch(grid, kernel, *args)      ct.launch of a kernel object (chosen at run
//                                         time, kept in a dict, imported, re-hinted)
//   _c2t_on_stream(stream, launcher, ...) ct.launch on an explicit, non-current stream
//   _C2TKernel / _c2t_kernel(fn, **hints) kernel.replace_hints(...), ct.kernel(k._pyfunc, ...)
//   _c2t_exhaustive_search(...)           cuda.tile.tune.exhaustive_search on Triton
//   _c2t_compiler_timeout(seconds)        ct.compiler_timeout (no Triton equivalent: no-op)
//   _C2TByTarget(**values)                ct.ByTarget, resolved from the device capability
//   _c2t_get_compute_capability(...)      cuda.tile._cext.get_compute_capability,
//   _c2t_dev_features_enabled()           ... .dev_features_enabled, and the Tile IR
//   _C2TBytecodeVersion, _c2t_max_...     bytecode gate of cutile-python's samples
//   _c2t_current_stream(),                torch.cuda.current_stream() / get_device_properties /
//   _c2t_device_properties(device), ...   get_device_capability in host code, without torch's
//                                         per-call device-index resolution (host time per call)
//
// Why a host-side search rather than @triton.autotune: cuTile's
// exhaustive_search is an ordinary host call whose result feeds arbitrary host
// code (the grid is computed from the best config, caches are keyed by the
// caller, args_fn may clone in-place outputs for trials, the search may choose
// between kernels). Keeping the call and timing each config with
// triton.testing.do_bench preserves all of that exactly; @triton.autotune would
// need the host code restructured and would benchmark in-place kernels on live
// outputs. Off CUDA (TRITON_INTERPRET=1, where do_bench cannot run) the first
// config is taken without timing, like TILEGYM_DISABLE_AUTOTUNE.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace c2t::host {

struct RuntimeNeeds {
  // _c2t_run_kernel: every generated launcher (launcher.h) calls it; the host
  // rewrite sets it for modules with kernels.
  bool run_kernel = true;
  bool launch = false;       // _c2t_launch (+ _C2TKernel)
  bool on_stream = false;    // _c2t_on_stream
  bool kernel = false;       // _C2TKernel / _c2t_kernel
  bool tune = false;         // _c2t_exhaustive_search (+ _C2TKernel)
  bool timeout = false;      // _c2t_compiler_timeout
  bool by_target = false;    // _C2TByTarget
  bool private_apis = false; // cuda.tile._cext / _compile / _bytecode host helpers
  bool torch_queries = false; // _c2t_current_stream, _c2t_device_properties, _c2t_device_capability
  bool array_lists = false;   // _c2t_array_list: a kernel takes a list of arrays (launcher.cpp)
  bool k_major = false;       // _c2t_k_major: fp8 product operands laid out K-major (lower/k_major.h)
  bool launch_constants = false;  // _c2t_check_launch_constants: a kernel reads constants at launch
  bool any() const {
    return run_kernel || launch || on_stream || kernel || tune || timeout || by_target || private_apis ||
           torch_queries || array_lists || k_major || launch_constants;
  }
};

/// How the runtime block's first line (runtime_source) starts; its length in lines follows.
inline constexpr const char* kRuntimeBeginMarker = "# ---- cutile2triton host runtime (";

/// The runtime block's last line (runtime_source), '\n' included.
inline constexpr const char* kRuntimeEndMarker = "# ---- end of the cutile2triton host runtime ----\n";

/// Python source of the runtime block for `needs` ('\n'-terminated, starts
/// with a comment line); empty when nothing is needed.
std::string runtime_source(const RuntimeNeeds& needs);

/// The statement attaching kernel `kernel_fn`'s launcher to the kernel object,
/// so that `_c2t_launch` (here or in an importing module) finds it; with an
/// `occupancy` above 1 (@ct.kernel(occupancy=N)), also that hint, which the
/// runtime's _c2t_occupancy_start keeps room for in shared memory; with `pipelined` (the kernel has a
/// loop Triton software-pipelines: lower::MemoryEffects::pipelined_loops), a mark that lets the
/// runtime's _c2t_exhaustive_search time each config at more pipeline stages too; with `dot_tiles`
/// (host::dot_tile_params), its matrix products' tile parameters, for the search's CTA-cluster
/// shares and warps; with `prefetch_only` (its pipelined loops are all grid-stride prefetches:
/// no tl.dot), a mark that sends the runtime's shared-memory retry to one stage directly.
std::string launcher_attachment(const std::string& kernel_fn, const std::string& launcher, int occupancy = 0,
                                bool pipelined = false, const std::vector<std::pair<int, int>>& dot_tiles = {},
                                bool prefetch_only = false);

}  // namespace c2t::host
