#pragma once
// Review decisions on candidates: promoted (with the library commit) or rejected (with a reason).
// A candidate is decided at most once.
#include <optional>
#include <string>
#include <vector>

#include "store/database.hpp"
#include "util/error.hpp"

namespace kwb::store {

struct DecisionRecord {
  std::string candidate_id;
  std::string decision;  // "promoted" | "rejected"
  std::string reason;
  std::string commit_id;
  std::optional<int64_t> token_id;
  std::string decided_at;
};

class DecisionRepository {
 public:
  explicit DecisionRepository(Database& db) : m_db(db) {}
  // False when the candidate already has a decision (nothing is written then). A recorded
  // decision appends, in the same transaction, the candidate's `decision` event
  // {decision, reason, commit}.
  util::Result<bool> record(const DecisionRecord& d);
  util::Result<std::optional<DecisionRecord>> find(const std::string& candidate_id);

 private:
  util::Result<bool> insert(const DecisionRecord& d);
  Database& m_db;
};

}  // namespace kwb::store
