// A candidate seen as a task (mcp/task_view.cpp): the status mapping and each revision's wire
// names, and how a request declares the 2026-07-28 tasks extension.
#include <gtest/gtest.h>

#include "mcp/tasks.hpp"

namespace kwb::mcp {
namespace {

json candidate(std::string state, bool cancel_requested = false) {
  json c = {{"id", "c-0123456789abcdef"}, {"state", state}, {"cancel_requested", cancel_requested},
            {"created_at", "2026-11-30T09:17:45.917Z"}, {"updated_at", "2026-11-30T09:20:06.756Z"}};
  if (state == "done") {
    c["status"] = "incorrect";
    c["verdict"] = {{"status", "incorrect"}, {"reason", "wrong on 1 of 9 test workloads"}};
  }
  return c;
}

TEST(McpTaskView, StatusFollowsTheCandidate) {
  for (const char* running : {"queued", "analyzing", "compiling", "validating", "benchmarking", "deciding"})
    EXPECT_EQ(task_view(candidate(running), Era::legacy)["status"], "working") << running;
  json done = task_view(candidate("done"), Era::legacy);
  EXPECT_EQ(done["status"], "completed");  // a verdict other than accepted is still a completed tool call
  EXPECT_EQ(done["statusMessage"], "incorrect: wrong on 1 of 9 test workloads");
  EXPECT_EQ(task_view(candidate("cancelled", true), Era::legacy)["status"], "cancelled");
  // A requested cancellation is final at once: the task never turns working or completed again.
  json requested = task_view(candidate("benchmarking", true), Era::legacy);
  EXPECT_EQ(requested["status"], "cancelled");
  EXPECT_TRUE(task_terminal(requested));
  EXPECT_FALSE(task_terminal(task_view(candidate("queued"), Era::legacy)));
}

TEST(McpTaskView, EachRevisionHasItsFieldNames) {
  json legacy = task_view(candidate("compiling"), Era::legacy);
  EXPECT_EQ(legacy["taskId"], "c-0123456789abcdef");
  EXPECT_EQ(legacy["createdAt"], "2026-11-30T09:17:45.917Z");
  EXPECT_EQ(legacy["lastUpdatedAt"], "2026-11-30T09:20:06.756Z");
  EXPECT_TRUE(legacy.contains("ttl") && legacy["ttl"].is_null());
  EXPECT_EQ(legacy["pollInterval"], k_task_poll_interval_ms);
  EXPECT_FALSE(legacy.contains("ttlMs"));
  json modern = task_view(candidate("compiling"), Era::modern);
  EXPECT_TRUE(modern.contains("ttlMs") && modern["ttlMs"].is_null());
  EXPECT_EQ(modern["pollIntervalMs"], k_task_poll_interval_ms);
  EXPECT_FALSE(modern.contains("ttl") || modern.contains("pollInterval"));
}

TEST(McpTaskView, TheExtensionIsDeclaredInTheRequestCapabilities) {
  RequestContext ctx;
  EXPECT_FALSE(has_tasks_extension(ctx));
  ctx.client_capabilities = {{"extensions", {{"io.modelcontextprotocol/tasks", json::object()}}}};
  EXPECT_TRUE(has_tasks_extension(ctx));
  ctx.client_capabilities = {{"extensions", {{"io.modelcontextprotocol/tasks", true}}}};  // settings are an object
  EXPECT_FALSE(has_tasks_extension(ctx));
  ctx.client_capabilities = {{"tasks", json::object()}};  // the 2025-11-25 client capability is another thing
  EXPECT_FALSE(has_tasks_extension(ctx));
}

}  // namespace
}  // namespace kwb::mcp
