// Lowering of a whole module: every kernel, the helper-function
// specializations they reach, and the prelude helpers they use.
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "lower/lowerer.h"
#include "lower/options.h"
#include "lower/report.h"
#include "lower/source_comments.h"
#include "sema/module_scope.h"
#include "syntax/source.h"
#include "sema/params.h"
#include "support/diagnostics.h"

namespace c2t::lower {

struct LoweredKernel {
  const sema::KernelInfo* info = nullptr;
  std::vector<sema::ParamKind> params;   // cuTile parameters, for the host launcher
  TFunction fn;                          // the @triton.jit kernel
  std::vector<TileFootprint> footprints; // tiles that set the launcher's default num_warps
  std::vector<std::string> tile_dims;    // dims of tiles every specialization has (LoweredFunction::tile_dims)
  int worker_warps = 0;                  // @ct.kernel(num_worker_warps=N) with a constant N: num_warps
  int occupancy = 0;                     // @ct.kernel(occupancy=N) with a constant N (runtime _c2t_occupancy_start)
  bool pipelined = false;                // a loop Triton software-pipelines (MemoryEffects::pipelined_loops)
  bool dots = false;                     // a tl.dot, its own or a helper's (MemoryEffects::dots)
  std::vector<TmaRequirement> tma;       // descriptors behind `tma_flag` (host checks them)
  std::string tma_flag;                  // constexpr TMA flag parameter ("" = pointer path only)
  std::vector<KMajorUse> k_major;        // fp8 product operands the launcher may copy K-major (k_major.h)
  // The module uses ct.mma_scaled: its float8_e8m0fnu scale arrays, which have
  // no Triton dtype, are passed as their uint8 bits (host/launcher.cpp).
  bool e8m0_as_uint8 = false;
  bool ok = false;
};

/// One specialization of a helper function (distinct array ranks or baked
/// compile-time arguments give distinct specializations).
struct HelperInstance {
  const syntax::Node* def = nullptr;
  std::string key;
  std::string emitted_name;
  std::vector<bool> passed;      // per helper parameter: passed at run time (else baked in)
  std::vector<LVal> param_args;  // the argument templates the instance was built for
  TFunction fn;
  std::vector<TileFootprint> footprints;  // in the helper's parameter names
  MemoryEffects effects;                  // its memory operations and tl.dot calls
  LVal result;
  bool has_result = false;
  bool ok = false;
  bool in_progress = false;
};

struct LoweredModule {
  std::vector<LoweredKernel> kernels;
  std::vector<const HelperInstance*> helpers;  // in creation order
  std::vector<std::string> prelude;            // prelude helper names used
  std::vector<KernelReport> reports;
  bool ok = true;
};

class ModuleLowering {
 public:
  ModuleLowering(const sema::ModuleInfo& mi, const LowerOptions& opts, Diagnostics& diags);
  /// Lowers every kernel. Diagnostics go to the Diagnostics given at construction.
  LoweredModule run();

  const sema::ModuleInfo& module() const { return mi_; }
  const LowerOptions& options() const { return opts_; }
  Diagnostics& diags() { return diags_; }
  KernelReport& report() { return *current_report_; }
  void use_prelude(const std::string& name) { prelude_.insert(name); }
  /// The module's source, which the nodes' positions refer to (for quoting expressions in
  /// diagnostics); null when the caller gives none.
  void set_source(const syntax::Source* source) { source_ = source; }
  const syntax::Source* source() const { return source_; }
  /// The source's comments, which the lowered kernels keep (source_comments.h); null: none kept.
  void set_comments(const SourceComments* comments) { comments_ = comments; }
  const SourceComments* comments() const { return comments_; }

  /// Finds or creates the specialization of helper `def` for these arguments.
  /// Returns nullptr on failure (diagnosed), including recursion.
  HelperInstance* instantiate_helper(const syntax::Node* def, const std::vector<LVal>& args,
                                     const std::vector<bool>& passed, const std::string& key,
                                     const syntax::Node* call_site);

 private:
  /// Notes, after kernel `k`'s lowering, where an error since `errors_before` sits on a line reading one
  /// of its constants known only at launch.
  void note_launch_constants(const sema::KernelInfo& k, size_t errors_before);

  const sema::ModuleInfo& mi_;
  const LowerOptions& opts_;
  Diagnostics& diags_;
  KernelReport* current_report_ = nullptr;
  const syntax::Source* source_ = nullptr;
  const SourceComments* comments_ = nullptr;
  std::set<std::string> prelude_;
  std::vector<std::unique_ptr<HelperInstance>> helpers_;
  std::map<std::string, int> helper_name_count_;
  std::set<std::string> host_used_;  // helper functions also used by host code
};

}  // namespace c2t::lower
