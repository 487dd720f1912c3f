// The registry's operations as plain records (see operations.h).
#include "driver/operations.h"

#include <algorithm>

#include "lower/op_registry.h"

namespace c2t {

std::vector<OperationInfo> supported_operations() {
  std::vector<OperationInfo> out;
  for (const auto& [name, e] : lower::registry().entries()) {
    std::string sig;
    bool keyword_only = false;
    for (const auto& p : e.params) {
      if (!sig.empty()) sig += ", ";
      if (p.keyword_only && !keyword_only && !p.varargs) sig += "*, ";
      keyword_only = keyword_only || p.keyword_only || p.varargs;
      sig += (p.varargs ? "*" : "") + p.name + (p.required || p.varargs ? "" : "=");
    }
    out.push_back({name, e.family, sig, e.triton});
  }
  std::sort(out.begin(), out.end(), [](const OperationInfo& a, const OperationInfo& b) {
    return a.family != b.family ? a.family < b.family : a.name < b.name;
  });
  return out;
}

}  // namespace c2t
