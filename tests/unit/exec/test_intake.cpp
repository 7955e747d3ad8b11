// The intake (exec/intake.hpp): what a submission and a profile re-run must pass, the quota they
// share, the Idempotency-Key, and what a profile re-run keeps of its candidate.
#include <gtest/gtest.h>

#include "exec/intake.hpp"
#include "temp_dir.hpp"

namespace kwb::exec {
namespace {

const char* k_body = R"({"op": "vector_add", "source": "// c\n", "bench": ["n1M"], "device_class": "cpu-x86_64-v3"})";

struct Rig {
  test::TempDir dir;
  store::Database db{*store::Database::open(dir / "kwb.db")};
  store::ObjectStore objects{dir / "objects"};
  spec::Catalog catalog{*spec::Catalog::load(std::filesystem::path(KWB_TEST_SOURCE_DIR) / "specs")};
  EventHub hub;
  Ledger ledger{db, hub};
  std::vector<std::string> scheduled;
  Intake intake;
  explicit Rig(int64_t quota = 64)
      : intake(db, objects, catalog, ledger, [this](const store::CandidateRecord& r) { scheduled.push_back(r.id); },
               config(quota)) {
    // The tokens the tests submit with (candidates reference them).
    for (int id : {3, 5, 6, 7})
      if (auto r = db.exec("INSERT INTO tokens (id, name, role, hash) VALUES (" + std::to_string(id) + ", 't', 'agent', 'h" +
                           std::to_string(id) + "');");
          !r)
        throw std::runtime_error(r.error().what());
  }
  static IntakeConfig config(int64_t quota) {
    IntakeConfig c;
    c.queue_quota = quota;
    c.rules.device_classes = {{"cpu-x86_64-v3", "cpu", ""}};
    return c;
  }
};

TEST(Intake, ASubmissionIsStoredAnnouncedAndScheduled) {
  Rig rig;
  auto r = rig.intake.submit(7, k_body, std::nullopt);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->replay);
  EXPECT_EQ(rig.scheduled, std::vector<std::string>{r->id});
  auto rec = **store::CandidateRepository(rig.db).find(r->id);
  EXPECT_EQ(rec.token_id, 7);
  EXPECT_EQ(rec.bench, std::vector<std::string>{"n1M"});
  EXPECT_EQ(*rig.objects.get(rec.source_sha256), "// c\n");
}

TEST(Intake, RefusalsNameTheFieldAndCarryACode) {
  Rig rig;
  auto op = rig.intake.submit(0, R"({"op": "vector_ad", "source": "x"})", std::nullopt);
  ASSERT_FALSE(op);
  EXPECT_EQ(op.error().code, RefusalCode::unprocessable);
  EXPECT_EQ(op.error().type, "unknown_op");
  EXPECT_NE(op.error().message.find("op: unknown op 'vector_ad'"), std::string::npos) << op.error().message;
  auto cls = rig.intake.submit(0, R"({"op": "vector_add", "source": "x", "device_class": "cuda-sm_90"})", std::nullopt);
  ASSERT_FALSE(cls);
  EXPECT_EQ(cls.error().type, "unknown_device_class");
  auto json = rig.intake.submit(0, "{", std::nullopt);
  ASSERT_FALSE(json);
  EXPECT_EQ(json.error().code, RefusalCode::invalid);
  EXPECT_TRUE(rig.scheduled.empty());
}

TEST(Intake, AnIdempotencyKeyReplaysItsCandidateAndRefusesAnotherBody) {
  Rig rig;
  auto first = rig.intake.submit(3, k_body, "key-1");
  ASSERT_TRUE(first);
  auto again = rig.intake.submit(3, k_body, "key-1");
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->replay);
  EXPECT_EQ(again->id, first->id);
  auto other = rig.intake.submit(3, R"({"op": "vector_add", "source": "// other\n"})", "key-1");
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().type, "idempotency_conflict");
  EXPECT_EQ(rig.scheduled.size(), 1u);
}

TEST(Intake, SubmitAndProfileShareTheTokensQuota) {
  Rig rig(2);
  auto a = rig.intake.submit(5, k_body, std::nullopt);
  auto b = rig.intake.submit(5, k_body, std::nullopt);
  ASSERT_TRUE(a && b);
  auto c = rig.intake.submit(5, k_body, std::nullopt);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, RefusalCode::quota);
  EXPECT_GT(c.error().retry_after_s, 0);
  auto p = rig.intake.profile(5, a->id);
  ASSERT_FALSE(p) << "a profile re-run got around the quota";
  EXPECT_EQ(p.error().code, RefusalCode::quota);
  EXPECT_TRUE(rig.intake.profile(6, a->id)) << "another token's quota is its own";
}

TEST(Intake, AProfileReRunKeepsTheDeviceClassBenchAndNamesItsParent) {
  Rig rig;
  auto a = rig.intake.submit(5, k_body, std::nullopt);
  ASSERT_TRUE(a);
  auto p = rig.intake.profile(5, a->id);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->parent, a->id);
  auto rec = **store::CandidateRepository(rig.db).find(p->id);
  EXPECT_TRUE(rec.profile);
  EXPECT_EQ(rec.device_class, "cpu-x86_64-v3");
  EXPECT_EQ(rec.bench, std::vector<std::string>{"n1M"});
  EXPECT_EQ(rec.parent, a->id);
  auto missing = rig.intake.profile(5, "c-0000000000000000");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, RefusalCode::not_found);
}

}  // namespace
}  // namespace kwb::exec
