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
    // 1 -> 2: the daemon: tokens, candidates, pipeline stages, per-workload results, events.
    R"sql(
CREATE TABLE tokens (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('agent', 'reviewer', 'admin')),
  hash TEXT NOT NULL UNIQUE,        -- sha256 of the bearer token; the token itself is never stored
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  revoked INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE TABLE candidates (
  id TEXT PRIMARY KEY,              -- "c-" + 16 hex
  seq INTEGER NOT NULL UNIQUE,      -- submission order, for pagination
  token_id INTEGER REFERENCES tokens(id),
  op TEXT NOT NULL,
  variant TEXT NOT NULL DEFAULT '',
  backend TEXT NOT NULL,
  source_sha256 TEXT NOT NULL,      -- workspace/objects/<2 hex>/<62 hex>
  source_name TEXT NOT NULL,
  flags TEXT NOT NULL DEFAULT '[]', -- JSON array
  note TEXT NOT NULL DEFAULT '',
  parent TEXT,
  idempotency_key TEXT,
  state TEXT NOT NULL CHECK (state IN ('queued', 'analyzing', 'compiling', 'validating',
                                       'benchmarking', 'deciding', 'done', 'cancelled')),
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,  -- evaluations started (a restart mid-stage re-runs)
  status TEXT,                      -- verdict status once done
  verdict TEXT,                     -- kwb.verdict.v1 JSON once done
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  finished_at TEXT
) STRICT;
CREATE UNIQUE INDEX candidates_idempotency ON candidates(coalesce(token_id, 0), idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX candidates_state ON candidates(state, seq);
CREATE INDEX candidates_op ON candidates(op, seq);
CREATE TABLE stages (
  candidate_id TEXT NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL,
  stage TEXT NOT NULL,
  started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ms REAL,
  detail TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (candidate_id, attempt, stage)
) STRICT;
CREATE TABLE results (
  candidate_id TEXT NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
  workload TEXT NOT NULL,
  kind TEXT NOT NULL,
  correct INTEGER NOT NULL,
  median_ns REAL,
  data TEXT NOT NULL,               -- the workload's verdict entry (JSON)
  PRIMARY KEY (candidate_id, workload)
) STRICT;
CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  candidate_id TEXT NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
  at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  kind TEXT NOT NULL,               -- "state" | "stage" | "verdict"
  data TEXT NOT NULL                -- JSON
) STRICT;
CREATE INDEX events_candidate ON events(candidate_id, id);
)sql",
    // 2 -> 3: the library: tuning records (docs/library.md "Tuning records") and review decisions.
    R"sql(
CREATE TABLE tuning_records (
  id INTEGER PRIMARY KEY,
  op TEXT NOT NULL,
  variant TEXT NOT NULL,
  backend TEXT NOT NULL,
  workload TEXT NOT NULL,           -- workload name
  params TEXT NOT NULL,             -- JSON object of the spec params
  source_sha256 TEXT NOT NULL,      -- the kernel source measured
  config TEXT NOT NULL DEFAULT '{}',-- JSON object of the tunable values measured
  device TEXT NOT NULL,             -- name, sm, SM count and driver (cuda) / model and threads (cpu)
  toolchain TEXT NOT NULL,          -- compiler + version + every flag
  workbench TEXT NOT NULL,          -- workbench version
  median_ns REAL NOT NULL CHECK (median_ns > 0),
  stderr_pct REAL NOT NULL CHECK (stderr_pct >= 0),
  samples INTEGER NOT NULL,
  candidate TEXT NOT NULL DEFAULT '',  -- the candidate whose evaluation measured it ('' = imported)
  stale INTEGER NOT NULL DEFAULT 0, -- 1 once a record of another identity replaced it
  measured_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (op, variant, backend, workload, source_sha256, device, toolchain, workbench)
) STRICT;
CREATE INDEX tuning_kernel ON tuning_records(op, variant, backend, source_sha256);
CREATE TABLE decisions (
  candidate_id TEXT PRIMARY KEY REFERENCES candidates(id) ON DELETE CASCADE,
  decision TEXT NOT NULL CHECK (decision IN ('promoted', 'rejected')),
  reason TEXT NOT NULL DEFAULT '',
  commit_id TEXT,                   -- the library commit of a promotion
  token_id INTEGER REFERENCES tokens(id),
  decided_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
)sql",
    // 3 -> 4: a submission may ask for a subset of the bench workloads (fast feedback).
    R"sql(
