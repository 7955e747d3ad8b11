// The daemon over real HTTP on a free loopback port: submit -> events -> verdict, idempotency,
// cancel, input validation (4xx), the OpenAPI document. Auth and quotas: test_daemon_auth.cpp.
#include <httplib.h>

#include <gtest/gtest.h>

#include "daemon_support.hpp"
#include "library/device_class.hpp"

namespace {

using namespace kwb::test;

std::string vector_add_source(const std::string& tag = "") {
  return "#include <cstdint>\n// " + tag + "\nextern \"C\" void kwb_vector_add_f32(const float* a, const float* b, "
         "float* c, int64_t n) { for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i]; }\n";
}

std::string submit_body(const std::string& source, const std::string& op = "vector_add") {
  return nlohmann::json{{"op", op}, {"source", source}}.dump();
}

nlohmann::json body_of(const httplib::Result& r) {
  return r ? nlohmann::json::parse(r->body, nullptr, false) : nlohmann::json();
}

class DaemonApi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_daemon = new DaemonProcess();
    s_daemon->start({"--no-auth", "--time-budget-ms", "20", "--heartbeat-ms", "200"});
  }
  static void TearDownTestSuite() { delete s_daemon; }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", s_daemon->port());
    c.set_read_timeout(120, 0);
    return c;
  }
  static DaemonProcess* s_daemon;
};
DaemonProcess* DaemonApi::s_daemon = nullptr;

TEST_F(DaemonApi, SubmitStreamsEventsAndReachesAVerdict) {
  ASSERT_TRUE(s_daemon->running()) << s_daemon->log();
  auto c = client();
  auto r = c.Post("/v1/candidates", submit_body(vector_add_source("events")), "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 202) << r->body;
  std::string id = body_of(r)["id"];
  EXPECT_EQ(r->get_header_value("Location"), "/v1/candidates/" + id);
  // SSE: read the whole stream; it ends after the terminal state.
  std::string stream;
  auto ev = c.Get("/v1/candidates/" + id + "/events", [&](const char* data, size_t n) {
    stream.append(data, n);
    return true;
  });
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->get_header_value("Content-Type"), "text/event-stream");
  for (const char* want : {"event: state", "\"compiling\"", "\"benchmarking\"", "event: verdict", "\"done\""})
    EXPECT_NE(stream.find(want), std::string::npos) << want << " missing from\n" << stream;
  auto got = body_of(c.Get("/v1/candidates/" + id));
  EXPECT_EQ(got["state"], "done");
  EXPECT_EQ(got["verdict"]["status"], "accepted") << got.dump();
  EXPECT_EQ(got["verdict"]["candidate"], id);
  // Replay from an event id: only later events come back.
  httplib::Headers h = {{"Last-Event-ID", "3"}};
  auto replay = c.Get("/v1/candidates/" + id + "/events", h);
  ASSERT_TRUE(replay);
  EXPECT_EQ(replay->body.find("id: 3\n"), std::string::npos);
  EXPECT_NE(replay->body.find("id: 4\n"), std::string::npos);
  // Long-poll form.
  auto lp = body_of(c.Get("/v1/candidates/" + id + "/events?wait=1&after=0"));
  EXPECT_TRUE(lp["done"].get<bool>());
  EXPECT_GE(lp["events"].size(), 5u);
}

TEST_F(DaemonApi, IdempotentResubmitReturnsTheSameId) {
  auto c = client();
  httplib::Headers h = {{"Idempotency-Key", "same-key-1"}};
  auto a = c.Post("/v1/candidates", h, submit_body(vector_add_source("idem")), "application/json");
  auto b = c.Post("/v1/candidates", h, submit_body(vector_add_source("idem")), "application/json");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->status, 202);
  EXPECT_EQ(b->status, 200);
  EXPECT_EQ(b->get_header_value("Idempotent-Replay"), "true");
  EXPECT_EQ(body_of(a)["id"], body_of(b)["id"]);
}

