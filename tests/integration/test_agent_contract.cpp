// Issue 17, "The agent's contract": a new agent learns what to write from GET /v1/specs/{op}
// alone (prototype and template per variant and backend), follows its candidate's progress per
// workload, sees the review decision on the candidate, and gets unknown filter values refused.
#include <gtest/gtest.h>

#include <httplib.h>

#include <fstream>
#include <map>
#include <set>

#include "daemon_support.hpp"

namespace {

using namespace kwb::test;

class AgentContract : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_daemon = new DaemonProcess();
    std::string error;
    if (!s_daemon->start({"--no-auth", "--time-budget-ms", "50"}, {}, &error)) s_error = error;
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
  static nlohmann::json json_of(const httplib::Result& r) {
    return r ? nlohmann::json::parse(r->body, nullptr, false) : nlohmann::json();
  }
  // Submits and long-polls to the terminal state; the candidate as GET /v1/candidates/{id} gives it.
  static nlohmann::json submit_and_wait(const nlohmann::json& body) {
    auto c = client();
    auto r = c.Post("/v1/candidates", body.dump(), "application/json");
    EXPECT_TRUE(r && r->status == 202) << (r ? r->body : "no reply");
    std::string id = json_of(r).value("id", "");
    for (int i = 0; i < 20 && !id.empty(); ++i) {
      auto cand = json_of(c.Get("/v1/candidates/" + id + "?wait=30"));
      if (cand["state"] == "done" || cand["state"] == "cancelled") return cand;
    }
    ADD_FAILURE() << "candidate " << id << " did not finish";
    return {};
  }
  static CommandResult kwb(const std::string& args) {
    return run_command((bin_dir() / "kwb").string() + " " + args + " --server " + s_daemon->url() + " 2>&1");
  }

  static DaemonProcess* s_daemon;
  static std::string s_error;
};

DaemonProcess* AgentContract::s_daemon = nullptr;
std::string AgentContract::s_error;

// The "Done when" test: a kernel built only from the spec response's template, per backend.
TEST_F(AgentContract, TemplateFromTheSpecAloneIsAcceptedOnCpuAndCompilesForCuda) {
  auto c = client();
  auto spec = json_of(c.Get("/v1/specs/vector_add"));
  ASSERT_TRUE(spec.contains("contract")) << spec.dump();
  const auto& contract = spec["contract"]["f32"];
  EXPECT_EQ(contract["cpu"]["prototype"],
            "extern \"C\" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n)");
  EXPECT_EQ(contract["cuda-launcher"]["prototype"],
            "extern \"C\" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n, cudaStream_t stream)");
  EXPECT_EQ(contract["cuda"]["launch_args"], "(a, b, c, n)");
  EXPECT_TRUE(contract["cpu"]["template"]["complete"]) << "vector_add ships template.f32.cpp";
  EXPECT_TRUE(contract["cuda"]["template"]["complete"]) << "vector_add ships template.f32.cu";
  EXPECT_EQ(contract["cuda"]["template"]["file"], "template.f32.cu");
  EXPECT_TRUE(contract["cuda-launcher"]["template"]["complete"]) << "vector_add ships template.f32.launcher.cu";

  auto health = json_of(c.Get("/v1/health"));
  for (const std::string backend : {"cpu", "cuda", "cuda-launcher"}) {
    SCOPED_TRACE(backend);
    const auto& tmpl = contract[backend]["template"];
    ASSERT_TRUE(tmpl["source"].is_string());
    bool served = std::find(health["backends"].begin(), health["backends"].end(), backend) != health["backends"].end();
    if (!served) {
      ADD_FAILURE() << "this daemon does not serve " << backend << ": " << health.dump();
      continue;
    }
    auto cand = submit_and_wait({{"op", "vector_add"}, {"backend", backend}, {"source", tmpl["source"]}});
    ASSERT_TRUE(cand["verdict"].is_object()) << cand.dump();
    if (backend == "cpu")
      EXPECT_EQ(cand["verdict"]["status"], "accepted") << cand["verdict"]["reason"];
    else  // analysed and compiled; no GPU on this machine
      EXPECT_EQ(cand["verdict"]["status"], "no_device") << cand["verdict"]["reason"];
  }
}

