// Issue 15 #12: a runner's reply is checked before anything reads it.
#include <gtest/gtest.h>

#include "eval/runner_client_reply.hpp"

namespace {

using kwb::eval::detail::reply_problem;
using nlohmann::json;

TEST(RunnerReply, AWellFormedAnswerPasses) {
  EXPECT_EQ(reply_problem(json::parse(R"({"ok":true,"seq":3,"ns":[12,0]})"), 3), "");
  EXPECT_EQ(reply_problem(json::parse(R"({"ok":false,"seq":1,"error":"no entry"})"), 1), "");
  EXPECT_EQ(reply_problem(json::parse(R"({"ok":true,"seq":7,"present":false,"reason":"no GPU","extra":[1]})"), 7), "");
}

TEST(RunnerReply, TheIssuesForgedReplyIsAProblemNotAnException) {
  EXPECT_NE(reply_problem(json::parse(R"({"ok":"yes"})"), 1), "");
  EXPECT_NE(reply_problem(json::parse(R"({"ok":"yes","seq":1})"), 1).find("\"ok\" is not a boolean"), std::string::npos);
}

TEST(RunnerReply, AnAnswerToAnotherCommandIsRefused) {
  EXPECT_NE(reply_problem(json::parse(R"({"ok":true})"), 2).find("does not answer"), std::string::npos);
  EXPECT_NE(reply_problem(json::parse(R"({"ok":true,"seq":1})"), 2).find("does not answer"), std::string::npos);
  EXPECT_NE(reply_problem(json::parse(R"({"ok":true,"seq":"2"})"), 2).find("does not answer"), std::string::npos);
  EXPECT_NE(reply_problem(json::parse(R"({"ok":true,"seq":-2})"), 2), "");
}

TEST(RunnerReply, EveryFieldTheWorkbenchReadsIsTypeChecked) {
  for (const char* bad : {R"({"ok":true,"seq":1,"ns":[1,-5]})", R"({"ok":true,"seq":1,"ns":"fast"})",
                          R"({"ok":true,"seq":1,"ns":[1.5]})", R"({"ok":true,"seq":1,"discarded":"0"})",
                          R"({"ok":true,"seq":1,"discarded":-1})", R"({"ok":true,"seq":1,"present":1})",
                          R"({"ok":true,"seq":1,"sm_clock_min_mhz":null})", R"({"ok":true,"seq":1,"launch_overhead_ns":"1"})",
                          R"({"ok":true,"seq":1,"name":5})", R"({"ok":true,"seq":1,"paced":1})",
                          R"({"ok":false,"seq":1,"error":{}})", R"({"ok":false,"seq":1})"})
    EXPECT_NE(reply_problem(json::parse(bad), 1), "") << bad;
  EXPECT_NE(reply_problem(json::parse("[1,2]"), 1).find("not a JSON object"), std::string::npos);
  EXPECT_NE(reply_problem(json::parse("\"ok\""), 1), "");
}

}  // namespace

// Issue 19: the gpu runner's kernel attributes (load) and occupancy (dims) are type-checked too.
TEST(RunnerReply, KernelAttributesAndOccupancyAreTypeChecked) {
  EXPECT_EQ(reply_problem(json::parse(R"({"ok":true,"seq":1,"kernels":[{"name":"k","registers":28,"static_smem":0,
                                           "local_bytes":0,"max_threads":1024}]})"),
                          1),
            "");
  EXPECT_EQ(reply_problem(json::parse(R"({"ok":true,"seq":1,"kernels":[]})"), 1), "");  // a launcher's load
  EXPECT_EQ(reply_problem(json::parse(R"({"ok":true,"seq":1,"occupancy":[8,2]})"), 1), "");
  for (const char* bad :
       {R"({"ok":true,"seq":1,"kernels":[{"name":"k","registers":-1,"static_smem":0,"local_bytes":0,"max_threads":1}]})",
        R"({"ok":true,"seq":1,"kernels":[{"name":7,"registers":1,"static_smem":0,"local_bytes":0,"max_threads":1}]})",
        R"({"ok":true,"seq":1,"kernels":[{"name":"k","registers":1,"static_smem":0,"local_bytes":0}]})",
        R"({"ok":true,"seq":1,"kernels":[{"name":"k","registers":1e12,"static_smem":0,"local_bytes":0,"max_threads":1}]})",
        R"({"ok":true,"seq":1,"kernels":{"name":"k"}})", R"({"ok":true,"seq":1,"kernels":["k"]})",
        R"({"ok":true,"seq":1,"occupancy":[1,-1]})", R"({"ok":true,"seq":1,"occupancy":"many"})"})
    EXPECT_NE(reply_problem(json::parse(bad), 1), "") << bad;
}
