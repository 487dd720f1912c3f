// The small launcher generated next to each converted kernel.
//
// cuTile launches with `ct.launch(stream, grid, kernel, (args...))`, one
// positional value per kernel parameter, arrays as tensors. The Triton kernel
// takes each array as pointer + shape + strides (elements), so the launcher
// expands every array argument and passes everything positionally, in the kernel's order:
//
//   def launch_softmax_kernel(grid, output, input, n_rows, TILE_SIZE, **options):
//       _c2t_run_kernel(
//           softmax_kernel, grid,
//           output, output.shape[0], output.shape[1], output.stride(0), output.stride(1),
//           ...
//           TILE_SIZE,
//           **options,
//       )
//
// _c2t_run_kernel (runtime.h) is softmax_kernel[grid](...), except that when
// the kernel overflows shared memory at Triton's default num_stages and the
// caller chose none, it retries with fewer pipeline stages.
//
// A list of arrays becomes cuTile's own launch layout (compilation.rst,
// ListConstraint): an int64 tensor of (data pointer, shapes, strides) per
// element, the length, and the first array (its pointer type carries the
// element dtype); the launcher checks that all elements share rank, dtype and
// device, and (int32-indexed lists) that shapes/strides fit in int32. An array
// whose rank a Constant chooses is passed with its shape/stride slots padded
// to the highest rank the kernel uses plus `t.dim()` (a constexpr).
//
// The stream argument of ct.launch is not passed: Triton launches on the
// current torch stream, which is what TileGym passes.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lower/module_lowering.h"

namespace c2t::host {

/// Name of the launcher of kernel `k` ("launch_<kernel name>").
std::string launcher_name(const lower::LoweredKernel& k);

/// Python source of the launcher (top level, '\n'-terminated).
std::string launcher_source(const lower::LoweredKernel& k);

/// Names the launcher of kernel `kernel_fn` binds or reads itself (its `grid` and `options`, torch, the
/// builtins and runtime functions it calls). A kernel parameter so named is renamed inside it; a constant
/// read at launch (sema ParamKind::launch_constant) so named cannot be read there (host_rewrite says so).
std::set<std::string> launcher_reserved_names(const std::string& kernel_fn);

/// The (rows, columns) of each tl.dot accumulator of `k` as positions of its
/// cuTile parameters (the ct.launch argument tuple), -1 for a dim that is no
/// constexpr parameter; empty when the kernel has none expressible, or when
/// @ct.kernel(num_worker_warps=N) fixes its warps. For the runtime's
/// _c2t_exhaustive_search: a CTA-cluster config's per-program share halves the
/// rows, and the warps of such kernels are searched (runtime_tune.cpp kTune).
std::vector<std::pair<int, int>> dot_tile_params(const lower::LoweredKernel& k);

}  // namespace c2t::host
