// analyze(): the result cache, then the kwb-analyzer worker (or, for trusted sources only,
// libclang in this process).
#include "analysis/analyzer.hpp"

#include <chrono>
#include <deque>
#include <mutex>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "analysis/engine.hpp"
#include "analysis/worker_pool.hpp"
#include "core/backend.hpp"
#include "util/hash.hpp"
#include "util/clock.hpp"

namespace kwb::analysis {

namespace fs = std::filesystem;

namespace {

using util::ms_since;

constexpr size_t k_max_source_bytes = 4u << 20;
constexpr size_t k_cache_entries = 512;

struct Config {
  detail::EngineConfig engine;
  fs::path worker;  // empty: detail::default_worker_path()
  std::chrono::milliseconds timeout{30000};
  bool in_process = false;
};

std::mutex g_mutex;
Config g_config;

Config config() {
  std::lock_guard lock(g_mutex);
  return g_config;
}

// docs/architecture.md "Caches and keys": a version salt first, then delimited sections.
class ResultCache {
 public:
  std::optional<Report> get(const std::string& key) {
    std::lock_guard lock(m_mutex);
    auto it = m_items.find(key);
    if (it == m_items.end()) return std::nullopt;
    return it->second;
  }
  void put(const std::string& key, const Report& r) {
    std::lock_guard lock(m_mutex);
    if (m_items.emplace(key, r).second) m_order.push_back(key);
    while (m_order.size() > k_cache_entries) {
      m_items.erase(m_order.front());
      m_order.pop_front();
    }
  }
  void clear() {
    std::lock_guard lock(m_mutex);
    m_items.clear();
    m_order.clear();
  }

 private:
  std::mutex m_mutex;
  std::unordered_map<std::string, Report> m_items;
  std::deque<std::string> m_order;
};

ResultCache& cache() {
  static ResultCache c;
  return c;
}

std::string cache_key(const Request& req) {
  std::string k = std::string("kwb-analysis\0", 13) + k_rules_version + '\0' + req.backend + '\0' + req.spec.op + '\0' +
                  std::to_string(req.spec.version) + '\0' + req.variant.name + '\0' + req.variant.entry + '\0';
  for (const auto& t : req.spec.tensors) {
    auto dt = req.variant.dtypes.find(t.name);
    k += t.name + ':' + std::string(core::role_name(t.role)) + ':' +
         (dt == req.variant.dtypes.end() ? "?" : std::string(core::dtype_name(dt->second))) + ',';
  }
  for (const auto& p : req.spec.params) k += p + ',';
  for (const auto& sc : req.spec.scalars) k += "double " + sc.name + ',';
  k += '\0';
  for (const auto& n : req.kernel_names) k += n + ',';
  k += '\0';
  for (const auto& l : req.launches) {
    k += l.kernel + '@' + std::to_string(l.line) + '(';
    for (const auto& a : l.args) k += std::to_string(int(a.kind)) + ':' + std::to_string(a.index) + ',';
    k += ')';
  }
  k += '\0';
  for (const auto& d : detail::defines_of(req.flags)) k += d + '\x1f';
  k += '\0' + req.display_name + '\0' + req.source;
  return util::sha256_hex(k);
}

detail::WorkerConfig worker_config(const Config& c) {
  return detail::WorkerConfig{c.worker.empty() ? detail::default_worker_path() : c.worker, c.engine, c.timeout};
}


}  // namespace

std::vector<KernelLaunch> launches_of(const core::LaunchPlan& plan) {
  std::vector<KernelLaunch> out;
  for (const auto& l : plan.launches) out.push_back(KernelLaunch{l.kernel, l.args, l.line});
  return out;
}

bool Report::has_errors() const { return first_error() != nullptr; }

const core::Diagnostic* Report::first_error() const {
  for (const auto& d : findings)
    if (d.severity == "error" && d.rule == "parse") return &d;
  for (const auto& d : findings)
    if (d.severity == "error") return &d;
  return nullptr;
}

std::string format_finding(const core::Diagnostic& d) {
  std::string where = d.file;
  if (d.line > 0) where += fmt::format(":{}:{}", d.line, d.col);
  return fmt::format("{}: {}: {}", d.rule, where, d.message);
}

Report analyze(const Request& req) {
  auto start = std::chrono::steady_clock::now();
  Report r;
  if (!core::parse_backend(req.backend)) {
    r.unavailable_reason = "no static analysis for backend '" + req.backend + "'";
    return r;
  }
  if (req.source.size() > k_max_source_bytes) {
    r.available = true;
    r.findings.push_back({req.display_name, 0, 0, "error",
                          fmt::format("the source has {} bytes; the limit is {}", req.source.size(), k_max_source_bytes),
                          "parse"});
    return r;
  }
  std::string key = cache_key(req);
  if (auto hit = cache().get(key)) {
    r = std::move(*hit);
    r.cached = true;
    r.ms = ms_since(start);
    return r;
  }
  Config c = config();
  bool cacheable = true;
  r = c.in_process ? detail::analyze_here(req, c.engine) : detail::worker_pool().run(req, worker_config(c), cacheable);
  if (r.available && cacheable) cache().put(key, r);
  r.cached = false;
  r.ms = ms_since(start);
  return r;
}

namespace {
template <class F>
void reconfigure(F change) {
  {
    std::lock_guard lock(g_mutex);
    change(g_config);
  }
  detail::worker_pool().reset();
  cache().clear();
}
}  // namespace

void set_libclang_path(std::string path) {
  reconfigure([&](Config& c) { c.engine.libclang_path = std::move(path); });
}

void set_cache_dir(fs::path dir) {
  if (config().engine.cache_dir == dir) return;
  reconfigure([&](Config& c) { c.engine.cache_dir = std::move(dir); });
}

void set_cuda_path(fs::path dir) {
  reconfigure([&](Config& c) { c.engine.cuda_path = std::move(dir); });
}

void set_worker_path(fs::path path) {
  reconfigure([&](Config& c) { c.worker = std::move(path); });
}

void set_timeout(std::chrono::milliseconds timeout) {
  reconfigure([&](Config& c) { c.timeout = timeout; });
}

void set_in_process(bool in_process) {
  reconfigure([&](Config& c) { c.in_process = in_process; });
}

void clear_cache() { cache().clear(); }

void stop_workers() { detail::worker_pool().stop(); }

bool warm_up(const std::string& backend) {
  Config c = config();
  return c.in_process ? detail::warm_up_here(backend, c.engine) : detail::worker_pool().warm_up(backend, worker_config(c));
}

}  // namespace kwb::analysis
