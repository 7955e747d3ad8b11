// The tunables' space: value lists, ranges and constraints (spec/tune_space.hpp, docs/tuning.md).
#include "spec/tune_space.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>

#include "spec/expr.hpp"
#include "spec/plan_text.hpp"

namespace kwb::spec {

namespace {

using plan_text::split_top;
using plan_text::trim;

util::Result<int64_t> integer(std::string_view v, std::string_view item) {
  v = trim(v);
  int64_t x = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size())
    return util::fail("", item == v ? fmt::format("value '{}' is not an integer", v)
                                    : fmt::format("'{}' in '{}' is not an integer", v, item));
  return x;
}

bool is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

util::Result<void> too_many(std::string_view item, size_t n) {
  if (n > k_max_tune_values)
    return util::fail("", fmt::format("'{}' gives more than {} values", item, k_max_tune_values));
  return {};
}

// One item of the list: V, LO..HI, range(LO,HI,STEP) or pow2(LO,HI).
util::Result<std::vector<int64_t>> item_values(std::string_view item) {
  auto call = [&](std::string_view fn) -> std::optional<std::vector<std::string_view>> {
    if (!item.starts_with(fn) || !item.ends_with(')')) return std::nullopt;
    auto inner = trim(item.substr(fn.size()));
    if (!inner.starts_with('(')) return std::nullopt;
    return split_top(inner.substr(1, inner.size() - 2));
  };
  std::vector<int64_t> out;
  if (auto args = call("range")) {
    if (args->size() != 3) return util::fail("", fmt::format("'{}': range takes (LO, HI, STEP)", item));
    int64_t v[3];
    for (int i = 0; i < 3; ++i) {
      auto x = integer((*args)[i], item);
      if (!x) return std::unexpected(x.error());
      v[i] = *x;
    }
    if (v[2] <= 0) return util::fail("", fmt::format("'{}': the step must be positive", item));
    if (v[1] < v[0]) return util::fail("", fmt::format("'{}': HI {} is below LO {}", item, v[1], v[0]));
    if (auto r = too_many(item, size_t((v[1] - v[0]) / v[2]) + 1); !r) return std::unexpected(r.error());
    for (int64_t x = v[0]; x <= v[1]; x += v[2]) out.push_back(x);
    return out;
  }
  if (auto args = call("pow2")) {
    if (args->size() != 2) return util::fail("", fmt::format("'{}': pow2 takes (LO, HI)", item));
    auto lo = integer((*args)[0], item);
    if (!lo) return std::unexpected(lo.error());
    auto hi = integer((*args)[1], item);
    if (!hi) return std::unexpected(hi.error());
    if (!is_pow2(*lo) || !is_pow2(*hi))
      return util::fail("", fmt::format("'{}': LO and HI must be powers of two", item));
    if (*hi < *lo) return util::fail("", fmt::format("'{}': HI {} is below LO {}", item, *hi, *lo));
    for (int64_t x = *lo; x <= *hi; x *= 2) {
      out.push_back(x);
      if (x > (int64_t(1) << 61)) break;
    }
    return out;
  }
  if (auto dots = item.find(".."); dots != std::string_view::npos) {
    auto lo = integer(item.substr(0, dots), item);
    if (!lo) return std::unexpected(lo.error());
    auto hi = integer(item.substr(dots + 2), item);
    if (!hi) return std::unexpected(hi.error());
    if (*hi < *lo) return util::fail("", fmt::format("'{}': HI {} is below LO {}", item, *hi, *lo));
    if (auto r = too_many(item, size_t(*hi - *lo) + 1); !r) return std::unexpected(r.error());
    for (int64_t x = *lo; x <= *hi; ++x) out.push_back(x);
    return out;
  }
  auto x = integer(item, item);
  if (!x) return std::unexpected(x.error());
  return std::vector<int64_t>{*x};
}

std::string join_names(const core::LaunchPlan& plan) {
  std::string s;
  for (const auto& t : plan.tunables) s += (s.empty() ? "" : ", ") + t.name;
  return s.empty() ? "none" : s;
}

}  // namespace

