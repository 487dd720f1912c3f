// Module-level name resolution (stage sema, step 1).
//
// Finds how the module refers to cuTile (`import cuda.tile as ct`,
// `from cuda.tile import RoundingMode as RMd`, `from cuda import tile`), the
// other modules kernels may use (math, numpy, torch), module constants
// (folded with const_eval; `ConstInt = ct.Constant[int]`,
// `PAD_ZERO = ct.PaddingMode.ZERO`, `INV_LOG_2 = 1.0 / math.log(2)`), plain
// functions, and the kernels: `@ct.kernel`, `@ct.kernel(options...)` and the
// call form `name = ct.kernel(fn, options...)` (cuTile `_execution.py`).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sema/const_value.h"
#include "support/diagnostics.h"
#include "syntax/ast.h"

namespace c2t::sema {

using syntax::Node;

/// A `@ct.kernel` function (or the target of `name = ct.kernel(fn, ...)`).
struct KernelInfo {
  std::string name;              // the name the host code launches
  const Node* def = nullptr;     // the FunctionDef
  const Node* decorator = nullptr;  // the decorator expression, or the ct.kernel(...) Call of the call form
  const Node* assign_stmt = nullptr;  // call form: the `name = ct.kernel(fn, ...)` statement
  std::map<std::string, const Node*> options;  // num_ctas / occupancy / opt_level / num_worker_warps
  // A kernel defined inside a module-level function (a kernel factory, TileGym
  // nvfp4_quantize.py): that function. The factory's values it reads are
  // constants read at launch (launch_constants), so the Triton kernel and its
  // launcher replace the nested def in place.
  const Node* factory = nullptr;
  // Names the kernel's own body reads that have a value at launch but none at conversion (cuTile
  // execution.rst, "Constant Expressions": "a global object that is defined at the time of compilation
  // or launch"): module-level names bound to what folding cannot compute (ModuleInfo::runtime_globals)
  // and, in a factory, the factory's parameters and locals. Each is a trailing constexpr parameter of
  // the Triton kernel (sema/params.h ParamKind::launch_constant) that the launcher passes as the value
  // the name has at launch. The first read of each name, in source order.
  std::vector<const Node*> launch_constants;
  std::set<std::string> factory_constants;  // those of launch_constants the factory binds (for diagnostics)
};

struct ModuleInfo {
  const Node* module = nullptr;
  std::set<std::string> ct_modules;               // local names bound to the cuda.tile module ("ct")
  std::map<std::string, std::string> ct_names;    // local name -> cuda.tile attribute ("RMd" -> "RoundingMode")
  std::set<std::string> ct_submodules;            // local names bound to cuda.tile submodules (tune, ...)
  std::set<std::string> math_modules;             // "math"
  std::set<std::string> numpy_modules;            // "np"
  std::set<std::string> torch_modules;            // "torch"
  std::set<std::string> operator_modules;         // "operator" (operator.add as a ct.reduce combine function)
  std::map<std::string, std::string> operator_names;  // `from operator import add as plus`: "plus" -> "add"
  std::set<std::string> triton_names;             // names the module already binds to triton / triton.language
  std::map<std::string, ConstValue> constants;    // folded module constants
  std::map<std::string, const Node*> constant_stmts;  // the Assign defining each constant
  std::map<std::string, const Node*> functions;   // module-level FunctionDefs by name
  std::vector<KernelInfo> kernels;                // in source order
  std::vector<const Node*> cutile_imports;        // import statements that bind cuda.tile names
  std::set<std::string> assigned_more_than_once;  // module names bound by several statements (not constants)
  /// Module-level names bound by assignments (anywhere at module level: in `if`/`try` blocks too) to
  /// values with no compile-time value here: not constants, aliases, functions, classes, kernels or
  /// modules (a name also bound by `from M import` is one). A kernel reads them at launch
  /// (KernelInfo::launch_constants); a helper cannot.
  std::set<std::string> runtime_globals;
  /// Module-level names bound by `from M import name [as alias]` to something cutile2triton does not know
  /// (not cuda.tile, operator or triton names): alias -> "M.name". Whatever they are is known only when the
  /// module runs, so a kernel's body that reads one as a value (not calls it, takes an attribute of it or
  /// annotates with it) reads it at launch (KernelInfo::launch_constants); helpers cannot.
  std::map<std::string, std::string> imported_values;
  /// Module-level functions an import later in the module rebinds (Python calls the imported one): name ->
  /// the import's line. Tile code calling one is diagnosed.
  std::map<std::string, int> rebound_by_import;
  /// Names `import m [as n]` binds at module level to modules cutile2triton does not read (not cuda.tile,
  /// math, numpy, torch, operator, triton), and the module-level star imports from such modules (module,
  /// line): for the diagnostic of a name tile code cannot resolve.
  std::map<std::string, std::string> imported_modules;  // bound name -> module
  std::vector<std::pair<std::string, int>> star_imports;
  /// Module-level `class C(Enum)` / `(IntEnum)` with constant members (cuTile's test_enum). Tile code
  /// reads a member as a compile-time value: an IntEnum's as its int, another's as ConstValue::Enum
  /// "C.NAME", equal only to itself; `C(value)` finds the member by its value.
  struct UserEnum {
    bool is_int = false;
    std::vector<std::pair<std::string, ConstValue>> members;  // name, value, in order
    /// What tile code sees for member `name`, or nullopt when C has no such member.
    std::optional<ConstValue> member(const std::string& cls, const std::string& name) const;
  };
  std::map<std::string, UserEnum> user_enums;

  const KernelInfo* kernel_by_def(const Node* def) const;
  const KernelInfo* kernel_by_name(std::string_view name) const;
  /// Resolves `e` (Name / Attribute chain) to a cuTile name: "load",
  /// "PaddingMode.ZERO", "float32", or nullopt when `e` is not a cuda.tile name.
  std::optional<std::string> cutile_name(const Node* e) const;
  /// Folds a module-level expression (for constants and options).
  std::optional<ConstValue> fold(const Node* e) const;
  /// What a bare cuTile name is as a compile-time value (dtype, enum member,
  /// Constant annotation...), or nullopt for functions/classes.
  static std::optional<ConstValue> cutile_constant(const std::string& qualified);
  /// The members of cuTile's enum `enum_name` ("PaddingMode", "RoundingMode", "MemoryOrder",
  /// "MemoryScope"), e.g. "ZERO"; empty for another name (cuda/tile/_numeric_semantics.py, _memory_model.py).
  static std::vector<std::string_view> enum_members(std::string_view enum_name);
};

/// The names kernel (or function) `k` binds itself: parameters, assignment targets, nested defs (not their
/// locals); a read of one in its body is no read of an enclosing scope's name.
std::set<std::string> kernel_own_names(const Node* k);
/// The Name nodes of function `f`'s body that are not read as values: called (`f(x)`), the base of an
/// attribute (`m.X`), or in an annotation. An imported name there is a function, module or type.
std::set<const Node*> names_not_read_as_values(const Node* f);

/// Analyses a parsed module. Errors (e.g. a kernel that is not a plain
/// function) go to `diags`.
ModuleInfo analyze_module(const Node* module, Diagnostics& diags);

}  // namespace c2t::sema