// The daemon serves the cuda backend everywhere: without a GPU the candidate is still analysed
// and compiled with NVRTC (its compile errors are real verdicts), then the verdict is no_device.
TEST_F(DaemonApi, CudaCandidatesAreCompiledEvenWithoutAGpu) {
  ASSERT_TRUE(s_daemon->running()) << s_daemon->log();
  auto c = client();
  auto source = read_text(source_dir() / "kernels" / "vector_add" / "cuda" / "vectorized.cu");
  auto r = c.Post("/v1/candidates", nlohmann::json{{"op", "vector_add"}, {"backend", "cuda"}, {"source", source}}.dump(),
                  "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 202) << r->body;
  std::string id = body_of(r)["id"];
  nlohmann::json done = nlohmann::json::object();  // long-polls of 60 s: a loaded ctest -j2 may take minutes to decide
  for (int round = 0; round < 6 && !(done.is_object() && done.value("state", "") == "done"); ++round)
    done = body_of(c.Get("/v1/candidates/" + id + "?wait=60"));
  ASSERT_EQ(done["state"], "done") << done.dump(2);
  const auto& v = done["verdict"];
  std::string reason = v["reason"];
  if (v["status"] == "accepted") GTEST_SKIP() << "this machine has a GPU: " << reason;
  if (reason.find("NVRTC") != std::string::npos && v["status"] != "no_device")
    GTEST_SKIP() << "no NVRTC here: " << reason;
  EXPECT_EQ(v["status"], "no_device") << v.dump(2);
  EXPECT_EQ(v["backend"], "cuda");
  EXPECT_NE(v["toolchain"].get<std::string>().find("NVRTC"), std::string::npos) << v.dump(2);
}

// cuda-launcher: the host entry is built by nvcc in the compile sandbox, then no_device here.
TEST_F(DaemonApi, LauncherCandidatesAreBuiltByNvccEvenWithoutAGpu) {
  ASSERT_TRUE(s_daemon->running()) << s_daemon->log();
  auto c = client();
  auto source = read_text(source_dir() / "tests" / "security" / "cuda" / "honest_launcher_vector_add.cu");
  auto r = c.Post("/v1/candidates",
                  nlohmann::json{{"op", "vector_add"}, {"backend", "cuda-launcher"}, {"source", source}}.dump(),
                  "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 202) << r->body;
  std::string id = body_of(r)["id"];
  nlohmann::json done = nlohmann::json::object();
  for (int i = 0; i < 3 && !(done.is_object() && done.value("state", "") == "done"); ++i)  // nvcc on a loaded machine
    done = body_of(c.Get("/v1/candidates/" + id + "?wait=60"));
  ASSERT_EQ(done["state"], "done") << done.dump(2);
  const auto& v = done["verdict"];
  std::string reason = v["reason"];
  if (v["status"] == "accepted") GTEST_SKIP() << "this machine has a GPU: " << reason;
  if (reason.find("nvcc") != std::string::npos && v["status"] == "error") GTEST_SKIP() << "no nvcc here: " << reason;
  EXPECT_EQ(v["status"], "no_device") << v.dump(2);
  EXPECT_EQ(v["backend"], "cuda-launcher");
  EXPECT_EQ(v["variant"], "f32");
  EXPECT_NE(v["toolchain"].get<std::string>().find("nvcc"), std::string::npos) << v.dump(2);
}

// "bench" selects bench workloads for fast feedback; such a verdict cannot be promoted.
TEST_F(DaemonApi, ABenchSubsetIsTimedAloneAndIsNotPromotable) {
  ASSERT_TRUE(s_daemon->running()) << s_daemon->log();
  auto c = client();
  auto unknown = c.Post("/v1/candidates",
                        nlohmann::json{{"op", "vector_add"}, {"source", vector_add_source("b0")}, {"bench", {"n3"}}}.dump(),
                        "application/json");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 422);
  EXPECT_NE(unknown->body.find("no cpu bench workload 'n3' (known: n1M, n16M)"), std::string::npos) << unknown->body;
  auto r = c.Post("/v1/candidates",
                  nlohmann::json{{"op", "vector_add"}, {"source", vector_add_source("b1")}, {"bench", {"n1M"}}}.dump(),
                  "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 202) << r->body;
  std::string id = body_of(r)["id"];
  nlohmann::json done = nlohmann::json::object();  // long-polls of 60 s: a loaded ctest -j2 may take minutes to decide
  for (int round = 0; round < 6 && !(done.is_object() && done.value("state", "") == "done"); ++round)
    done = body_of(c.Get("/v1/candidates/" + id + "?wait=60"));
  ASSERT_EQ(done["state"], "done") << done.dump(2);
  EXPECT_EQ(done["bench"], nlohmann::json::array({"n1M"}));
  const auto& v = done["verdict"];
  ASSERT_EQ(v["status"], "accepted") << v.dump(2);
  std::vector<std::string> bench;
  for (const auto& w : v["workloads"])
    if (w["kind"] == "bench") bench.push_back(w["name"]);
  EXPECT_EQ(bench, std::vector<std::string>{"n1M"});
  auto p = c.Post("/v1/candidates/" + id + "/promote", "", "application/json");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->status, 409);
  // Refused for the subset, whatever the comparison with the shipped incumbent said.
  std::string why = body_of(p)["error"]["message"];
  EXPECT_NE(why.find("missing: n16M"), std::string::npos) << why << "\n" << v.dump(2);
}

TEST_F(DaemonApi, CancelAQueuedOrRunningCandidate) {
  auto c = client();
  // A kernel that never returns keeps the device lane busy, so the next one stays queued.
  std::string spin = "#include <cstdint>\nextern \"C\" void kwb_vector_add_f32(const float*, const float*, float*, "
                     "int64_t) { volatile int x = 0; while (x == 0) {} }\n";
  auto busy = body_of(c.Post("/v1/candidates", submit_body(spin), "application/json"));
  auto queued = body_of(c.Post("/v1/candidates", submit_body(vector_add_source("to-cancel")), "application/json"));
  std::string id = queued["id"];
  auto r = c.Post("/v1/candidates/" + id + "/cancel", "", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  auto busy_cancel = body_of(c.Post("/v1/candidates/" + busy["id"].get<std::string>() + "/cancel", "", "application/json"));
  EXPECT_TRUE(busy_cancel["state"] == "cancelled" || busy_cancel["detail"].get<std::string>().find("requested") != std::string::npos)
      << busy_cancel.dump();
  auto got = body_of(c.Get("/v1/candidates/" + id + "?wait=60"));
  EXPECT_EQ(got["state"], "cancelled") << got.dump();
  EXPECT_TRUE(got["verdict"].is_null());
  // Promoting it says why it cannot be (issue 17, point 7), not a generic refusal.
  auto p = c.Post("/v1/candidates/" + id + "/promote", "", "application/json");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->status, 409);
  EXPECT_EQ(body_of(p)["error"]["type"], "not_promotable");
  EXPECT_NE(body_of(p)["error"]["message"].get<std::string>().find("was cancelled before it got a verdict"),
            std::string::npos)
      << p->body;
  // The running one is stopped (its sandbox killed), well before the 10 s run limit.
  auto t0 = std::chrono::steady_clock::now();
  auto busy_final = body_of(c.Get("/v1/candidates/" + busy["id"].get<std::string>() + "?wait=60"));
  EXPECT_EQ(busy_final["state"], "cancelled") << busy_final.dump();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(8));
}

