#include "core/spec.hpp"

namespace kwb::core {

const Variant* Spec::find_variant(std::string_view name) const {
  for (const auto& v : variants)
    if (v.name == name) return &v;
  return nullptr;
}

const TensorSpec* Spec::find_tensor(std::string_view name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<const TensorSpec*> Spec::tensors_of(const Variant& v) const {
  std::vector<const TensorSpec*> out;
  for (const auto& t : tensors)
    if (v.has(t.name)) out.push_back(&t);
  return out;
}

std::vector<std::string> Spec::scalar_names() const {
  std::vector<std::string> out;
  for (const auto& s : scalars) out.push_back(s.name);
  return out;
}

std::string_view role_name(Role r) {
  switch (r) {
    case Role::in: return "in";
    case Role::out: return "out";
    case Role::inout: return "inout";
  }
  return "?";
}

}  // namespace kwb::core
