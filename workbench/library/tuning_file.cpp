#include "library/tuning_file.hpp"

#include <cmath>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/backend.hpp"

namespace kwb::library {

namespace {

constexpr const char* k_magic = "# kwb.tuning.v1";
constexpr const char* k_columns[] = {"op",     "variant", "backend",  "workload",   "params",
                                     "source_sha256", "config", "median_ns", "stderr_pct", "samples"};

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  size_t at = 0;
  while (true) {
    auto tab = line.find('\t', at);
    out.push_back(line.substr(at, tab == std::string::npos ? std::string::npos : tab - at));
    if (tab == std::string::npos) break;
    at = tab + 1;
  }
  return out;
}

util::Result<std::map<std::string, int64_t>> int_object(const std::string& text, const std::string& where) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return util::fail(where, "expected a JSON object of integers, got '" + text + "'");
  std::map<std::string, int64_t> out;
  for (const auto& [k, v] : j.items()) {
    if (!v.is_number_integer()) return util::fail(where + "." + k, "expected an integer, got " + v.dump());
    out[k] = v.get<int64_t>();
  }
  return out;
}

bool is_sha256(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c)) || std::isupper(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

std::string tuning_file_text(const std::vector<store::TuningRecord>& records) {
  std::string out = std::string(k_magic) + "\n";
  const store::TuningIdentity* last = nullptr;
  std::vector<const store::TuningRecord*> sorted;
  for (const auto& r : records) sorted.push_back(&r);
  std::stable_sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) {
    return std::tie(a->identity.device, a->identity.toolchain, a->identity.workbench, a->identity.spec_version) <
           std::tie(b->identity.device, b->identity.toolchain, b->identity.workbench, b->identity.spec_version);
  });
  for (const auto* r : sorted) {
    if (!last || !(*last == r->identity)) {
      out += "Validator: device=" + r->identity.device + "\nValidator: toolchain=" + r->identity.toolchain +
             "\nValidator: workbench=" + r->identity.workbench +
             "\nValidator: spec_version=" + std::to_string(r->identity.spec_version) + "\n";
      last = &r->identity;
    }
    out += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", r->op, r->variant, r->backend, r->workload,
                       nlohmann::json(r->params).dump(), r->source_sha256, nlohmann::json(r->config).dump(),
                       r->median_ns, r->stderr_pct, r->samples);
  }
  return out;
}

util::Result<std::vector<store::TuningRecord>> parse_tuning_file(const std::string& text, const std::string& where) {
  std::vector<store::TuningRecord> out;
  std::istringstream in(text);
  std::string line;
  int no = 0;
  store::TuningIdentity id;
  id.spec_version = 1;  // files written before spec versions were part of the identity: all were 1
  int have = 0;  // Validator fields seen in the current block (bit mask)
  bool in_rows = false;
  while (std::getline(in, line)) {
    ++no;
    std::string at = where + ":" + std::to_string(no);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (no == 1) {
      if (line != k_magic) return util::fail(at, std::string("expected the header '") + k_magic + "'");
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    if (line.starts_with("Validator: ")) {
      if (in_rows) have = 0, in_rows = false, id.spec_version = 1;
      auto kv = line.substr(11);
      auto eq = kv.find('=');
      std::string key = kv.substr(0, eq), value = eq == std::string::npos ? "" : kv.substr(eq + 1);
      int bit = key == "device" ? 1 : key == "toolchain" ? 2 : key == "workbench" ? 4 : key == "spec_version" ? 8 : 0;
      if (!bit || eq == std::string::npos)
        return util::fail(at, "expected 'Validator: device=...', 'toolchain=...', 'workbench=...' or 'spec_version=...'");
      if (value.empty()) return util::fail(at, key + ": empty");
      if (bit == 8) {
        char* end = nullptr;
        long v = std::strtol(value.c_str(), &end, 10);
        if (*end || v < 1 || v > 1000000000) return util::fail(at, "spec_version: expected an integer >= 1, got '" + value + "'");
        id.spec_version = int(v);
        continue;
      }
      (bit == 1 ? id.device : bit == 2 ? id.toolchain : id.workbench) = value;
      have |= bit;
      continue;
    }
    if ((have & 7) != 7) return util::fail(at, "a record before its Validator lines (device, toolchain and workbench)");
    in_rows = true;
    auto cols = split_tabs(line);
    if (cols.size() != std::size(k_columns))
      return util::fail(at, fmt::format("expected {} tab-separated columns ({}), got {}", std::size(k_columns),
                                        fmt::join(k_columns, ", "), cols.size()));
    store::TuningRecord r;
    r.op = cols[0];
    r.variant = cols[1];
    r.backend = cols[2];
    r.workload = cols[3];
    for (int c : {0, 1, 2, 3})
      if (cols[size_t(c)].empty()) return util::fail(at + ": " + k_columns[c], "empty");
    if (!core::parse_backend(r.backend))
      return util::fail(at + ": backend", "'" + r.backend + "' is not one of " + core::backend_list());
    auto params = int_object(cols[4], at + ": params");
    if (!params) return std::unexpected(params.error());
    r.params = *params;
    if (!is_sha256(cols[5])) return util::fail(at + ": source_sha256", "expected 64 lowercase hex digits");
    r.source_sha256 = cols[5];
    auto config = int_object(cols[6], at + ": config");
    if (!config) return std::unexpected(config.error());
    r.config = *config;
    char* end = nullptr;
    r.median_ns = std::strtod(cols[7].c_str(), &end);
    if (cols[7].empty() || *end || !std::isfinite(r.median_ns) || r.median_ns <= 0)
      return util::fail(at + ": median_ns", "expected a positive number, got '" + cols[7] + "'");
    r.stderr_pct = std::strtod(cols[8].c_str(), &end);
    if (cols[8].empty() || *end || !std::isfinite(r.stderr_pct) || r.stderr_pct < 0)
      return util::fail(at + ": stderr_pct", "expected a number >= 0, got '" + cols[8] + "'");
    r.samples = std::strtoll(cols[9].c_str(), &end, 10);
    if (cols[9].empty() || *end || r.samples < 1)
      return util::fail(at + ": samples", "expected a positive integer, got '" + cols[9] + "'");
    r.identity = id;
    out.push_back(std::move(r));
  }
  if (no == 0) return util::fail(where, std::string("empty; expected the header '") + k_magic + "'");
  return out;
}

}  // namespace kwb::library
