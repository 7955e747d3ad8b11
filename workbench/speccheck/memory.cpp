// Device class limits: the tensors of every workload fit the memory of the device classes it runs on.
#include <cctype>
#include <fmt/format.h>
#include <unistd.h>

#include "spec/loader.hpp"
#include "speccheck/structural.hpp"

namespace kwb::speccheck {

namespace {

constexpr uint64_t k_gib = uint64_t(1) << 30;

// Tensor bytes of one workload in one variant; nullopt when a shape does not evaluate (the
// loader has reported that already) or the sum does not fit in 64 bits.
std::optional<unsigned __int128> workload_bytes(const core::Spec& spec, const core::Variant& var,
                                                const core::Workload& w, std::string& biggest) {
  unsigned __int128 total = 0, largest = 0;
  for (const auto* t : spec.tensors_of(var)) {
    auto shape = spec::tensor_shape(spec, *t, w.params);
    if (!shape) return std::nullopt;
    unsigned __int128 n = core::dtype_size(var.dtypes.at(t->name));
    for (int64_t d : *shape) n *= uint64_t(d);
    total += n;
    if (n > largest) {
      largest = n;
      biggest = t->name;
    }
  }
  return total;
}

}  // namespace

DeviceLimits DeviceLimits::defaults() {
  DeviceLimits l;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  l.cpu_bytes = pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) / 2 : 8 * k_gib;
  l.cuda_bytes = 139 * k_gib;
  return l;
}

util::Result<uint64_t> parse_size(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 || i > 18) return util::fail(text, "expected a size such as 64GiB, 512MiB or a number of bytes");
  uint64_t value = std::stoull(text.substr(0, i));
  std::string unit;
  for (char c : text.substr(i)) unit += char(std::tolower(static_cast<unsigned char>(c)));
  static const std::pair<const char*, uint64_t> k_units[] = {
      {"", 1},           {"b", 1},           {"k", 1ull << 10},   {"kib", 1ull << 10}, {"kb", 1000},
      {"m", 1ull << 20}, {"mib", 1ull << 20}, {"mb", 1000000},    {"g", 1ull << 30},   {"gib", 1ull << 30},
      {"gb", 1000000000}, {"t", 1ull << 40}, {"tib", 1ull << 40}, {"tb", 1000000000000}};
  for (const auto& [name, scale] : k_units)
    if (unit == name) {
      if (value > UINT64_MAX / scale) return util::fail(text, "size too large");
      return value * scale;
    }
  return util::fail(text, "unknown unit '" + text.substr(i) + "' (use B, KiB, MiB, GiB, TiB, KB, MB, GB or TB)");
}

std::string format_size(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) bytes /= 1024, ++u;
  return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.2f} {}", bytes, units[u]);
}

std::string workload_path(bool bench, size_t index) {
  return fmt::format("workloads.{}[{}]", bench ? "bench" : "test", index);
}

void check_memory(const core::Spec& spec, const DeviceLimits& limits, Findings& out) {
  struct Class {
    const char* name;
    uint64_t limit;
    const char* flag;
  };
  const Class cpu{"cpu", limits.cpu_bytes, "--cpu-memory"}, cuda{"cuda", limits.cuda_bytes, "--cuda-memory"};
  for (bool bench : {false, true}) {
    const auto& list = bench ? spec.bench_workloads : spec.test_workloads;
    for (size_t i = 0; i < list.size(); ++i) {
      const auto& w = list[i];
      for (const auto& var : spec.variants) {
        std::string biggest;
        auto bytes = workload_bytes(spec, var, w, biggest);
        if (!bytes) continue;
        for (const Class* c : {&cpu, &cuda}) {
          const bool runs = c == &cpu ? w.runs_on(core::Backend::cpu)
                                      : (w.runs_on(core::Backend::cuda) || w.runs_on(core::Backend::cuda_launcher));
          if (!runs || *bytes <= c->limit) continue;
          const std::string hint = c == &cpu && w.backends.empty()
                                       ? "; give it \"backends\": [\"cuda\", \"cuda-launcher\"] if it is meant for GPUs"
                                       : "";
          out.spec_error(workload_path(bench, i),
                         fmt::format("'{}', variant {}: its tensors take {} (largest: '{}'), more than the {} device "
                                     "class holds ({}; {} changes it){}",
                                     w.name, var.name, format_size(double(*bytes)), biggest, c->name,
                                     format_size(double(c->limit)), c->flag, hint));
        }
      }
    }
  }
}

}  // namespace kwb::speccheck
