// util::Result (workbench/util/error.hpp): a [[nodiscard]] std::expected<T, Error> that converts
// both ways with a plain std::expected and keeps every constructor of it. That dropping one does
// not compile is checked by the ctest ResultCannotBeDropped (tests/compile_fail/drop_result.cpp).
#include <gtest/gtest.h>

#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "util/error.hpp"

namespace kwb::util {
namespace {

static_assert(std::is_base_of_v<std::expected<int, Error>, Result<int>>);
static_assert(std::is_base_of_v<std::expected<void, Error>, Result<void>>);

std::expected<int, Error> plain_expected(bool ok) {
  if (ok) return 7;
  return fail(ErrorKind::not_found, "widget 3", "no such widget");
}

Result<int> through_result(bool ok) { return plain_expected(ok); }  // converts from std::expected

Result<void> maybe(bool ok) {
  if (ok) return {};
  return fail(ErrorKind::busy, "kwb.db", "locked");
}

struct Pair {
  int a;
  std::string b;
};

Result<Pair> braced() { return {{4, "four"}}; }

TEST(Result, ConvertsFromAPlainExpectedKeepingTheValueOrTheError) {
  auto good = through_result(true);
  ASSERT_TRUE(good);
  EXPECT_EQ(*good, 7);
  auto bad = through_result(false);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::not_found);
  EXPECT_EQ(bad.error().what(), "widget 3: no such widget");
  // And from an rvalue of one, moving a move-only value.
  std::expected<std::unique_ptr<int>, Error> owned = std::make_unique<int>(5);
  Result<std::unique_ptr<int>> moved = std::move(owned);
  ASSERT_TRUE(moved);
  EXPECT_EQ(**moved, 5);
}

TEST(Result, ConvertsToAPlainExpected) {
  Result<std::string> r = std::string("text");
  std::expected<std::string, Error> e = r;
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, "text");
  Result<std::string> f = fail("place", "what");
  std::expected<std::string, Error> g = f;
  ASSERT_FALSE(g);
  EXPECT_EQ(g.error().where, "place");
}

TEST(Result, KeepsTheConstructorsOfExpected) {
  EXPECT_TRUE(maybe(true));
  auto locked = maybe(false);
  ASSERT_FALSE(locked);
  EXPECT_EQ(locked.error().kind, ErrorKind::busy);
  EXPECT_STREQ(kind_name(locked.error().kind), "busy");

  auto p = braced();
  ASSERT_TRUE(p);
  EXPECT_EQ(p->a, 4);
  EXPECT_EQ(p->b, "four");

  Result<std::optional<int>> none = std::nullopt;
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());

  Result<std::vector<int>> in_place(std::in_place, 3, 9);
  ASSERT_TRUE(in_place);
  EXPECT_EQ(*in_place, std::vector<int>(3, 9));

  Result<int> narrow = 41;
  Result<long> wide = narrow;  // expected<U, E> -> expected<T, E>
  ASSERT_TRUE(wide);
  EXPECT_EQ(*wide, 41L);
  EXPECT_TRUE(narrow == 41);

  Result<int> assigned = 1;
  assigned = Unexpected(Error{"x", "y"});
  ASSERT_FALSE(assigned);
  EXPECT_EQ(assigned.error().message, "y");
  EXPECT_EQ(assigned.value_or(-1), -1);
}

// Holds a resource: movable, not assignable (as store::WorkspaceLock).
struct Held {
  explicit Held(int v) : value(v) {}
  Held(Held&&) noexcept = default;
  Held& operator=(Held&&) = delete;
  int value;
};

TEST(Result, AssignsAnErrorInPlaceOfAValueThatCannotBeAssigned) {
  Result<Held> r(std::in_place, 3);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->value, 3);
  r = fail("lock", "released");  // destroys the value, as std::expected's assignment does
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "released");
}

}  // namespace
}  // namespace kwb::util
