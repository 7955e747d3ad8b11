#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "eval/arena.hpp"

namespace kwb::eval {
namespace {

using core::DType;
using core::Role;

TensorSlot slot(std::string name, Role role, DType dtype, size_t count) {
  TensorSlot s;
  s.name = std::move(name);
  s.role = role;
  s.dtype = dtype;
  s.shape = {int64_t(count)};
  s.count = count;
  s.bytes = count * core::dtype_size(dtype);
  return s;
}

class ArenaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto a = SharedArena::create();
    ASSERT_TRUE(a.has_value()) << a.error().what();
    m_arena.emplace(std::move(*a));
    m_slots = {slot("x", Role::in, DType::f32, 3), slot("y", Role::out, DType::f32, 5),
               slot("acc", Role::inout, DType::u8, 1), slot("z", Role::out, DType::f64, 100)};
    auto r = m_arena->layout(m_slots);
    ASSERT_TRUE(r.has_value()) << r.error().what();
  }
  SharedArena& arena() { return *m_arena; }
  char* data(size_t i) { return m_arena->data(m_slots[i]); }
  // Changes one byte to a different value (whatever the guard pattern holds there).
  static void flip(char* p) { *p = char(~static_cast<unsigned char>(*p)); }

  std::optional<SharedArena> m_arena;
  std::vector<TensorSlot> m_slots;
};

TEST_F(ArenaTest, LayoutIsAlignedAndNonOverlappingWithGuards) {
  EXPECT_GE(arena().fd(), 0);
  for (size_t i = 0; i < m_slots.size(); ++i) {
    EXPECT_EQ(m_slots[i].offset % 64, 0u) << m_slots[i].name;
    EXPECT_GE(m_slots[i].offset, SharedArena::k_guard) << m_slots[i].name;
    if (i + 1 < m_slots.size()) {
      EXPECT_GE(m_slots[i + 1].offset, m_slots[i].offset + m_slots[i].bytes + 2 * SharedArena::k_guard)
          << m_slots[i].name << " / " << m_slots[i + 1].name;
    }
  }
  const auto& last = m_slots.back();
  EXPECT_GE(arena().size(), last.offset + last.bytes + SharedArena::k_guard);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(data(0)) % 64, 0u);
}

TEST_F(ArenaTest, ArmedGuardsAreClean) {
  arena().arm_guards(123);
  EXPECT_EQ(arena().check_guards(), std::nullopt);
}

TEST_F(ArenaTest, WritesInsideTensorsAreNotReported) {
  arena().arm_guards(123);
  for (size_t i = 0; i < m_slots.size(); ++i) std::memset(data(i), 0x5a, m_slots[i].bytes);
  EXPECT_EQ(arena().check_guards(), std::nullopt);
}

TEST_F(ArenaTest, OneBytePastTheEndOfAnOutput) {
  arena().arm_guards(123);
  flip(data(1) + m_slots[1].bytes);
  auto msg = arena().check_guards();
  ASSERT_TRUE(msg.has_value());
  EXPECT_NE(msg->find("past the end of output y"), std::string::npos) << *msg;
  EXPECT_NE(msg->find("1 byte(s) changed"), std::string::npos) << *msg;
  EXPECT_NE(msg->find("up to 1 bytes past"), std::string::npos) << *msg;
  EXPECT_NE(msg->find("(5 elements)"), std::string::npos) << *msg;
}

TEST_F(ArenaTest, OverrunIntoThePaddingIsReported) {
  arena().arm_guards(9);
  flip(data(1) + m_slots[1].bytes + 20);  // y is 20 bytes; this is byte 40 of its 64-byte line
  auto msg = arena().check_guards();
  ASSERT_TRUE(msg.has_value());
  EXPECT_NE(msg->find("up to 21 bytes past the end of output y"), std::string::npos) << *msg;
}

TEST_F(ArenaTest, OneByteBeforeTheStart) {
  arena().arm_guards(123);
  flip(data(3) - 1);
  auto msg = arena().check_guards();
  ASSERT_TRUE(msg.has_value());
  EXPECT_NE(msg->find("before the start of output z"), std::string::npos) << *msg;
  EXPECT_NE(msg->find("up to 1 bytes before"), std::string::npos) << *msg;
}

TEST_F(ArenaTest, InputOverrunNamesTheInput) {
  arena().arm_guards(5);
  flip(data(0) + m_slots[0].bytes);
  auto msg = arena().check_guards();
  ASSERT_TRUE(msg.has_value());
  EXPECT_NE(msg->find("past the end of input x"), std::string::npos) << *msg;
}

TEST_F(ArenaTest, RearmingRestoresAndChangesThePattern) {
  arena().arm_guards(1);
  std::vector<char> first(data(1) - 64, data(1));
  flip(data(1) - 1);
  ASSERT_TRUE(arena().check_guards().has_value());
  arena().arm_guards(2);
  EXPECT_EQ(arena().check_guards(), std::nullopt);
  std::vector<char> second(data(1) - 64, data(1));
  EXPECT_NE(first, second);
}

TEST_F(ArenaTest, PoisonOnlyTouchesOutputs) {
  for (size_t i = 0; i < m_slots.size(); ++i) std::memset(data(i), 0x11, m_slots[i].bytes);
  arena().arm_guards(77);
  arena().poison_outputs();
  EXPECT_EQ(arena().check_guards(), std::nullopt);  // guards untouched
  for (size_t i = 0; i < m_slots.size(); ++i) {
    const unsigned char want = m_slots[i].role == Role::in ? 0x11 : 0xff;
    for (size_t b = 0; b < m_slots[i].bytes; ++b)
      ASSERT_EQ(static_cast<unsigned char>(data(i)[b]), want) << m_slots[i].name << " byte " << b;
  }
}

