#pragma once
// dispatch.json at the root of the library repository (format kwb.dispatch.v1, docs/library.md):
// which kernel file is the incumbent for each op, variant, backend and device class, and which
// tunable configuration won on each measured bench workload.
//
//   {"schema": "kwb.dispatch.v1",
//    "entries": [
//      {"op": "softmax", "variant": "f32", "backend": "cuda", "device_class": "sm_90",
//       "kernel": "softmax/cuda/block_row.cu",     // path in the library
//       "entry": "",                               // cpu: the exported symbol; cuda: ""
//       "candidate": "c-0123456789abcdef",         // "" for seeded kernels
//       "spec_version": 2,                         // spec version it was accepted under (absent: seeded)
//       "region": {"rows": [1, 65535]},            // the params it serves (absent: all; region.hpp)
//       "configs": [                               // one per measured bench workload
//         {"workload": "r4096x4096", "params": {"rows": 4096, "cols": 4096},
//          "tune": {"BLOCK": 256}, "median_ns": 41230.5}]}]}
//
// device_class (library/device_class.hpp): "any" (seeded kernels), "cpu-x86_64-v<N>" (the x86-64
// level it was compiled for with -march=native), "cpu-<arch>" or "cuda-sm_<NN>" — a kernel promoted
// on a device is the incumbent for that class; lookups fall back to the legacy "cpu-x86_64" (for
// an x86-64 class), then to "any".
// An entry without configs runs with the first value of every `kwb:tune` list.
// Regions (docs/library.md "Shape regions"): one class may hold several entries of an op, variant
// and backend when their regions do not overlap; a lookup with the workload's params takes, class
// by class in the order above, the entry whose region holds them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "library/region.hpp"
#include "util/error.hpp"

namespace kwb::library {

struct DispatchConfig {
  std::string workload;
  std::map<std::string, int64_t> params;
  std::map<std::string, int64_t> tune;
  std::optional<double> median_ns;
};

struct DispatchEntry {
  std::string op, variant, backend, device_class = "any";
  std::string kernel;  // library path, e.g. "vector_add/cpu/vectorized.cpp"
  std::string entry;
  std::string candidate;
  // The version of the op's spec the kernel was accepted under when it was promoted; 0 (absent)
  // for seeded kernels. An incumbent counts for a candidate only once re-validated against the
  // candidate's version (docs/library.md "Spec versions").
  int spec_version = 0;
  Region region;  // the params it serves; whole (empty): every one
  std::vector<DispatchConfig> configs;
};

struct Dispatch {
  std::vector<DispatchEntry> entries;  // sorted by op, variant, backend, device_class

  // The whole-space entry for exactly this key, or null.
  const DispatchEntry* find(std::string_view op, std::string_view variant, std::string_view backend,
                            std::string_view device_class) const;
  // The entry for exactly this key whose region holds `params`, or null.
  const DispatchEntry* find(std::string_view op, std::string_view variant, std::string_view backend,
                            std::string_view device_class, const std::map<std::string, int64_t>& params) const;
  // The incumbent for a device: its device class's entry, else (for "cpu-x86_64-v<N>") a legacy
  // "cpu-x86_64" entry, else the "any" entry, else null. Without params: the whole-space entries
  // only (what serves params outside every region).
  const DispatchEntry* incumbent(std::string_view op, std::string_view variant, std::string_view backend,
                                 std::string_view device_class) const;
  // The same for a workload's params: the first class whose entry's region holds them.
  const DispatchEntry* incumbent(std::string_view op, std::string_view variant, std::string_view backend,
                                 std::string_view device_class, const std::map<std::string, int64_t>& params) const;
  // Every entry a lookup for this device may take, in the order it tries them: the regional
  // entries of each class in turn, down to the first whole-space entry (which shadows the rest).
  std::vector<const DispatchEntry*> serving(std::string_view op, std::string_view variant, std::string_view backend,
                                            std::string_view device_class) const;
  // Whether an entry that serving() lists holds a region (a lookup for this device needs the params).
  bool regional(std::string_view op, std::string_view variant, std::string_view backend,
                std::string_view device_class) const;
  // Adds or replaces the entry with the same key and region, keeping the order.
  void upsert(DispatchEntry entry);
  // Empty, or why two entries of one op/variant/backend/device class overlap (naming both).
  std::string overlap() const;
};

// Parses dispatch.json; errors name `where` and the JSON path ("dispatch.json: entries[3].kernel").
util::Result<Dispatch> parse_dispatch(std::string_view text, const std::string& where = "dispatch.json");
// Stable text (sorted entries, two-space indent, trailing newline), so a promotion's diff of
// dispatch.json shows only the entry that changed.
std::string dispatch_text(const Dispatch& d);

}  // namespace kwb::library
