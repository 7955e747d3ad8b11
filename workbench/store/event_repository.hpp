#pragma once
// The events of a candidate (state changes, stage progress, the verdict), in order; the
// daemon's Server-Sent Events replay them from any id.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/database.hpp"

namespace kwb::store {

struct EventRecord {
  int64_t id = 0;
  std::string candidate_id, at, kind;
  nlohmann::json data;
};

class EventRepository {
 public:
  explicit EventRepository(Database& db) : m_db(db) {}
  util::Result<EventRecord> append(const std::string& candidate_id, const std::string& kind, const nlohmann::json& data);
  util::Result<std::vector<EventRecord>> after(const std::string& candidate_id, int64_t after_id);
  // The candidate's newest event of `kind` (e.g. "ci"), if any.
  util::Result<std::optional<EventRecord>> latest(const std::string& candidate_id, const std::string& kind);

 private:
  Database& m_db;
};

}  // namespace kwb::store
