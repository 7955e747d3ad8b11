// ReferenceHost::build and ::open (reference_host.hpp); the process itself is reference_process.cpp.
#include "eval/reference_host.hpp"

#include <fmt/format.h>

#include "build/cpu_toolchain.hpp"
#include "core/reference_interface.hpp"
#include "eval/reference_process.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"

namespace kwb::eval {

namespace fs = std::filesystem;

namespace {

constexpr size_t k_max_source_bytes = 4u << 20;
constexpr size_t k_max_object_bytes = 256u << 20;

// A digest of the interface the reference is compiled against: part of the source, so a
// workbench with another interface never takes an object from the cache built for this one.
const std::string& interface_digest() {
  static const std::string digest = [] {
    std::string all;
    for (const auto& [path, text] : core::reference_interface_files()) all += path + '\0' + text + '\0';
    return util::sha256_hex(all);
  }();
  return digest;
}

}  // namespace

// Reference processes whose evaluation ended, by spec and build, for the next evaluation. A
// bound on their buffers' bytes keeps an idle daemon from holding much memory.
struct IdleReferences {
  static constexpr size_t k_per_key = 4;
  static constexpr size_t k_max_bytes = size_t(4) << 30;
  std::mutex mutex;
  std::map<std::string, std::vector<std::unique_ptr<ReferenceProcess>>> by_key;
  size_t bytes = 0;
};

ReferenceHost::ReferenceHost(ReferenceHostConfig cfg) : m_cfg(std::move(cfg)), m_idle(std::make_shared<IdleReferences>()) {}

ReferenceHost::~ReferenceHost() = default;

util::Result<ReferenceBuild> ReferenceHost::build(const core::Spec& spec, const std::vector<std::string>& extra_flags) {
  if (spec.file.empty()) return util::fail("reference", "the spec was not loaded from a folder, so it has no reference.cpp");
  const fs::path source_path = spec.file.parent_path() / "reference.cpp";
  auto source = util::read_file_nofollow(source_path, k_max_source_bytes);
  if (!source)
    return util::fail(source_path.string(), "cannot read the spec's trusted reference (every spec folder needs a "
                                            "reference.cpp defining kwb::reference::" + spec.op + "): " + source.error().message);
  return build_source(spec, *source, source_path, extra_flags);
}

util::Result<ReferenceBuild> ReferenceHost::build_source(const core::Spec& spec, const std::string& source,
                                                         const fs::path& source_path,
                                                         const std::vector<std::string>& extra_flags) {
  // The reference's own lines first (its diagnostics keep their line numbers), then the C entry.
  std::string unit = source + fmt::format("\n#line 1 \"<kwb reference entry>\"\n#define KWB_REFERENCE_OP {}\n"
                                           "#include \"core/reference_entry.hpp\"\n// reference interface {}\n",
                                           spec.op, interface_digest());
  std::string key = util::sha256_hex(unit + '\0' + m_cfg.cxx + [&] {
    std::string f;
    for (const auto& x : extra_flags) f += '\0' + x;
    return f;
  }());

  {
    std::lock_guard lock(m_mutex);  // not held while compiling: other specs' opens go on
    if (auto it = m_built.find(key); it != m_built.end()) return it->second;
  }
  auto toolchain = build::CpuToolchain::detect(m_cfg.cxx);
  if (!toolchain) return std::unexpected(toolchain.error());
  auto job = util::make_unique_dir(m_cfg.workspace / "jobs", "refbuild-");
  if (!job) return std::unexpected(job.error());
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{*job};
  for (const auto& [path, text] : core::reference_interface_files()) {
    std::error_code ec;
    fs::create_directories((*job / path).parent_path(), ec);
    if (auto w = util::write_file_atomic(*job / path, text); !w) return std::unexpected(w.error());
  }
  build::CompileRequest req{unit, source_path.string(), *job, extra_flags, m_cfg.bwrap, m_cfg.compile_timeout_ms,
                            !m_cfg.compile_cache          ? fs::path()
                            : m_cfg.cache_dir.empty() ? m_cfg.workspace / "cache" / "reference"
                                                      : m_cfg.cache_dir,
                            {"-I/job"}};
  auto compiled = toolchain->compile(req);
  if (!compiled) return std::unexpected(compiled.error());
  ReferenceBuild out;
  out.diagnostics = compiled->diagnostics;
  out.cache_key = compiled->cache_key;
  out.cache_hit = compiled->cache_hit;
  out.wall_ms = compiled->wall_ms;
  if (!compiled->ok) {
    out.reason = "the reference does not compile: " + compiled->reason;
    return out;  // not remembered: a fixed file has another digest anyway
  }
  auto object = util::read_file_nofollow(*job / "candidate.so", k_max_object_bytes);
  if (!object) return util::fail(source_path.string(), "the compiled reference cannot be read back: " + object.error().what());
  out.ok = true;
  out.object = std::move(*object);
  std::lock_guard lock(m_mutex);
  m_built[key] = out;
  return out;
}

util::Result<std::shared_ptr<Reference>> ReferenceHost::open(const core::Spec& spec,
                                                             const std::vector<std::string>& extra_flags) {
  auto built = build(spec, extra_flags);
  if (!built) return std::unexpected(built.error());
  if (!built->ok) return util::fail("", built->reason);
  return start(spec, *built);
}

util::Result<std::shared_ptr<Reference>> ReferenceHost::open_source(const core::Spec& spec, const std::string& source,
                                                                    const fs::path& path,
                                                                    const std::vector<std::string>& extra_flags) {
  auto built = build_source(spec, source, path, extra_flags);
  if (!built) return std::unexpected(built.error());
  if (!built->ok) return util::fail("", built->reason);
  return start(spec, *built);
}

util::Result<std::shared_ptr<Reference>> ReferenceHost::start(const core::Spec& spec, const ReferenceBuild& built_ref) {
  const ReferenceBuild* built = &built_ref;
  // The spec object too: an idle process refers to the Spec it was started for.
  const std::string key = util::sha256_hex(built->object) + '/' + std::to_string(reinterpret_cast<uintptr_t>(&spec));
  std::unique_ptr<ReferenceProcess> process;
  {
    std::lock_guard lock(m_idle->mutex);
    if (auto it = m_idle->by_key.find(key); it != m_idle->by_key.end() && !it->second.empty()) {
      process = std::move(it->second.back());
      it->second.pop_back();
      m_idle->bytes -= process->arena_bytes();
    }
  }
  if (!process) {
    ReferenceProcessConfig cfg{m_cfg.runner, m_cfg.bwrap, m_cfg.workspace / "jobs", m_cfg.timeout_ms,
                               m_cfg.memory_bytes};
    auto started = ReferenceProcess::start(cfg, spec, built->object);
    if (!started) return std::unexpected(started.error());
    process = std::move(*started);
  }
  return std::shared_ptr<Reference>(process.release(), [idle = m_idle, key](Reference* r) {
    std::unique_ptr<ReferenceProcess> p(static_cast<ReferenceProcess*>(r));  // ended (if not kept) after the lock
    if (!p->reusable()) return;
    std::lock_guard lock(idle->mutex);
    auto& list = idle->by_key[key];
    if (list.size() >= IdleReferences::k_per_key || idle->bytes + p->arena_bytes() > IdleReferences::k_max_bytes) return;
    idle->bytes += p->arena_bytes();
    list.push_back(std::move(p));
  });
}

}  // namespace kwb::eval
