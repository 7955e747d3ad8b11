#include <gtest/gtest.h>

#include "store/database.hpp"
#include "store/idempotency_repository.hpp"
#include "store/token_repository.hpp"
#include "temp_dir.hpp"

namespace kwb::store {
namespace {

using test::TempDir;

TEST(TokenRepository, NamesAreBoundedAndRevocationIsFinal) {
  TempDir dir;
  auto db = Database::open(dir / "kwb.db");
  ASSERT_TRUE(db) << db.error().what();
  TokenRepository tokens(*db);
  EXPECT_FALSE(tokens.create(std::string(65, 'n'), "agent"));
  EXPECT_FALSE(tokens.create("", "agent"));
  EXPECT_FALSE(tokens.create("tab\there", "agent"));
  auto secret = tokens.create(std::string(64, 'n'), "agent");
  ASSERT_TRUE(secret) << secret.error().what();
  auto live = tokens.authenticate(*secret);
  ASSERT_TRUE(live && *live);
  int64_t id = (*live)->id;
  EXPECT_EQ(tokens.count_live_admins(0).value(), 0);
  EXPECT_TRUE(tokens.revoke(id).value());
  EXPECT_FALSE(tokens.revoke(id).value());  // already revoked
  EXPECT_FALSE(*tokens.authenticate(*secret));
  auto found = tokens.find(id);
  ASSERT_TRUE(found && *found);
  EXPECT_TRUE((*found)->revoked);
  EXPECT_FALSE(*tokens.find(id + 100));
}

TEST(IdempotencyRepository, AKeyStaysBoundToItsFirstDigestUnlessReleased) {
  TempDir dir;
  auto db = Database::open(dir / "kwb.db");
  ASSERT_TRUE(db) << db.error().what();
  IdempotencyRepository keys(*db);
  auto first = keys.claim(7, "k", "aaa");
  ASSERT_TRUE(first) << first.error().what();
  EXPECT_TRUE(first->fresh);
  auto again = keys.claim(7, "k", "bbb");
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->fresh);
  EXPECT_EQ(again->request_sha256, "aaa");
  EXPECT_TRUE(keys.claim(8, "k", "bbb")->fresh);  // keys are per token
  ASSERT_TRUE(keys.release(7, "k", "aaa"));       // no candidate carries it
  EXPECT_EQ(keys.claim(7, "k", "bbb")->request_sha256, "bbb");
}

}  // namespace
}  // namespace kwb::store
