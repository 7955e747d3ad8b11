#include "speccheck/checker.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "spec/loader.hpp"

namespace kwb::speccheck {

namespace fs = std::filesystem;

namespace {

// A loader error's `where` is "<file>: <field>" or "<file>".
void add_load_error(const util::Error& e, const std::string& file, Findings& out) {
  std::string field = e.where;
  if (field.starts_with(file + ": ")) field = field.substr(file.size() + 2);
  else if (field == file) field.clear();
  out.add(file, field, Severity::error,
          e.message + " (loading stops at a file's first error: fix it and check again for more)");
}

}  // namespace

std::vector<Problem> check_folder(const fs::path& folder, const CheckOptions& options, const ReferenceAccess& access) {
  const fs::path spec_file = folder / "spec.json", reference_file = folder / "reference.cpp";
  Findings out(spec_file.string(), reference_file.string());
  std::error_code ec;
  const bool has_reference = fs::is_regular_file(reference_file, ec);
  if (!has_reference)
    out.reference_error("", "missing: a spec folder holds spec.json and the trusted reference, reference.cpp "
                            "(`kwb spec new OP` writes a skeleton)");
  auto spec = spec::load_spec(spec_file);
  if (!spec) {
    add_load_error(spec.error(), spec_file.string(), out);
    return std::move(out.problems());
  }
  fs::path absolute = fs::absolute(folder, ec).lexically_normal();
  if (absolute.filename().empty()) absolute = absolute.parent_path();  // "specs/softmax/"
  const std::string name = absolute.filename().string();
  if (!name.empty() && spec->op != name)
    out.spec_error("op", fmt::format("\"{}\" must equal the name of its folder, \"{}\"", spec->op, name));
  check_memory(*spec, options.limits, out);
  check_roofline(*spec, out);
  check_edge_coverage(*spec, out);
  if (!options.reference_checks || !has_reference) return std::move(out.problems());

  if (access.build && !check_reference_build(*spec, access.build, out)) return std::move(out.problems());
  if (access.open) {
    auto ref = access.open(*spec);
    if (!ref || !*ref)
      out.reference_error("", "could not be opened: " + (ref ? std::string("no reference") : ref.error().what()) +
                                  " (the checks that run it are skipped)");
    else {
      check_reference_runs(*spec, **ref, options.reference, out);
      check_tolerance_headroom(*spec, **ref, access.open_template, options.reference, out);
    }
  }
  return std::move(out.problems());
}

util::Result<Report> check_path(const fs::path& dir, const CheckOptions& options, const ReferenceAccess& access) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return util::fail(dir.string(), "not a directory (give a spec folder, with spec.json, or a folder of them)");
  Report report;
  if (fs::exists(dir / "spec.json", ec)) {
    report.folders.push_back(dir.string());
  } else {
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_directory(ec) && fs::exists(it->path() / "spec.json", ec)) report.folders.push_back(it->path().string());
    if (ec) return util::fail(dir.string(), "cannot list: " + ec.message());
    std::sort(report.folders.begin(), report.folders.end());
    if (report.folders.empty())
      return util::fail(dir.string(), "no spec.json here nor in any folder below it (a spec folder holds spec.json "
                                      "and reference.cpp)");
  }
  for (const auto& folder : report.folders) {
    auto problems = check_folder(folder, options, access);
    report.problems.insert(report.problems.end(), problems.begin(), problems.end());
  }
  return report;
}

}  // namespace kwb::speccheck
