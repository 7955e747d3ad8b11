// client::resolve_endpoint: flag > environment (KWB_SERVER, KWB_TOKEN) > default, and the URL's
// normal form (a scheme, no trailing slash).
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "client/endpoint.hpp"

namespace kwb::client {
namespace {

// Sets (or unsets) an environment variable for the scope, then puts the old value back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : m_name(name) {
    if (const char* old = std::getenv(name)) m_old = old;
    if (value) ::setenv(name, value->c_str(), 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (m_old) ::setenv(m_name, m_old->c_str(), 1);
    else ::unsetenv(m_name);
  }

 private:
  const char* m_name;
  std::optional<std::string> m_old;
};

TEST(Endpoint, DefaultsToTheLocalDaemonWithoutAToken) {
  ScopedEnv server("KWB_SERVER", std::nullopt), token("KWB_TOKEN", std::nullopt);
  Endpoint ep = resolve_endpoint("", "");
  EXPECT_EQ(ep.url, k_default_server);
  EXPECT_EQ(ep.url, "http://127.0.0.1:8470");
  EXPECT_EQ(ep.token, "");
  EXPECT_FALSE(server_named(""));
  EXPECT_TRUE(server_named("http://elsewhere:1"));
}

TEST(Endpoint, TheEnvironmentComesBeforeTheDefaultAndFlagsBeforeBoth) {
  ScopedEnv server("KWB_SERVER", "http://from-env:9000/"), token("KWB_TOKEN", "env-token");
  Endpoint env = resolve_endpoint("", "");
  EXPECT_EQ(env.url, "http://from-env:9000");  // trailing slash dropped
  EXPECT_EQ(env.token, "env-token");
  EXPECT_TRUE(server_named(""));
  Endpoint flags = resolve_endpoint("from-flag:7000//", "flag-token");
  EXPECT_EQ(flags.url, "http://from-flag:7000");  // a scheme added, slashes dropped
  EXPECT_EQ(flags.token, "flag-token");
  EXPECT_EQ(resolve_endpoint("https://secure:443", "").url, "https://secure:443");
}

}  // namespace
}  // namespace kwb::client