// Every shipped op serves a complete (shipped, correct) template for every variant and backend;
// the launcher's host entry is the contract's prototype. (tests/integration/test_spec_templates
// evaluates each file; gpu_tests' ShippedCudaTemplate requires accepted on the H200.)
TEST_F(AgentContract, EveryOpServesACompleteTemplatePerVariantAndBackend) {
  auto c = client();
  auto list = json_of(c.Get("/v1/specs"));
  ASSERT_TRUE(list.is_array() || list.contains("specs")) << list.dump();
  const auto& specs = list.is_array() ? list : list["specs"];
  size_t templates = 0, variants = 0;
  for (const auto& entry : specs) {
    const std::string op = entry["op"];
    auto spec = json_of(c.Get("/v1/specs/" + op));
    ASSERT_TRUE(spec["contract"].is_object()) << op;
    variants += spec["contract"].size();
    for (const auto& [variant, backends] : spec["contract"].items())
      for (const char* backend : {"cpu", "cuda", "cuda-launcher"}) {
        SCOPED_TRACE(op + "/" + variant + "/" + backend);
        const auto& t = backends[backend]["template"];
        EXPECT_TRUE(t["complete"].get<bool>());
        EXPECT_TRUE(t["file"].is_string()) << t.dump();
        templates += t["complete"].get<bool>() ? 1 : 0;
      }
    for (const auto& [variant, backends] : spec["contract"].items()) {
      std::string source = backends["cuda-launcher"]["template"]["source"], flat;
      for (char ch : source)  // blanks and line breaks read as one blank
        if (!(std::isspace(static_cast<unsigned char>(ch)) && !flat.empty() && flat.back() == ' '))
          flat += std::isspace(static_cast<unsigned char>(ch)) ? ' ' : ch;
      EXPECT_NE(flat.find(backends["cuda-launcher"]["prototype"].get<std::string>() + " {"), std::string::npos)
          << op << "/" << variant << ":\n" << source;
    }
  }
  EXPECT_GE(variants, 11u) << "9 starter specs with 10 variants, and the shipped model ops";
  EXPECT_EQ(templates, 3 * variants) << "3 backends per variant";
}

// Every op's cpu contract: a prototype that the analyzer's rejection message repeats exactly.
TEST_F(AgentContract, RejectionMessageQuotesTheSpecPrototype) {
  auto c = client();
  auto spec = json_of(c.Get("/v1/specs/softmax"));
  std::string prototype = spec["contract"]["f32"]["cpu"]["prototype"];
  auto cand = submit_and_wait({{"op", "softmax"},
                               {"source", "#include <cstdint>\nextern \"C\" void kwb_softmax_f32(const float* x, float* y, int rows, int64_t cols) {}\n"}});
  ASSERT_EQ(cand["verdict"]["status"], "rejected") << cand.dump();
  std::string reason = cand["verdict"]["reason"];
  EXPECT_NE(reason.find(prototype.substr(std::string("extern \"C\" ").size())), std::string::npos)
      << reason << "\nvs " << prototype;
}

TEST_F(AgentContract, ProgressEventsNameEachWorkloadWithSamples) {
  auto spec = json_of(client().Get("/v1/specs/vector_add"));
  auto cand = submit_and_wait({{"op", "vector_add"}, {"source", spec["contract"]["f32"]["cpu"]["template"]["source"]}});
  ASSERT_EQ(cand["status"], "accepted");
  auto page = json_of(client().Get("/v1/candidates/" + cand["id"].get<std::string>() + "/events?wait=0"));
  std::set<std::string> validated, benched;
  size_t most_samples = 0, decide_notes = 0;
  for (const auto& e : page["events"]) {
    if (e["kind"] != "progress") continue;
    const auto& d = e["data"];
    if (d["stage"] == "decide") {  // the comparison with the incumbent, in words
      EXPECT_TRUE(d["detail"].is_string() && !d["detail"].get<std::string>().empty()) << d.dump();
      ++decide_notes;
      continue;
    }
    ASSERT_TRUE(d["params"].is_object()) << d.dump();
    if (d["stage"] == "validate") validated.insert(d["workload"]);
    if (d["stage"] == "benchmark") {
      benched.insert(d["workload"]);
      most_samples = std::max(most_samples, d["samples"].get<size_t>());
      EXPECT_EQ(d["kind"], "bench");
    }
  }
  for (const auto& w : spec["workloads"]["test"]) EXPECT_TRUE(validated.count(w["name"])) << w["name"];
  for (const auto& w : spec["workloads"]["bench"]) {
    bool on_cpu = !w.contains("backends") || std::find(w["backends"].begin(), w["backends"].end(), "cpu") != w["backends"].end();
    EXPECT_EQ(benched.count(w["name"]), on_cpu ? 1u : 0u) << w["name"];
  }
  EXPECT_GT(most_samples, 0u) << "no sample counts during benchmark";
  // Each stage starts once and ends once, in that order, before the verdict; the decide stage's
  // comparison with the library's vector_add incumbent reports between its start and its end.
  std::map<std::string, int> starts, ends;
  bool verdict_seen = false;
  for (const auto& e : page["events"]) {
    if (e["kind"] == "verdict") verdict_seen = true;
    if (e["kind"] != "stage") continue;
    EXPECT_FALSE(verdict_seen) << "a stage event after the verdict: " << e.dump();
    const std::string stage = e["data"]["stage"];
    if (e["data"]["finished"].get<bool>()) {
      EXPECT_EQ(starts[stage], 1) << stage << " ended before it started: " << page.dump();
      ++ends[stage];
    } else {
      EXPECT_EQ(ends[stage], 0) << stage << " started again after its end: " << e.dump();
      ++starts[stage];
    }
  }
  for (const char* stage : {"analyze", "compile", "validate", "benchmark", "decide"}) {
    EXPECT_EQ(starts[stage], 1) << stage;
    EXPECT_EQ(ends[stage], 1) << stage;
  }
  EXPECT_GT(decide_notes, 0u) << "the comparison with the incumbent told nothing: " << page.dump();
}