TEST_F(ArenaTest, PoisonWithAnotherByte) {
  for (size_t i = 0; i < m_slots.size(); ++i) std::memset(data(i), 0x11, m_slots[i].bytes);
  arena().arm_guards(78);
  arena().poison_outputs(0x7f);
  EXPECT_EQ(arena().check_guards(), std::nullopt);
  for (size_t i = 0; i < m_slots.size(); ++i) {
    const unsigned char want = m_slots[i].role == Role::in ? 0x11 : 0x7f;
    for (size_t b = 0; b < m_slots[i].bytes; ++b)
      ASSERT_EQ(static_cast<unsigned char>(data(i)[b]), want) << m_slots[i].name << " byte " << b;
  }
}

TEST_F(ArenaTest, MemfdIsShared) {
  void* p = ::mmap(nullptr, arena().size(), PROT_READ | PROT_WRITE, MAP_SHARED, arena().fd(), 0);
  ASSERT_NE(p, MAP_FAILED);
  static_cast<char*>(p)[m_slots[1].offset] = 42;
  EXPECT_EQ(data(1)[0], 42);
  ::munmap(p, arena().size());
}

TEST_F(ArenaTest, RelayoutWithOtherSlots) {
  std::vector<TensorSlot> bigger = {slot("a", Role::in, DType::f32, 1000), slot("b", Role::out, DType::f32, 7)};
  ASSERT_TRUE(arena().layout(bigger).has_value());
  EXPECT_EQ(bigger[0].offset % 64, 0u);
  EXPECT_EQ(bigger[1].offset % 64, 0u);
  arena().arm_guards(3);
  EXPECT_EQ(arena().check_guards(), std::nullopt);
  flip(arena().data(bigger[1]) + bigger[1].bytes);
  auto msg = arena().check_guards();
  ASSERT_TRUE(msg.has_value());
  EXPECT_NE(msg->find("past the end of output b"), std::string::npos) << *msg;
}

TEST(Arena, MoveKeepsTheMapping) {
  auto a = SharedArena::create();
  ASSERT_TRUE(a.has_value());
  std::vector<TensorSlot> slots = {slot("y", Role::out, DType::f32, 4)};
  ASSERT_TRUE(a->layout(slots).has_value());
  a->arm_guards(1);
  SharedArena b(std::move(*a));
  EXPECT_EQ(a->fd(), -1);
  EXPECT_EQ(b.check_guards(), std::nullopt);
  b.data(slots[0])[16] ^= 0x55;
  auto msg = b.check_guards();
  ASSERT_TRUE(msg.has_value());
  EXPECT_NE(msg->find("past the end of output y"), std::string::npos) << *msg;
}

}  // namespace
}  // namespace kwb::eval

namespace kwb::eval {
namespace {

// Validation's placement (WorkloadHarness::place_at_least_alignment): each tensor exactly
// `misalign` bytes past a 64-byte boundary (4-byte f32 at 4 mod 16: aligned to 4, not to 8 or
// 16), still between guards that catch one byte before and one byte past it.
TEST(Arena, MisalignedSlotsSitAtJustTheirAlignment) {
  auto a = SharedArena::create();
  ASSERT_TRUE(a.has_value()) << a.error().what();
  std::vector<TensorSlot> slots = {slot("x", Role::in, DType::f32, 7), slot("h", Role::in, DType::bf16, 9),
                                   slot("y", Role::out, DType::f32, 5), slot("b", Role::out, DType::u8, 3)};
  const size_t misalign[] = {4, 2, 4, 1};
  for (size_t i = 0; i < slots.size(); ++i) slots[i].misalign = misalign[i];
  ASSERT_TRUE(a->layout(slots).has_value());
  for (size_t i = 0; i < slots.size(); ++i) {
    const auto address = reinterpret_cast<uintptr_t>(a->data(slots[i]));
    EXPECT_EQ(address % 64, misalign[i]) << slots[i].name;
    EXPECT_EQ(address % (2 * misalign[i]), misalign[i]) << slots[i].name << ": aligned to more than asked";
    if (i + 1 < slots.size()) EXPECT_GE(slots[i + 1].offset, slots[i].offset + slots[i].bytes + 2 * SharedArena::k_guard);
  }
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a->data(slots[0])) % 16, 4u);
  a->arm_guards(7);
  EXPECT_EQ(a->check_guards(), std::nullopt);
  for (size_t i = 0; i < slots.size(); ++i) std::memset(a->data(slots[i]), 0x5a, slots[i].bytes);
  EXPECT_EQ(a->check_guards(), std::nullopt) << "writes inside the tensors";
  char* before = a->data(slots[2]) - 1;
  *before = char(~static_cast<unsigned char>(*before));
  auto msg = a->check_guards();
  ASSERT_TRUE(msg.has_value());
  EXPECT_NE(msg->find("before the start of output y"), std::string::npos) << *msg;
  *before = char(~static_cast<unsigned char>(*before));
  char* past = a->data(slots[2]) + slots[2].bytes;
  *past = char(~static_cast<unsigned char>(*past));
  msg = a->check_guards();
  ASSERT_TRUE(msg.has_value());
  EXPECT_NE(msg->find("past the end of output y"), std::string::npos) << *msg;
}

TEST(Arena, MisalignmentIsPartOfTheLayout) {
  std::vector<TensorSlot> aligned = {slot("x", Role::in, DType::f32, 7)}, shifted = aligned;
  shifted[0].misalign = 4;
  EXPECT_FALSE(same_layout(aligned, shifted));
  EXPECT_TRUE(same_layout(shifted, shifted));
}

}  // namespace
}  // namespace kwb::eval
