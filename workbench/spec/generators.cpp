// resolve_generator: bounds evaluated per workload and checked against the tensor and its dtypes.
#include "spec/generators.hpp"

#include <fmt/format.h>

#include "spec/expr.hpp"
#include "spec/loader.hpp"

namespace kwb::spec {

namespace {

constexpr const char* k_bound_fields[] = {"lo", "hi", "end", "min_length", "max_length"};

double& field_of(core::Generator& g, std::string_view key) {
  if (key == "lo") return g.lo;
  if (key == "hi") return g.hi;
  if (key == "end") return g.end;
  if (key == "min_length") return g.min_length;
  return g.max_length;
}

std::string params_text(const core::Spec& spec, const std::map<std::string, int64_t>& params) {
  std::string s;
  for (const auto& name : spec.params)
    if (auto it = params.find(name); it != params.end()) s += fmt::format("{}{}={}", s.empty() ? "" : ", ", name, it->second);
  return s;
}

}  // namespace

std::pair<double, double> integer_dtype_range(core::DType t) {
  switch (t) {
    case core::DType::u8: return {0, 255};
    case core::DType::i8: return {-128, 127};
    case core::DType::i32: return {-2147483648.0, 2147483647.0};
    case core::DType::u32: return {0, 4294967295.0};
    default: return {-9223372036854775808.0, 9223372036854775807.0};
  }
}

bool needs_resolving(const core::Generator& g) {
  return !g.bounds.empty() || g.kind == "offsets" || g.kind == "distinct" || g.kind == "permutation";
}

util::Result<core::Generator> resolve_generator(const core::Spec& spec, size_t distribution, const std::string& tensor,
                                                const std::map<std::string, int64_t>& params,
                                                std::string_view workload) {
  const core::Distribution& d = spec.distributions.at(distribution);
  core::Generator g = d.tensors.at(tensor);
  if (!needs_resolving(g)) return g;
  const std::string base = fmt::format("distributions[{}].tensors.{}", distribution, tensor);
  const std::string on = fmt::format("{} ({})", workload, params_text(spec, params));
  const Env env(params.begin(), params.end());
  std::map<std::string, std::string> written;  // field -> "\"vocab - 1\" = 6" for messages
  for (const char* key : k_bound_fields) {
    auto it = g.bounds.find(key);
    if (it == g.bounds.end()) continue;
    auto v = evaluate(it->second, env);
    if (!v) return util::fail(base + "." + key, fmt::format("\"{}\" on {}: {}", it->second, on, v.error().message));
    field_of(g, key) = double(*v);
    if (it->second != std::to_string(*v)) written[key] = fmt::format("\"{}\" = {}", it->second, *v);
  }
  g.bounds.clear();
  auto said = [&](const char* key) {
    auto it = written.find(key);
    return it == written.end() ? fmt::format("{:.17g}", field_of(g, key)) : it->second;
  };
  const core::TensorSpec* t = spec.find_tensor(tensor);
  if (!t) return util::fail(base, fmt::format("no tensor '{}'", tensor));
  auto shape = tensor_shape(spec, *t, params);
  if (!shape) return util::fail(base, fmt::format("on {}: {}", on, shape.error().message));
  double count = 1;
  for (int64_t dim : *shape) count *= double(dim);
  const double row = shape->empty() ? 1 : double(shape->back());
  double lo = g.lo, hi = g.hi;  // the values drawn, for the dtype check
  if (g.kind == "int_uniform" || g.kind == "distinct") {
    if (g.lo > g.hi)
      return util::fail(base + ".hi", fmt::format("the range [{}, {}] is empty on {}: hi must be >= lo", said("lo"),
                                                  said("hi"), on));
    const double needed = g.per_row ? row : count;
    if (g.kind == "distinct" && g.hi - g.lo + 1 < needed)
      return util::fail(base, fmt::format("[{}, {}] holds {:.17g} distinct values, fewer than the {:.17g} elements of {} "
                                          "on {} that must all differ",
                                          said("lo"), said("hi"), g.hi - g.lo + 1, needed,
                                          g.per_row ? "each row (last dimension) of '" + tensor + "'" : "'" + tensor + "'",
                                          on));
  } else if (g.kind == "permutation") {
    g.lo = lo = 0;
    g.hi = hi = (g.per_row ? row : count) - 1;
  } else if (g.kind == "offsets") {
    const double n = count - 1;  // lengths
    if (g.end < 0) return util::fail(base + ".end", fmt::format("{} is negative on {}", said("end"), on));
    if (g.min_length < 0)
      return util::fail(base + ".min_length", fmt::format("{} is negative on {}", said("min_length"), on));
    if (g.max_length < g.min_length)
      return util::fail(base + ".max_length", fmt::format("{} is below min_length ({}) on {}", said("max_length"),
                                                          said("min_length"), on));
    if (n == 0 && g.end != 0)
      return util::fail(base + ".end", fmt::format("'{}' has one element on {}, the 0 it starts at, so it cannot end at "
                                                   "{}; offsets hold one element more than the lengths",
                                                   tensor, on, said("end")));
    if (n * g.min_length > g.end || n * g.max_length < g.end)
      return util::fail(base + ".end", fmt::format("offsets cannot end at {} on {}: {:.17g} lengths in [{}, {}] sum to "
                                                   "{:.17g}..{:.17g}",
                                                   said("end"), on, n, said("min_length"), said("max_length"),
                                                   n * g.min_length, n * g.max_length));
    lo = 0;
    hi = g.end;
  } else {
    return g;
  }
  for (const auto& v : spec.variants) {
    if (!v.has(tensor)) continue;
    const core::DType dt = v.dtypes.at(tensor);
    if (!core::dtype_is_integer(dt)) continue;  // the loader refuses these kinds on other dtypes
    const auto [min, max] = integer_dtype_range(dt);
    if (lo >= min && hi <= max) continue;
    const char* key = g.kind == "offsets" ? "end" : g.kind == "permutation" ? "" : lo < min ? "lo" : "hi";
    return util::fail(*key ? base + "." + key : base,
                      fmt::format("values up to [{:.17g}, {:.17g}] on {} do not fit tensor '{}', {} in variant '{}' "
                                  "([{:.17g}, {:.17g}])",
                                  lo, hi, on, tensor, core::dtype_name(dt), v.name, min, max));
  }
  return g;
}

util::Result<std::map<std::string, core::Generator>> resolve_distribution(const core::Spec& spec, size_t distribution,
                                                                          const std::map<std::string, int64_t>& params,
                                                                          std::string_view workload) {
  std::map<std::string, core::Generator> out;
  const std::string file = spec.file.empty() ? spec.op : spec.file.string();
  for (const auto& [tensor, g] : spec.distributions.at(distribution).tensors) {
    auto r = resolve_generator(spec, distribution, tensor, params, workload);
    if (!r) return util::fail(file + ": " + r.error().where, r.error().message);
    out.emplace(tensor, std::move(*r));
  }
  return out;
}

size_t distribution_index(const core::Spec& spec, const core::Distribution& d) {
  for (size_t i = 0; i < spec.distributions.size(); ++i)
    if (&spec.distributions[i] == &d || spec.distributions[i].name == d.name) return i;
  return 0;
}

}  // namespace kwb::spec
