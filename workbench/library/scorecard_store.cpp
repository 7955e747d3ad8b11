#include "library/scorecard_store.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <set>

#include <fmt/format.h>

#include "library/scorecard.hpp"
#include "library/snapshot.hpp"
#include "util/fs.hpp"

namespace kwb::library {

std::filesystem::path reports_dir(const std::filesystem::path& workspace_db_file) {
  return workspace_db_file.parent_path() / "library-reports";
}

std::string utc_stamp(std::chrono::system_clock::time_point t) {
  std::time_t s = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&s, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::optional<int64_t> age_s(const std::string& stamp, std::chrono::system_clock::time_point now) {
  std::tm tm{};
  char z = 0;
  if (std::sscanf(stamp.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &z) != 7 || z != 'Z')
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const std::time_t then = timegm(&tm);
  return int64_t(std::chrono::system_clock::to_time_t(now) - then);
}

util::Result<std::filesystem::path> save_report(const std::filesystem::path& dir, const nlohmann::json& report) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return util::fail(dir.string(), "cannot create the reports folder: " + ec.message());
  std::string stamp = utc_stamp(std::chrono::system_clock::now());
  std::replace(stamp.begin(), stamp.end(), ':', '-');
  // report-<time>-<nnn>.json: names sort by time, reports of the same second by their number.
  std::filesystem::path path;
  for (int n = 1; path.empty() || std::filesystem::exists(path, ec); ++n)
    path = dir / fmt::format("report-{}-{:03}.json", stamp, n);
  if (auto ok = util::write_file_atomic(path, report.dump(2) + "\n"); !ok) return std::unexpected(ok.error());
  return path;
}

namespace {

// The newest report file of `dir` (names sort by time), or none.
std::optional<std::filesystem::path> newest_file(const std::filesystem::path& dir) {
  std::error_code ec;
  std::optional<std::filesystem::path> best;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const auto name = e.path().filename().string();
    if (!name.starts_with("report-") || !name.ends_with(".json")) continue;
    if (!best || name > best->filename().string()) best = e.path();
  }
  return best;
}

}  // namespace

util::Result<nlohmann::json> stored_report(const std::filesystem::path& dir, Repository& repo) {
  auto file = newest_file(dir);
  if (!file)
    return report_json({}, {{"kind", "none"},
                            {"detail", "no stored measurements in " + dir.string() +
                                           ": run kwb library report --measure on the machine to score"}});
  auto text = util::read_file(*file);
  if (!text) return std::unexpected(text.error());
  auto stored = nlohmann::json::parse(*text, nullptr, false);
  if (stored.is_discarded()) return util::fail(file->string(), "not JSON: remove it or measure again");
  auto rows = rows_of_report(stored);
  if (!rows) return util::fail(file->string() + ": " + rows.error().where, rows.error().message);
  auto head = read_head(repo);
  if (!head) return std::unexpected(head.error());
  int stale = 0;
  for (auto& r : *rows) {
    const auto* now = head->dispatch.incumbent(r.op, r.variant, r.backend, r.device_class);
    r.stale = !now || now->kernel != r.kernel;
    if (!r.region.empty()) {  // a region's incumbent: still one the head serves that region with
      r.stale = true;
      for (const auto* e : head->dispatch.serving(r.op, r.variant, r.backend, r.device_class))
        if (e->kernel == r.kernel && e->region.text() == r.region) r.stale = false;
    }
    stale += r.stale;
  }
  nlohmann::json source = stored.value("source", nlohmann::json::object());
  const std::string at = source.value("measured_at", "");
  auto age = age_s(at, std::chrono::system_clock::now());
  source["kind"] = "stored";
  source["file"] = file->string();
  source["age_s"] = age ? nlohmann::json(*age) : nlohmann::json(nullptr);
  source["head"] = head->commit;
  std::string devices;
  for (const auto& d : source.value("devices", nlohmann::json::array())) devices += (devices.empty() ? "" : "; ") + d.get<std::string>();
  source["detail"] = fmt::format("measured {} ({}) on {} at library commit {:.12}{}", at,
                                 age ? fmt::format("{:.1f} h ago", *age / 3600.0) : std::string("age unknown"),
                                 devices.empty() ? std::string("an unknown device") : devices,
                                 source.value("library_commit", std::string("?")),
                                 stale ? fmt::format("; {} row(s) stale: the head names another incumbent", stale) : "");
  return report_json(*rows, source, stored.value("bar", k_default_bar));
}

}  // namespace kwb::library