TEST_F(DaemonApi, ListPagesKeepTheirFilters) {
  auto c = client();
  for (const char* tag : {"page-a", "page-b"})
    ASSERT_EQ(c.Post("/v1/candidates", submit_body(vector_add_source(tag)), "application/json")->status, 202);
  auto first = body_of(c.Get("/v1/candidates?op=vector_add&limit=1"));
  ASSERT_TRUE(first["next"].is_string()) << first.dump(2);
  std::string next = first["next"];
  EXPECT_NE(next.find("op=vector_add"), std::string::npos) << next;
  auto second = body_of(c.Get(next));
  ASSERT_EQ(second["items"].size(), 1u) << second.dump(2);
  EXPECT_EQ(second["items"][0]["op"], "vector_add");
  EXPECT_NE(second["items"][0]["id"], first["items"][0]["id"]);  // the page after the first
  // The variant inferred from the entry symbol is stored with the candidate once it is done.
  // The shipped bench workloads (n16M) under a loaded ctest -j2 may take minutes to decide.
  nlohmann::json done = nlohmann::json::object();
  for (int round = 0; round < 6 && !(done.is_object() && done.value("state", "") == "done"); ++round)
    done = body_of(c.Get("/v1/candidates/" + second["items"][0]["id"].get<std::string>() + "?wait=60"));
  ASSERT_EQ(done["state"], "done") << done.dump(2);
  EXPECT_EQ(done["variant"], "f32") << done.dump(2);
}

