// Edge sizes in the test workloads (docs/specs.md "The checks", check 4: 1, primes, non-multiples
// of 32/128), as warnings.
#include <fmt/format.h>
#include <tuple>

#include "spec/expr.hpp"

#include "speccheck/structural.hpp"

namespace kwb::speccheck {

namespace {

bool is_prime(int64_t v) {
  if (v < 2) return false;
  for (int64_t d = 2; d <= v / d; ++d)
    if (v % d == 0) return false;
  return true;
}

}  // namespace

void check_edge_coverage(const core::Spec& spec, Findings& out) {
  for (size_t p = 0; p < spec.params.size(); ++p) {
    const std::string& name = spec.params[p];
    bool one = false, prime = false, ragged32 = false, ragged128 = false;
    for (const auto& w : spec.test_workloads) {
      const int64_t v = w.params.at(name);
      one = one || v == 1;
      prime = prime || is_prime(v);
      ragged32 = ragged32 || (v > 32 && v % 32 != 0);
      ragged128 = ragged128 || (v > 128 && v % 128 != 0);
    }
    std::vector<std::string> missing;
    if (!one) missing.push_back(fmt::format("{} = 1", name));
    if (!prime) missing.push_back(fmt::format("a prime {} (e.g. 31, 127)", name));
    if (!ragged32) missing.push_back(fmt::format("{} > 32 and not a multiple of 32 (e.g. 33: a full tile and a ragged one)", name));
    if (!ragged128) missing.push_back(fmt::format("{} > 128 and not a multiple of 128 (e.g. 129)", name));
    for (const auto& m : missing)
      out.spec_warning("workloads.test", fmt::format("param '{}' is never tested at an edge size: no test workload has {}", name, m));
  }
}

void check_roofline(const core::Spec& spec, Findings& out) {
  for (size_t v = 0; v < spec.variants.size(); ++v) {
    const auto& var = spec.variants[v];
    for (auto [field, text, floor] : {std::tuple{"bytes", &var.roofline.bytes, int64_t(1)},
                                      std::tuple{"flops", &var.roofline.flops, int64_t(0)}}) {
      std::string first;
      size_t bad = 0;
      for (bool bench : {false, true}) {
        const auto& list = bench ? spec.bench_workloads : spec.test_workloads;
        for (size_t i = 0; i < list.size(); ++i) {
          auto value = spec::evaluate(*text, spec::Env(list[i].params.begin(), list[i].params.end()));
          if (!value || *value >= floor) continue;  // an expression that fails is the loader's error
          if (bad++ == 0) first = fmt::format("{} on {} '{}'", *value, workload_path(bench, i), list[i].name);
        }
      }
      if (bad == 0) continue;
      out.spec_error(fmt::format("variants[{}].roofline.{}", v, field),
                     fmt::format("\"{}\" is {}{}; {} must be {}", *text, first,
                                 bad > 1 ? fmt::format(" (and on {} more workloads)", bad - 1) : "", field,
                                 floor == 1 ? "> 0 on every workload (every op moves its data)" : ">= 0"));
    }
  }
}

}  // namespace kwb::speccheck
