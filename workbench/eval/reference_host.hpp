#pragma once
// Trusted references as spec data (issue 16): a spec folder's reference.cpp is compiled by the
// workbench itself (the cpu toolchain in the compile sandbox, against the embedded interface of
// core/reference_interface.hpp, through the content-addressed compile cache) and an evaluation
// runs it in a reference process: a kwb-runner in the run sandbox that maps the reference's own
// shared memory, apart from the daemon (a reference that crashes, hangs or writes past its
// outputs is an error that blames the spec) and apart from the candidate (expected outputs never
// exist in the candidate's process). One evaluation has a process to itself; when it ends, a
// process that never failed waits for the next evaluation of the same spec (its sandbox up and
// its buffers mapped: starting one and faulting in hundreds of MB per candidate was a large part
// of a GPU lane's time). It only ever saw the daemon's inputs, never a candidate. docs/specs.md,
// "References".
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/verdict.hpp"
#include "eval/reference.hpp"

namespace kwb::eval {

struct ReferenceHostConfig {
  std::filesystem::path runner;  // kwb-runner
  std::filesystem::path bwrap = "/usr/bin/bwrap";
  std::filesystem::path workspace;  // jobs/ (build and process folders) and cache/reference/
  std::string cxx = "g++";
  int compile_timeout_ms = 120000;
  int timeout_ms = 600000;          // per compute: a reference that takes longer is a spec error
  int64_t memory_bytes = 16ll << 30;  // the reference process's own allocations (beyond its buffers)
  bool compile_cache = true;
  std::filesystem::path cache_dir;  // empty: <workspace>/cache/reference
};

// What building a spec's reference gave: the shared object, or the compiler's diagnostics.
struct ReferenceBuild {
  bool ok = false;
  std::string reason;                       // one line when !ok
  std::vector<core::Diagnostic> diagnostics;  // warnings too (file: the spec folder's reference.cpp)
  std::string object;                       // the shared object's bytes
  std::string cache_key;
  bool cache_hit = false;
  double wall_ms = 0;
};

struct IdleReferences;  // reference_host.cpp

class ReferenceHost {
 public:
  explicit ReferenceHost(ReferenceHostConfig cfg);
  ~ReferenceHost();

  // Compiles <spec folder>/reference.cpp (once per source, toolchain and interface; later calls
  // and later daemons get the cached object). Errors only for failures of the trusted side or a
  // missing file; a reference that does not compile is a ReferenceBuild with ok false.
  util::Result<ReferenceBuild> build(const core::Spec& spec, const std::vector<std::string>& extra_flags = {});
  // The same for another source that defines kwb::reference::<op> (`kwb spec check` runs a spec's
  // CPU template through an adapter this way: speccheck/template_adapter.hpp); `path` names it in
  // diagnostics.
  util::Result<ReferenceBuild> build_source(const core::Spec& spec, const std::string& source,
                                            const std::filesystem::path& path,
                                            const std::vector<std::string>& extra_flags = {});
  // Builds (if needed) and starts a reference process for one evaluation (or hands it an idle
  // one of the same spec and build).
  util::Result<std::shared_ptr<Reference>> open(const core::Spec& spec, const std::vector<std::string>& extra_flags = {});
  // Builds `source` (build_source) and starts a reference process on it.
  util::Result<std::shared_ptr<Reference>> open_source(const core::Spec& spec, const std::string& source,
                                                       const std::filesystem::path& path,
                                                       const std::vector<std::string>& extra_flags = {});
  // open() as an ReferenceOpener; the host must outlive what it opens.
  ReferenceOpener opener() {
    return [this](const core::Spec& spec) { return open(spec); };
  }
  const ReferenceHostConfig& config() const { return m_cfg; }

 private:
  util::Result<std::shared_ptr<Reference>> start(const core::Spec& spec, const ReferenceBuild& built);

  ReferenceHostConfig m_cfg;
  std::mutex m_mutex;  // guards m_built: the built objects by digest of unit and flags
  std::map<std::string, ReferenceBuild> m_built;
  std::shared_ptr<IdleReferences> m_idle;  // shared with the handles open() gave out
};

}  // namespace kwb::eval
