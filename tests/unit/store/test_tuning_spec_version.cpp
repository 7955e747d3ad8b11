// Tuning records carry the spec version in their identity (issue #16): migration 6 keeps the
// records of a version-5 database as version 1, and a record of another version makes the old
// one stale.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "store/database.hpp"
#include "store/migrations.hpp"
#include "store/tuning_repository.hpp"
#include "temp_dir.hpp"

namespace kwb::store {
namespace {

using test::TempDir;

TuningRecord record(int spec_version, double ns) {
  TuningRecord r;
  r.op = "vector_add";
  r.variant = "f32";
  r.backend = "cpu";
  r.workload = "n1M";
  r.params = {{"n", 1048576}};
  r.source_sha256 = std::string(64, 'a');
  r.identity = {"cpu", "g++ 12", "0.1.0", spec_version};
  r.median_ns = ns;
  r.stderr_pct = 0.1;
  r.samples = 30;
  return r;
}

TEST(TuningSpecVersion, MigrationKeepsOldRecordsAsVersionOne) {
  TempDir dir;
  const auto file = dir / "kwb.db";
  {  // a database as the workbench before this migration left it
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(file.c_str(), &raw), SQLITE_OK);
    std::string sql;
    const size_t before = 5;  // migration 6 (index 5) is the one under test; later ones run after it
    for (size_t i = 0; i < before; ++i) sql += migrations()[i];
    sql += "PRAGMA user_version=" + std::to_string(before) + ";";
    sql += "INSERT INTO tuning_records (op, variant, backend, workload, params, source_sha256, device, toolchain, "
           "workbench, median_ns, stderr_pct, samples) VALUES ('vector_add', 'f32', 'cpu', 'n1M', '{\"n\":1048576}', '" +
           std::string(64, 'a') + "', 'cpu', 'g++ 12', '0.1.0', 1000, 0.1, 30);";
    ASSERT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(raw);
    sqlite3_close(raw);
  }
  auto db = Database::open(file);
  ASSERT_TRUE(db) << db.error().what();
  EXPECT_EQ(db->schema_version(), int(migrations().size()));
  TuningRepository tuning(*db);
  auto all = tuning.find({"vector_add", "", "", "", true});
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ(all->front().identity.spec_version, 1);
  EXPECT_FALSE(all->front().stale);

  // The same kernel and workload measured under version 2: the version-1 record is stale, and
  // only the version-2 record counts under the version-2 identity.
  ASSERT_TRUE(tuning.put({record(2, 900)}));
  all = tuning.find({"vector_add", "", "", "", true});
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 2u);
  for (const auto& r : *all) EXPECT_EQ(r.stale, r.identity.spec_version == 1);
  auto current = tuning.current("vector_add", "f32", "cpu", std::string(64, 'a'), record(2, 0).identity);
  ASSERT_TRUE(current);
  ASSERT_EQ(current->size(), 1u);
  EXPECT_DOUBLE_EQ(current->at("n1M").median_ns, 900);
  auto none = tuning.current("vector_add", "f32", "cpu", std::string(64, 'a'), record(1, 0).identity);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

}  // namespace
}  // namespace kwb::store
