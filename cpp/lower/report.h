// Facts recorded during lowering for the analysis report (driver's
// analyze_source): kernels, their parameters, every memory-access site with
// the plan chosen for it, and constructs that could not be converted.
#pragma once

#include <string>
#include <vector>

namespace c2t::lower {

struct AccessSiteReport {
  std::string op;            // "load", "store", "gather", "scatter", "atomic_add", ...
  std::string array;         // cuTile name of the array (or "<expr>")
  int array_rank = -1;
  int tile_rank = -1;        // rank of the tile moved (0 = scalar)
  int line = 0, col = 0;     // 1-based line, 0-based byte column
  std::string strategy;      // "pointer_mask", "pointer_scalar", "pointer_unmasked"
  bool tma_candidate = false;
  std::string tma_note;      // why (not) a tensor-descriptor candidate
  std::string padding;       // load padding mode ("ZERO", "NEG_INF", "UNDETERMINED", ...)
  std::string order;         // "C" or the permutation
};

struct UnsupportedReport {
  std::string what;          // e.g. "ct.load_advanced_indexing"
  std::string message;
  int line = 0, col = 0;
};

struct ParamReport {
  std::string name;
  std::string kind;          // "array", "constexpr", "scalar", "array_list"
  int rank = -1;
};

struct KernelReport {
  std::string name;
  int line = 0;
  std::vector<ParamReport> params;
  std::vector<AccessSiteReport> accesses;
  std::vector<std::string> helpers;     // helper functions reached from this kernel
  std::vector<std::string> ops;         // cuTile operations used (deduplicated, sorted)
  std::vector<UnsupportedReport> unsupported;
  std::vector<std::string> notes;       // options dropped, precision choices, ...
};

}  // namespace c2t::lower