ALTER TABLE candidates ADD COLUMN bench TEXT NOT NULL DEFAULT '[]';  -- JSON array; [] = every one
)sql",
    // 4 -> 5: an Idempotency-Key remembers the digest of its first body; reusing it with another
    // body is refused (422) instead of answering with the first candidate.
    R"sql(
CREATE TABLE idempotency_keys (
  token_id INTEGER NOT NULL,        -- 0: no token (--no-auth)
  key TEXT NOT NULL,
  request_sha256 TEXT NOT NULL,     -- sha256 of the normalised JSON body
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (token_id, key)
) STRICT;
)sql",
    // 5 -> 6: a tuning record's identity includes the version of the op's spec (issue #16): a
    // record of another version is stale. Records before it were all measured under version 1
    // (the only version of every spec until then). SQLite cannot change a UNIQUE constraint in
    // place: the table is rebuilt.
    R"sql(
CREATE TABLE tuning_records_v6 (
  id INTEGER PRIMARY KEY,
  op TEXT NOT NULL,
  variant TEXT NOT NULL,
  backend TEXT NOT NULL,
  workload TEXT NOT NULL,
  params TEXT NOT NULL,
  source_sha256 TEXT NOT NULL,
  config TEXT NOT NULL DEFAULT '{}',
  device TEXT NOT NULL,
  toolchain TEXT NOT NULL,
  workbench TEXT NOT NULL,
  spec_version INTEGER NOT NULL DEFAULT 1 CHECK (spec_version >= 1),
  median_ns REAL NOT NULL CHECK (median_ns > 0),
  stderr_pct REAL NOT NULL CHECK (stderr_pct >= 0),
  samples INTEGER NOT NULL,
  candidate TEXT NOT NULL DEFAULT '',
  stale INTEGER NOT NULL DEFAULT 0,
  measured_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (op, variant, backend, workload, source_sha256, device, toolchain, workbench, spec_version)
) STRICT;
INSERT INTO tuning_records_v6 (id, op, variant, backend, workload, params, source_sha256, config, device, toolchain,
                               workbench, spec_version, median_ns, stderr_pct, samples, candidate, stale, measured_at)
  SELECT id, op, variant, backend, workload, params, source_sha256, config, device, toolchain, workbench, 1, median_ns,
         stderr_pct, samples, candidate, stale, measured_at FROM tuning_records;
DROP TABLE tuning_records;
ALTER TABLE tuning_records_v6 RENAME TO tuning_records;
CREATE INDEX tuning_kernel ON tuning_records(op, variant, backend, source_sha256);
)sql",
    // 6 -> 7: the leaderboard ranks by a column, not by parsing every verdict (issue #20: pages
    // stay fast with 10 000 candidates): the verdict's summary.geomean_vs_incumbent, written with
    // the verdict (store/candidate_repository.cpp) and filled in here for verdicts stored before.
    R"sql(
ALTER TABLE candidates ADD COLUMN speedup REAL;  -- verdict.summary.geomean_vs_incumbent; NULL: not compared
UPDATE candidates SET speedup = json_extract(verdict, '$.summary.geomean_vs_incumbent')
  WHERE CASE WHEN json_valid(verdict) THEN json_type(verdict, '$.summary.geomean_vs_incumbent') IN ('real', 'integer')
        ELSE 0 END;
CREATE INDEX candidates_ranking ON candidates(op, status, speedup, seq);
)sql",
    // 7 -> 8: the fleet executor's jobs (docs/fleet.md): the Slurm job that runs a candidate's
    // device stages, so a restarted daemon re-attaches to it instead of running the candidate again.
    R"sql(
