// The registry's operations as plain records (see operations.h).
#include "driver/operations.h"

#include <algorithm>
#include <cctype>

#include "lower/op_registry.h"

namespace c2t {

namespace {

// Parameters from `from` on, as a Python def lists them: "x, y, *, flush_to_zero=".
std::string params_text(const std::vector<lower::OpParam>& params, size_t from) {
  std::string text;
  bool keyword_only = false;
  for (size_t i = from; i < params.size(); ++i) {
    const auto& p = params[i];
    if (!text.empty()) text += ", ";
    if (p.keyword_only && !keyword_only && !p.varargs && !text.empty()) text += "*, ";
    keyword_only = keyword_only || p.keyword_only || p.varargs;
    text += (p.varargs ? "*" : "") + p.name + (p.required || p.varargs ? "" : "=");
  }
  return text;
}

}  // namespace

std::vector<OperationInfo> supported_operations() {
  std::vector<OperationInfo> out;
  for (const auto& [name, e] : lower::registry().entries()) {
    // A method ("Tile.astype") is written on its object ("tile.astype(dtype)"): its first parameter is the object.
    bool method = name.find('.') != std::string::npos;
    std::string call = method ? name : "ct." + name;
    if (method) call[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(call[0])));
    call += "(";
    call += params_text(e.params, method ? 1 : 0);
    call += ")";
    out.push_back({name, e.family, params_text(e.params, 0), call, e.triton});
  }
  std::sort(out.begin(), out.end(), [](const OperationInfo& a, const OperationInfo& b) {
    return a.family != b.family ? a.family < b.family : a.name < b.name;
  });
  return out;
}

}  // namespace c2t
