#include "spec/templates.hpp"

#include <fmt/format.h>

#include "core/backend.hpp"
#include "spec/prototype.hpp"
#include "util/fs.hpp"

namespace kwb::spec {

namespace fs = std::filesystem;

namespace {

constexpr size_t k_max_template_bytes = 256 << 10;  // a candidate's source limit

std::string shape_text(const core::TensorSpec& t) {
  std::string s;
  for (const auto& d : t.shape) s += (s.empty() ? "" : ", ") + d;
  return "[" + s + "]";
}

// "x [rows, cols] in f32" lines, one per tensor, as comments.
std::string tensor_comments(const core::Spec& spec, const core::Variant& v) {
  std::string s;
  for (const auto* t : spec.tensors_of(v))
    s += fmt::format("//   {} {} {} {}\n", t->name, shape_text(*t), core::role_name(t->role),
                     core::dtype_name(v.dtypes.at(t->name)));
  for (const auto& sc : spec.scalars) s += fmt::format("//   {}: a double scalar (after the params)\n", sc.name);
  return s;
}

std::string outputs_text(const core::Spec& spec, const core::Variant& v) {
  std::string s;
  for (const auto* t : spec.tensors_of(v))
    if (t->role != core::Role::in) s += (s.empty() ? "" : ", ") + t->name;
  return s;
}

std::string skeleton(const core::Spec& spec, const core::Variant& v, std::string_view backend) {
  const std::string b(backend);
  const auto form = core::parse_backend(backend);
  const bool kernel = form == core::Backend::cuda, launcher = form == core::Backend::cuda_launcher;
  auto params = entry_params(spec, v, b);
  std::string head = fmt::format(
      "// {} {} ({}): a skeleton written from the spec's prototype; this spec ships no template for it.\n"
      "// {}\n// Tensors (row-major, contiguous):\n{}"
      "// Write every element of {} on every call (outputs are poisoned before each call).\n",
      spec.op, v.name, b, spec.summary, tensor_comments(spec, v), outputs_text(spec, v));
  bool half = false, bf16 = false, fp8 = false;
  for (const auto& [name, dt] : v.dtypes)
    half |= dt == core::DType::f16, bf16 |= dt == core::DType::bf16, fp8 |= core::dtype_is_fp8(dt);
  if (kernel) {
    std::string args;
    for (const auto& p : params) args += (args.empty() ? "" : ", ") + p.name;
    std::string includes = std::string(half ? "#include <cuda_fp16.h>\n" : "") + (bf16 ? "#include <cuda_bf16.h>\n" : "") +
                           (fp8 ? "#include <cuda_fp8.h>\n" : "");
    return fmt::format("// kwb:launch {} grid=(1) block=(1) args=({})\n// kwb:variant {}\n{}{}extern \"C\" {} {{\n"
                       "  // TODO: compute {} (set grid= and block= in the launch line above)\n}}\n",
                       v.entry, args, v.name, head, includes, prototype_text(v.entry, params, true),
                       outputs_text(spec, v));
  }
  std::string includes = launcher ? std::string("#include <cstdint>\n#include <cuda_runtime.h>\n") +
                                                    (half ? "#include <cuda_fp16.h>\n" : "") +
                                                    (bf16 ? "#include <cuda_bf16.h>\n" : "") +
                                                    (fp8 ? "#include <cuda_fp8.h>\n" : "")
                                              : "#include <cstdint>\n";
  return fmt::format("{}{}extern \"C\" {} {{\n  // TODO: compute {}{}\n}}\n", head, includes,
                     prototype_text(v.entry, params, false), outputs_text(spec, v),
                     launcher ? ", launching kernels on `stream` only" : "");
}

}  // namespace

bool is_template_file(std::string_view name) { return name.starts_with("template."); }

std::string template_file_name(std::string_view backend, std::string_view variant) {
  switch (core::parse_backend(backend).value_or(core::Backend::cpu)) {
    case core::Backend::cuda: return fmt::format("template.{}.cu", variant);
    case core::Backend::cuda_launcher: return fmt::format("template.{}.launcher.cu", variant);
    case core::Backend::cpu: break;
  }
  return fmt::format("template.{}.cpp", variant);
}

std::optional<std::pair<std::string, std::string>> template_role(std::string_view name) {
  if (!is_template_file(name)) return std::nullopt;
  std::string_view rest = name.substr(std::string_view("template.").size());
  auto strip = [&](std::string_view suffix) {
    if (!rest.ends_with(suffix) || rest.size() == suffix.size()) return false;
    rest.remove_suffix(suffix.size());
    return true;
  };
  core::Backend form;
  if (strip(".launcher.cu")) form = core::Backend::cuda_launcher;
  else if (strip(".cu")) form = core::Backend::cuda;
  else if (strip(".cpp")) form = core::Backend::cpu;
  else return std::nullopt;
  if (rest.find('.') != std::string_view::npos) return std::nullopt;
  return std::pair{std::string(core::backend_name(form)), std::string(rest)};
}

util::Result<void> read_templates(const fs::path& folder, core::Spec& spec) {
  std::error_code ec;
  for (auto it = fs::directory_iterator(folder, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!is_template_file(name) || !it->is_regular_file(ec)) continue;
    const std::string where = (folder / name).string();
    auto role = template_role(name);
    if (!role)
      return util::fail(where, "not a template name: template.<variant>.cpp (cpu), template.<variant>.cu (cuda) or "
                               "template.<variant>.launcher.cu (cuda-launcher)");
    if (!spec.find_variant(role->second)) {
      std::string known;
      for (const auto& v : spec.variants) known += (known.empty() ? "" : ", ") + v.name;
      return util::fail(where, fmt::format("no variant '{}' in the spec (variants: {})", role->second, known));
    }
    auto text = util::read_file(it->path());
    if (!text) return std::unexpected(text.error());
    if (text->size() > k_max_template_bytes)
      return util::fail(where, fmt::format("{} bytes; a template is a candidate source, at most {}", text->size(),
                                           k_max_template_bytes));
    spec.templates[role->first][role->second] = {name, std::move(*text)};
  }
  if (ec) return util::fail(folder.string(), "cannot list the spec's folder: " + ec.message());
  return {};
}

CandidateTemplate candidate_template(const core::Spec& spec, const core::Variant& v, std::string_view backend) {
  if (auto b = spec.templates.find(std::string(backend)); b != spec.templates.end())
    if (auto t = b->second.find(v.name); t != b->second.end()) return {t->second.source, t->second.file, true};
  return {skeleton(spec, v, backend), "", false};
}

}  // namespace kwb::spec
