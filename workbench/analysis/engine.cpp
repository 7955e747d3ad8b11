#include "analysis/engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "analysis/ast.hpp"
#include "analysis/checks.hpp"
#include "analysis/clang_env.hpp"
#include "analysis/libclang.hpp"
#include "core/backend.hpp"
#include "util/clock.hpp"

namespace kwb::analysis::detail {

namespace fs = std::filesystem;

std::vector<std::string> defines_of(const std::vector<std::string>& flags) {
  std::vector<std::string> out;
  for (const auto& f : flags)
    if ((f.starts_with("-D") || f.starts_with("-U")) && f.size() > 2) out.push_back(f);
  return out;
}

namespace {

using util::ms_since;

constexpr int k_max_parse_findings = 20;

// --- configuration and the lazily built engine (libclang + parser environment) ---

struct Engine {
  const Libclang* lib = nullptr;
  std::unique_ptr<ClangEnv> env;
  std::string unavailable;  // why there is no analysis at all
};

std::mutex g_mutex;
EngineConfig g_config;
std::shared_ptr<Engine> g_engine;

std::string env_or(const char* name, std::string fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

// One engine per configuration (a new configuration replaces it; analyses in flight keep theirs).
std::shared_ptr<Engine> engine(const EngineConfig& config) {
  std::lock_guard lock(g_mutex);
  if (g_engine && g_config == config) return g_engine;
  g_config = config;
  auto e = std::make_shared<Engine>();
  std::string path = g_config.libclang_path.empty() ? env_or("KWB_LIBCLANG", "") : g_config.libclang_path;
  if (path == "none" || path == "off") {
    e->unavailable = "libclang disabled (KWB_LIBCLANG=" + path + "): static analysis skipped";
  } else if (auto lib = load_libclang(path); !lib) {
    e->unavailable = "libclang not found: static analysis skipped (" + lib.error().what() + ")";
  } else {
    fs::path cuda = g_config.cuda_path.empty() ? fs::path(env_or("KWB_CUDA_PATH", "/usr/local/cuda")) : g_config.cuda_path;
    auto env = ClangEnv::create(**lib, g_config.cache_dir, cuda);
    if (!env) {
      e->unavailable = "static analysis skipped: " + env.error().what();
    } else {
      e->lib = *lib;
      e->env = std::move(*env);
    }
  }
  g_engine = e;
  return e;
}

std::optional<Mode> mode_of(const std::string& backend) {
  auto form = core::parse_backend(backend);
  if (!form) return std::nullopt;
  switch (*form) {
    case core::Backend::cpu: return Mode::cpu;
    case core::Backend::cuda: return Mode::cuda_device;
    case core::Backend::cuda_launcher: return Mode::cuda_host;
  }
  return std::nullopt;
}


struct Parsed {
  CXErrorCode err = CXError_Failure;
  CXTranslationUnit tu = nullptr;
  ParseArgs args;
};

// Parses the candidate (`wrapper`: a cuda_device source with clang's CUDA wrapper, not the prelude).
Parsed parse(Engine& eng, CXIndex index, Mode mode, const Request& req, bool wrapper) {
  const Libclang& cx = *eng.lib;
  Parsed p;
  p.args = eng.env->args(mode, defines_of(req.flags), req.source, wrapper);
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::vector<const char*> argv;
    for (const auto& a : p.args.args) argv.push_back(a.c_str());
    CXUnsavedFile file{p.args.main_file.c_str(), req.source.data(), static_cast<unsigned long>(req.source.size())};
    p.err = cx.parseTranslationUnit2(index, p.args.main_file.c_str(), argv.data(), int(argv.size()), &file, 1,
                                     CXTranslationUnit_KeepGoing | CXTranslationUnit_DetailedPreprocessingRecord,
                                     &p.tu);
    if (p.err != CXError_ASTReadError || !p.args.with_pch) break;
    eng.env->invalidate_pch(p.args.pch_set);  // stale or corrupt PCH: rebuild (or go without), retry once
    p.args = eng.env->args(mode, defines_of(req.flags), req.source, wrapper);
  }
  return p;
}

bool has_parse_errors(const Libclang& cx, CXTranslationUnit tu) {
  bool errors = false;
  for (unsigned i = 0, n = cx.getNumDiagnostics(tu); i < n && !errors; ++i) {
    CXDiagnostic d = cx.getDiagnostic(tu, i);
    errors = cx.getDiagnosticSeverity(d) >= CXDiagnostic_Error;
    cx.disposeDiagnostic(d);
  }
  return errors;
}

// Parses and runs every check. `r.available` stays false on a failure of the analyzer itself.
void run(Engine& eng, Mode mode, const Request& req, Report& r) {
  const Libclang& cx = *eng.lib;
  CXIndex index = cx.createIndex(/*excludeDeclarationsFromPCH=*/1, /*displayDiagnostics=*/0);
  Parsed parsed = parse(eng, index, mode, req, false);
  // The NVRTC prelude is the fast path, not the judge: a source it does not parse is parsed again
  // with clang's CUDA wrapper, and a clean parse there stands. When both fail, the prelude's errors
  // are reported (they are NVRTC's view). A crash is not retried.
  if (parsed.args.prelude() && parsed.err != CXError_Crashed &&
      (parsed.err != CXError_Success || !parsed.tu || has_parse_errors(cx, parsed.tu))) {
    Parsed wrapped = parse(eng, index, mode, req, true);
    bool clean = wrapped.err == CXError_Success && wrapped.tu && !has_parse_errors(cx, wrapped.tu);
    if (clean || parsed.err != CXError_Success || !parsed.tu) std::swap(parsed, wrapped);
    if (wrapped.tu) cx.disposeTranslationUnit(wrapped.tu);
  }
  CXErrorCode err = parsed.err;
  CXTranslationUnit tu = parsed.tu;
  const ParseArgs& pa = parsed.args;
  if (mode == Mode::cuda_device) r.parsed_with = pa.prelude() ? "nvrtc-prelude" : "cuda-wrapper";
  Findings findings;
  if (err == CXError_Crashed) {
    r.available = true;
    findings.add("parse", "error", Position{req.display_name, 0, 0},
                 "the analyzer's parser (libclang) crashed on this source; simplify the code (deep template or "
                 "constexpr recursion?)");
    r.findings = findings.take();
  } else if (err != CXError_Success || !tu) {
    r.unavailable_reason = fmt::format("static analysis failed: libclang could not parse (error {})", int(err));
  } else {
    Ast ast(cx, tu, pa.main_file, req.display_name, req.source.size());
    int parse_errors = 0;
    for (unsigned i = 0, n = cx.getNumDiagnostics(tu); i < n; ++i) {
      CXDiagnostic d = cx.getDiagnostic(tu, i);
      if (cx.getDiagnosticSeverity(d) >= CXDiagnostic_Error && parse_errors++ < k_max_parse_findings)
        findings.add("parse", "error", ast.position(cx.getDiagnosticLocation(d)), cx.str(cx.getDiagnosticSpelling(d)));
      cx.disposeDiagnostic(d);
    }
    Context ctx{ast, req, mode != Mode::cpu, findings};
    // A source that does not parse gives no reliable signature; the parse error is reported instead.
    if (parse_errors == 0) check_entry_signature(ctx);
    check_calls(ctx);
    check_asm(ctx);
    check_globals(ctx);
    check_preprocessor(ctx);
    check_precision(ctx);
    if (mode == Mode::cuda_host) check_launcher_streams(ctx);
    r.available = true;
    r.findings = findings.take();
    std::stable_sort(r.findings.begin(), r.findings.end(), [](const core::Diagnostic& a, const core::Diagnostic& b) {
      return std::tie(a.line, a.col) < std::tie(b.line, b.col);
    });
  }
  if (tu) cx.disposeTranslationUnit(tu);
  cx.disposeIndex(index);
}

}  // namespace

Report analyze_here(const Request& req, const EngineConfig& config) {
  auto start = std::chrono::steady_clock::now();
  Report r;
  auto mode = mode_of(req.backend);
  if (!mode) {
    r.unavailable_reason = "no static analysis for backend '" + req.backend + "'";
    return r;
  }
  auto eng = engine(config);
  if (!eng->lib) {
    r.unavailable_reason = eng->unavailable;
  } else if (std::string why = eng->env->unavailable(*mode); !why.empty()) {
    r.unavailable_reason = why;
  } else {
    try {
      run(*eng, *mode, req, r);
    } catch (const std::exception& e) {  // allocation failures and the like
      r = Report{};
      r.unavailable_reason = std::string("static analysis failed: ") + e.what();
    }
  }
  r.ms = ms_since(start);
  return r;
}

bool warm_up_here(const std::string& backend, const EngineConfig& config) {
  auto mode = mode_of(backend);
  auto eng = engine(config);
  if (!mode || !eng->lib || !eng->env->unavailable(*mode).empty()) return false;
  bool ok = eng->env->args(*mode, {}, "").with_pch;
  if (*mode == Mode::cpu) ok = eng->env->args(*mode, {}, "#include <immintrin.h>").with_pch && ok;
  if (*mode == Mode::cuda_host) ok = eng->env->args(*mode, {}, "#include <cub/cub.cuh>").with_pch && ok;
  if (*mode == Mode::cuda_device)  // the prelude with the half-precision headers, and the wrapper
    ok = eng->env->args(*mode, {}, "#include <cuda_fp16.h>").with_pch && eng->env->args(*mode, {}, "", true).with_pch && ok;
  return ok;
}

}  // namespace kwb::analysis::detail

namespace kwb::analysis {

void Findings::add(std::string rule, std::string severity, const Position& at, std::string message) {
  if (!m_seen.emplace(rule, at.line, at.col, message).second) return;
  m_items.push_back(core::Diagnostic{at.file, at.line, at.col, std::move(severity), std::move(message), std::move(rule)});
}

}  // namespace kwb::analysis
