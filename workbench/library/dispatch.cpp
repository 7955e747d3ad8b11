#include "library/dispatch.hpp"

#include "core/backend.hpp"
#include "library/device_class.hpp"

#include <algorithm>
#include <tuple>

#include <nlohmann/json.hpp>

namespace kwb::library {

namespace {

using nlohmann::json;

auto key_of(const DispatchEntry& e) { return std::tie(e.op, e.variant, e.backend, e.device_class, e.region); }

bool same_slot(const DispatchEntry& e, std::string_view op, std::string_view variant, std::string_view backend,
               std::string_view device_class) {
  return e.op == op && e.variant == variant && e.backend == backend && e.device_class == device_class;
}

util::Result<std::string> text_field(const json& j, const std::string& path, const char* name, bool required) {
  if (!j.contains(name)) {
    if (required) return util::fail(path + "." + name, "missing");
    return std::string();
  }
  if (!j[name].is_string()) return util::fail(path + "." + name, std::string("expected a string, got ") + j[name].type_name());
  return j[name].get<std::string>();
}

util::Result<std::map<std::string, int64_t>> int_map(const json& j, const std::string& path, const char* name) {
  std::map<std::string, int64_t> out;
  if (!j.contains(name)) return out;
  if (!j[name].is_object()) return util::fail(path + "." + name, "expected an object of integers");
  for (const auto& [k, v] : j[name].items()) {
    if (!v.is_number_integer()) return util::fail(path + "." + name + "." + k, "expected an integer, got " + v.dump());
    out[k] = v.get<int64_t>();
  }
  return out;
}

util::Result<DispatchConfig> parse_config(const json& j, const std::string& path) {
  if (!j.is_object()) return util::fail(path, "expected an object");
  DispatchConfig c;
  auto workload = text_field(j, path, "workload", true);
  if (!workload) return std::unexpected(workload.error());
  c.workload = *workload;
  auto params = int_map(j, path, "params");
  if (!params) return std::unexpected(params.error());
  c.params = *params;
  auto tune = int_map(j, path, "tune");
  if (!tune) return std::unexpected(tune.error());
  c.tune = *tune;
  if (j.contains("median_ns") && !j["median_ns"].is_null()) {
    if (!j["median_ns"].is_number() || j["median_ns"].get<double>() <= 0)
      return util::fail(path + ".median_ns", "expected a positive number");
    c.median_ns = j["median_ns"].get<double>();
  }
  return c;
}

util::Result<DispatchEntry> parse_entry(const json& j, const std::string& path) {
  if (!j.is_object()) return util::fail(path, "expected an object");
  DispatchEntry e;
  for (auto [field, required] : std::initializer_list<std::pair<std::string DispatchEntry::*, const char*>>{
           {&DispatchEntry::op, "op"}, {&DispatchEntry::variant, "variant"}, {&DispatchEntry::backend, "backend"},
           {&DispatchEntry::device_class, "device_class"}, {&DispatchEntry::kernel, "kernel"}}) {
    auto v = text_field(j, path, required, true);
    if (!v) return std::unexpected(v.error());
    if (v->empty()) return util::fail(path + "." + required, "must not be empty");
    e.*field = *v;
  }
  if (!core::parse_backend(e.backend))
    return util::fail(path + ".backend", "'" + e.backend + "' is not one of " + core::backend_list());
  if (e.kernel.starts_with('/') || e.kernel.find("..") != std::string::npos)
    return util::fail(path + ".kernel", "'" + e.kernel + "' must be a relative path inside the library");
  for (auto [field, name] : std::initializer_list<std::pair<std::string DispatchEntry::*, const char*>>{
           {&DispatchEntry::entry, "entry"}, {&DispatchEntry::candidate, "candidate"}}) {
    auto v = text_field(j, path, name, false);
    if (!v) return std::unexpected(v.error());
    e.*field = *v;
  }
  if (j.contains("spec_version")) {
    const json& v = j["spec_version"];
    if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > 1000000000)
      return util::fail(path + ".spec_version", "expected an integer >= 1, got " + v.dump());
    e.spec_version = v.get<int>();
  }
  if (j.contains("region")) {
    auto r = parse_region(j["region"], path + ".region");
    if (!r) return std::unexpected(r.error());
    e.region = std::move(*r);
  }
  if (j.contains("configs")) {
    if (!j["configs"].is_array()) return util::fail(path + ".configs", "expected an array");
    for (size_t i = 0; i < j["configs"].size(); ++i) {
      auto c = parse_config(j["configs"][i], path + ".configs[" + std::to_string(i) + "]");
      if (!c) return std::unexpected(c.error());
      e.configs.push_back(std::move(*c));
    }
  }
  return e;
}

}  // namespace

const DispatchEntry* Dispatch::find(std::string_view op, std::string_view variant, std::string_view backend,
                                    std::string_view device_class) const {
  for (const auto& e : entries)
    if (same_slot(e, op, variant, backend, device_class) && e.region.whole()) return &e;
  return nullptr;
}

const DispatchEntry* Dispatch::find(std::string_view op, std::string_view variant, std::string_view backend,
                                    std::string_view device_class, const std::map<std::string, int64_t>& params) const {
  for (const auto& e : entries)
    if (same_slot(e, op, variant, backend, device_class) && e.region.contains(params)) return &e;
  return nullptr;
}

