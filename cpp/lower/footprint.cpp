#include "lower/footprint.h"

#include <algorithm>
#include <cctype>

namespace c2t::lower {

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit((unsigned char)s[0])) return false;
  for (char ch : s)
    if (!std::isalnum((unsigned char)ch) && ch != '_') return false;
  return true;
}

bool is_int_literal(const std::string& s) {
  if (s.empty()) return false;
  for (char ch : s)
    if (!std::isdigit((unsigned char)ch)) return false;
  return true;
}

// `p.shape[k]`: an extent of a helper's tile parameter (Lowerer::setup_helper_params
// names symbolic extents so), which the caller maps to its own extent of the argument.
bool is_param_extent(const std::string& s) {
  size_t dot = s.find(".shape[");
  if (dot == std::string::npos || s.back() != ']') return false;
  return is_identifier(s.substr(0, dot)) && is_int_literal(s.substr(dot + 7, s.size() - dot - 8));
}

}  // namespace

DimKind dim_kind(const std::string& s) {
  if (is_int_literal(s)) return DimKind::Literal;
  if (is_identifier(s)) return DimKind::Name;
  if (is_param_extent(s)) return DimKind::ParamExtent;
  return DimKind::Other;
}

std::optional<std::string> plain_dim_text(const std::string& s) {
  return dim_kind(s) == DimKind::Other ? std::nullopt : std::optional<std::string>(s);
}

std::optional<TileFootprint> footprint_of(const sema::Shape& shape, bool dot, const DimText& text,
                                          const sema::Dim* depth) {
  TileFootprint f;
  f.dot = dot;
  if (dot && depth) {
    auto t = depth->value ? std::optional<std::string>(std::to_string(*depth->value)) : text(depth->expr);
    if (t) f.depth = *t;
  }
  bool known = !shape.unknown_rank && !shape.empty();
  for (size_t k = 0; known && k < shape.size(); ++k) {
    const sema::Dim& d = shape[k];
    auto t = d.value ? std::optional<std::string>(std::to_string(*d.value)) : text(d.expr);
    if (t) f.dims.push_back(*t);
    else known = false;
  }
  if (known) return f;
  if (!dot) return std::nullopt;
  f.dims.clear();
  return f;
}

void add_footprint(std::vector<TileFootprint>& to, TileFootprint f) {
  if (std::find(to.begin(), to.end(), f) == to.end()) to.push_back(std::move(f));
}

std::vector<TileFootprint> map_footprints(const std::vector<TileFootprint>& fps,
                                          const std::map<std::string, std::string>& subst, const DimText& text) {
  std::vector<TileFootprint> out;
  auto mapped = [&](const std::string& d) -> std::optional<std::string> {
    if (is_int_literal(d)) return d;
    auto it = subst.find(d);
    return it == subst.end() ? std::nullopt : text(it->second);
  };
  for (auto& fp : fps) {
    TileFootprint f;  // a helper's loop trips are not mapped: its tiles count without them
    f.dot = fp.dot;
    bool ok = true;
    for (auto& d : fp.dims) {
      auto t = mapped(d);
      ok = ok && t;
      if (ok) f.dims.push_back(*t);
    }
    if (!fp.depth.empty()) f.depth = mapped(fp.depth).value_or("");
    if (ok) add_footprint(out, std::move(f));
    else if (f.dot) add_footprint(out, TileFootprint{{}, true, {}, f.depth});
  }
  return out;
}

}  // namespace c2t::lower
