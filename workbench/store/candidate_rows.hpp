#pragma once
// The candidates table's columns as CandidateRepository reads them (candidate_repository.cpp,
// candidate_outcomes.cpp): one list, one row reader.
#include "store/candidate_repository.hpp"
#include "store/statement.hpp"

namespace kwb::store {

extern const char* const k_candidate_columns;
CandidateRecord read_candidate_row(const Statement& st);
// Appends `events` inside the caller's transaction (under the database's write lock).
util::Result<void> append_events(Database& db, const std::string& id, const Events& events);

}  // namespace kwb::store