TEST_F(AgentContract, ReviewDecisionReachesTheCandidateAndItsEvents) {
  auto spec = json_of(client().Get("/v1/specs/vector_add"));
  auto cand = submit_and_wait({{"op", "vector_add"}, {"source", spec["contract"]["f32"]["cpu"]["template"]["source"]},
                               {"note", "to be rejected"}});
  std::string id = cand["id"];
  EXPECT_TRUE(cand.contains("decision") && cand["decision"].is_null()) << cand.dump();
  EXPECT_TRUE(cand.contains("ci") && cand["ci"].is_null());
  auto c = client();
  auto r = c.Post("/v1/candidates/" + id + "/reject", R"({"reason":"slower than the template I had"})", "application/json");
  ASSERT_TRUE(r && r->status == 200) << (r ? r->body : "");
  auto after = json_of(c.Get("/v1/candidates/" + id));
  EXPECT_EQ(after["decision"]["decision"], "rejected") << after.dump();
  EXPECT_EQ(after["decision"]["reason"], "slower than the template I had");
  auto page = json_of(c.Get("/v1/candidates/" + id + "/events?wait=0"));
  bool seen = false;
  for (const auto& e : page["events"]) seen |= e["kind"] == "decision" && e["data"]["decision"] == "rejected";
  EXPECT_TRUE(seen) << page.dump();
  // `kwb status` prints it.
  auto st = kwb("status " + id);
  EXPECT_NE(st.out.find("decision: rejected: slower than the template I had"), std::string::npos) << st.out;
}

TEST_F(AgentContract, UnknownFilterValuesAreRefusedWithTheValidOnes) {
  auto c = client();
  for (const auto& [query, expect] : std::vector<std::pair<std::string, std::string>>{
           {"state=finished", "valid: queued, analyzing"},
           {"status=acepted", "did you mean 'accepted'?"},
           {"op=nope", "gemm, histogram, layernorm"},
           {"sate=done", "unknown query parameter 'sate'"}}) {
    auto r = c.Get("/v1/candidates?" + query);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << query;
    auto err = json_of(r)["error"];
    EXPECT_EQ(err["type"], "bad_parameter") << query;
    EXPECT_NE(err["message"].get<std::string>().find(expect), std::string::npos) << query << ": " << err.dump();
  }
  auto ok = c.Get("/v1/candidates?state=done&status=accepted&op=vector_add");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
  auto fmt = c.Get("/v1/candidates/c-0000000000000000/diff?format=html");
  ASSERT_TRUE(fmt);
  EXPECT_EQ(fmt->status, 400) << fmt->body;

  auto cli = kwb("list --status acepted");
  EXPECT_EQ(cli.exit_code, 2);
  EXPECT_NE(cli.out.find("valid: accepted, incorrect"), std::string::npos) << cli.out;
  auto cli_op = kwb("list --op nope");
  EXPECT_EQ(cli_op.exit_code, 2);
  EXPECT_NE(cli_op.out.find("unknown op 'nope'"), std::string::npos) << cli_op.out;
}