CREATE TABLE fleet_jobs (
  candidate_id TEXT PRIMARY KEY REFERENCES candidates(id),
  executor TEXT NOT NULL,           -- 'slurm'
  job_id TEXT NOT NULL DEFAULT '',  -- '' while being submitted (found again by the job's name)
  tries INTEGER NOT NULL DEFAULT 1, -- submissions of this candidate's current attempt (machine faults)
  attempt INTEGER NOT NULL,         -- the candidate's attempt the job runs
  submitted_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
)sql",
    // 8 -> 9: the leaderboard reads index entries only (store/leaderboard_query.cpp): each of its
    // orders and its source leaders has an index that covers every column the board reads, so
    // ranking 10 000 candidates never reads their rows, whose verdicts (~7 KB each) made every
    // row a walk over overflow pages (bench_web_routes: 380 ms a page, docs/benchmarks/daemon.md).
    R"sql(
DROP INDEX candidates_ranking;
CREATE INDEX candidates_board ON candidates(op, status, speedup, seq, backend, source_sha256, id);
CREATE INDEX candidates_board_newest ON candidates(op, status, seq, backend, source_sha256, id);
CREATE INDEX candidates_board_source ON candidates(op, status, source_sha256, speedup, seq, backend, id);
)sql",
    // 9 -> 10: device classes in the fleet (issue #21 point 4, docs/fleet.md "Device classes"):
    // the class a submission asked for ('' = any), and the calibrations the fleet's workers
    // reported for their nodes' devices (GET /v1/devices on the Slurm executor).
    R"sql(
ALTER TABLE candidates ADD COLUMN device_class TEXT NOT NULL DEFAULT '';
CREATE TABLE fleet_devices (
  device_class TEXT NOT NULL,       -- 'cpu-x86_64-v3', 'cuda-sm_90'
  device_id TEXT NOT NULL,          -- the calibration identity (devices.id on the node)
  partition TEXT NOT NULL DEFAULT '',
  node TEXT NOT NULL DEFAULT '',    -- the node that reported it last
  kind TEXT NOT NULL,               -- 'cpu' | 'cuda'
  name TEXT NOT NULL,
  copy_bytes_per_s REAL NOT NULL,
  flops_per_s REAL,
  details TEXT NOT NULL DEFAULT '{}',
  calibrated_at TEXT NOT NULL DEFAULT '',
  reported_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (device_class, device_id)
) STRICT;
)sql",
    // 10 -> 11: a submission may ask for a profile (issue 19, "profile": true; verdict.profile).
    R"sql(
ALTER TABLE candidates ADD COLUMN profile INTEGER NOT NULL DEFAULT 0 CHECK (profile IN (0, 1));
)sql",
    // 11 -> 12: verdict first, decision second (docs/library.md "Verdict first, decision second"):
    // the comparison with the incumbent is a part of its own, stored after the verdict.
    // comparison_state: none (no comparison applies), pending (verdict stored, comparison running
    // or to be run again after a restart), done (written once: `comparison` holds it and the
    // verdict carries its fields). comparison_attempts: comparisons started (a crash mid-way).
    R"sql(
ALTER TABLE candidates ADD COLUMN comparison_state TEXT NOT NULL DEFAULT 'none'
  CHECK (comparison_state IN ('none', 'pending', 'done'));
ALTER TABLE candidates ADD COLUMN comparison TEXT;
ALTER TABLE candidates ADD COLUMN comparison_attempts INTEGER NOT NULL DEFAULT 0;
CREATE INDEX candidates_comparison_pending ON candidates(seq) WHERE comparison_state = 'pending';
)sql",
    // 12 -> 13: the attempts an agent made (docs/api.md "Lineage"; store/lineage_query.hpp): a
    // candidate's children through their parent link, and one token's candidates of one op,
    // newest first, each found through an index instead of a scan of every candidate.
    R"sql(
CREATE INDEX candidates_parent ON candidates(parent) WHERE parent IS NOT NULL;
CREATE INDEX candidates_token_op ON candidates(coalesce(token_id, 0), op, seq);
)sql",
};
}  // namespace

std::span<const char* const> migrations() { return k_migrations; }

}  // namespace kwb::store
