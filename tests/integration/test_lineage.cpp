// Issue 39, point 4: an agent's ten attempts, submitted with parent links through the API of a
// real daemon (auth on), come back as one tree with the verified best and the latest marked:
// GET /v1/candidates/{id}/lineage from any of them, GET /v1/attempts?op= for that token only
// (another token's attempt is not there), capped with `truncated`; and the same through the MCP
// endpoint (POST /mcp, tools list_attempts and get_lineage). The SDK's side: tests/agents.
#include <gtest/gtest.h>

#include <httplib.h>

#include <map>
#include <set>

#include "daemon_support.hpp"

namespace {

using namespace kwb::test;
using nlohmann::json;

// Attempt i's parent (-1: none) and what it is: a correct kernel (timed on n1M only), a wrong
// one, or one that does not compile.
enum class Kind { correct, wrong, broken };
struct Plan {
  int parent;
  Kind kind;
};
const std::vector<Plan> k_plan = {{-1, Kind::wrong},   {0, Kind::broken},  {0, Kind::correct}, {2, Kind::wrong},
                                  {2, Kind::correct},  {4, Kind::broken},  {4, Kind::correct}, {6, Kind::wrong},
                                  {1, Kind::correct},  {6, Kind::correct}};

std::string source_of(Kind kind, int i) {
  const std::string tag = "\n// attempt " + std::to_string(i) + "\n";
  if (kind == Kind::correct) return read_text(source_dir() / "kernels/vector_add/cpu/vectorized.cpp") + tag;
  if (kind == Kind::wrong)
    return "#include <cstdint>\nextern \"C\" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) "
           "{ for (int64_t i = 0; i < n; ++i) c[i] = a[i] * b[i]; }" + tag;
  return "extern \"C\" void kwb_vector_add_f32(const float* a, const float* b, float* c, long n) { int x = ; }" + tag;
}

const char* status_of(Kind kind) { return kind == Kind::correct ? "accepted" : kind == Kind::wrong ? "incorrect" : "compile_error"; }

class Lineage : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_daemon = new DaemonProcess();
    std::string error;
    if (!s_daemon->start({"--time-budget-ms", "20"}, {}, &error)) {
      s_error = error;
      return;
    }
    for (std::string* token : {&s_agent, &s_other}) {
      auto made = run_command((bin_dir() / "kwb").string() + " token create --role agent --workspace " +
                              shell_quote(s_daemon->workspace().string()));
      if (made.exit_code != 0) {
        s_error = "kwb token create: " + made.out;
        return;
      }
      *token = made.out.substr(0, made.out.find('\n'));
    }
    auto c = client();
    for (size_t i = 0; i < k_plan.size(); ++i) {
      json body = {{"op", "vector_add"}, {"source", source_of(k_plan[i].kind, int(i))}, {"note", "attempt " + std::to_string(i)}};
      if (k_plan[i].kind == Kind::correct) body["bench"] = {"n1M"};
      if (k_plan[i].parent >= 0) body["parent"] = s_ids[size_t(k_plan[i].parent)];
      auto r = c.Post("/v1/candidates", auth(s_agent), body.dump(), "application/json");
      if (!r || r->status != 202) {
        s_error = "submitting attempt " + std::to_string(i) + ": " + (r ? r->body : "no reply");
        return;
      }
      s_ids.push_back(json::parse(r->body)["id"]);
    }
    // Another token's attempt at the same op, on the first agent's root: in the lineage, not in
    // the first agent's attempts.
    json other = {{"op", "vector_add"}, {"source", source_of(Kind::broken, 99)}, {"parent", s_ids[0]}};
    auto r = c.Post("/v1/candidates", auth(s_other), other.dump(), "application/json");
    if (!r || r->status != 202) {
      s_error = "the other token's submission: " + (r ? r->body : std::string("no reply"));
      return;
    }
    s_other_id = json::parse(r->body)["id"];
    std::vector<std::string> all = s_ids;
    all.push_back(s_other_id);
    for (const auto& id : all) {
      bool settled = false;
      for (int i = 0; i < 20 && !settled; ++i) {
        auto got = c.Get("/v1/candidates/" + id + "?wait=30", auth(s_agent));
        settled = got && got->status == 200 && json::parse(got->body)["state"] == "done" &&
                  json::parse(got->body)["comparison"]["state"] != "pending";
      }
      if (!settled) {
        s_error = id + " did not finish:\n" + s_daemon->log();
        return;
      }
    }
  }
  static void TearDownTestSuite() {
    delete s_daemon;
    s_daemon = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(s_error.empty()) << s_error; }

  static httplib::Client client() {
    httplib::Client c("127.0.0.1", s_daemon->port());
    c.set_read_timeout(120, 0);
    return c;
  }
  static httplib::Headers auth(const std::string& token) { return {{"Authorization", "Bearer " + token}}; }
  static json get(const std::string& path, const std::string& token, int status = 200) {
    auto r = client().Get(path, auth(token));
    EXPECT_TRUE(r) << path;
    if (!r) return {};
    EXPECT_EQ(r->status, status) << path << ": " << r->body;
    return json::parse(r->body, nullptr, false);
  }

  static DaemonProcess* s_daemon;
  static std::string s_error, s_agent, s_other, s_other_id;
  static std::vector<std::string> s_ids;
};

