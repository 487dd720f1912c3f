#include "host/launcher.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "lower/footprint.h"

namespace c2t::host {

std::string launcher_name(const lower::LoweredKernel& k) { return "launch_" + k.info->name; }

namespace {

// `if use_tma is None: use_tma = <checks>` plus the allocator device-side
// descriptors need (triton_target.md §1.1; the runtime's _c2t_tma_allocator,
// which installs one only when none is set) where the launcher itself takes
// descriptors.
// The default use_tma="tuned" is the pointer path (use_tma=False), and the same
// checks while a tuning search times the kernel or has chosen launch options for
// it, or where the runtime's spill step may choose descriptors (a kernel with
// tl.dot at the launcher rule's warps, _c2t_spill_tma_open): `fits` then tells
// _c2t_run_kernel (keyword _c2t_tma, the flag's name) that this launch may take
// the descriptor path the search timed faster or the spill step chose (runtime_tune.cpp,
// runtime_spill.cpp).
// An explicit use_tma=False is the pointer path whatever a search chose.
std::string tma_check_source(const lower::LoweredKernel& k, const std::string& flag, const std::string& fits,
                             const std::string& kernel_fn, const std::string& options,
                             const std::map<std::string, std::string>& renamed) {
  std::string pairs;
  int n = 0;
  for (auto& r : k.tma) {
    // Both in the launcher's names: the array and the innermost block extent (a literal or a constexpr parameter).
    auto local = [&](const std::string& n) {
      auto rn = renamed.find(n);
      return rn == renamed.end() ? n : rn->second;
    };
    std::string p = "(";  // appended piece by piece: GCC 12's -Wrestrict misfires on "literal" + string chains
    p += local(r.param) + ", " + local(r.inner_block) + ", " + (r.nan_padding ? "True" : "False") + "), ";
    if (pairs.find(p) == std::string::npos) pairs += p, ++n;
  }
  std::string o;
  o += "    if " + flag + " == \"tuned\":  # pointers, or descriptors a tuning search or the spill step chose\n";
  o += "        " + flag + ", " + fits + " = False, _c2t_stage_probe is not None or " + kernel_fn +
       " in _c2t_tuned_options or _c2t_spill_tma_open(" + kernel_fn + ", " + options + ")\n";
  o += "    else:\n";
  o += "        " + fits + " = " + flag + " is None\n";
  o += "    if " + fits + ":\n";
  o += "        # TMA descriptors need CUDA tensors, a 16-byte aligned base, non-last strides x element size\n"
       "        # multiples of 16, last stride 1 and an innermost block of at least 16 bytes (NaN padding:\n"
       "        # floating point only); a misaligned stride gives silently wrong data, so check them all.\n";
  o += "        " + fits + " = all(\n";
  o += "            t.is_cuda and str(t.dtype) != \"torch.bool\"\n";
  o += "            and t.data_ptr() % 16 == 0 and t.stride(-1) == 1\n";
  o += "            and all(s * t.element_size() % 16 == 0 for s in t.stride()[:-1])\n";
  o += "            and inner * t.element_size() >= 16 and (t.is_floating_point() or not nan)\n";
  o += "            for t, inner, nan in (" + pairs.substr(0, pairs.size() - 2) + (n == 1 ? "," : "") + ")\n";
  o += "        )\n";
  o += "        if " + flag + " is None:\n";
  o += "            " + flag + " = " + fits + "\n";
  // Chosen here, not asked for: a descriptor path Triton fails to compile falls back to pointers
  // (_c2t_run_kernel).
  o += "            if " + flag + ":\n";
  o += "                " + options + "[\"_c2t_tma_auto\"] = \"" + k.tma_flag + "\"\n";
  // Descriptors the runtime takes (a search's choice, the spill step's) install it there (_c2t_described).
  o += "    if " + flag + ":\n";
  o += "        _c2t_tma_allocator()\n";
  return o;
}

// The constexpr parameters the kernel's tiles are shaped by (outside branches a Constant selects:
// LoweredKernel::tile_dims), checked to be
// powers of two before launching (runtime _c2t_check_tile_dims): a clear error naming the
// parameter instead of Triton's from deep inside compilation. After the native reuse (a reused
// specialization has the same constexpr values, already checked).
std::string tile_dims_check_source(const lower::LoweredKernel& k, const std::map<std::string, std::string>& renamed,
                                   const std::string& kernel) {
  std::vector<std::string> names;  // in the kernel's parameter order
  for (auto& p : k.params)
    if (p.kind == sema::ParamKind::Kind::Constexpr &&
        std::find(k.tile_dims.begin(), k.tile_dims.end(), p.name) != k.tile_dims.end())
      names.push_back(p.name);
  if (names.empty()) return "";
  std::string pairs;
  for (auto& n : names) {
    auto r = renamed.find(n);
    pairs += ", (\"" + n + "\", " + (r == renamed.end() ? n : r->second) + ")";
  }
  return "    _c2t_check_tile_dims(\"" + kernel + "\"" + pairs + ")\n";
}

// An array used with several ranks (sema ParamKind::ranks): the kernel takes
// the highest rank's shape/stride slots, padded with 1 / 0, and the actual
// rank as a constexpr. Other ranks are rejected here, before compiling
// (lower ones are let through when every use sits in a Constant branch).
std::string multi_rank_check(const sema::ParamKind& p) {
  if (p.lower_ranks_allowed)  // the kernel's static rank assertions check the branches taken
    return "    if " + p.name + ".dim() > " + std::to_string(p.rank) + ":\n        raise ValueError(f\"" + p.name +
           " must have at most " + std::to_string(p.rank) + " dimensions, got {" + p.name + ".dim()}\")\n";
  std::string rs;
  for (int r : p.ranks) rs += (rs.empty() ? "" : ", ") + std::to_string(r);
  return "    if " + p.name + ".dim() not in (" + rs + "):\n        raise ValueError(f\"" + p.name +
         " must have one of the ranks (" + rs + ") the kernel uses it with, got {" + p.name + ".dim()}\")\n";
}

std::string multi_rank_args(const sema::ParamKind& p) {
  std::string n = p.name, pad = "(" + std::to_string(p.rank) + " - " + n + ".dim())";
  return n + ", *" + n + ".shape, *[1] * " + pad + ", *" + n + ".stride(), *[0] * " + pad + ", " + n + ".dim()";
}

// A fixed-rank array's launch arguments: pointer, extents, strides. The extents
// and strides are unpacked into locals named like the kernel's parameters
// (`x_shape_0, x_shape_1 = x.shape`): two tensor calls per array instead of one
// per extent and stride -- host time per launch, which triton.testing.do_bench
// measures at small shapes (BENCHMARKS.md, "Host time per call") -- and an array
// of another rank fails there ("too many values to unpack") instead of launching
// with its first extents. Inline `x.shape[0], ...` where a local's name is taken.
struct Unpacked {
  std::string statements;                         // `x_shape_0, x_shape_1 = x.shape` ...
  std::vector<std::pair<std::string, int>> ranks;  // (array, rank), for the error message
};

std::string fixed_rank_args(const sema::ParamKind& p, std::set<std::string>& taken, Unpacked& unpacked) {
  if (p.rank <= 0) return p.name;
  std::vector<std::string> shape, stride;
  for (int d = 0; d < p.rank; ++d) {
    shape.push_back(p.name + "_shape_" + std::to_string(d));
    stride.push_back(p.name + "_stride_" + std::to_string(d));
  }
  bool free = true;
  for (auto* v : {&shape, &stride})
    for (auto& n : *v) free = free && !taken.count(n);
  std::string l = p.name;
  if (!free) {
    for (int d = 0; d < p.rank; ++d) l += ", " + p.name + ".shape[" + std::to_string(d) + "]";
    for (int d = 0; d < p.rank; ++d) l += ", " + p.name + ".stride(" + std::to_string(d) + ")";
    return l;
  }
  auto unpack = [&](const std::vector<std::string>& names, const std::string& of) {
    std::string t;
    for (auto& n : names) t += (t.empty() ? "" : ", ") + n, taken.insert(n), l += ", " + n;
    unpacked.statements += "        " + (names.size() == 1 ? "(" + t + ",)" : t) + " = " + of + "\n";
  };
  unpack(shape, p.name + ".shape");
  unpack(stride, p.name + ".stride()");
  unpacked.ranks.emplace_back(p.name, p.rank);
  return l;
}

// The unpacking in a try: an array of another rank is a ValueError that names
// the ranks the kernel takes (an unpacking's own message names no array).
std::string unpack_source(const Unpacked& u, const std::string& launcher) {
  if (u.statements.empty()) return "";
  std::string want, got;
  for (auto& [name, rank] : u.ranks) {
    want += (want.empty() ? "" : ", ") + name + ": " + std::to_string(rank);
    got += (got.empty() ? "" : ", ") + name + ": {" + name + ".dim()}";
  }
  return "    try:\n" + u.statements + "    except ValueError:\n        raise ValueError(\"" + launcher +
         ": the kernel takes arrays of rank " + want + "; \"\n                         f\"got " + got + "\") from None\n";
}

// `X = _c2t_k_major(X, layouts...)` for each parameter whose fp8 matrix-product operands the
// runtime may copy K-major (lower/k_major.h), one layout (k axis, other axis[, the product's other
// operand, its other axis]) per use, None where the use's constexpr branch is not taken: the
// runtime copies only when the layouts taken agree.
std::string k_major_source(const lower::LoweredKernel& k, const std::map<std::string, std::string>& renamed,
                           const std::string& use_tma) {
  auto local = [&](const std::string& n) {
    auto r = renamed.find(n);
    return r == renamed.end() ? n : r->second;
  };
  std::vector<std::string> order;
  std::map<std::string, std::string> layouts;
  for (auto& u : k.k_major) {
    std::string cond;
    for (auto& [name, then] : u.conds) cond += (cond.empty() ? "" : " and ") + std::string(then ? "" : "not ") + local(name);
    std::string layout = "(" + std::to_string(u.k_axis) + ", " + std::to_string(u.other_axis) +
                         (u.partner.empty() ? "" : ", " + local(u.partner) + ", " + std::to_string(u.partner_axis)) + ")";
    if (!layouts.count(u.param)) order.push_back(u.param);
    layouts[u.param] += ", " + (cond.empty() ? layout : "(" + layout + " if " + cond + " else None)");
  }
  std::string out;
  if (!order.empty())
    out += "    # fp8 operands K-major on Hopper, where a launch's layout would make Triton transpose them through\n"
           "    # registers (cutile2triton lower/k_major.h); a copy only of arrays the kernel just reads.\n";
  for (auto& p : order) {
    std::string copy = local(p) + " = _c2t_k_major(" + local(p) + layouts[p] + ")\n";
    bool described = false;
    for (auto& t : k.tma) described = described || t.param == p;
    // A parameter read through descriptors too (transposed loads, module_lowering.cpp): descriptors
    // forced by the caller need its unit last stride, which the copy would not keep.
    if (described && !use_tma.empty())  // as the launcher reads it below: any other true value forces descriptors
      out += "    if not " + use_tma + " or " + use_tma + " == \"tuned\":\n        " + copy;
    else out += "    " + copy;
  }
  return out;
}

// A list of arrays: the runtime's _c2t_array_list checks it and makes its table
// (cuTile's launch layout, compilation.rst ListConstraint: (pointer, shapes,
// strides) per element) and facts; the kernel also takes the length and the
// first array, whose pointer type gives it the element dtype.
std::string list_args_source(const sema::ParamKind& p, const std::string& items) {
  return "    " + items + ", " + items + "_table, " + items + "_facts = _c2t_array_list(\"" + p.name + "\", " + p.name +
         ", " + std::to_string(p.rank < 0 ? 0 : p.rank) + ", int32=" + (p.int64_index ? "False" : "True") + ")\n";
}

// `options["num_warps"] = _c2t_num_warps(...)` (unless given) from the kernel's
// tile footprints (lower/lowerer.h TileFootprint), in the launcher's names
// of its constexpr parameters; "" when no footprint is expressible there.
std::string num_warps_source(const lower::LoweredKernel& k, const std::map<std::string, std::string>& renamed,
                             const std::string& options) {
  if (k.worker_warps > 0)
    return "    " + options + ".setdefault(\"num_warps\", " + std::to_string(k.worker_warps) + ")  # @ct.kernel(num_worker_warps=...)\n";
  std::set<std::string> constexprs;
  for (auto& p : k.params)
    if (p.kind == sema::ParamKind::Kind::Constexpr) constexprs.insert(p.name);
  std::vector<std::string> dots, tiles, walked;
  std::vector<std::string> dot_shapes;  // products' (rows, elements), in order, and their depths
  std::map<std::string, std::vector<std::string>> dot_depths;
  bool unknown_dot = false;
  // A dim in the launcher's names: an int literal or a constexpr parameter (renamed if reserved).
  auto local = [&](const std::string& d) -> std::optional<std::string> {
    if (lower::dim_kind(d) == lower::DimKind::Literal) return d;
    if (!constexprs.count(d)) return std::nullopt;
    auto r = renamed.find(d);
    return r == renamed.end() ? d : r->second;
  };
  for (auto& f : k.footprints) {
    std::vector<std::string> dims;
    bool ok = !f.dims.empty();
    unknown_dot = unknown_dot || (f.dot && f.dims.empty());
    for (auto& d : f.dims) {
      auto t = local(d);
      if (t) dims.push_back(*t);
      else ok = false;
    }
    // The loops' trip counts of a walked tile: what one program walks (lower/footprint.h).
    for (auto& [count, per] : f.trips) {
      auto c = local(count);
      auto p = per.empty() ? std::optional<std::string>("") : local(per);
      if (c && p) dims.push_back(p->empty() ? *c : "triton.cdiv(" + *c + ", " + *p + ")");
      else ok = false;
    }
    if (!ok) {
      unknown_dot = unknown_dot || f.dot;
      continue;
    }
    std::string elems;
    for (auto& d : dims)
      if (d != "1") elems += (elems.empty() ? "" : " * ") + d;
    if (elems.empty()) elems = "1";
    if (f.dot) {  // a product: (rows, elements, depth K; 0 where the launcher cannot name it)
      std::string shape = (dims.size() >= 2 ? dims[dims.size() - 2] : dims[0]) + ", " + elems;
      std::string depth = f.depth.empty() ? "0" : local(f.depth).value_or("0");
      auto& ds = dot_depths[shape];  // one accumulator per shape, as before depths were kept
      if (ds.empty()) dot_shapes.push_back(shape);
      if (std::find(ds.begin(), ds.end(), depth) == ds.end()) ds.push_back(depth);
      continue;
    }
    auto& to = f.trips.empty() ? tiles : walked;
    if (std::find(to.begin(), to.end(), elems) == to.end()) to.push_back(elems);
  }
  for (auto& shape : dot_shapes) {
    auto& ds = dot_depths[shape];
    std::string depth = ds.front();
    if (ds.size() > 1) {
      depth = "max(";
      for (size_t i = 0; i < ds.size(); ++i) depth += (i ? ", " : "") + ds[i];
      depth += ")";
    }
    dots.push_back("(" + shape + ", " + depth + ")");
  }
  // Walked tiles count for kernels without matrix products (whose warps follow their accumulators).
  if (dots.empty() && !unknown_dot) tiles.insert(tiles.begin(), walked.begin(), walked.end());
  // Matrix products only of unknown size: Triton's default (the tile rule is for kernels without one).
  if ((dots.empty() && unknown_dot) || (dots.empty() && tiles.empty())) return "";
  auto tuple = [](const std::vector<std::string>& v) {
    std::string t;
    for (auto& x : v) t += (t.empty() ? "" : ", ") + x;
    return "(" + t + (v.size() == 1 ? ",)" : ")");
  };
  return "    if \"num_warps\" not in " + options + ":\n        " + options + "[\"num_warps\"] = _c2t_num_warps(lambda: " + tuple(dots) +
         ", lambda: " + tuple(tiles) + ")\n";
}

// A launcher's arguments for _c2t_run_native (runtime_launch.cpp) and the native launch's expand codes
// (src/cutile2triton/_fast_launch.c, expand_args), one per parameter, given where launcher_source
// decides how the parameter is passed: 0 as it is (a scalar or constexpr), r an array of rank r
// (pointer, r extents, r strides), 128 + r an array of rank at most r (extents and strides padded
// with 1 and 0, then its rank: multi_rank_args). `ok` is cleared by a parameter passed otherwise.
struct NativeArgs {
  // The highest rank given a code (codes hold up to 127): cutile2triton.api.MAX_ARRAY_RANK.
  static constexpr int kMaxRank = 64;
  bool ok = true;
  std::string args, codes;
  int count = 0;

