#include "core/resource_diff.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace kwb::core {

namespace {

// (Names unique within kwb_core: its sources are compiled in unity batches.)
using J = nlohmann::json;

const ConfigFacts* timed_config(const std::vector<ConfigFacts>& facts, const std::map<std::string, std::string>& by_workload,
                             const std::string& workload) {
  if (facts.empty()) return nullptr;
  if (auto it = by_workload.find(workload); it != by_workload.end())
    for (const auto& c : facts)
      if (c.config == it->second) return &c;
  return &facts.front();
}

KernelResources resources_at(const ConfigFacts& c, const KernelFacts& k, const std::string& workload) {
  KernelResources r{k.kernel, c.config, k.registers, k.spill_store_bytes, k.spill_load_bytes, k.static_smem_bytes,
                    std::nullopt, k.barriers, std::nullopt};
  for (const auto& o : k.occupancy)
    if (std::find(o.workloads.begin(), o.workloads.end(), workload) != o.workloads.end()) {
      r.dynamic_smem_bytes = o.dynamic_smem_bytes;
      r.occupancy = ResourceOccupancy{o.threads, o.blocks_per_sm, o.warps_per_sm, o.pct, o.limited_by};
      break;
    }
  return r;
}

// The kernels of the two configs paired: by name first, then the rest in plan order.
std::vector<std::pair<const KernelFacts*, const KernelFacts*>> paired_kernels(const ConfigFacts* cand, const ConfigFacts* inc) {
  std::vector<const KernelFacts*> a, b;
  if (cand)
    for (const auto& k : cand->kernels) a.push_back(&k);
  if (inc)
    for (const auto& k : inc->kernels) b.push_back(&k);
  std::vector<std::pair<const KernelFacts*, const KernelFacts*>> out;
  for (auto& x : a)
    for (auto& y : b)
      if (x && y && x->kernel == y->kernel) {
        out.emplace_back(x, y);
        x = y = nullptr;
      }
  std::erase(a, nullptr);
  std::erase(b, nullptr);
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i)
    out.emplace_back(i < a.size() ? a[i] : nullptr, i < b.size() ? b[i] : nullptr);
  return out;
}

int64_t smem_per_block_of(const KernelResources& r) { return r.static_smem_bytes + r.dynamic_smem_bytes.value_or(0); }

// What limits the candidate's occupancy, with both sides' figure for it.
std::string limiter_text_of(const KernelResources& c, const KernelResources& i) {
  const std::string& by = c.occupancy->limited_by;
  if (by == "registers") return fmt::format("registers, {} → {} per thread", i.registers, c.registers);
  if (by == "shared_memory")
    return fmt::format("shared memory, {} → {} B per block", smem_per_block_of(i), smem_per_block_of(c));
  if (by == "warps" || by == "threads")
    return fmt::format("{}, {} → {} threads per block", by, i.occupancy->threads, c.occupancy->threads);
  if (by == "blocks") return "blocks per SM";
  return by.empty() ? "none named" : by;
}

std::vector<std::string> split_label(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t at = 0;
  for (size_t next; (next = s.find(sep, at)) != std::string::npos; at = next + 1) out.push_back(s.substr(at, next - at));
  out.push_back(s.substr(at));
  return out;
}

J resource_occupancy_json(const std::optional<ResourceOccupancy>& o) {
  if (!o) return nullptr;
  return {{"threads", o->threads}, {"blocks_per_sm", o->blocks_per_sm}, {"warps_per_sm", o->warps_per_sm},
          {"pct", o->pct}, {"limited_by", o->limited_by}};
}

J kernel_resources_json(const std::optional<KernelResources>& r) {
  if (!r) return nullptr;
  return {{"kernel", r->kernel},
          {"config", r->config},
          {"registers", r->registers},
          {"spill_store_bytes", r->spill_store_bytes},
          {"spill_load_bytes", r->spill_load_bytes},
          {"static_smem_bytes", r->static_smem_bytes},
          {"dynamic_smem_bytes", r->dynamic_smem_bytes ? J(*r->dynamic_smem_bytes) : J(nullptr)},
          {"barriers", r->barriers},
          {"occupancy", resource_occupancy_json(r->occupancy)}};
}

