// The CLI clients (kwb submit / status / list / specs --server) against a real `kwb serve` on a
// free loopback port.
#include <gtest/gtest.h>

#include <regex>

#include "daemon_support.hpp"

namespace {

using namespace kwb::test;

class ClientCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_daemon = new DaemonProcess();
    std::string error;
    if (!s_daemon->start({"--no-auth", "--time-budget-ms", "50"}, {}, &error)) s_error = error;
  }
  static void TearDownTestSuite() {
    delete s_daemon;  // SIGTERM + waitpid
    s_daemon = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(s_error.empty()) << s_error; }

  // `kwb ARGS --server URL`; stdout captured, stderr to the test log unless `merge_stderr`.
  static CommandResult kwb(const std::string& args, bool merge_stderr = false) {
    return run_command((bin_dir() / "kwb").string() + " " + args + " --server " + s_daemon->url() +
                       (merge_stderr ? " 2>&1" : ""));
  }
  static std::string kernel() { return shell_quote((source_dir() / "kernels/vector_add/cpu/vectorized.cpp").string()); }
  static std::string wrong_kernel() {
    return shell_quote((source_dir() / "tests/integration/cpu_cases/tail_off_by_one.cpp").string());
  }

  static DaemonProcess* s_daemon;
  static std::string s_error;
};

DaemonProcess* ClientCli::s_daemon = nullptr;
std::string ClientCli::s_error;

const std::regex k_id_re(R"(c-[0-9a-f]{16})");

TEST_F(ClientCli, SubmitWaitJsonGivesAcceptedVerdictAndExitZero) {
  auto r = kwb("submit " + kernel() + " --op vector_add --wait --json");
  auto verdict = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(verdict.is_discarded()) << r.out;
  EXPECT_EQ(verdict["schema"], "kwb.verdict.v1");
  EXPECT_EQ(verdict["status"], "accepted") << verdict["reason"];
  EXPECT_EQ(r.exit_code, 0);
  std::string id = verdict["candidate"];
  ASSERT_TRUE(std::regex_match(id, k_id_re)) << id;

  // status shows it done with the same verdict; list shows it.
  auto st = kwb("status " + id + " --json");
  EXPECT_EQ(st.exit_code, 0);
  auto cand = nlohmann::json::parse(st.out, nullptr, false);
  ASSERT_FALSE(cand.is_discarded()) << st.out;
  EXPECT_EQ(cand["id"], id);
  EXPECT_EQ(cand["state"], "done");
  EXPECT_EQ(cand["status"], "accepted");
  EXPECT_EQ(cand["source_name"], "vectorized.cpp");
  EXPECT_EQ(cand["verdict"]["status"], "accepted");

  auto ls = kwb("list --json --op vector_add --limit 500");
  EXPECT_EQ(ls.exit_code, 0);
  auto items = nlohmann::json::parse(ls.out, nullptr, false);
  ASSERT_TRUE(items.is_array()) << ls.out;
  int found = 0;
  for (const auto& c : items) found += c["id"] == id;
  EXPECT_EQ(found, 1) << ls.out;

  auto table = kwb("list --status accepted");
  EXPECT_EQ(table.exit_code, 0);
  EXPECT_NE(table.out.find(id), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("op/variant"), std::string::npos) << table.out;
}

TEST_F(ClientCli, SubmitWaitPrintsALinePerStageThenTheVerdictTable) {
  auto r = kwb("submit " + kernel() + " --op vector_add --wait --note from-test");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("  analyze   done"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  compile   done    g++"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  benchmark done"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("accepted  c-"), std::string::npos) << r.out;      // verdict table header
  EXPECT_NE(r.out.find("  bench  n1M"), std::string::npos) << r.out;      // a workload row
  EXPECT_LT(r.out.find("  compile   done"), r.out.find("accepted  c-")) << r.out;
}

