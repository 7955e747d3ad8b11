// The pure parts of the MCP server: JSON-RPC framing, argument checks against the tool schemas,
// the request-header rules of 2026-07-28, the Host/Origin rule and the verdict text.
#include <gtest/gtest.h>

#include "mcp/header_value.hpp"
#include "mcp/http_endpoint.hpp"
#include "mcp/json_rpc.hpp"
#include "mcp/schema_check.hpp"
#include "mcp/tool.hpp"
#include "mcp/verdict_text.hpp"

namespace kwb::mcp {
namespace {

TEST(McpJsonRpc, RefusesMalformedMessagesWithTheirId) {
  auto batch = parse_message_text("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
  ASSERT_TRUE(std::holds_alternative<Malformed>(batch));
  EXPECT_EQ(std::get<Malformed>(batch).error.code, code::invalid_request);
  auto garbage = parse_message_text("{not json");
  EXPECT_EQ(std::get<Malformed>(garbage).error.code, code::parse_error);
  auto null_id = parse_message_text(R"({"jsonrpc":"2.0","id":null,"method":"ping"})");
  EXPECT_NE(std::get<Malformed>(null_id).error.message.find("null ids"), std::string::npos);
  auto params = parse_message_text(R"({"jsonrpc":"2.0","id":"a","method":"tools/list","params":[1]})");
  EXPECT_EQ(std::get<Malformed>(params).id, "a");
  EXPECT_EQ(std::get<Malformed>(params).error.code, code::invalid_params);
  auto ok = parse_message_text(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  ASSERT_TRUE(std::holds_alternative<Incoming>(ok));
  EXPECT_FALSE(std::get<Incoming>(ok).id.has_value());
}

TEST(McpSchemaCheck, NamesTheArgumentAndWhatWasExpected) {
  const Tool* t = find_tool("get_verdict");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(schema_problem(t->input_schema, {{"id", "c-0123456789abcdef"}, {"wait_s", 5}}), std::nullopt);
  EXPECT_EQ(*schema_problem(t->input_schema, {{"id", "c-0123456789abcdef"}, {"wait_s", 700}}),
            "arguments.wait_s: expected a value in [0, 600], got 700");
  EXPECT_EQ(*schema_problem(t->input_schema, {{"wait_s", 1}}), "arguments.id: required");
  EXPECT_EQ(*schema_problem(t->input_schema, {{"id", "c-0123456789abcdef"}, {"colour", 1}}),
            "arguments.colour: unknown argument (expected: id, wait_s)");
  const Tool* s = find_tool("submit_kernel");
  EXPECT_EQ(*schema_problem(s->input_schema, {{"op", "x"}, {"source", "y"}, {"tune", {{"BLOCK", {128, "x"}}}}}),
            "arguments.tune.BLOCK[1]: expected integer, got \"x\"");
}

TEST(McpHeaders, RoutingHeadersMustMatchTheBody) {
  auto msg = std::get<Incoming>(parse_message_text(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_spec"}})"));
  EXPECT_EQ(routing_header_problem(msg, "tools/call", "get_spec"), std::nullopt);
  EXPECT_EQ(routing_header_problem(msg, "tools/call", "=?base64?Z2V0X3NwZWM=?="), std::nullopt);  // "get_spec"
  EXPECT_NE(routing_header_problem(msg, "tools/list", "get_spec"), std::nullopt);
  EXPECT_NE(routing_header_problem(msg, "tools/call", ""), std::nullopt);
  EXPECT_NE(routing_header_problem(msg, "tools/call", "=?base64?!!?="), std::nullopt);
}

TEST(McpOrigin, DnsRebindingIsRefused) {
  EXPECT_TRUE(origin_allowed("", "127.0.0.1:8470"));
  EXPECT_TRUE(origin_allowed("http://localhost:3000", "localhost:8470"));
  EXPECT_TRUE(origin_allowed("http://10.0.0.5:8470", "10.0.0.5:8470"));
  EXPECT_FALSE(origin_allowed("http://evil.example.com", "evil.example.com"));  // a rebound name
  EXPECT_FALSE(origin_allowed("http://evil.example.com", "127.0.0.1:8470"));
  EXPECT_FALSE(origin_allowed("null", "127.0.0.1:8470"));
}

TEST(McpVerdictText, LeadsWithStatusReasonMismatchAndSpeedup) {
  json c = {{"id", "c-0123456789abcdef"}, {"state", "done"}, {"status", "incorrect"},
            {"verdict", {{"status", "incorrect"}, {"op", "vector_add"}, {"variant", "f32"}, {"backend", "cpu"}, {"device", "cpu0"},
                         {"reason", "wrong values in c on n17"},
                         {"workloads", {{{"name", "n17"}, {"params", {{"n", 17}}}, {"mismatches", 17}, {"max_abs_err", 1.5},
                                         {"first_mismatch", {{"tensor", "c"}, {"index", {0}}, {"got", 0.25}, {"expected", 1.0}}}}}},
                         {"summary", {{"geomean_vs_incumbent", nullptr}}}}}};
  std::string t = candidate_text(c);
  EXPECT_EQ(t.substr(0, t.find('\n')), "incorrect: c-0123456789abcdef vector_add/f32 (cpu) on cpu0");
  EXPECT_NE(t.find("\nreason: wrong values in c on n17\nfirst mismatch: workload n17 {\"n\":17}, tensor c[0]: got 0.25, expected 1 (mismatches 17, max abs err 1.5)"),
            std::string::npos) << t;
  EXPECT_NE(t.find("\nvs incumbent: not compared"), std::string::npos) << t;
  EXPECT_EQ(candidate_summary(c)["first_mismatch"]["workload"], "n17");
}

}  // namespace
}  // namespace kwb::mcp
