#include "spec/prototype.hpp"

#include "core/backend.hpp"

namespace kwb::spec {

std::string c_type_name(core::DType t, bool cuda) {
  switch (t) {
    case core::DType::f32: return "float";
    case core::DType::f64: return "double";
    case core::DType::bf16: return cuda ? "__nv_bfloat16" : "uint16_t";
    case core::DType::f16: return cuda ? "__half" : "uint16_t";
    case core::DType::i32: return "int32_t";
    case core::DType::u32: return "uint32_t";
    case core::DType::i64: return "int64_t";
    case core::DType::u8: return "uint8_t";
    case core::DType::f8e4m3: return cuda ? "__nv_fp8_e4m3" : "uint8_t";
    case core::DType::f8e5m2: return cuda ? "__nv_fp8_e5m2" : "uint8_t";
    case core::DType::i8: return "int8_t";
  }
  return "?";
}

std::string EntryParam::type_text() const {
  switch (kind) {
    case Kind::stream: return "cudaStream_t";
    case Kind::workspace: return "void*";
    case Kind::scalar: return c_type;
    case Kind::tensor: break;
  }
  return (is_const ? "const " : "") + c_type + "*";
}

std::string EntryParam::text() const { return type_text() + " " + name; }

EntryParam tensor_param(const core::TensorSpec& t, const core::Variant& v, bool cuda) {
  auto dt = v.dtypes.find(t.name);
  return {EntryParam::Kind::tensor, t.name, dt == v.dtypes.end() ? "?" : c_type_name(dt->second, cuda),
          t.role == core::Role::in};
}

EntryParam scalar_param(const std::string& name, bool kernel) {
  return {EntryParam::Kind::scalar, name, kernel ? "long long" : "int64_t", false};
}

EntryParam real_param(const std::string& name) { return {EntryParam::Kind::scalar, name, "double", false}; }

std::vector<EntryParam> entry_params(const core::Spec& spec, const core::Variant& v, const std::string& backend) {
  const auto form = core::parse_backend(backend);
  const bool cuda = form != core::Backend::cpu, kernel = form == core::Backend::cuda;
  std::vector<EntryParam> out;
  for (const auto* t : spec.tensors_of(v)) out.push_back(tensor_param(*t, v, cuda));
  for (const auto& p : spec.params) out.push_back(scalar_param(p, kernel));
  for (const auto& s : spec.scalars) out.push_back(real_param(s.name));
  if (form == core::Backend::cuda_launcher) out.push_back({EntryParam::Kind::stream, "stream", "cudaStream_t", false});
  return out;
}

std::vector<EntryParam> launch_params(const core::Spec& spec, const core::Variant& v, const std::vector<core::LaunchArg>& args) {
  std::vector<EntryParam> out;
  const auto tensors = spec.tensors_of(v);
  for (const auto& a : args) {
    if (a.kind == core::LaunchArg::Kind::tensor && a.index >= 0 && size_t(a.index) < tensors.size())
      out.push_back(tensor_param(*tensors[size_t(a.index)], v, true));
    else if (a.kind == core::LaunchArg::Kind::param)
      out.push_back(scalar_param(a.name, true));
    else if (a.kind == core::LaunchArg::Kind::scalar)
      out.push_back(real_param(a.name));
    else
      out.push_back({EntryParam::Kind::workspace, a.name.empty() ? "workspace" : a.name, "void", false});
  }
  return out;
}

std::string prototype_text(const std::string& name, const std::vector<EntryParam>& params, bool kernel) {
  std::string s = std::string(kernel ? "__global__ " : "") + "void " + name + "(";
  for (size_t i = 0; i < params.size(); ++i) s += (i ? ", " : "") + params[i].text();
  return s + ")";
}

}  // namespace kwb::spec
