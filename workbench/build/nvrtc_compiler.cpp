#include "build/nvrtc_compiler.hpp"

#include <atomic>
#include <chrono>
#include <thread>

#include "build/nvrtc_diagnostics.hpp"
#include "build/nvrtc_worker.hpp"
#include "util/ignore.hpp"

namespace kwb::build {

namespace {

constexpr const char* k_program_name = "candidate.cu";
constexpr size_t k_max_source = 1u << 19;  // the worker reads requests of at most 1 MiB

bool starts_with_any(const std::string& f, std::initializer_list<const char*> prefixes) {
  for (const char* p : prefixes)
    if (f.starts_with(p)) return true;
  return false;
}

}  // namespace

util::Result<void> check_nvrtc_flags(const std::vector<std::string>& flags) {
  for (const auto& f : flags) {
    bool ok = (f.size() > 2 && starts_with_any(f, {"-D", "-U"}) && f.find_first_of(" \t\n") == std::string::npos) ||
              f == "--use_fast_math" || f == "-use_fast_math" || f == "--extra-device-vectorization" ||
              f == "-lineinfo" || f == "--generate-line-info" || f == "--restrict" || f == "-restrict" ||
              starts_with_any(f, {"--ftz=", "-ftz=", "--prec-div=", "-prec-div=", "--prec-sqrt=", "-prec-sqrt=",
                                  "--fmad=", "-fmad=", "--maxrregcount=", "-maxrregcount="});
    if (!ok)
      return util::fail("flags", "flag '" + f + "' is not allowed for cuda candidates (allowed: -D, -U, "
                                 "--use_fast_math, --ftz=, --prec-div=, --prec-sqrt=, --fmad=, --maxrregcount=, "
                                 "--extra-device-vectorization, -lineinfo, --restrict)");
  }
  return {};
}

NvrtcCompiler::NvrtcCompiler(NvrtcOptions opt) : m_opt(std::move(opt)) {}
NvrtcCompiler::~NvrtcCompiler() = default;

std::vector<std::string> NvrtcCompiler::base_options() const {
  // The real path: /usr/local/cuda is often a chain of links (Ubuntu: through /etc/alternatives)
  // that the sandbox need not see.
  std::error_code ec;
  auto include = std::filesystem::canonical(m_opt.cuda_include, ec);
  // -lineinfo: line tables only (no change to the code made), so that compute-sanitizer and Nsight
  // Compute name source lines of the very cubin that was timed (docs/profiles.md).
  return {"--gpu-architecture=" + m_opt.arch, "-std=c++17", "-lineinfo",
          "--include-path=" + (ec ? m_opt.cuda_include : include).string()};
}

std::string NvrtcCompiler::identity() const {
  std::string version;
  {
    std::lock_guard lock(m_mutex);
    version = m_version.empty() ? "?" : m_version;
  }
  std::string s = "NVRTC " + version;
  for (const auto& o : base_options())
    if (!o.starts_with("--include-path")) s += " " + o;
  return s;
}

util::Result<std::unique_ptr<NvrtcWorker>> NvrtcCompiler::take() {
  {
    std::lock_guard lock(m_mutex);
    while (!m_idle.empty()) {
      auto w = std::move(m_idle.back());
      m_idle.pop_back();
      if (w->alive() && w->requests() < m_opt.max_requests_per_worker) return w;
    }
  }
  return NvrtcWorker::start({m_opt.worker, m_opt.bwrap, m_opt.scratch_parent, m_opt.cuda_include.parent_path()});
}

void NvrtcCompiler::give(std::unique_ptr<NvrtcWorker> w) {
  if (!w || !w->alive() || w->requests() >= m_opt.max_requests_per_worker) return;
  std::lock_guard lock(m_mutex);
  m_idle.push_back(std::move(w));
}

util::Result<std::string> NvrtcCompiler::version() {
  {
    std::lock_guard lock(m_mutex);
    if (!m_version.empty()) return m_version;
  }
  auto w = take();
  if (!w) return std::unexpected(w.error());
  auto v = (*w)->version(30000);
  if (!v) return std::unexpected(v.error());
  give(std::move(*w));
  std::lock_guard lock(m_mutex);
  m_version = *v;
  return m_version;
}

CudaCompileResult NvrtcCompiler::compile_one(NvrtcWorker& w, const CudaCompileRequest& req,
                                             const std::vector<std::string>& options, std::string& worker_error) {
  CudaCompileResult r;
  auto t0 = std::chrono::steady_clock::now();
  auto reply = w.compile(k_program_name, req.source, options, m_opt.timeout_ms);
  r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!reply) {
    worker_error = reply.error().what();
    return r;
  }
  if (reply->timed_out) {
    r.timed_out = true;
    r.reason = "NVRTC compilation exceeded the " + std::to_string(m_opt.timeout_ms) +
               " ms limit (endless template or constexpr recursion?)";
    return r;
  }
  r.log = reply->log;
  r.diagnostics = parse_nvrtc_log(r.log, k_program_name, req.display_name);
  r.ok = reply->compiled;
  r.cubin = std::move(reply->cubin);
  r.ptx = std::move(reply->ptx);
  r.l2_policy = reply->l2_policy;
  if (!r.ok) {
    r.internal = reply->result != "NVRTC_ERROR_COMPILATION" && reply->result != "NVRTC_ERROR_INVALID_OPTION";
    r.reason = "NVRTC compilation failed (" + reply->result + ")";
    if (r.internal) {
      r.reason += ": " + r.log.substr(0, r.log.find('\n'));
      return r;
    }
    for (const auto& d : r.diagnostics)
      if (d.severity == "error") {
        r.reason = d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.col) + ": " + d.message;
        break;
      }
  }
  return r;
}