DaemonProcess* Lineage::s_daemon = nullptr;
std::string Lineage::s_error, Lineage::s_agent, Lineage::s_other, Lineage::s_other_id;
std::vector<std::string> Lineage::s_ids;

// Every node of a forest by id, with the id of the node it hangs under ("" for a root).
void flatten(const json& nodes, const std::string& under, std::map<std::string, json>& out,
             std::map<std::string, std::string>& hung_under) {
  for (const auto& n : nodes) {
    out[n["id"]] = n;
    hung_under[n["id"]] = under;
    flatten(n["children"], n["id"], out, hung_under);
  }
}

// The verified best by the documented rule (docs/api.md "Lineage"), from the nodes' own fields.
std::string best_by_rule(const std::map<std::string, json>& nodes, const std::vector<std::string>& order) {
  std::string best;
  auto rank = [&](const json& n) {
    const json& g = n["geomean_vs_incumbent"];
    return std::tuple(n["promotable"] == true, g.is_number(), g.is_number() ? g.get<double>() : 0.0);
  };
  for (const auto& id : order) {  // oldest first: a tie keeps the earlier
    const json& n = nodes.at(id);
    if (n["status"] == "accepted" && (best.empty() || rank(n) > rank(nodes.at(best)))) best = id;
  }
  return best;
}

// The ten attempts as one tree: each under its parent, with its note, status and the first line
// of its reason; the best by the rule and the latest marked, on the node and by id.
void expect_the_agents_tree(const json& body, const std::vector<std::string>& ids, const std::string& other) {
  std::map<std::string, json> nodes;
  std::map<std::string, std::string> under;
  flatten(body["roots"], "", nodes, under);
  ASSERT_EQ(body["roots"].size(), 1u) << body.dump(1);
  EXPECT_EQ(body["roots"][0]["id"], ids[0]);
  for (size_t i = 0; i < k_plan.size(); ++i) {
    ASSERT_TRUE(nodes.count(ids[i])) << "attempt " << i << " missing: " << body.dump(1);
    const json& n = nodes[ids[i]];
    EXPECT_EQ(under[ids[i]], k_plan[i].parent < 0 ? "" : ids[size_t(k_plan[i].parent)]) << "attempt " << i;
    EXPECT_EQ(n["parent"], k_plan[i].parent < 0 ? json(nullptr) : json(ids[size_t(k_plan[i].parent)]));
    EXPECT_EQ(n["note"], "attempt " + std::to_string(i));
    EXPECT_EQ(n["status"], status_of(k_plan[i].kind)) << n.dump();
    EXPECT_EQ(n["state"], "done");
    const std::string reason = n["reason"];
    EXPECT_FALSE(reason.empty()) << n.dump();
    EXPECT_EQ(reason.find('\n'), std::string::npos) << "the first line only: " << reason;
    EXPECT_EQ(n["latest"], other.empty() && i + 1 == k_plan.size()) << "attempt " << i;
  }
  EXPECT_EQ(body["latest"], other.empty() ? ids.back() : other);
  std::vector<std::string> order = ids;
  if (!other.empty()) order.push_back(other);
  const std::string best = best_by_rule(nodes, order);
  ASSERT_FALSE(best.empty()) << "five attempts were accepted";
  EXPECT_EQ(body["best"], best) << body.dump(1);
  int marked_best = 0;
  for (const auto& [id, n] : nodes) marked_best += n["best"] == true;
  EXPECT_EQ(marked_best, 1);
  EXPECT_EQ(nodes[best]["best"], true);
}

