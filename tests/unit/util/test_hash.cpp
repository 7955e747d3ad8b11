#include <gtest/gtest.h>

#include <string>

#include "util/hash.hpp"

namespace kwb::util {
namespace {

TEST(Sha256, EmptyString) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, Abc) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, TwoBlockMessage) {
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, HashesEmbeddedNulBytesAndIsLowerCaseHex) {
  const std::string with_nul("a\0b", 3);
  const std::string h = sha256_hex(with_nul);
  EXPECT_EQ(h.size(), 64u);
  EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos) << h;
  EXPECT_NE(h, sha256_hex("a"));
  EXPECT_NE(h, sha256_hex("ab"));
}

}  // namespace
}  // namespace kwb::util
