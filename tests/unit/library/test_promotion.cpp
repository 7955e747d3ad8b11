// Promotion refusals that need no evaluation: not accepted, not beating, a bench subset, and an
// incumbent that changed since the comparison; the commit's files on success; and the device
// class a verdict measured on another machine (a Slurm node) is filed under.
#include <gtest/gtest.h>

#include "library/device_class.hpp"
#include "library/dispatch.hpp"
#include "library/promotion.hpp"
#include "library/referee.hpp"
#include "spec/loader.hpp"
#include "temp_dir.hpp"
#include "util/hash.hpp"

namespace kwb::library {
namespace {

using kwb::test::TempDir;

struct Fixture {
  TempDir dir;
  std::unique_ptr<Repository> repo;
  std::optional<spec::Catalog> catalog;
  Fixture() {
    auto r = Repository::open_or_seed(dir / "lib", std::filesystem::path(KWB_TEST_SOURCE_DIR) / "kernels");
    if (!r) throw std::runtime_error(r.error().what());
    repo = std::move(*r);
    auto c = spec::Catalog::load(std::filesystem::path(KWB_TEST_SOURCE_DIR) / "specs");
    if (!c) throw std::runtime_error(c.error().what());
    catalog.emplace(std::move(*c));
  }
  // An accepted verdict that beats the seeded incumbent on the named bench workloads.
  PromotionRequest request(std::vector<std::string> bench) {
    core::Verdict v;
    v.op = "vector_add";
    v.variant = "f32";
    v.backend = "cpu";
    v.status = core::Status::accepted;
    v.reason = "correct";
    v.device = "test cpu";
    v.toolchain = "g++ test";
    for (const auto& name : bench) {
      core::WorkloadResult w;
      w.name = name;
      w.kind = "bench";
      w.time = core::TimeStats{};
      w.time->median_ns = 1000;
      w.vs_incumbent = 2.0;
      v.workloads.push_back(w);
    }
    v.summary.beats_incumbent = true;
    v.summary.geomean_vs_incumbent = 2.0;
    auto src = *repo->read("vector_add/cpu/vectorized.cpp");
    v.summary.incumbent = core::IncumbentRef{"vector_add/cpu/vectorized.cpp", *repo->head(), util::sha256_hex(src), "any"};
    core::Candidate cand{"c-00000000000000bb", "vector_add", "f32", "cpu", "// faster\n", "c.cpp", {}, "note"};
    return {cand, v, catalog->find("vector_add"), "tester"};
  }
};

TEST(Promotion, RefusesABenchSubset) {
  Fixture f;
  auto r = promote(*f.repo, f.request({"n1M"}));
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->kind, PromotionResult::Kind::refused);
  EXPECT_NE(r->reason.find("missing: n16M"), std::string::npos) << r->reason;
}

TEST(Promotion, RefusesWhatIsNotAcceptedOrDoesNotBeat) {
  Fixture f;
  auto req = f.request({"n1M", "n16M"});
  req.verdict.status = core::Status::incorrect;
  req.verdict.reason = "wrong on 1 of 9 test workloads";
  auto r = promote(*f.repo, req);
  EXPECT_EQ(r->kind, PromotionResult::Kind::refused);
  EXPECT_NE(r->reason.find("the verdict is incorrect, not accepted: wrong on 1 of 9"), std::string::npos) << r->reason;
  req = f.request({"n1M", "n16M"});
  req.verdict.summary.beats_incumbent = false;
  r = promote(*f.repo, req);
  EXPECT_EQ(r->kind, PromotionResult::Kind::refused);
  EXPECT_NE(r->reason.find("does not beat the incumbent"), std::string::npos) << r->reason;
}

TEST(Promotion, ALauncherNeedsAReviewerNotCiOrAutoPromote) {
  Fixture f;
  for (std::string who : {"ci", "auto-promote"}) {
    auto req = f.request({"n1M", "n16M"});
    req.candidate.backend = "cuda-launcher";
    req.verdict.backend = "cuda-launcher";
    req.reviewer = who;
    auto r = promote(*f.repo, req);
    ASSERT_TRUE(r) << r.error().what();
    EXPECT_EQ(r->kind, PromotionResult::Kind::refused) << who;
    EXPECT_NE(r->reason.find("needs a reviewer"), std::string::npos) << r->reason;
  }
}

TEST(Promotion, CommitsKernelMetadataAndDispatchThenConflictsOnAStaleComparison) {
  Fixture f;
  auto req = f.request({"n1M", "n16M"});
  auto r = promote(*f.repo, req);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->kind, PromotionResult::Kind::committed) << r->reason;
  EXPECT_EQ(r->kernel, "vector_add/cpu/f32_c-00000000000000bb.cpp");
  EXPECT_EQ(*f.repo->read(r->kernel), "// faster\n");
  auto meta = nlohmann::json::parse(*f.repo->read("vector_add/cpu/f32_c-00000000000000bb.json"));
  EXPECT_EQ(meta["entry"], "kwb_vector_add_f32");
  EXPECT_EQ(meta["evidence"]["replaces"], "vector_add/cpu/vectorized.cpp");
  auto d = parse_dispatch(*f.repo->read("dispatch.json"));
  ASSERT_TRUE(d);
  const auto* e = d->incumbent("vector_add", "f32", "cpu", device_class(req.verdict));
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->kernel, r->kernel);
  EXPECT_EQ(d->find("vector_add", "f32", "cpu", "any")->kernel, "vector_add/cpu/vectorized.cpp");  // kept
  auto log = f.repo->log();
  EXPECT_EQ(log->front().trailers.at("Kwb-Reviewer"), "tester");
  EXPECT_EQ(log->front().trailers.at("Kwb-Replaces"), "vector_add/cpu/vectorized.cpp");

  // Another candidate compared with the old incumbent: a conflict, nothing committed.
  auto other = f.request({"n1M", "n16M"});
  other.candidate.id = "c-00000000000000cc";
  auto c = promote(*f.repo, other);
  EXPECT_EQ(c->kind, PromotionResult::Kind::conflict);
  EXPECT_NE(c->reason.find("changed since this candidate was measured"), std::string::npos) << c->reason;
  EXPECT_EQ(f.repo->log()->size(), 2u);
}

