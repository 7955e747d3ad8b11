#include "speccheck/build_check.hpp"

#include <fmt/format.h>

#include "build/cpu_toolchain.hpp"
#include "util/fs.hpp"

namespace kwb::speccheck {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_headers[] = {"reference.hpp", "dtype.hpp", "parallel_ranges.hpp"};

// The job folder: the source as candidate.cpp and the reference interface as core/*.hpp. The
// headers include each other as "core/x.hpp", which resolves next to the including header, so
// they are at core/core/ too (no -I: the toolchain refuses include flags).
util::Result<void> stage(const fs::path& job, const fs::path& headers, const std::string& source) {
  std::error_code ec;
  fs::create_directories(job / "core" / "core", ec);
  if (ec) return util::fail(job.string(), "cannot create: " + ec.message());
  for (const char* h : k_headers) {
    auto text = util::read_file(headers / "core" / h);
    if (!text) return std::unexpected(text.error());
    for (const fs::path& dst : {job / "core" / h, job / "core" / "core" / h})
      if (auto w = util::write_file_atomic(dst, *text); !w) return w;
  }
  return util::write_file_atomic(job / "candidate.cpp", source);
}

}  // namespace

ReferenceBuilder sandboxed_warning_build(SandboxedBuildOptions options) {
  return [options](const core::Spec& spec) -> util::Result<ReferenceBuild> {
    auto toolchain = build::CpuToolchain::detect(options.cxx);
    if (!toolchain) return std::unexpected(toolchain.error());
    const fs::path file = spec.file.parent_path() / "reference.cpp";
    auto source = util::read_file(file);
    if (!source) return std::unexpected(source.error());
    auto job = util::make_unique_dir(options.scratch, "speccheck-");
    if (!job) return std::unexpected(job.error());
    struct Remove {
      fs::path dir;
      ~Remove() {
        std::error_code ec;
        fs::remove_all(dir, ec);
      }
    } remove{*job};
    if (auto s = stage(*job, options.core_headers, *source); !s) return std::unexpected(s.error());
    build::CompileRequest req;
    req.source = *source;
    req.display_name = file.string();
    req.job_dir = *job;
    req.extra_flags = {"-Wall", "-Wextra"};
    req.bwrap = options.bwrap;
    auto result = toolchain->compile(req);
    if (!result) return std::unexpected(result.error());
    return ReferenceBuild{result->ok, result->diagnostics, result->reason};
  };
}

bool check_reference_build(const core::Spec& spec, const ReferenceBuilder& build, Findings& out) {
  auto result = build(spec);
  if (!result) {
    out.reference_error("", "could not be built: " + result.error().what());
    return false;
  }
  size_t reported = 0;
  for (const auto& d : result->diagnostics) {
    if (d.severity != "error" && d.severity != "warning") continue;
    ++reported;
    const bool own = d.file == out.reference_file();
    const std::string where = d.line > 0 ? fmt::format("{}:{}", d.line, d.col) : "";
    const std::string what = fmt::format("{} with -Wall -Wextra: {}", d.severity == "error" ? "does not compile" : "warns",
                                         d.message);
    if (own) out.reference_error(where, what);
    else out.add(d.file, where, Severity::error, what + " (in a header " + out.reference_file() + " includes)");
  }
  if (!result->ok && reported == 0) out.reference_error("", "does not build: " + result->reason);
  return result->ok;
}

}  // namespace kwb::speccheck
