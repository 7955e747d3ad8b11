#include "store/migrations.hpp"

namespace kwb::store {

namespace {
const char* const k_migrations[] = {
    // 0 -> 1: calibrated devices (CPU now, GPUs with the CUDA backend).
    R"sql(
CREATE TABLE devices (
  id TEXT PRIMARY KEY,             -- e.g. "cpu:AMD EPYC:2" or "cuda:NVIDIA H200:sm_90:132"
  kind TEXT NOT NULL CHECK (kind IN ('cpu', 'cuda')),
  name TEXT NOT NULL,
  copy_bytes_per_s REAL NOT NULL,  -- calibrated copy bandwidth, bytes read + written per second
  flops_per_s REAL,                -- calibrated FMA rate (NULL where not measured)
  details TEXT NOT NULL DEFAULT '{}',  -- JSON: method, sizes, repetitions, data-sheet peaks
  calibrated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
) STRICT;
)sql",
};
}  // namespace

std::span<const char* const> migrations() { return k_migrations; }

}  // namespace kwb::store
