#include "eval/choose_variant.hpp"

namespace kwb::eval {

util::Result<const core::Variant*> choose_variant(const core::Spec& spec, const core::Candidate& cand) {
  std::string names;
  for (const auto& v : spec.variants) names += (names.empty() ? "" : ", ") + v.name;
  if (!cand.variant.empty()) {
    if (auto* v = spec.find_variant(cand.variant)) return v;
    return util::fail("variant", "op " + spec.op + " has no variant '" + cand.variant + "' (variants: " + names + ")");
  }
  if (spec.variants.size() == 1) return &spec.variants[0];
  const core::Variant* found = nullptr;
  for (const auto& v : spec.variants)
    if (cand.source.find(v.entry) != std::string::npos) {
      if (found) return util::fail("variant", "the source mentions several entry points; pass --variant (" + names + ")");
      found = &v;
    }
  if (!found) return util::fail("variant", "cannot tell which variant the source implements; pass --variant (" + names + ")");
  return found;
}

}  // namespace kwb::eval