TEST_F(DaemonApi, MalformedRequestsGetClear4xx) {
  auto c = client();
  struct Case {
    std::string body;
    int status;
    std::string type, mention;
  };
  std::vector<Case> cases = {
      {"{not json", 400, "invalid_json", "not valid JSON"},
      {"[1,2]", 400, "invalid_json", "JSON object"},
      {std::string("{\"op\":\"vector_add\",\"source\":\"\xff\xfe\"}"), 400, "invalid_utf8", "UTF-8"},
      {R"({"op":"no_such_op","source":"x"})", 422, "unknown_op", "no_such_op"},
      {R"({"op":"gemm","variant":"f8","source":"x"})", 422, "unknown_variant", "f8"},
      {R"({"op":42,"source":"x"})", 400, "invalid_field", "op: expected string, got number"},
      {R"({"op":"vector_add","source":["x"]})", 400, "invalid_field", "source: expected string, got array"},
      {R"({"op":"vector_add"})", 400, "invalid_field", "source: required"},
      {R"({"op":"vector_add","source":"x","flags":"-O2"})", 400, "invalid_field", "flags: expected array"},
      {R"({"op":"vector_add","source":"x","flags":["-fplugin=/tmp/x.so"]})", 422, "forbidden_flag", "-fplugin"},
      {R"({"op":"vector_add","source":"x","source_name":"../../etc/passwd"})", 400, "invalid_field", "source_name"},
      {R"({"op":"vector_add","source":"x","sourze":"y"})", 400, "invalid_field", "sourze: unknown field"},
      {R"({"op":"vector_add","source":"x","backend":"tpu"})", 400, "invalid_field", "backend"},
  };
  for (const auto& k : cases) {
    auto r = c.Post("/v1/candidates", k.body, "application/json");
    ASSERT_TRUE(r) << k.body;
    EXPECT_EQ(r->status, k.status) << k.body << " -> " << r->body;
    auto j = body_of(r);
    EXPECT_EQ(j["error"]["type"], k.type) << r->body;
    EXPECT_NE(j["error"]["message"].get<std::string>().find(k.mention), std::string::npos) << r->body;
  }
  std::string big(2 << 20, 'x');
  auto r = c.Post("/v1/candidates", submit_body(big), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(body_of(r)["error"]["type"], "too_large");
  // Path traversal and unknown names in routes.
  for (std::string path : {"/v1/specs/..%2F..%2Fetc%2Fpasswd", "/v1/specs/no_such_op", "/v1/candidates/c-../../x",
                           "/v1/candidates/c-0000000000000000"}) {
    auto g = c.Get(path);
    ASSERT_TRUE(g) << path;
    EXPECT_EQ(g->status, 404) << path << " -> " << g->body;
    EXPECT_TRUE(body_of(g)["error"].is_object()) << g->body;
  }
  auto bad_q = c.Get("/v1/candidates?limit=abc");
  ASSERT_TRUE(bad_q);
  EXPECT_EQ(bad_q->status, 400);
}

// GET /v1/devices lists this machine's device classes with their calibration; a submission may
// ask for one of them, and an unknown class, or one of the other kind, is refused naming the known
// ones (docs/fleet.md "Device classes").
TEST_F(DaemonApi, ASubmissionMayAskForALocalDeviceClassAndAnUnknownOneIsRefused) {
  ASSERT_TRUE(s_daemon->running()) << s_daemon->log();
  auto c = client();
  auto devices = body_of(c.Get("/v1/devices"));
  ASSERT_TRUE(devices.is_object()) << devices;
  EXPECT_EQ(devices["executor"], "local");
  const std::string cpu_class = kwb::library::host_cpu_class();
  ASSERT_FALSE(devices["device_classes"].empty()) << devices.dump(2);
  const auto& first = devices["device_classes"][0];
  EXPECT_EQ(first["device_class"], cpu_class) << devices.dump(2);
  EXPECT_EQ(first["kind"], "cpu");
  EXPECT_TRUE(first["partition"].is_null());
  // The class's device is this machine's calibrated CPU (calibrated at start-up).
  ASSERT_EQ(first["devices"].size(), 1u) << devices.dump(2);
  bool listed = false;
  for (const auto& d : devices["devices"])
    if (d["id"] == first["devices"][0]) {
      listed = true;
      EXPECT_EQ(d["device_class"], cpu_class);
      EXPECT_GT(d["copy_bytes_per_s"].get<double>(), 0);
    }
  EXPECT_TRUE(listed) << devices.dump(2);

  auto ask = [&](const std::string& device_class, const std::string& backend = "cpu") {
    nlohmann::json body = {{"op", "vector_add"}, {"source", vector_add_source("class " + device_class)},
                           {"backend", backend}, {"device_class", device_class}};
    return c.Post("/v1/candidates", body.dump(), "application/json");
  };
  for (const auto& [cls, backend] : {std::pair{std::string("cpu-aarch64"), "cpu"}, std::pair{std::string("cuda-sm_1000"), "cuda"},
                                     std::pair{cpu_class, "cuda"}}) {
    auto r = ask(cls, backend);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 422) << cls << " " << backend << ": " << r->body;
    EXPECT_EQ(body_of(r)["error"]["type"], "unknown_device_class") << r->body;
    EXPECT_NE(r->body.find("known: " + cpu_class), std::string::npos) << r->body;
    EXPECT_NE(r->body.find("device_class"), std::string::npos) << r->body;
  }
  auto typed = c.Post("/v1/candidates", nlohmann::json{{"op", "vector_add"}, {"source", vector_add_source()}, {"device_class", 3}}.dump(),
                      "application/json");
  ASSERT_TRUE(typed);
  EXPECT_EQ(typed->status, 400) << typed->body;

  auto r = ask(cpu_class);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 202) << r->body;
  const std::string id = body_of(r)["id"];
  auto got = body_of(c.Get("/v1/candidates/" + id));
  EXPECT_EQ(got["device_class"], cpu_class) << got.dump(2);
  auto listed_by_class = body_of(c.Get("/v1/candidates?device_class=" + cpu_class));
  ASSERT_FALSE(listed_by_class["items"].empty());
  for (const auto& item : listed_by_class["items"]) EXPECT_EQ(item["device_class"], cpu_class);
  EXPECT_TRUE(body_of(c.Get("/v1/candidates?device_class=cuda-sm_1000"))["items"].empty());
}