util::Result<std::vector<int64_t>> parse_tune_values(std::string_view text) {
  std::vector<int64_t> out;
  for (auto item : split_top(text)) {
    if (item.empty()) return util::fail("", "an empty value (two commas, or a comma at an end)");
    auto values = item_values(item);
    if (!values) return std::unexpected(values.error());
    for (auto x : *values) {
      if (std::find(out.begin(), out.end(), x) != out.end())
        return util::fail("", fmt::format("value {} is listed twice", x));
      out.push_back(x);
    }
    if (auto r = too_many(text, out.size()); !r) return std::unexpected(r.error());
  }
  return out;
}

util::Result<std::vector<core::TuneConfig>> enumerate_tune_space(const core::LaunchPlan& plan, std::string_view file) {
  std::vector<Expr> conditions;
  for (const auto& c : plan.constraints) {
    const std::string at = fmt::format("{}:{}", file, c.line);
    auto e = Expr::parse_condition(c.condition);
    if (!e) return util::fail(at, fmt::format("kwb:constraint: '{}': {}", c.condition, e.error().message));
    for (const auto& n : e->names())
      if (std::none_of(plan.tunables.begin(), plan.tunables.end(), [&](auto& t) { return t.name == n; }))
        return util::fail(at, fmt::format("kwb:constraint: '{}' uses '{}', which is not a tunable (tunables: {}); "
                                          "constraints are over the kwb:tune macros only",
                                          c.condition, n, join_names(plan)));
    conditions.push_back(std::move(*e));
  }
  const int first_line = plan.tunables.empty() ? 0 : plan.tunables.front().line;
  size_t product = 1;
  for (const auto& t : plan.tunables) {
    product *= std::max<size_t>(1, t.values.size());
    if (product > k_max_tune_product)
      return util::fail(fmt::format("{}:{}", file, t.line),
                        fmt::format("kwb:tune: the tunables give more than {} combinations before the constraints; "
                                    "narrow the ranges", k_max_tune_product));
  }
  std::vector<core::TuneConfig> out;
  std::vector<size_t> at(plan.tunables.size(), 0);
  Env env;
  for (size_t n = 0; n < product; ++n) {
    core::TuneConfig c;
    for (size_t i = 0; i < plan.tunables.size(); ++i) {
      c.values[plan.tunables[i].name] = plan.tunables[i].values[at[i]];
      env[plan.tunables[i].name] = plan.tunables[i].values[at[i]];
    }
    bool keep = true;
    for (size_t k = 0; k < conditions.size() && keep; ++k) {
      auto v = conditions[k].eval(env);
      if (!v)
        return util::fail(fmt::format("{}:{}", file, plan.constraints[k].line),
                          fmt::format("kwb:constraint: '{}' cannot be evaluated for {}: {}", conditions[k].text(),
                                      c.label(), v.error().message));
      keep = *v != 0;
    }
    if (keep) out.push_back(std::move(c));
    if (out.size() > k_max_tune_space)
      return util::fail(fmt::format("{}:{}", file, first_line),
                        fmt::format("kwb:tune: the space holds more than {} configs after the constraints; narrow "
                                    "the ranges or add `// kwb:constraint` lines", k_max_tune_space));
    for (size_t i = plan.tunables.size(); i-- > 0;) {  // the last tunable varies fastest
      if (++at[i] < plan.tunables[i].values.size()) break;
      at[i] = 0;
    }
  }
  if (out.empty())
    return util::fail(fmt::format("{}:{}", file, plan.constraints.empty() ? first_line : plan.constraints.front().line),
                      "kwb:constraint: no combination of the tunables satisfies every constraint");
  return out;
}

}  // namespace kwb::spec
