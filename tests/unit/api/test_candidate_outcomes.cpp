// GET /v1/candidates/{id}'s "decision" and "ci": from the decisions table and the candidate's
// last `ci` event; a recorded decision appends its `decision` event in the same transaction.
#include <gtest/gtest.h>

#include <filesystem>

#include "api/candidate_json.hpp"
#include "store/decision_repository.hpp"
#include "store/event_repository.hpp"

namespace {

namespace fs = std::filesystem;
using namespace kwb;

TEST(CandidateOutcomes, DecisionAndCiReachTheCandidateWithTheirEvents) {
  char tmpl[] = "/tmp/kwb-outcomes-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  fs::path dir = tmpl;
  {
    auto db = store::Database::open(dir / "kwb.db");
    ASSERT_TRUE(db.has_value()) << db.error().what();
    store::CandidateRecord rec;
    rec.op = "vector_add";
    rec.backend = "cpu";
    rec.source_sha256 = std::string(64, 'a');
    rec.source_name = "k.cpp";
    bool existing = false;
    auto inserted = store::CandidateRepository(*db).insert(rec, &existing);
    ASSERT_TRUE(inserted.has_value()) << inserted.error().what();
    const std::string id = inserted->id;

    nlohmann::json j = api::candidate_json(*inserted, true);
    ASSERT_TRUE(api::add_outcomes(*db, id, j).has_value());
    EXPECT_TRUE(j["decision"].is_null());
    EXPECT_TRUE(j["ci"].is_null());

    store::DecisionRepository decisions(*db);
    auto first = decisions.record({id, "rejected", "too slow", "", std::nullopt, ""});
    ASSERT_TRUE(first.has_value() && *first);
    auto second = decisions.record({id, "promoted", "", "abc123", std::nullopt, ""});
    ASSERT_TRUE(second.has_value());
    EXPECT_FALSE(*second) << "a candidate is decided once";
    store::EventRepository events(*db);
    ASSERT_TRUE(events.append(id, "ci", {{"outcome", "no_longer_wins"}, {"reason", "slower now"}, {"commit", nullptr}}));
    ASSERT_TRUE(events.append(id, "ci", {{"outcome", "regressed"}, {"reason", "wrong now"}, {"commit", nullptr}}));

    ASSERT_TRUE(api::add_outcomes(*db, id, j).has_value());
    EXPECT_EQ(j["decision"]["decision"], "rejected");
    EXPECT_EQ(j["decision"]["reason"], "too slow");
    EXPECT_TRUE(j["decision"]["commit"].is_null());
    EXPECT_EQ(j["ci"]["outcome"], "regressed") << "the last ci event counts";
    EXPECT_TRUE(j["ci"]["at"].is_string());

    auto all = events.after(id, 0);
    ASSERT_TRUE(all.has_value());
    int decision_events = 0;
    for (const auto& e : *all) decision_events += e.kind == "decision";
    EXPECT_EQ(decision_events, 1) << "one event for the one decision recorded";
  }
  fs::remove_all(dir);
}

}  // namespace