TEST_F(AgentContract, SubmitInfersTheBackendFromTheFileAndCancelWorks) {
  auto dir = std::filesystem::temp_directory_path() / ("kwb-contract-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto spec = json_of(client().Get("/v1/specs/vector_add"));
  std::ofstream(dir / "add.cu") << spec["contract"]["f32"]["cuda"]["template"]["source"].get<std::string>();
  auto sub = kwb("submit " + shell_quote((dir / "add.cu").string()) + " --op vector_add --json");
  ASSERT_EQ(sub.exit_code, 0) << sub.out;
  auto reply = nlohmann::json::parse(sub.out, nullptr, false);
  std::string id = reply.value("id", "");
  auto cand = json_of(client().Get("/v1/candidates/" + id));
  EXPECT_EQ(cand["backend"], "cuda") << cand.dump();
  auto cancel = kwb("cancel " + id + " --json");
  EXPECT_EQ(cancel.exit_code, 0) << cancel.out;
  auto cancelled = nlohmann::json::parse(cancel.out, nullptr, false);
  EXPECT_EQ(cancelled["id"], id) << cancel.out;
  EXPECT_TRUE(cancelled["state"].is_string());
  EXPECT_EQ(kwb("cancel not-an-id").exit_code, 2);
  std::filesystem::remove_all(dir);
}

// The served /openapi.json is a valid OpenAPI 3.1 document (@apidevtools/swagger-parser, pinned in
// tests/openapi/package-lock.json) and declares what agents need: query parameters, schemas.
TEST_F(AgentContract, OpenApiDocumentIsValidAndComplete) {
  const auto tools = source_dir() / "tests/openapi";
  ASSERT_TRUE(std::filesystem::exists(tools / "node_modules/@apidevtools/swagger-parser"))
      << tools << "/node_modules is missing: run .ci/setup (it runs `npm ci` in tests/openapi)";
  auto r = client().Get("/openapi.json");
  ASSERT_TRUE(r && r->status == 200);
  auto doc = json_of(r);
  auto file = std::filesystem::temp_directory_path() / ("kwb-openapi-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << r->body;
  auto v = run_command("cd " + shell_quote(tools.string()) + " && node validate.mjs " + shell_quote(file.string()) + " 2>&1");
  std::filesystem::remove(file);
  EXPECT_EQ(v.exit_code, 0) << v.out;
  EXPECT_NE(v.out.find("valid OpenAPI 3.1.0"), std::string::npos) << v.out;
  // Spot checks of what the first version lacked.
  auto names = [](const nlohmann::json& params) {
    std::set<std::string> out;
    for (const auto& p : params) out.insert(p["name"].get<std::string>());
    return out;
  };
  auto list = names(doc["paths"]["/v1/candidates"]["get"]["parameters"]);
  for (const char* p : {"op", "state", "status", "limit", "before"}) EXPECT_TRUE(list.count(p)) << p;
  auto events = names(doc["paths"]["/v1/candidates/{id}/events"]["get"]["parameters"]);
  for (const char* p : {"wait", "after", "Last-Event-ID"}) EXPECT_TRUE(events.count(p)) << p;
  EXPECT_TRUE(names(doc["paths"]["/v1/candidates/{id}/diff"]["get"]["parameters"]).count("format"));
  EXPECT_EQ(doc["paths"]["/v1/specs/{op}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/Spec");
  EXPECT_TRUE(doc["components"]["schemas"]["Candidate"]["properties"].contains("decision"));
  // The reviewer's list (issue 17, point 7) is documented with its role and schema.
  EXPECT_EQ(doc["paths"]["/v1/review"]["get"]["x-kwb-role"], "reviewer");
  EXPECT_EQ(doc["paths"]["/v1/review"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/ReviewQueue");
  EXPECT_EQ(doc["components"]["securitySchemes"]["bearer"]["scheme"], "bearer");
  for (const auto& [path, methods] : doc["paths"].items())
    for (const auto& [method, op] : methods.items()) {
      bool has_success = false;
      for (const auto& [code, resp] : op["responses"].items()) has_success |= code[0] == '2' && resp.contains("content");
      // GET /mcp is the MCP transport's optional server-initiated stream, which this server does not
      // offer: the Streamable HTTP transport says to answer 405 (docs/mcp.md).
      const bool no_success_by_design = method == "get" && path == "/mcp";
      EXPECT_TRUE(has_success || no_success_by_design) << method << " " << path << " has no success response schema";
      EXPECT_TRUE(op["responses"]["400"]["content"]["application/json"]["schema"]["$ref"] == "#/components/schemas/Error")
          << method << " " << path;
    }
}

TEST(KwbCli, MisspelledSubcommandSuggestsTheClosest) {
  auto r = run_command((bin_dir() / "kwb").string() + " sumbit x.cpp --op vector_add 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("unknown command 'sumbit'; did you mean 'submit'?"), std::string::npos) << r.out;
  auto nested = run_command((bin_dir() / "kwb").string() + " spec chek dir 2>&1");
  EXPECT_EQ(nested.exit_code, 2);
  EXPECT_NE(nested.out.find("kwb spec: unknown command 'chek'; did you mean 'check'?"), std::string::npos) << nested.out;
}

}  // namespace