namespace {

// The classes a lookup for `device_class` tries, in order.
std::vector<std::string_view> lookup_classes(std::string_view device_class) {
  std::vector<std::string_view> out{device_class};
  if (x86_level_of(device_class)) out.push_back(k_legacy_x86_class);
  if (device_class != "any") out.push_back("any");
  return out;
}

}  // namespace

const DispatchEntry* Dispatch::incumbent(std::string_view op, std::string_view variant, std::string_view backend,
                                         std::string_view device_class) const {
  for (auto cls : lookup_classes(device_class))
    if (auto e = find(op, variant, backend, cls)) return e;
  return nullptr;
}

const DispatchEntry* Dispatch::incumbent(std::string_view op, std::string_view variant, std::string_view backend,
                                         std::string_view device_class,
                                         const std::map<std::string, int64_t>& params) const {
  for (auto cls : lookup_classes(device_class))
    if (auto e = find(op, variant, backend, cls, params)) return e;
  return nullptr;
}

std::vector<const DispatchEntry*> Dispatch::serving(std::string_view op, std::string_view variant,
                                                    std::string_view backend, std::string_view device_class) const {
  std::vector<const DispatchEntry*> out;
  for (auto cls : lookup_classes(device_class)) {
    for (const auto& e : entries)
      if (same_slot(e, op, variant, backend, cls) && !e.region.whole()) out.push_back(&e);
    if (auto whole = find(op, variant, backend, cls)) {
      out.push_back(whole);
      break;
    }
  }
  return out;
}

bool Dispatch::regional(std::string_view op, std::string_view variant, std::string_view backend,
                        std::string_view device_class) const {
  for (const auto* e : serving(op, variant, backend, device_class))
    if (!e->region.whole()) return true;
  return false;
}

std::string Dispatch::overlap() const {
  for (size_t i = 0; i < entries.size(); ++i)
    for (size_t k = i + 1; k < entries.size(); ++k) {
      const auto &a = entries[i], &b = entries[k];
      if (same_slot(b, a.op, a.variant, a.backend, a.device_class) && a.region.overlaps(b.region))
        return a.op + "/" + a.variant + "/" + a.backend + "/" + a.device_class + ": " + b.kernel + " (" +
               b.region.text() + ") overlaps " + a.kernel + " (" + a.region.text() +
               "): the regions of one class must not overlap (docs/library.md \"Shape regions\")";
    }
  return {};
}

void Dispatch::upsert(DispatchEntry entry) {
  auto it = std::find_if(entries.begin(), entries.end(), [&](const DispatchEntry& e) { return key_of(e) == key_of(entry); });
  if (it != entries.end()) {
    *it = std::move(entry);
    return;
  }
  auto at = std::upper_bound(entries.begin(), entries.end(), entry,
                             [](const DispatchEntry& a, const DispatchEntry& b) { return key_of(a) < key_of(b); });
  entries.insert(at, std::move(entry));
}

util::Result<Dispatch> parse_dispatch(std::string_view text, const std::string& where) {
  auto j = json::parse(text, nullptr, false, true);
  if (j.is_discarded()) return util::fail(where, "not valid JSON");
  if (!j.is_object()) return util::fail(where, "expected an object");
  if (!j.contains("schema") || j["schema"] != "kwb.dispatch.v1")
    return util::fail(where + ": schema", "expected \"kwb.dispatch.v1\"");
  if (!j.contains("entries") || !j["entries"].is_array()) return util::fail(where + ": entries", "expected an array");
  Dispatch d;
  std::vector<DispatchEntry> parsed;  // in file order, for the errors' indices
  for (size_t i = 0; i < j["entries"].size(); ++i) {
    std::string path = where + ": entries[" + std::to_string(i) + "]";
    auto e = parse_entry(j["entries"][i], path);
    if (!e) return std::unexpected(e.error());
    for (size_t k = 0; k < i; ++k) {
      const DispatchEntry& o = parsed[k];
      if (!same_slot(o, e->op, e->variant, e->backend, e->device_class)) continue;
      if (o.region.whole() && e->region.whole())
        return util::fail(path, "a second entry for " + e->op + "/" + e->variant + "/" + e->backend + "/" + e->device_class);
      if (o.region.overlaps(e->region))
        return util::fail(path + ".region", "(" + e->region.text() + ") overlaps entries[" + std::to_string(k) + "] (" +
                                                o.kernel + ", " + o.region.text() +
                                                "): the regions of one op/variant/backend/device class must not overlap");
    }
    parsed.push_back(*e);
    d.upsert(std::move(*e));
  }
  return d;
}

std::string dispatch_text(const Dispatch& d) {
  json entries = json::array();
  for (const auto& e : d.entries) {
    json configs = json::array();
    for (const auto& c : e.configs) {
      json jc = {{"workload", c.workload}, {"params", c.params}, {"tune", c.tune}};
      if (c.median_ns) jc["median_ns"] = *c.median_ns;
      configs.push_back(std::move(jc));
    }
    json je = {{"op", e.op}, {"variant", e.variant}, {"backend", e.backend}, {"device_class", e.device_class},
               {"kernel", e.kernel}, {"entry", e.entry}, {"candidate", e.candidate}, {"configs", configs}};
    if (e.spec_version > 0) je["spec_version"] = e.spec_version;
    if (!e.region.whole()) je["region"] = region_json(e.region);
    entries.push_back(std::move(je));
  }
  json j = {{"schema", "kwb.dispatch.v1"}, {"entries", entries}};
  return j.dump(2) + "\n";
}

}  // namespace kwb::library