  void add(const std::string& name, int code) {
    static const char* hex = "0123456789abcdef";
    if (count++) args += ", ";
    args += name;
    codes += "\\x";
    codes += hex[code >> 4];
    codes += hex[code & 15];
  }
  void add_array(const std::string& name, int rank, bool at_most) {
    if (rank > kMaxRank) ok = false;
    else add(name, (at_most ? 128 : 0) + std::max(rank, 0));
  }
};

}  // namespace

std::set<std::string> launcher_reserved_names(const std::string& kernel_fn) {
  return {"grid", "options", kernel_fn, "torch", "triton", "tl", "_c2t_run_kernel", "_c2t_run_native", "all", "str",
          "len", "list", "isinstance", "ValueError", "max", "_c2t_stage_probe", "_c2t_tuned_options",
          "_c2t_check_tile_dims", "_c2t_spill_tma_open", "_c2t_tma_allocator"};
}

std::string launcher_source(const lower::LoweredKernel& k) {
  std::string kernel_fn(k.info->def->str("name"));
  std::vector<std::string> lines;
  std::string lists;  // list tables, made before the native launch (which takes them as they are)
  std::string prep;   // statements before the launch (rank checks)
  Unpacked unpacked;  // fixed-rank arrays' extents and strides, unpacked after `prep`
  bool needs_torch = false;
  // Parameters named like the launcher's own names (grid, options, the
  // kernel, torch, the builtins and imports of its checks...) are renamed
  // inside the launcher: call sites pass them positionally (host_rewrite), so
  // only the local name changes.
  const std::set<std::string> reserved = launcher_reserved_names(kernel_fn);
  std::set<std::string> taken(reserved);
  std::map<std::string, std::string> renamed;
  for (auto& p : k.params) taken.insert(p.name);
  // The launcher's own parameters take other names when the kernel has theirs (`def grid(...)`).
  auto own = [&](const std::string& n) {
    std::string r = n;
    while (r == kernel_fn || (r != n && taken.count(r))) r += "_";
    taken.insert(r);
    return r;
  };
  const std::string grid = own("grid"), options = own("options");
  std::string params = grid;
  // The launcher's arguments as the native launch expands them (NativeArgs), while every
  // parameter is one it can expand: a scalar, a constexpr or an array of one rank (or at most one).
  NativeArgs native;
  native.ok = !k.e8m0_as_uint8;
  for (auto& param : k.params) {
    sema::ParamKind p = param;
    if (p.launch_constant) {  // no argument of the call: its name, read here, is its value
      lines.push_back(p.name);
      native.add(p.name, 0);
      continue;
    }
    if (reserved.count(p.name)) {
      std::string r = p.name + "_";
      while (taken.count(r)) r += "_";
      taken.insert(r);
      renamed[p.name] = r;
      p.name = r;
    }
    params += ", " + p.name;
    switch (p.kind) {
      case sema::ParamKind::Kind::ArrayList: {
        // The runtime's _c2t_array_list checks the list and keeps its table (one dict lookup for
        // a list seen before): the native launch then takes the table, length, first array and
        // facts as they are, so a grouped GEMM's reused launch skips Triton's binder too.
        std::string items = "_c2t_" + p.name;
        lists += list_args_source(p, items);
        for (const std::string& a : {items + "_table", "len(" + items + ")", items + "[0]", items + "_facts"}) {
          native.add(a, 0);
        }
        lines.push_back(items + "_table, len(" + items + "), " + items + "[0], " + items + "_facts");
        break;
      }
      case sema::ParamKind::Kind::Array: {
        if (k.e8m0_as_uint8) {
          // Triton 3.6 has no float8_e8m0fnu (triton/_utils.py type_canonicalisation_dict):
          // ct.mma_scaled's scales travel as their bits, which _c2t_mma_scaled decodes.
          prep += "    if str(" + p.name + ".dtype) == \"torch.float8_e8m0fnu\":\n        " + p.name + " = " + p.name +
                  ".view(torch.uint8)  # e8m0 scales: no Triton dtype, passed as their bits\n";
          needs_torch = true;
        }
        if (!p.ranks.empty()) {
          prep += multi_rank_check(p);
          lines.push_back(multi_rank_args(p));
          if (p.lower_ranks_allowed) native.add_array(p.name, p.rank, true);
          else native.ok = false;  // a set of ranks: checked by the launcher only
          break;
        }
        lines.push_back(fixed_rank_args(p, taken, unpacked));
        native.add_array(p.name, p.rank, false);
        break;
      }
      case sema::ParamKind::Kind::Tuple: {
        // cuTile TupleConstraint: the elements the kernel reads, as consecutive arguments.
        native.ok = false;
        std::string l;
        for (auto& e : p.tuple_elems) {
          std::string x = p.name + "[" + std::to_string(e.tuple_index) + "]";
          l += (l.empty() ? "" : ", ") + x;
          if (e.kind != sema::ParamKind::Kind::Array) continue;
          for (int d = 0; d < e.rank; ++d) l += ", " + x + ".shape[" + std::to_string(d) + "]";
          for (int d = 0; d < e.rank; ++d) l += ", " + x + ".stride(" + std::to_string(d) + ")";
        }
        lines.push_back(l);
        break;
      }
      default:
        lines.push_back(p.name);
        native.add(p.name, 0);
        break;
    }
  }
  // Kernels with a TMA descriptor path take a constexpr flag. By default
  // (use_tma="tuned", see tma_check_source) the launcher takes the pointer path: on the H200 it was
  // as fast or faster than the descriptor path for every benchmarked kernel
  // (BENCHMARKS.md, "TMA is not always faster"). use_tma=None asks for the
  // descriptor path wherever every described tensor meets the device-side
  // preconditions (lower/tma.cpp, triton_target.md §1.4); use_tma=True forces
  // it (tests run the descriptor path in the interpreter that way).
  std::string use_tma, fits;
  if (!k.tma_flag.empty()) {
    use_tma = "use_tma";
    while (use_tma == kernel_fn || taken.count(use_tma)) use_tma += "_";
    taken.insert(use_tma);
    params += ", " + use_tma + "=\"tuned\"";
    fits = use_tma + "_fits";
    while (fits == kernel_fn || taken.count(fits)) fits += "_";
    taken.insert(fits);
  }
  std::string native_args = "native_args";  // the native launch's arguments, see below
  while (native_args == kernel_fn || taken.count(native_args)) native_args += "_";
  taken.insert(native_args);
  // **options: Triton launch options (num_warps...) from cuTile hints, see runtime.h.
  std::string out = "def " + launcher_name(k) + "(" + params + ", **" + options + "):\n";
  out += "    \"\"\"Launches " + kernel_fn + " on `grid` with ct.launch's argument list; arrays are passed as\n"
         "    pointer, shape and strides (in elements).";
  if (!use_tma.empty())
    out += "\n    " + use_tma + ": \"tuned\" (default) the pointer path, or TMA descriptors where a tuning search\n"
           "    timed them faster for this shape or the runtime's spill step chose them; False pointers; True\n"
           "    descriptors; None descriptors where every tensor allows them.";
  out += "\"\"\"\n";
  // The launch's options first (they read no array). A kernel without a descriptor path accepts
  // use_tma= like the others (Triton rejects unknown options); warps from the tile sizes unless the
  // caller (or a num_worker_warps hint) chose them.
  if (use_tma.empty()) out += "    " + options + ".pop(\"use_tma\", None)  # no TMA path in this kernel\n";
  out += num_warps_source(k, renamed, options);
  out += k_major_source(k, renamed, use_tma);
  out += lists;
  if (native.ok) {
    // The native launch of a reused kernel: the keyword arguments _c2t_run_kernel would get (the
    // TMA flag first), the arrays unexpanded; not with the TMA flag among the caller's options too
    // (the launch below raises: a keyword given twice).
    // Its arguments are passed on to _c2t_run_kernel too (_c2t_shape): a kernel with a tuning
    // search's choices is launched natively only for the exact shape of an earlier launch.
    std::string kw = use_tma.empty() ? options : "{\"" + k.tma_flag + "\": False, **" + options + "}";
    std::string tuple = "(" + native.args + (native.count == 1 ? "," : "") + ")";
    // Said in the generated code too: a newcomer found the bytes opaque.
    out += "    # A launch like the last one goes natively (_c2t_run_native); its bytes, one per argument: r for an\n"
           "    # array of rank r (passed with its extents and strides), 128 + r for rank at most r, 0 as it is.\n";
    if (!lists.empty()) out += "    # A list goes as its table, length, first array and facts (all as they are).\n";
    if (use_tma.empty()) {
      out += "    " + native_args + " = " + tuple + "\n";
    } else {
      out += "    " + native_args + " = " + tuple + " if " + use_tma + " in (False, \"tuned\") and \"" + k.tma_flag +
             "\" not in " + options + " else None\n";
    }
    out += "    if " + (use_tma.empty() ? "" : native_args + " is not None and ") + "_c2t_run_native(" + kernel_fn +
           ", " + grid + ", " + native_args + ", " + kw + ", b\"" + native.codes +
           "\") is not None:\n        return  # reused natively: the same checks, in one call\n";
  }
  out += tile_dims_check_source(k, renamed, k.info->name);
  std::string constants;  // after the native reuse, as the tile checks (a reused launch had these values)
  for (auto& p : k.params)
    if (p.launch_constant) constants += ", (\"" + p.name + "\", " + p.name + ")";
  if (!constants.empty()) out += "    _c2t_check_launch_constants(\"" + k.info->name + "\"" + constants + ")\n";
  if (needs_torch) out += "    import torch\n\n";
  out += prep;
  out += unpack_source(unpacked, launcher_name(k));
  if (!use_tma.empty()) out += tma_check_source(k, use_tma, fits, kernel_fn, options, renamed);
  // kernel[grid](...) through the runtime's _c2t_run_kernel, which steps
  // Triton's num_stages down when cuTile's tile sizes overflow shared memory
  // at the default pipelining depth (runtime_launch.cpp says why).
  out += "    _c2t_run_kernel(\n";
  out += "        " + kernel_fn + ", " + grid + ",\n";
  // Positional, in the kernel's parameter order (constexprs included).
  for (auto& l : lines) out += "        " + l + ",\n";
  if (!use_tma.empty()) out += "        " + k.tma_flag + "=" + use_tma + ",\n";
  out += "        **" + options + ",\n";
  // Where the default pointer path was asked for but descriptors would fit: the flag's name, which
  // _c2t_run_kernel sets where the tuning search timed that faster or the spill step chose it (and
  // removes before Triton).
  if (!use_tma.empty())
    out += "        **({\"_c2t_tma\": \"" + k.tma_flag + "\"} if " + fits + " and not " + use_tma + " else {}),\n";
  if (native.ok) out += "        _c2t_shape=" + native_args + ",\n";
  out += "    )\n";
  return out;
}

std::vector<std::pair<int, int>> dot_tile_params(const lower::LoweredKernel& k) {
  std::vector<std::pair<int, int>> out;
  if (k.worker_warps > 0) return out;
  auto position = [&](const std::string& d) {
    for (size_t i = 0; i < k.params.size(); ++i)  // positions of the launch's arguments (none read at launch)
      if (k.params[i].name == d && k.params[i].kind == sema::ParamKind::Kind::Constexpr && !k.params[i].launch_constant)
        return (int)i;
    return -1;
  };
  bool any = false;
  for (auto& f : k.footprints) {
    if (!f.dot || f.dims.size() < 2) continue;
    std::pair<int, int> rc{position(f.dims[f.dims.size() - 2]), position(f.dims.back())};
    any = any || rc.first >= 0;
    if (std::find(out.begin(), out.end(), rc) == out.end()) out.push_back(rc);
  }
  if (!any) out.clear();
  return out;
}

}  // namespace c2t::host