TEST_F(ClientCli, WrongKernelExitsOneWithIncorrectVerdict) {
  auto r = kwb("submit " + wrong_kernel() + " --op vector_add --wait --json");
  auto verdict = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(verdict.is_discarded()) << r.out;
  EXPECT_EQ(verdict["status"], "incorrect") << verdict["reason"];
  EXPECT_EQ(r.exit_code, 1);

  auto st = kwb("status " + verdict["candidate"].get<std::string>());
  EXPECT_EQ(st.exit_code, 1);
  EXPECT_NE(st.out.find("incorrect  c-"), std::string::npos) << st.out;
}

TEST_F(ClientCli, UnknownOpExitsTwoWithTheServersMessage) {
  auto r = kwb("submit " + kernel() + " --op no_such_op", true);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("422 unknown_op"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unknown op 'no_such_op' (known:"), std::string::npos) << r.out;
}

TEST_F(ClientCli, ForbiddenFlagExitsTwo) {
  auto r = kwb("submit " + kernel() + " --op vector_add --flag=-fplugin=/tmp/x.so", true);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("forbidden_flag"), std::string::npos) << r.out;
}

TEST_F(ClientCli, SubmitWithoutWaitPrintsIdAndStatusWaitFollowsIt) {
  auto r = kwb("submit " + kernel() + " --op vector_add --idempotency-key cli-test-1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::string id = r.out.substr(0, r.out.find('\n'));
  ASSERT_TRUE(std::regex_match(id, k_id_re)) << r.out;

  auto again = kwb("submit " + kernel() + " --op vector_add --idempotency-key cli-test-1");
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_EQ(again.out.substr(0, again.out.find('\n')), id) << "same key, same candidate";

  auto w = kwb("status " + id + " --wait");
  EXPECT_EQ(w.exit_code, 0) << w.out;
  EXPECT_NE(w.out.find("accepted  " + id), std::string::npos) << w.out;
}

TEST_F(ClientCli, StatusOfUnknownIdExitsTwo) {
  auto r = kwb("status c-0123456789abcdef", true);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("404 not_found"), std::string::npos) << r.out;
  auto bad = kwb("status ../etc", true);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.out.find("not a candidate id"), std::string::npos) << bad.out;
}

TEST_F(ClientCli, SpecsOverHttp) {
  auto one = kwb("specs vector_add");
  EXPECT_EQ(one.exit_code, 0);
  auto spec = nlohmann::json::parse(one.out, nullptr, false);
  ASSERT_FALSE(spec.is_discarded()) << one.out;
  EXPECT_EQ(spec["op"], "vector_add");
  auto all = kwb("specs --json");
  auto arr = nlohmann::json::parse(all.out, nullptr, false);
  ASSERT_TRUE(arr.is_array()) << all.out;
  EXPECT_GE(arr.size(), 2u);
  auto missing = kwb("specs no_such_op", true);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.out.find("404 not_found"), std::string::npos) << missing.out;
}

// The review commands (docs/api.md "The CLI clients"): 1 when the daemon refused (4xx), 2 when it
// could not be asked.
TEST_F(ClientCli, ReviewCommandsExitOneWhenTheDaemonRefuses) {
  for (const std::string args : {"promote c-0123456789abcdef", "reject c-0123456789abcdef --reason no",
                                 "diff c-0123456789abcdef", "leaderboard no_such_op", "library no_such_op"}) {
    auto r = kwb(args, true);
    EXPECT_EQ(r.exit_code, 1) << args << ": " << r.out;
    EXPECT_NE(r.out.find("HTTP 404"), std::string::npos) << args << ": " << r.out;
  }
  auto unreachable = run_command((bin_dir() / "kwb").string() + " promote c-0123456789abcdef --server http://127.0.0.1:1 2>&1");
  EXPECT_EQ(unreachable.exit_code, 2) << unreachable.out;
}

TEST(ClientCliNoDaemon, UnreachableServerExitsTwoAndSaysSo) {
  // Port 1 on loopback: nothing listens there.
  auto r = run_command((bin_dir() / "kwb").string() + " list --server http://127.0.0.1:1 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("cannot reach the kwb daemon at http://127.0.0.1:1"), std::string::npos) << r.out;
}

}  // namespace
