// The optional "shapes" section: param ranges, constraints, how many test workloads every
// evaluation draws and the element cap. Checked at load time by drawing from a fixed seed: the
// constraints must accept at least 1 % of proposals, and every accepted shape (and every corner
// of the ranges the constraints allow) must give valid tensor shapes and rooflines.
#include <charconv>
#include <map>
#include <fmt/format.h>

#include "spec/expr.hpp"
#include "spec/loader_parts.hpp"
#include "spec/shape_draw.hpp"

namespace kwb::spec::detail {

namespace {

constexpr int64_t k_max_value = int64_t{1} << 53;
constexpr int k_max_count = 64;
constexpr int k_check_proposals = 1000;
constexpr int k_check_accepted = 10;  // 1 % of k_check_proposals
constexpr uint64_t k_check_seed = 0x5ea5eed5ull;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool parse_int(std::string_view s, int64_t& out) {
  s = trim(s);
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if ((s[i] < '0' || s[i] > '9') && !(i == 0 && s[i] == '-' && s.size() > 1)) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

// "lo..hi" or an integer (a fixed value).
bool read_range(Reader& r, const Json& j, const std::string& path, core::ParamRange& out) {
  const std::string form = "expected a range \"lo..hi\" of integers or an integer";
  if (j.is_number_integer()) {
    if (!r.integer(j, path, out.lo)) return false;
    out.hi = out.lo;
  } else if (j.is_string()) {
    const std::string s = j.get<std::string>();
    const size_t dots = s.find("..");
    if (dots == std::string::npos || !parse_int(std::string_view(s).substr(0, dots), out.lo) ||
        !parse_int(std::string_view(s).substr(dots + 2), out.hi))
      return r.fail(path, fmt::format("{}, got {}", form, describe(j)));
  } else {
    return r.fail(path, fmt::format("{}, got {}", form, describe(j)));
  }
  if (out.lo < 1) return r.fail(path, fmt::format("lo must be >= 1, got {}", out.lo));
  if (out.lo > out.hi) return r.fail(path, fmt::format("lo must be <= hi, got {}..{}", out.lo, out.hi));
  if (out.hi > k_max_value) return r.fail(path, fmt::format("hi must be <= 2^53 ({}), got {}", k_max_value, out.hi));
  return true;
}

bool read_ranges(Reader& r, const Json& j, const std::string& path, core::Spec& spec, core::ShapeDraws& out) {
  if (!r.any_object(j, path)) return false;
  const std::string declared = join(spec.params);
  std::map<std::string, core::ParamRange> ranges;
  for (const auto& [key, value] : j.items()) {
    const std::string p = member_path(path, key);
    if (find_index(spec.params, key) < 0)
      return r.fail(p, fmt::format("unknown param '{}' (declared: {})", key, declared));
    core::ParamRange range{key};
    if (!read_range(r, value, p, range)) return false;
    ranges[key] = range;
  }
  for (const auto& name : spec.params) {
    if (!ranges.contains(name))
      return r.fail(member_path(path, name),
                    fmt::format("missing: every declared param needs a range ({}); an integer fixes it", declared));
    out.ranges.push_back(ranges[name]);
  }
  return true;
}

// {"eps": [1e-6, 1e-3], "theta": 10000}: a range [lo, hi] of finite numbers or one number per
// scalar; a scalar left out keeps its declared value (one without a value needs a range).
bool read_scalar_ranges(Reader& r, const Json* j, const std::string& path, const core::Spec& spec,
                        core::ShapeDraws& out) {
  std::map<std::string, core::ScalarRange> ranges;
  if (j) {
    if (!r.any_object(*j, path)) return false;
    for (const auto& [key, value] : j->items()) {
      const std::string p = member_path(path, key);
      bool known = false;
      for (const auto& s : spec.scalars) known = known || s.name == key;
      if (!known)
        return r.fail(p, fmt::format("unknown scalar '{}' (declared: {})", key,
                                     spec.scalars.empty() ? "none" : join(spec.scalar_names())));
      core::ScalarRange range{key};
      if (value.is_array()) {
        if (value.size() != 2) return r.fail(p, fmt::format("expected [lo, hi] or a number, got {}", describe(value)));
        if (!r.number(value[0], index_path(p, 0), range.lo) || !r.number(value[1], index_path(p, 1), range.hi))
          return false;
        if (range.lo > range.hi) return r.fail(p, fmt::format("lo must be <= hi, got [{}, {}]", range.lo, range.hi));
      } else {
        if (!value.is_number()) return r.fail(p, fmt::format("expected [lo, hi] or a number, got {}", describe(value)));
        if (!r.number(value, p, range.lo)) return false;
        range.hi = range.lo;
      }
      ranges[key] = range;
    }
  }
  for (const auto& s : spec.scalars) {
    if (ranges.contains(s.name)) {
      out.scalars.push_back(ranges[s.name]);
    } else if (s.value) {
      out.scalars.push_back(core::ScalarRange{s.name, *s.value, *s.value});
    } else {
      return r.fail(member_path(path, s.name),
                    fmt::format("missing: scalar '{}' has no \"value\", so drawn shapes need a range for it ([lo, hi] "
                                "or a number)",
                                s.name));
    }
  }
  return true;
}

bool read_constraints(Reader& r, const Json& j, const std::string& path, const core::Spec& spec,
                      core::ShapeDraws& out) {
  if (!r.array(j, path, /*non_empty=*/false)) return false;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = index_path(path, i);
    std::string text;
    if (!r.non_empty_string(j[i], p, text)) return false;
    auto e = Expr::parse_condition(text);
    if (!e) return r.fail(p, "bad constraint " + e.error().message);
    for (const auto& name : e->names())
      if (find_index(spec.params, name) < 0)
        return r.fail(p, fmt::format("unknown name '{}' in \"{}\" (declared params: {})", name, text, join(spec.params)));
    out.constraints.push_back(std::move(text));
  }
  return true;
}

// Every corner of the ranges (each param at lo or hi) the constraints allow, then proposals from
// a fixed seed: invalid shapes are errors, and enough proposals must be accepted.
bool check_draws(Reader& r, const std::string& path, const core::Spec& spec) {
  auto sampler = ShapeSampler::make(spec);
  if (!sampler) return r.fail(path, sampler.error().message);
  const auto& ranges = spec.shapes->ranges;
  if (ranges.size() <= 12)
    for (uint64_t corner = 0; corner < (uint64_t{1} << ranges.size()); ++corner) {
      Params p;
      for (size_t i = 0; i < ranges.size(); ++i) p[ranges[i].param] = corner >> i & 1 ? ranges[i].hi : ranges[i].lo;
      if (auto ok = sampler->accepts(p); !ok) return r.fail(path, ok.error().message);
    }
  util::Rng rng(k_check_seed);
  int accepted = 0;
  for (int i = 0; i < k_check_proposals; ++i) {
    auto ok = sampler->accepts(sampler->propose(rng));
    if (!ok) return r.fail(path, ok.error().message);
    accepted += *ok;
  }
  if (accepted >= k_check_accepted) return true;
  return r.fail(path, fmt::format("only {} of {} shapes drawn from the ranges meet the constraints and max_elements ({}); "
                                  "at least {} must: widen the ranges, loosen the constraints or raise max_elements",
                                  accepted, k_check_proposals, spec.shapes->max_elements, k_check_accepted));
}

}  // namespace

bool read_shapes(Reader& r, const Json& j, const std::string& path, core::Spec& spec) {
  if (!r.object(j, path, {"ranges", "scalars", "constraints", "count", "max_elements"})) return false;
  if (spec.params.empty()) return r.fail(path, "the spec declares no params: there is nothing to draw");
  core::ShapeDraws shapes;
  const Json* v = r.required(j, path, "ranges");
  if (!v || !read_ranges(r, *v, member_path(path, "ranges"), spec, shapes)) return false;
  if (!read_scalar_ranges(r, Reader::optional(j, "scalars"), member_path(path, "scalars"), spec, shapes)) return false;
  if (const Json* c = Reader::optional(j, "constraints");
      c && !read_constraints(r, *c, member_path(path, "constraints"), spec, shapes))
    return false;
  if (const Json* c = Reader::optional(j, "count")) {
    int64_t n = 0;
    if (!r.integer(*c, member_path(path, "count"), n)) return false;
    if (n < 1 || n > k_max_count)
      return r.fail(member_path(path, "count"),
                    fmt::format("must be in 1..{}, got {} (leave \"shapes\" out to draw none)", k_max_count, n));
    shapes.count = int(n);
  }
  if (const Json* m = Reader::optional(j, "max_elements")) {
    if (!r.integer(*m, member_path(path, "max_elements"), shapes.max_elements)) return false;
    if (shapes.max_elements < 1)
      return r.fail(member_path(path, "max_elements"), fmt::format("must be >= 1, got {}", shapes.max_elements));
  }
  spec.shapes = std::move(shapes);
  return check_draws(r, path, spec);
}

}  // namespace kwb::spec::detail
