// Warm incumbents (app/incumbent_pool.hpp): one per comparison at a time, kept per device and
// kernel slot, dropped when the library moves on and beyond the cap.
#include <gtest/gtest.h>

#include "app/incumbent_pool.hpp"

namespace kwb::app {
namespace {

class Marker : public eval::Evaluation {
 public:
  explicit Marker(int id, int* destroyed = nullptr) : m_id(id), m_destroyed(destroyed) {}
  ~Marker() override {
    if (m_destroyed) ++*m_destroyed;
  }
  bool analyze() override { return true; }
  bool compile() override { return true; }
  bool validate() override { return true; }
  bool benchmark() override { return true; }
  bool decide() override { return true; }
  core::Verdict verdict() override { return {}; }
  std::string device_key() const override { return "cpu"; }
  int id() const { return m_id; }

 private:
  int m_id;
  int* m_destroyed;
};

int id_of(const std::unique_ptr<eval::Evaluation>& e) { return e ? static_cast<const Marker&>(*e).id() : -1; }

TEST(IncumbentPool, AnEvaluationServesOneComparisonAtATimeAndComesBack) {
  IncumbentPool pool(4);
  IncumbentKey k{"cuda:0", "vector_add/f32/cuda/cuda-sm_90", "sha-a|spec v1|"};
  EXPECT_EQ(pool.take(k), nullptr);
  pool.give(k, std::make_unique<Marker>(1));
  auto first = pool.take(k);
  EXPECT_EQ(id_of(first), 1);
  EXPECT_EQ(pool.take(k), nullptr) << "taken: a second comparison prepares its own";
  pool.give(k, std::move(first));
  pool.give(k, std::make_unique<Marker>(2));
  EXPECT_EQ(pool.idle(), 2u);
  EXPECT_EQ(pool.take(IncumbentKey{"cuda:1", k.slot, k.what}), nullptr) << "another GPU's are not this one's";
}

TEST(IncumbentPool, AnotherSourceInTheSameSlotDropsTheOldOnesAndTheCapHolds) {
  int destroyed = 0;
  IncumbentPool pool(2);
  IncumbentKey old{"cpu", "vector_add/f32/cpu/cpu-x86_64-v3", "sha-a|spec v1|"};
  IncumbentKey promoted{"cpu", old.slot, "sha-b|spec v1|"};
  IncumbentKey other_op{"cpu", "softmax/f32/cpu/cpu-x86_64-v3", "sha-c|spec v1|"};
  pool.give(old, std::make_unique<Marker>(1, &destroyed));
  pool.give(old, std::make_unique<Marker>(2, &destroyed));
  pool.give(promoted, std::make_unique<Marker>(3, &destroyed));  // the library moved on
  EXPECT_EQ(destroyed, 2);
  EXPECT_EQ(pool.take(old), nullptr);
  pool.give(other_op, std::make_unique<Marker>(4, &destroyed));
  pool.give(other_op, std::make_unique<Marker>(5, &destroyed));  // beyond the cap of 2: the oldest goes
  EXPECT_EQ(destroyed, 3);
  EXPECT_EQ(pool.idle(), 2u);
  EXPECT_EQ(pool.take(promoted), nullptr) << "the oldest idle one was dropped";
}

}  // namespace
}  // namespace kwb::app