// A class of another CPU than this machine's.
std::string other_cpu_class() { return host_cpu_class() == "cpu-x86_64-v1" ? "cpu-x86_64-v2" : "cpu-x86_64-v1"; }

TEST(Promotion, TheRecordedClassOfAVerdictsKindWinsOverThisMachines) {
  core::Verdict cpu;
  cpu.backend = "cpu";
  EXPECT_EQ(device_class(cpu, ""), host_cpu_class());
  EXPECT_EQ(device_class(cpu, other_cpu_class()), other_cpu_class());
  EXPECT_EQ(device_class(cpu, "cuda-sm_90"), host_cpu_class()) << "a class of the other kind is ignored";
  EXPECT_EQ(device_class(cpu, "cpu-x86_64-v9"), host_cpu_class()) << "not a class";
  core::Verdict gpu;
  gpu.backend = "cuda";
  gpu.device = "NVIDIA H200 (sm_90, 132 SMs, CUDA driver 13.0)";
  EXPECT_EQ(device_class(gpu, ""), "cuda-sm_90");
  EXPECT_EQ(device_class(gpu, other_cpu_class()), "cuda-sm_90");
  EXPECT_EQ(device_class(gpu, "cuda-sm_80"), "cuda-sm_80");
}

// On the Slurm executor a CPU candidate is measured on a node, whose CPU may be of another class
// than the daemon's: the promotion files it under the node's class (the candidate's recorded one).
TEST(Promotion, ACpuVerdictFromAnotherNodeIsFiledUnderThatNodesClass) {
  Fixture f;
  auto req = f.request({"n1M", "n16M"});
  req.device_class = other_cpu_class();
  auto r = promote(*f.repo, req);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->kind, PromotionResult::Kind::committed) << r->reason;
  auto d = parse_dispatch(*f.repo->read("dispatch.json"));
  ASSERT_TRUE(d);
  const auto* e = d->find("vector_add", "f32", "cpu", other_cpu_class());
  ASSERT_NE(e, nullptr) << *f.repo->read("dispatch.json");
  EXPECT_EQ(e->kernel, r->kernel);
  EXPECT_EQ(d->find("vector_add", "f32", "cpu", host_cpu_class()), nullptr) << "filed under this machine's class";
}

}  // namespace
}  // namespace kwb::library
