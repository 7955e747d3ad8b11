#pragma once
// Where the scorecard's figures are kept (docs/library.md "Scorecard"): every `kwb library report
// --measure` writes its report to <workspace>/library-reports/report-<UTC time>-<nnn>.json; without
// --measure (and GET /v1/library/report) the newest one is read back, with its age, its devices and
// each row marked stale where the library's head names another incumbent since.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "library/repository.hpp"
#include "util/error.hpp"

namespace kwb::library {

// <workspace>/library-reports, from the workspace database's file.
std::filesystem::path reports_dir(const std::filesystem::path& workspace_db_file);
// "2026-12-05T00:38:06Z"
std::string utc_stamp(std::chrono::system_clock::time_point t);
// Seconds since a utc_stamp (null: not one).
std::optional<int64_t> age_s(const std::string& stamp, std::chrono::system_clock::time_point now);

// Writes the report as the newest of `dir` (atomically); returns its path.
util::Result<std::filesystem::path> save_report(const std::filesystem::path& dir, const nlohmann::json& report);
// The newest stored report with its `source` saying so (kind "stored": file, measured_at, age_s,
// devices, library_commit, head) and its rows re-checked against the head (`stale`); with none
// stored, a report without rows whose source (kind "none") says how to make one.
util::Result<nlohmann::json> stored_report(const std::filesystem::path& dir, Repository& repo);

}  // namespace kwb::library
