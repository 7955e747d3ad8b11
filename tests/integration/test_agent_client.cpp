// agents/kwb_client.py, the dependency-free Python client of the API, against a real daemon.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "daemon_support.hpp"

namespace {

using namespace kwb::test;

TEST(AgentClient, PythonClientGetsAVerdict) {
  if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  DaemonProcess d;
  std::string error;
  ASSERT_TRUE(d.start({"--no-auth", "--time-budget-ms", "20"}, {}, &error)) << error;
  auto client = [&](const std::string& args) {
    return run_command("KWB_SERVER=" + d.url() + " /usr/bin/python3 " +
                       shell_quote((source_dir() / "agents" / "kwb_client.py").string()) + " " + args);
  };
  auto ok = client("vector_add " + shell_quote((source_dir() / "kernels/vector_add/cpu/vectorized.cpp").string()) +
                   " --bench n1M");
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  auto v = nlohmann::json::parse(ok.out, nullptr, false);
  ASSERT_TRUE(v.is_object()) << ok.out;
  EXPECT_EQ(v["status"], "accepted");
  EXPECT_EQ(v["op"], "vector_add");

  auto wrong_file = d.workspace() / "wrong.cpp";
  std::ofstream(wrong_file) << "#include <cstdint>\nextern \"C\" void kwb_vector_add_f32(const float* a, const float* b, "
                               "float* c, int64_t n) { for (int64_t i = 0; i < n; ++i) c[i] = a[i] * b[i]; }\n";
  auto wrong = client("vector_add " + shell_quote(wrong_file.string()) + " --bench n1M");
  EXPECT_EQ(wrong.exit_code, 1) << wrong.out;
  EXPECT_EQ(nlohmann::json::parse(wrong.out, nullptr, false)["status"], "incorrect") << wrong.out;

  auto unknown = client("vector_add " + shell_quote(wrong_file.string()) + " --bench n3");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.out;  // 422 unknown_workload, on stderr
}

}  // namespace
