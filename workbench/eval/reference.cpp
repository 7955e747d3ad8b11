#include "eval/reference.hpp"

namespace kwb::eval {

std::string blame_spec(const core::Spec& spec, const std::string& what) {
  std::string where = spec.file.empty() ? "" : " (" + spec.file.string() + ")";
  return "spec " + spec.op + " v" + std::to_string(spec.version) + where + ", its trusted reference: " + what +
         "; the spec is at fault, not the candidate";
}

util::Result<std::shared_ptr<Reference>> open_reference(const ReferenceOpener& open, const core::Spec& spec) {
  if (!open) return util::fail("", blame_spec(spec, "no way to open references is configured"));
  auto ref = open(spec);
  if (!ref) return util::fail("", blame_spec(spec, ref.error().what()));
  if (!*ref) return util::fail("", blame_spec(spec, "it could not be opened"));
  return ref;
}

}  // namespace kwb::eval