int64_t int_field(const J& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<int64_t>() : 0;
}
std::string text_field(const J& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
std::vector<std::string> text_fields(const J& j, const char* key) {
  std::vector<std::string> out;
  if (auto it = j.find(key); it != j.end() && it->is_array())
    for (const auto& s : *it)
      if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

std::optional<KernelResources> kernel_resources_from_json(const J& j) {
  if (!j.is_object()) return std::nullopt;
  KernelResources r{text_field(j, "kernel"), text_field(j, "config"), int(int_field(j, "registers")),
                    int_field(j, "spill_store_bytes"),
                    int_field(j, "spill_load_bytes"), int_field(j, "static_smem_bytes"), std::nullopt,
                    int(int_field(j, "barriers")), std::nullopt};
  if (auto d = j.find("dynamic_smem_bytes"); d != j.end() && d->is_number()) r.dynamic_smem_bytes = d->get<int64_t>();
  if (auto o = j.find("occupancy"); o != j.end() && o->is_object())
    r.occupancy = ResourceOccupancy{int_field(*o, "threads"), int(int_field(*o, "blocks_per_sm")),
                                    int(int_field(*o, "warps_per_sm")),
                                    (*o).value("pct", 0.0), text_field(*o, "limited_by")};
  return r;
}

std::string kernel_resources_text(const std::optional<KernelResources>& r) {
  if (!r) return "-";
  std::string occ = r->occupancy ? fmt::format("{} blocks/SM, {} warps ({:.0f}%), limiter {}", r->occupancy->blocks_per_sm,
                                               r->occupancy->warps_per_sm, r->occupancy->pct,
                                               r->occupancy->limited_by.empty() ? "-" : r->occupancy->limited_by)
                                 : std::string("occupancy -");
  return fmt::format("{} [{}]: {} regs, spills {}/{} B, smem {} + {} B, {} barriers, {}", r->kernel, r->config,
                     r->registers, r->spill_store_bytes, r->spill_load_bytes, r->static_smem_bytes,
                     r->dynamic_smem_bytes ? std::to_string(*r->dynamic_smem_bytes) : std::string("?"), r->barriers, occ);
}

}  // namespace

std::vector<std::string> resource_losses(const KernelResources& c, const KernelResources& i) {
  std::vector<std::string> out;
  if (c.occupancy && i.occupancy && c.occupancy->warps_per_sm < i.occupancy->warps_per_sm)
    out.push_back(fmt::format("occupancy {} → {} blocks/SM, {} → {} warps ({:.0f}% → {:.0f}%; limiter: {})",
                              i.occupancy->blocks_per_sm, c.occupancy->blocks_per_sm, i.occupancy->warps_per_sm,
                              c.occupancy->warps_per_sm, i.occupancy->pct, c.occupancy->pct, limiter_text_of(c, i)));
  const int64_t cs = c.spill_store_bytes + c.spill_load_bytes, is = i.spill_store_bytes + i.spill_load_bytes;
  if (cs > is)
    out.push_back(fmt::format("spills {} → {} B per thread (stores {} → {} B, loads {} → {} B)", is, cs,
                              i.spill_store_bytes, c.spill_store_bytes, i.spill_load_bytes, c.spill_load_bytes));
  return out;
}

ResourceDiff resource_diff(const std::vector<ConfigFacts>& candidate,
                           const std::map<std::string, std::string>& candidate_configs,
                           const std::vector<ConfigFacts>& incumbent,
                           const std::map<std::string, std::string>& incumbent_configs,
                           const std::vector<std::string>& workloads) {
  ResourceDiff d;
  std::vector<std::pair<std::string, std::vector<std::string>>> seen;  // "kernel: loss" -> its workloads
  for (const auto& w : workloads) {
    const ConfigFacts* c = timed_config(candidate, candidate_configs, w);
    const ConfigFacts* i = timed_config(incumbent, incumbent_configs, w);
    for (const auto& [ck, ik] : paired_kernels(c, i)) {
      ResourceRow row{w, std::nullopt, std::nullopt, {}};
      if (ck) row.candidate = resources_at(*c, *ck, w);
      if (ik) row.incumbent = resources_at(*i, *ik, w);
      if (ck && ik) row.losses = resource_losses(*row.candidate, *row.incumbent);
      for (const auto& loss : row.losses) {
        std::string key = ck->kernel + ": " + loss;
        auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == key; });
        if (it == seen.end()) it = seen.insert(seen.end(), {key, {}});
        if (std::find(it->second.begin(), it->second.end(), w) == it->second.end()) it->second.push_back(w);
      }
      d.rows.push_back(std::move(row));
    }
  }
  for (const auto& [key, names] : seen) {
    std::string on;
    for (const auto& n : names) on += (on.empty() ? "" : ", ") + n;
    d.losses.push_back(key + " on " + on);
  }
  return d;
}

std::string matching_config(const std::vector<ConfigFacts>& facts, const std::map<std::string, int64_t>& values) {
  if (facts.empty()) return "";
  for (const auto& c : facts) {
    if (c.config == "default") return c.config;  // no tunables: the one config
    bool match = true;
    for (const auto& pair : split_label(c.config, ',')) {
      auto eq = pair.find('=');
      if (eq == std::string::npos) {
        match = false;
        break;
      }
      auto v = values.find(pair.substr(0, eq));
      match = match && v != values.end() && std::to_string(v->second) == pair.substr(eq + 1);
    }
    if (match) return c.config;
  }
  return facts.front().config;
}

nlohmann::json to_json(const ResourceDiff& d) {
  J rows = J::array();
  for (const auto& r : d.rows)
    rows.push_back({{"workload", r.workload},
                    {"candidate", kernel_resources_json(r.candidate)},
                    {"incumbent", kernel_resources_json(r.incumbent)},
                    {"losses", r.losses}});
  return {{"rows", rows}, {"losses", d.losses}};
}

ResourceDiff resource_diff_from_json(const nlohmann::json& j) {
  ResourceDiff d;
  if (!j.is_object()) return d;
  if (auto rows = j.find("rows"); rows != j.end() && rows->is_array())
    for (const auto& r : *rows)
      if (r.is_object())
        d.rows.push_back({text_field(r, "workload"), kernel_resources_from_json(r.value("candidate", J())),
                          kernel_resources_from_json(r.value("incumbent", J())), text_fields(r, "losses")});
  d.losses = text_fields(j, "losses");
  return d;
}

std::string resource_table(const ResourceDiff& d) {
  if (d.rows.empty()) return "";
  std::string out = "resources (per bench workload and kernel: the candidate, then the incumbent; spills store/load "
                    "per thread, shared memory static + dynamic per block):\n";
  for (const auto& r : d.rows) {
    out += fmt::format("  {:<16} candidate  {}\n", r.workload, kernel_resources_text(r.candidate));
    out += fmt::format("  {:<16} incumbent  {}\n", "", kernel_resources_text(r.incumbent));
    for (const auto& l : r.losses) out += fmt::format("  {:<16} LOSS: {}\n", "", l);
  }
  if (d.losses.empty()) out += "no resource loss against the incumbent\n";
  for (const auto& l : d.losses) out += "resource loss: " + l + "\n";
  return out;
}

}  // namespace kwb::core
