// A GPU lane of depth 2 in the daemon's pipeline: evaluations that share the device run side by
// side, any other alone, and the lane's own account follows the stored verdicts (the rig:
// pipeline_rig.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "eval/device_lane.hpp"
#include "exec/pipeline.hpp"
#include "pipeline_rig.hpp"
#include "temp_dir.hpp"

namespace kwb::exec {
namespace {

using namespace std::chrono_literals;

// What a depth-2 lane's evaluations saw: how many were in their device stages at once.
struct LaneProbe {
  std::mutex mutex;
  std::condition_variable cv;
  int active = 0, max_active = 0;
  int sharing_arrivals = 0;  // sharing evaluations that entered validate so far (never goes down)
  std::vector<std::string> log;  // "<note>: <active at entry>", "<note>: met" for a rendezvous
};

// On the lane "gpu-queue"; a note starting "share" shares the device and waits in validate()
// (bounded) until another sharing evaluation is there too.
class LaneEvaluation : public eval::Evaluation {
 public:
  LaneEvaluation(std::string note, LaneProbe& probe) : m_note(std::move(note)), m_probe(probe) {}
  bool analyze() override { return true; }
  bool compile() override { return true; }
  bool validate() override {
    std::unique_lock lock(m_probe.mutex);
    ++m_probe.active;
    m_probe.max_active = std::max(m_probe.max_active, m_probe.active);
    m_probe.log.push_back(m_note + ": " + std::to_string(m_probe.active));
    if (shares_device()) {
      // Sharers arrive in pairs (1 and 2, 3 and 4): each waits until its partner has arrived too,
      // which it can only do while this one is still on the lane. A count that never goes down:
      // a partner that met it and left at once cannot hide the meeting from a late wake-up.
      const int arrival = ++m_probe.sharing_arrivals;
      const int partner = arrival % 2 ? arrival + 1 : arrival - 1;
      m_probe.cv.notify_all();
      if (m_probe.cv.wait_for(lock, 20s, [&] { return m_probe.sharing_arrivals >= partner; }))
        m_probe.log.push_back(m_note + ": met");
    }
    return true;
  }
  bool benchmark() override { return true; }
  bool decide() override {
    std::lock_guard lock(m_probe.mutex);
    --m_probe.active;
    m_probe.cv.notify_all();
    return true;
  }
  core::Verdict verdict() override {
    core::Verdict v;
    v.op = "vector_add";
    v.backend = "cuda";
    v.status = core::Status::accepted;
    v.reason = "fine";
    return v;
  }
  std::string device_key() const override { return "gpu-queue"; }
  bool shares_device() const override { return m_note.starts_with("share"); }

 private:
  std::string m_note;
  LaneProbe& m_probe;
};

TEST(Pipeline, ADepthTwoLaneRunsSharingEvaluationsSideBySideAndAnyOtherAlone) {
  test::TempDir dir;
  Rig rig(dir.path());
  LaneProbe probe;
  EvaluationFactory factory = [&](const store::CandidateRecord& rec, const std::string&,
                                  eval::ProgressFn) -> util::Result<std::unique_ptr<eval::Evaluation>> {
    return std::make_unique<LaneEvaluation>(rec.note, probe);
  };
  auto lane = std::make_shared<eval::DeviceLane>();
  lane->device.present = true;
  lane->device.key = "cuda:0000:01:00.0";
  PipelineConfig cfg = config();
  cfg.lanes.push_back({"gpu-queue", lane, 2});
  rig.ledger.start();
  Pipeline p(rig.db, rig.objects, factory, rig.ledger, cfg);
  ASSERT_TRUE(p.start());
  std::vector<std::string> ids;
  for (const char* note : {"share-1", "share-2", "alone-1", "share-3", "share-4", "alone-2"}) {
    auto c = rig.add(note);
    ids.push_back(c.id);
    rig.submit(p, c);
  }
  const bool all_done = rig.eventually([&] {
    for (const auto& id : ids)
      if (!rig.done(id)) return false;
    return true;
  });
  std::lock_guard lock(probe.mutex);
  std::string log;
  for (const auto& l : probe.log) log += l + "\n";
  ASSERT_TRUE(all_done) << log;
  EXPECT_EQ(probe.max_active, 2) << log;
  for (const char* note : {"alone-1", "alone-2"})
    EXPECT_NE(std::find(probe.log.begin(), probe.log.end(), std::string(note) + ": 1"), probe.log.end())
        << note << " did not have the lane to itself:\n" << log;
  for (const char* note : {"share-1", "share-2", "share-3", "share-4"})
    EXPECT_NE(std::find(probe.log.begin(), probe.log.end(), std::string(note) + ": met"), probe.log.end())
        << note << " never ran beside another sharing evaluation:\n" << log;
  // The lane's own account follows the stored verdicts (a verdict is visible before the lane
  // has taken its candidate off).
  auto lane_settled = [&] {
    auto lanes = p.stats().lanes;
    return lanes.size() == 1u && lanes[0].finished == 6u && lanes[0].candidates.empty();
  };
  EXPECT_TRUE(rig.eventually(lane_settled));
  auto lanes = p.stats().lanes;
  ASSERT_EQ(lanes.size(), 1u);
  EXPECT_EQ(lanes[0].finished, 6u);
  EXPECT_TRUE(lanes[0].candidates.empty());
  p.stop();
}

}  // namespace
}  // namespace kwb::exec