TEST_F(Lineage, TenAttemptsComeBackAsOneTreeWithTheBestAndTheLatestMarked) {
  for (const std::string& from : {s_ids[0], s_ids[3], s_ids[9]}) {
    json lineage = get("/v1/candidates/" + from + "/lineage", s_agent);
    EXPECT_EQ(lineage["id"], from);
    EXPECT_EQ(lineage["count"], 11);  // the other token's attempt hangs on the root too
    EXPECT_EQ(lineage["total"], 11);
    EXPECT_EQ(lineage["truncated"], false);
    expect_the_agents_tree(lineage, s_ids, s_other_id);
  }
  // The token's own attempts: the ten, not the other token's.
  json mine = get("/v1/attempts?op=vector_add", s_agent);
  EXPECT_EQ(mine["op"], "vector_add");
  EXPECT_EQ(mine["count"], 10);
  EXPECT_EQ(mine["total"], 10);
  expect_the_agents_tree(mine, s_ids, "");
  json theirs = get("/v1/attempts?op=vector_add", s_other);
  ASSERT_EQ(theirs["roots"].size(), 1u) << theirs.dump();
  EXPECT_EQ(theirs["roots"][0]["id"], s_other_id);
  EXPECT_EQ(theirs["roots"][0]["parent"], s_ids[0]) << "its parent is not in the answer: a root";
  EXPECT_TRUE(theirs["best"].is_null()) << "its only attempt does not compile";
  // Capped: the newest, with the total.
  json capped = get("/v1/attempts?op=vector_add&limit=3", s_agent);
  EXPECT_EQ(capped["count"], 3);
  EXPECT_EQ(capped["total"], 10);
  EXPECT_EQ(capped["truncated"], true);
  EXPECT_EQ(capped["latest"], s_ids[9]);
  // Refusals name what is wrong.
  EXPECT_EQ(get("/v1/attempts", s_agent, 400)["error"]["type"], "bad_parameter");
  EXPECT_EQ(get("/v1/attempts?op=nope", s_agent, 400)["error"]["type"], "bad_parameter");
  EXPECT_EQ(get("/v1/candidates/c-0123456789abcdef/lineage", s_agent, 404)["error"]["type"], "not_found");
}

json modern_call(const std::string& tool, const json& args) {
  return {{"jsonrpc", "2.0"},
          {"id", 1},
          {"method", "tools/call"},
          {"params", {{"name", tool},
                      {"arguments", args},
                      {"_meta", {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                                 {"io.modelcontextprotocol/clientCapabilities", json::object()}}}}}};
}

TEST_F(Lineage, TheSameTreeThroughMcp) {
  auto call = [&](const std::string& tool, const json& args) {
    json msg = modern_call(tool, args);
    httplib::Headers h = {{"Authorization", "Bearer " + s_agent}, {"MCP-Protocol-Version", "2026-07-28"},
                          {"Mcp-Method", "tools/call"}, {"Mcp-Name", tool}, {"Accept", "application/json, text/event-stream"}};
    auto r = client().Post("/mcp", h, msg.dump(), "application/json");
    EXPECT_TRUE(r && r->status == 200) << (r ? r->body : "no reply");
    return r ? json::parse(r->body, nullptr, false)["result"] : json();
  };
  json listed = call("list_attempts", {{"op", "vector_add"}});
  ASSERT_EQ(listed["isError"], false) << listed.dump();
  expect_the_agents_tree(listed["structuredContent"], s_ids, "");
  EXPECT_EQ(listed["structuredContent"], get("/v1/attempts?op=vector_add", s_agent)) << "the REST answer as it is";
  const std::string text = listed["content"][0]["text"];
  const std::string best = listed["structuredContent"]["best"];
  auto line_of = [&](const std::string& id) {
    auto at = text.find("- " + id);
    return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
  };
  EXPECT_NE(line_of(best).find("[BEST]"), std::string::npos) << text;
  EXPECT_NE(line_of(s_ids[9]).find("[LATEST]"), std::string::npos) << text;
  EXPECT_NE(line_of(s_ids[3]).find("attempt 3"), std::string::npos) << "the note: " << text;

  json lineage = call("get_lineage", {{"id", s_ids[5]}});
  ASSERT_EQ(lineage["isError"], false) << lineage.dump();
  expect_the_agents_tree(lineage["structuredContent"], s_ids, s_other_id);
  json unknown = call("get_lineage", {{"id", "c-0123456789abcdef"}});
  EXPECT_EQ(unknown["isError"], true);
  EXPECT_NE(unknown["content"][0]["text"].get<std::string>().find("404"), std::string::npos) << unknown.dump();
}

}  // namespace
