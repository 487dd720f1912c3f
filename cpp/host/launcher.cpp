#include "host/launcher.h"

namespace c2t::host {

std::string launcher_name(const lower::LoweredKernel& k) { return "launch_" + k.info->name; }

std::string launcher_source(const lower::LoweredKernel& k) {
  std::string kernel_fn(k.info->def->str("name"));
  std::string params = "grid";
  std::vector<std::string> lines;
  for (auto& p : k.params) {
    params += ", " + p.name;
    switch (p.kind) {
      case sema::ParamKind::Kind::Array: {
        std::string l = p.name;
        for (int d = 0; d < p.rank; ++d) l += ", " + p.name + ".shape[" + std::to_string(d) + "]";
        for (int d = 0; d < p.rank; ++d) l += ", " + p.name + ".stride(" + std::to_string(d) + ")";
        lines.push_back(l);
        break;
      }
      default: lines.push_back(p.name); break;
    }
  }
  std::string out = "def " + launcher_name(k) + "(" + params + "):\n";
  out += "    \"\"\"Launches " + kernel_fn + " on `grid` with ct.launch's argument list; arrays are passed as\n"
         "    pointer, shape and strides (in elements).\"\"\"\n";
  out += "    " + kernel_fn + "[grid](\n";
  // Positional, in the kernel's parameter order (constexprs included).
  for (auto& l : lines) out += "        " + l + ",\n";
  out += "    )\n";
  return out;
}

}  // namespace c2t::host