util::Result<std::vector<CudaCompileResult>> NvrtcCompiler::compile_all(const std::vector<CudaCompileRequest>& reqs) {
  std::vector<CudaCompileResult> results(reqs.size());
  std::vector<std::vector<std::string>> options(reqs.size());
  std::vector<CubinKey> keys(reqs.size());
  std::vector<size_t> misses;
  CubinCache cache(m_opt.cache_dir);
  for (size_t i = 0; i < reqs.size(); ++i) {
    auto& r = results[i];
    if (auto f = check_nvrtc_flags(reqs[i].extra_flags); !f) {
      r.reason = f.error().what();
      r.diagnostics.push_back({reqs[i].display_name, 0, 0, "error", r.reason, ""});
      continue;
    }
    if (reqs[i].source.size() > k_max_source) {
      r.reason = "the source is larger than " + std::to_string(k_max_source) + " bytes";
      continue;
    }
    options[i] = base_options();
    // ptxas's report of registers, spills and shared memory per kernel goes into the program log,
    // where compiler_facts.cpp reads it (not part of identity(): it does not change the code).
    options[i].push_back("--ptxas-options=-v");
    for (const auto& d : reqs[i].defines) options[i].push_back(d);
    for (const auto& f : reqs[i].extra_flags)
      if (f != "-lineinfo" && f != "--generate-line-info") options[i].push_back(f);  // always on (base_options)
    auto v = version();
    if (!v) return std::unexpected(v.error());
    keys[i] = cubin_key(*v, m_opt.arch, options[i], k_program_name, reqs[i].source);
    r.key = keys[i].hex;
    if (!m_opt.cache_dir.empty())
      if (auto hit = cache.find(keys[i])) {
        r.ok = true;
        r.cached = true;
        r.cubin = std::move(hit->cubin);
        r.log = std::move(hit->log);
        r.l2_policy = std::move(hit->l2_policy);
        r.ptx = std::move(hit->ptx);
        r.diagnostics = parse_nvrtc_log(r.log, k_program_name, reqs[i].display_name);
        continue;
      }
    misses.push_back(i);
  }
  if (misses.empty()) return results;

  // Workers are started on this thread: a sandbox dies with the thread that spawned it.
  size_t threads = std::min<size_t>(misses.size(), size_t(std::max(1, m_opt.max_workers)));
  std::vector<std::unique_ptr<NvrtcWorker>> workers;
  for (size_t t = 0; t < threads; ++t) {
    auto w = take();
    if (!w) return std::unexpected(w.error());
    workers.push_back(std::move(*w));
  }
  std::atomic<size_t> next{0};
  std::mutex error_mutex;
  std::string error;
  auto work = [&](NvrtcWorker* w) {
    while (w->alive()) {
      size_t k = next++;
      if (k >= misses.size()) return;
      size_t i = misses[k];
      std::string worker_error;
      results[i] = compile_one(*w, reqs[i], options[i], worker_error);
      results[i].key = keys[i].hex;
      if (!worker_error.empty()) {
        std::lock_guard lock(error_mutex);
        error = worker_error;
        return;
      }
      if (results[i].ok && !m_opt.cache_dir.empty())
        util::ignore(cache.put(keys[i], {results[i].cubin, results[i].log, results[i].l2_policy, results[i].ptx}),
                     "caching a compiled CUDA kernel: a failed write only costs a compile the next time");
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work, workers[t].get());
  work(workers[0].get());
  for (auto& t : pool) t.join();
  // Workers killed by a deadline leave work behind: finish it here with fresh workers.
  while (error.empty() && next < misses.size()) {
    auto w = take();
    if (!w) return std::unexpected(w.error());
    work(w->get());
    workers.push_back(std::move(*w));
  }
  for (auto& w : workers) give(std::move(w));
  if (!error.empty()) return util::fail("nvrtc", error);
  return results;
}

}  // namespace kwb::build
