#pragma once
// Tuning records (docs/library.md "Tuning records"): the measured time of one kernel source on one
// workload, with the identity it was measured under. A record counts only while its identity
// matches the current environment exactly (the spec version included); once a record of another
// identity is written for the same kernel and workload, the old one is marked stale, is listed as
// such and is never counted again.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "store/database.hpp"
#include "util/error.hpp"

namespace kwb::store {

struct TuningIdentity {
  std::string device;     // e.g. "NVIDIA H200 (sm_90, 132 SMs, CUDA driver 13.0)"
  std::string toolchain;  // compiler, version and every flag
  std::string workbench;  // KWB_VERSION + "+" + the measurement method's salt (core/measurement_method.hpp)
  int spec_version = 0;   // the version of the op's spec the kernel was validated under
  bool operator==(const TuningIdentity&) const = default;
};

struct TuningRecord {
  std::string op, variant, backend, workload;
  std::map<std::string, int64_t> params;
  std::string source_sha256;
  std::map<std::string, int64_t> config;
  TuningIdentity identity;
  double median_ns = 0, stderr_pct = 0;
  int64_t samples = 0;
  std::string candidate;
  bool stale = false;
  std::string measured_at;
};

struct TuningQuery {
  std::string op, variant, backend, source_sha256;  // empty: any
  bool include_stale = true;
};

class TuningRepository {
 public:
  explicit TuningRepository(Database& db) : m_db(db) {}
  // Writes (or replaces) the records in one transaction and marks stale every record of the same
  // kernel and workload measured under another identity.
  util::Result<void> put(const std::vector<TuningRecord>& records);
  util::Result<std::vector<TuningRecord>> find(const TuningQuery& q);
  // The records of one kernel that count under `identity`, by workload name.
  util::Result<std::map<std::string, TuningRecord>> current(const std::string& op, const std::string& variant,
                                                             const std::string& backend,
                                                             const std::string& source_sha256,
                                                             const TuningIdentity& identity);
  // Marks stale every record of one kernel whose identity is not `identity`; returns how many.
  util::Result<int> mark_stale_except(const std::string& op, const std::string& variant, const std::string& backend,
                                      const std::string& source_sha256, const TuningIdentity& identity);

 private:
  Database& m_db;
};

}  // namespace kwb::store
