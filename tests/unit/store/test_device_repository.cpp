#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "store/database.hpp"
#include "store/device_repository.hpp"
#include "temp_dir.hpp"

namespace kwb::store {
namespace {

using test::TempDir;

class DeviceRepositoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = Database::open(m_dir / "kwb.db");
    ASSERT_TRUE(db.has_value()) << db.error().what();
    m_db.emplace(std::move(*db));
  }
  DeviceRepository repo() { return DeviceRepository(*m_db); }

  TempDir m_dir;
  std::optional<Database> m_db;
};

DeviceRecord cpu_record() {
  DeviceRecord r;
  r.id = "cpu:AMD EPYC:2";
  r.kind = "cpu";
  r.name = "AMD EPYC";
  r.copy_bytes_per_s = 2.5e10;
  r.flops_per_s = 1.5e11;
  r.details = {{"method", "memcpy"}, {"sizes", {1024, 1 << 20}}, {"repetitions", 7}};
  return r;
}

TEST_F(DeviceRepositoryTest, PutThenFindRoundTrips) {
  auto repo = this->repo();
  ASSERT_TRUE(repo.put(cpu_record()).has_value());
  auto found = repo.find("cpu:AMD EPYC:2");
  ASSERT_TRUE(found.has_value()) << found.error().what();
  ASSERT_TRUE(found->has_value());
  const DeviceRecord& r = **found;
  EXPECT_EQ(r.id, "cpu:AMD EPYC:2");
  EXPECT_EQ(r.kind, "cpu");
  EXPECT_EQ(r.name, "AMD EPYC");
  EXPECT_DOUBLE_EQ(r.copy_bytes_per_s, 2.5e10);
  ASSERT_TRUE(r.flops_per_s.has_value());
  EXPECT_DOUBLE_EQ(*r.flops_per_s, 1.5e11);
  EXPECT_EQ(r.details, cpu_record().details);
  EXPECT_EQ(r.details.at("sizes")[1], 1 << 20);
  // Filled in by the database: "YYYY-MM-DDTHH:MM:SSZ".
  EXPECT_EQ(r.calibrated_at.size(), 20u) << r.calibrated_at;
  EXPECT_EQ(r.calibrated_at.back(), 'Z');
}

TEST_F(DeviceRepositoryTest, NullFlopsStayNull) {
  auto repo = this->repo();
  DeviceRecord r = cpu_record();
  r.flops_per_s.reset();
  r.details = nlohmann::json::object();
  ASSERT_TRUE(repo.put(r).has_value());
  auto found = repo.find(r.id);
  ASSERT_TRUE(found.has_value() && found->has_value());
  EXPECT_FALSE((*found)->flops_per_s.has_value());
  EXPECT_TRUE((*found)->details.is_object());
  EXPECT_TRUE((*found)->details.empty());
}

TEST_F(DeviceRepositoryTest, FindOfAMissingIdIsEmpty) {
  auto repo = this->repo();
  auto found = repo.find("cuda:nothing:0");
  ASSERT_TRUE(found.has_value()) << found.error().what();
  EXPECT_FALSE(found->has_value());
  ASSERT_TRUE(repo.put(cpu_record()).has_value());
  found = repo.find("cpu:AMD EPYC");  // a prefix is not a match
  ASSERT_TRUE(found.has_value());
  EXPECT_FALSE(found->has_value());
}

TEST_F(DeviceRepositoryTest, PutReplacesTheRecordWithTheSameId) {
  auto repo = this->repo();
  ASSERT_TRUE(repo.put(cpu_record()).has_value());
  DeviceRecord r = cpu_record();
  r.copy_bytes_per_s = 3e10;
  r.flops_per_s.reset();
  r.details = {{"method", "stream"}};
  ASSERT_TRUE(repo.put(r).has_value());
  auto all = repo.all();
  ASSERT_TRUE(all.has_value()) << all.error().what();
  ASSERT_EQ(all->size(), 1u);
  EXPECT_DOUBLE_EQ((*all)[0].copy_bytes_per_s, 3e10);
  EXPECT_FALSE((*all)[0].flops_per_s.has_value());
  EXPECT_EQ((*all)[0].details.at("method"), "stream");
}

TEST_F(DeviceRepositoryTest, AllReturnsEveryRecordOrderedById) {
  auto repo = this->repo();
  auto empty = repo.all();
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->empty());

  DeviceRecord gpu;
  gpu.id = "cuda:NVIDIA H200:sm_90:132";
  gpu.kind = "cuda";
  gpu.name = "NVIDIA H200";
  gpu.copy_bytes_per_s = 4e12;
  gpu.details = {{"peaks", {{"bw", 4.8e12}}}};
  ASSERT_TRUE(repo.put(gpu).has_value());
  ASSERT_TRUE(repo.put(cpu_record()).has_value());

  auto all = repo.all();
  ASSERT_TRUE(all.has_value()) << all.error().what();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].id, "cpu:AMD EPYC:2");
  EXPECT_EQ((*all)[1].id, "cuda:NVIDIA H200:sm_90:132");
  EXPECT_EQ((*all)[1].kind, "cuda");
  EXPECT_FALSE((*all)[1].flops_per_s.has_value());
  EXPECT_DOUBLE_EQ((*all)[1].details.at("peaks").at("bw").get<double>(), 4.8e12);
  ASSERT_TRUE((*all)[0].flops_per_s.has_value());
}

TEST_F(DeviceRepositoryTest, InvalidKindIsRejectedWithTheFileNamed) {
  auto repo = this->repo();
  DeviceRecord r = cpu_record();
  r.kind = "tpu";
  auto put = repo.put(r);
  ASSERT_FALSE(put.has_value());
  EXPECT_EQ(put.error().where, (m_dir / "kwb.db").string());
  EXPECT_NE(put.error().message.find("CHECK"), std::string::npos) << put.error().message;
  auto found = repo.find(r.id);
  ASSERT_TRUE(found.has_value());
  EXPECT_FALSE(found->has_value());
}

TEST_F(DeviceRepositoryTest, RecordsSurviveReopening) {
  ASSERT_TRUE(repo().put(cpu_record()).has_value());
  m_db.reset();
  auto db = Database::open(m_dir / "kwb.db");
  ASSERT_TRUE(db.has_value()) << db.error().what();
  DeviceRepository again(*db);
  auto found = again.find("cpu:AMD EPYC:2");
  ASSERT_TRUE(found.has_value() && found->has_value());
  EXPECT_EQ((*found)->details, cpu_record().details);
}

}  // namespace
}  // namespace kwb::store
