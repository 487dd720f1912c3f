#include "host/runtime.h"

#include <algorithm>

#include "host/runtime_sections.h"

namespace c2t::host {

using namespace runtime_text;

std::string runtime_source(const RuntimeNeeds& n) {
  if (!n.any()) return "";
  bool kernel = n.kernel || n.launch || n.tune;
  // Each block starts with '\n'; drop the first so the comment sits on the block.
  std::string body;
  if (n.run_kernel) body += std::string(kLaunchCore) + kSpillStep + kLaunchOptions + "\n";
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
  if (n.launch_constants) body += std::string(kLaunchConstants) + "\n";
  // Blocks are separated by two blank lines (each block starts and ends with '\n').
  body = body.substr(1);
  while (body.size() >= 2 && body.compare(body.size() - 2, 2, "\n\n") == 0) body.pop_back();
  // Marked at both ends with its length, so that a reader of the generated module can skip to its
  // own code (the newcomer trial looked for the kernels among ~400 lines of it).
  size_t lines = std::count(body.begin(), body.end(), '\n') + 2;
  return kRuntimeBeginMarker + std::to_string(lines) +
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