TEST_F(DaemonApi, OpenApiDocumentMatchesTheRoutes) {
  auto c = client();
  auto doc = body_of(c.Get("/openapi.json"));
  ASSERT_EQ(doc["openapi"], "3.1.0");
  ASSERT_TRUE(doc["paths"].is_object());
  int checked = 0;
  for (const auto& [path, methods] : doc["paths"].items()) {
    std::string concrete = path;
    if (auto p = concrete.find("{id}"); p != std::string::npos) concrete.replace(p, 4, "c-0000000000000000");
    if (auto p = concrete.find("{op}"); p != std::string::npos) concrete.replace(p, 4, "softmax");
    if (auto p = concrete.find("{token_id}"); p != std::string::npos) concrete.replace(p, 10, "999999");
    for (const auto& [method, op] : methods.items()) {
      httplib::Result r = method == "get"      ? c.Get(concrete)
                          : method == "delete" ? c.Delete(concrete)
                                               : c.Post(concrete, "{}", "application/json");
      ASSERT_TRUE(r) << method << " " << concrete;
      // A documented route exists: anything but the router's own "no route" answer.
      auto err = body_of(r);
      bool no_route = r->status == 404 && err.is_object() && err.contains("error") &&
                      err["error"]["message"].get<std::string>().rfind("no route", 0) == 0;
      EXPECT_FALSE(no_route) << method << " " << path << " is documented but not served";
      ++checked;
    }
  }
  EXPECT_GE(checked, 12);
  // And a route that is not documented is not served.
  auto r = c.Get("/v1/undocumented");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
}

}  // namespace
