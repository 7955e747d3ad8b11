#include "speccheck/template_adapter.hpp"

#include <fmt/format.h>

#include "spec/prototype.hpp"

namespace kwb::speccheck {

std::optional<std::string> template_reference_source(const core::Spec& spec, const core::Variant& v) {
  auto backend = spec.templates.find("cpu");
  if (backend == spec.templates.end()) return std::nullopt;
  auto t = backend->second.find(v.name);
  if (t == backend->second.end()) return std::nullopt;
  std::string body, args, copies;
  for (const auto* tensor : spec.tensors_of(v)) {
    const core::DType dt = v.dtypes.at(tensor->name);
    const std::string type = spec::c_type_name(dt, false), n = tensor->name;
    if (tensor->role == core::Role::in) {
      args += fmt::format("{}a.in<{}>(\"{}\")", args.empty() ? "" : ", ", type, n);
      continue;
    }
    // Outputs: typed buffers (an inout one starts from its input), decoded to doubles afterwards.
    if (tensor->role == core::Role::inout)
      body += fmt::format("  std::vector<{0}> kwb_{1}(a.in<{0}>(\"{1}\"), a.in<{0}>(\"{1}\") + a.count(\"{1}\"));\n", type, n);
    else body += fmt::format("  std::vector<{}> kwb_{}(a.count(\"{}\"));\n", type, n, n);
    args += fmt::format("{}kwb_{}.data()", args.empty() ? "" : ", ", n);
    copies += fmt::format("  for (size_t i = 0; i < kwb_{0}.size(); ++i)\n    a.out(\"{0}\")[i] = "
                          "kwb::core::load_as_double(kwb_{0}.data(), kwb::core::DType({1}), i);\n",
                          n, int(dt));
  }
  for (const auto& p : spec.params) args += fmt::format("{}a.param(\"{}\")", args.empty() ? "" : ", ", p);
  for (const auto& s : spec.scalars) args += fmt::format("{}a.scalar(\"{}\")", args.empty() ? "" : ", ", s.name);
  return t->second.source + fmt::format(
                                "\n#line 1 \"<kwb template adapter>\"\n#include <vector>\n#include \"core/reference.hpp\"\n"
                                "namespace kwb::reference {{\nvoid {}(const kwb::core::ReferenceArgs& a) {{\n"
                                "  if (a.variant != \"{}\") throw std::invalid_argument(\"the template of variant {} "
                                "runs that variant only\");\n{}  {}({});\n{}}}\n}}  // namespace kwb::reference\n",
                                spec.op, v.name, v.name, body, v.entry, args, copies);
}

}  // namespace kwb::speccheck
