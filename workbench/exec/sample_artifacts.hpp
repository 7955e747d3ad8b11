#pragma once
// A verdict's raw samples kept with the candidate (docs/verdict.md "Samples"): every timed bench
// workload's samples (kwb.samples.v1) and its comparison's block pairs (kwb.blocks.v1), stored in
// the content-addressed object store; the verdict names them by sha256 (summary.samples_sha256,
// summary.blocks_sha256) and GET /v1/candidates/{id}/artifacts/samples|blocks serves them. A
// median without its samples cannot be looked at again; these can.
#include "core/verdict.hpp"
#include "store/object_store.hpp"

namespace kwb::exec {

// Stores the samples of `v`'s timed workloads (none timed: nothing) and names them in `v`.
void keep_samples(store::ObjectStore& objects, core::Verdict& v);
// Stores ncu's raw reports of a profile pass (kwb.ncu.v1; GET .../artifacts/ncu) and names them
// in `v.profile` (none taken: nothing).
void keep_profile_report(store::ObjectStore& objects, core::Verdict& v);
// Stores the block pairs of `v`'s comparisons (none compared: nothing) and names them in `v`.
void keep_blocks(store::ObjectStore& objects, core::Verdict& v);

}  // namespace kwb::exec
