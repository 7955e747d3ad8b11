// Adding an op to a running daemon (issue #16; docs/specs.md "Adding an op"): POST /v1/specs with
// a reviewer token commits silu_gate (not one of the nine) into the library as one commit with
// trailers, GET /v1/specs serves it at once and after a restart, a CPU kernel for it is accepted
// for evaluation; a changed meaning without a new version is 409, a bad spec 400 naming file and
// field, a submitter token 403; `kwb spec add` works through the daemon and on a workspace with no
// daemon, and refuses to go behind a running daemon's back.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "daemon_support.hpp"
#include "library/repository.hpp"

namespace {

using namespace kwb::test;
namespace fs = std::filesystem;

nlohmann::json body_of(const httplib::Result& r) {
  return r ? nlohmann::json::parse(r->body, nullptr, false) : nlohmann::json();
}

fs::path cases() { return source_dir() / "tests" / "integration" / "spec_cases"; }

std::string replaced_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) text.replace(at, from.size(), to);
  return text;
}

// The silu_gate folder's files, renamed to `op` (each test adds an op of its own).
std::map<std::string, std::string> silu_files(const std::string& op) {
  return {{"spec.json", replaced_all(read_text(cases() / "silu_gate" / "spec.json"), "silu_gate", op)},
          {"reference.cpp", replaced_all(read_text(cases() / "silu_gate" / "reference.cpp"), "silu_gate", op)}};
}

std::string edited(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

class SpecAdd : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_daemon = new DaemonProcess();
    std::string error;
    if (!s_daemon->start({"--time-budget-ms", "50", "--rate", "5000"}, {}, &error)) {
      s_error = error;
      return;
    }
    s_admin = read_text(s_daemon->workspace() / "admin.token");
    s_admin.erase(s_admin.find_last_not_of('\n') + 1);
    s_reviewer = make_token("rita", "reviewer");
    s_agent = make_token("alice", "agent");
  }
  static void TearDownTestSuite() {
    fs::path ws = s_daemon->workspace();
    delete s_daemon;
    std::error_code ec;
    fs::remove_all(ws, ec);
  }
  void SetUp() override { ASSERT_TRUE(s_error.empty()) << s_error; }

  static httplib::Client client() {
    httplib::Client c("127.0.0.1", s_daemon->port());
    c.set_read_timeout(120, 0);
    return c;
  }
  static httplib::Headers as(const std::string& token) { return {{"Authorization", "Bearer " + token}}; }
  static std::string make_token(const std::string& name, const std::string& role) {
    auto r = client().Post("/v1/tokens", as(s_admin), nlohmann::json{{"name", name}, {"role", role}}.dump(),
                           "application/json");
    return r && r->status == 201 ? body_of(r)["token"].get<std::string>() : "";
  }
  static httplib::Result post_spec(const std::map<std::string, std::string>& files, const std::string& token) {
    return client().Post("/v1/specs", as(token), nlohmann::json{{"files", files}}.dump(), "application/json");
  }
  static fs::path library_dir() { return s_daemon->workspace() / "library"; }
  // Commits that changed specs/<op>/ (newest first).
  static std::vector<kwb::library::CommitInfo> spec_commits(const std::string& op) {
    auto repo = kwb::library::Repository::open(library_dir());
    EXPECT_TRUE(repo.has_value());
    if (!repo) return {};
    auto log = (*repo)->log("specs/" + op);
    EXPECT_TRUE(log.has_value());
    return log ? *log : std::vector<kwb::library::CommitInfo>{};
  }
  static nlohmann::json listed(const std::string& op) {
    auto all = body_of(client().Get("/v1/specs", as(s_agent)));
    for (const auto& s : all["specs"])
      if (s["op"] == op) return s;
    return {};
  }

  static DaemonProcess* s_daemon;
  static std::string s_error, s_admin, s_reviewer, s_agent;
};

DaemonProcess* SpecAdd::s_daemon = nullptr;
std::string SpecAdd::s_error, SpecAdd::s_admin, SpecAdd::s_reviewer, SpecAdd::s_agent;

TEST_F(SpecAdd, ANewOpIsOneCommitWithTrailersAndIsServedAtOnce) {
  ASSERT_FALSE(s_reviewer.empty());
  auto files = silu_files("silu_gate");
  EXPECT_TRUE(listed("silu_gate").is_null());
  auto r = post_spec(files, s_reviewer);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  auto body = body_of(r);
  EXPECT_EQ(body["status"], "added");
  EXPECT_EQ(body["op"], "silu_gate");
  EXPECT_EQ(body["version"], 1);
  EXPECT_TRUE(body["replaces"].is_null());
  const std::string commit = body["commit"];

  // One commit under specs/silu_gate/, with the trailers, holding exactly the files sent.
  auto commits = spec_commits("silu_gate");
  ASSERT_EQ(commits.size(), 1u);
  EXPECT_EQ(commits[0].id, commit);
  EXPECT_EQ(commits[0].summary, "Add spec silu_gate v1");
  EXPECT_EQ(commits[0].trailers["Kwb-Spec"], "silu_gate");
  EXPECT_EQ(commits[0].trailers["Kwb-Spec-Version"], "1");
  EXPECT_EQ(commits[0].trailers["Kwb-Spec-Digest"], body["digest"]);
  EXPECT_EQ(commits[0].trailers["Kwb-Spec-Replaces"], "none");
  EXPECT_EQ(commits[0].trailers["Kwb-Added-By"], "rita");
  auto repo = kwb::library::Repository::open(library_dir());
  ASSERT_TRUE(repo.has_value());
  auto all = (*repo)->files(commit);
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ((*all)["specs/silu_gate/spec.json"], files["spec.json"]);
  EXPECT_EQ((*all)["specs/silu_gate/reference.cpp"], files["reference.cpp"]);
  auto everything = (*repo)->log("", 1000);
  ASSERT_TRUE(everything.has_value());
  ASSERT_GE(everything->size(), 2u);
  EXPECT_EQ((*everything)[0].id, commit);  // the seed, then (other tests' specs and) this one commit

  // Served without a restart: listed, shown, and submissions for it are accepted.
  auto spec = listed("silu_gate");
  ASSERT_TRUE(spec.is_object());
  EXPECT_EQ(spec["version"], 1);
  auto one = client().Get("/v1/specs/silu_gate", as(s_agent));
  ASSERT_TRUE(one);
  EXPECT_EQ(one->status, 200);
  EXPECT_EQ(body_of(one)["variants"][0]["entry"], "kwb_silu_gate_bf16");

  // The same files again: nothing to commit.
  auto again = post_spec(files, s_reviewer);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200) << again->body;
  EXPECT_EQ(body_of(again)["status"], "unchanged");
  EXPECT_EQ(spec_commits("silu_gate").size(), 1u);

  auto sub = client().Post("/v1/candidates", as(s_agent),
                           nlohmann::json{{"op", "silu_gate"}, {"source", read_text(cases() / "silu_gate_kernel.cpp")},
                                          {"note", "f32 silu, one bf16 rounding"}}.dump(),
                           "application/json");
  ASSERT_TRUE(sub);
  ASSERT_EQ(sub->status, 202) << sub->body;
  const std::string id = body_of(sub)["id"];
  nlohmann::json verdict;
  for (int i = 0; i < 10 && verdict.is_null(); ++i) {
    auto j = body_of(client().Get("/v1/candidates/" + id + "?wait=60", as(s_agent)));
    if (j.is_object() && j["state"] == "done") verdict = j["verdict"];
  }
  ASSERT_TRUE(verdict.is_object()) << "no verdict for " << id;
  EXPECT_EQ(verdict["op"], "silu_gate");
  EXPECT_EQ(verdict["spec_version"], 1);

  // The reference of an op added at run time is built at run time (eval::ReferenceHost).
  ASSERT_EQ(verdict["status"], "accepted") << verdict.dump(2);
  EXPECT_EQ(verdict["summary"]["beats_incumbent"], true) << verdict["reason"];  // the first kernel of the op
  auto promoted = client().Post("/v1/candidates/" + id + "/promote", as(s_reviewer), "", "application/json");
  ASSERT_TRUE(promoted);
  ASSERT_EQ(promoted->status, 200) << promoted->body;
  auto kernel_log = (*kwb::library::Repository::open(library_dir()))->log("silu_gate");
  ASSERT_TRUE(kernel_log.has_value());
  ASSERT_EQ(kernel_log->size(), 1u);
  EXPECT_EQ(kernel_log->front().trailers["Kwb-Op"], "silu_gate");
  EXPECT_EQ(kernel_log->front().trailers["Kwb-Spec-Version"], "1");
  EXPECT_EQ(spec_commits("silu_gate").size(), 1u);  // the spec commit and the kernel commit are apart

  // The same op's CUDA kernel compiles (NVRTC in its sandbox) and, without a GPU, is no_device.
  auto cu = client().Post("/v1/candidates", as(s_agent),
                          nlohmann::json{{"op", "silu_gate"}, {"backend", "cuda"},
                                         {"source", read_text(cases() / "silu_gate_kernel.cu")}}.dump(),
                          "application/json");
  ASSERT_TRUE(cu);
  ASSERT_EQ(cu->status, 202) << cu->body;
  const std::string cu_id = body_of(cu)["id"];
  nlohmann::json cu_verdict;
  for (int i = 0; i < 10 && cu_verdict.is_null(); ++i) {
    auto j = body_of(client().Get("/v1/candidates/" + cu_id + "?wait=60", as(s_agent)));
    if (j.is_object() && j["state"] == "done") cu_verdict = j["verdict"];
  }
  ASSERT_TRUE(cu_verdict.is_object()) << "no verdict for " << cu_id;
  EXPECT_EQ(cu_verdict["status"], "no_device") << cu_verdict.dump(2);  // integration tests run without a GPU
  EXPECT_TRUE(cu_verdict["summary"]["stage_ms"].contains("nvrtc")) << cu_verdict.dump(2);  // it was compiled
}

TEST_F(SpecAdd, AChangedMeaningNeedsANewVersion) {
  auto files = silu_files("silu_gate_v");
  auto first = post_spec(files, s_reviewer);
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 201) << first->body;

  // The reference changed, the version did not: 409, naming the file served and the fix.
  auto ref = files;
  ref["reference.cpp"] = edited(ref["reference.cpp"], "std::exp(-xv)", "std::exp(-xv) + 1e-12");
  auto r = post_spec(ref, s_reviewer);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 409) << r->body;
  auto e = body_of(r)["error"];
  EXPECT_EQ(e["type"], "spec_conflict");
  EXPECT_EQ(e["file"], "spec.json");
  EXPECT_EQ(e["field"], "version");
  const std::string m = e["message"];
  EXPECT_NE(m.find("version 1 is already served"), std::string::npos) << m;
  EXPECT_NE(m.find("\"version\": 2"), std::string::npos) << m;
  // So is a changed tolerance.
  auto tol = files;
  tol["spec.json"] = edited(tol["spec.json"], "\"rtol\": 8e-3", "\"rtol\": 1e-2");
  auto t = post_spec(tol, s_reviewer);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->status, 409) << t->body;
  EXPECT_EQ(spec_commits("silu_gate_v").size(), 1u);

  // A descriptive edit (the summary) keeps the version.
  auto desc = files;
  desc["spec.json"] = edited(desc["spec.json"], "SiLU of x times", "SiLU (x * sigmoid(x)) of x times");
  auto d = post_spec(desc, s_reviewer);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->status, 201) << d->body;
  EXPECT_EQ(body_of(d)["replaces"], "v1 (descriptive edit)");
  EXPECT_NE(listed("silu_gate_v")["summary"].get<std::string>().find("sigmoid"), std::string::npos);

  // With a new version the changed reference is accepted and becomes current.
  ref["spec.json"] = edited(ref["spec.json"], "\"version\": 1", "\"version\": 2");
  auto v2 = post_spec(ref, s_reviewer);
  ASSERT_TRUE(v2);
  ASSERT_EQ(v2->status, 201) << v2->body;
  EXPECT_EQ(body_of(v2)["replaces"], "v1");
  EXPECT_EQ(listed("silu_gate_v")["version"], 2);
  auto commits = spec_commits("silu_gate_v");
  ASSERT_EQ(commits.size(), 3u);
  EXPECT_EQ(commits[0].trailers["Kwb-Spec-Version"], "2");
  EXPECT_EQ(commits[0].trailers["Kwb-Spec-Replaces"], "v1");
  // Versions only go up.
  auto back = post_spec(files, s_reviewer);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->status, 409) << back->body;
  EXPECT_NE(body_of(back)["error"]["message"].get<std::string>().find("versions only go up"), std::string::npos);
}

TEST_F(SpecAdd, AShippedOpKeepsItsMeaningAtItsVersion) {
  std::map<std::string, std::string> files = {
      {"spec.json", edited(read_text(source_dir() / "specs" / "vector_add" / "spec.json"), "\"rtol\": 1e-6", "\"rtol\": 1e-3")},
      {"reference.cpp", read_text(source_dir() / "specs" / "vector_add" / "reference.cpp")}};
  auto r = post_spec(files, s_reviewer);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 409) << r->body;
  EXPECT_NE(body_of(r)["error"]["message"].get<std::string>().find("specs/vector_add/spec.json"), std::string::npos)
      << r->body;
}

TEST_F(SpecAdd, OnlyReviewersAndAdminsAddSpecs) {
  auto files = silu_files("silu_gate_denied");
  auto agent = post_spec(files, s_agent);
  ASSERT_TRUE(agent);
  EXPECT_EQ(agent->status, 403) << agent->body;
  auto none = client().Post("/v1/specs", nlohmann::json{{"files", files}}.dump(), "application/json");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_TRUE(listed("silu_gate_denied").is_null());
  EXPECT_TRUE(spec_commits("silu_gate_denied").empty());
  auto admin = post_spec(files, s_admin);
  ASSERT_TRUE(admin);
  EXPECT_EQ(admin->status, 201) << admin->body;
}

TEST_F(SpecAdd, ABadSpecIs400NamingFileAndField) {
  auto files = silu_files("silu_gate_bad");
  auto bad = files;
  bad["spec.json"] = edited(bad["spec.json"], "{\"n\": 7}", "{\"n\": \"4k\"}");
  auto r = post_spec(bad, s_reviewer);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->body;
  auto e = body_of(r)["error"];
  EXPECT_EQ(e["type"], "invalid_spec");
  EXPECT_EQ(e["file"], "spec.json");
  EXPECT_EQ(e["field"], "workloads.test[1].params.n");
  EXPECT_EQ(e["message"].get<std::string>().find("/tmp"), std::string::npos) << "names a staging path: " << e["message"];

  auto path = files;
  path["../evil.cpp"] = "int x;";
  auto p = post_spec(path, s_reviewer);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->status, 400) << p->body;
  EXPECT_EQ(body_of(p)["error"]["file"], "files.../evil.cpp");

  auto stray = files;
  stray["notes.txt"] = "hello";
  auto s = post_spec(stray, s_reviewer);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->status, 400) << s->body;
  EXPECT_EQ(body_of(s)["error"]["file"], "files.notes.txt");

  auto no_ref = files;
  no_ref.erase("reference.cpp");
  auto n = post_spec(no_ref, s_reviewer);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->status, 400) << n->body;
  EXPECT_EQ(body_of(n)["error"]["file"], "files.reference.cpp");

  auto big = files;
  big["reference.cu"] = std::string(300 << 10, ' ');
  auto b = post_spec(big, s_reviewer);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->status, 400) << b->body;

  EXPECT_TRUE(listed("silu_gate_bad").is_null());
  EXPECT_TRUE(spec_commits("silu_gate_bad").empty());
}

TEST_F(SpecAdd, TheCliAddsThroughTheDaemonOrOnAnIdleWorkspace) {
  // Through the daemon.
  char tmpl[] = "/tmp/kwb-spec-add-XXXXXX";
  ASSERT_TRUE(::mkdtemp(tmpl));
  const fs::path root = tmpl;
  const fs::path folder = root / "silu_gate_cli";
  fs::create_directories(folder);
  for (const auto& [name, content] : silu_files("silu_gate_cli")) std::ofstream(folder / name) << content;
  const std::string kwb = (bin_dir() / "kwb").string();
  auto sent = run_command(kwb + " spec add " + shell_quote(folder.string()) + " --server " + s_daemon->url() +
                          " --token " + s_reviewer + " --json");
  ASSERT_EQ(sent.exit_code, 0) << sent.out;
  auto j = nlohmann::json::parse(sent.out, nullptr, false);
  EXPECT_EQ(j["status"], "added") << sent.out;
  EXPECT_EQ(listed("silu_gate_cli")["version"], 1);

  // Not behind the running daemon's back.
  auto behind = run_command(kwb + " spec add " + shell_quote(folder.string()) + " --workspace " +
                            shell_quote(s_daemon->workspace().string()) + " 2>&1");
  EXPECT_EQ(behind.exit_code, 2) << behind.out;
  EXPECT_NE(behind.out.find("add the spec through that daemon"), std::string::npos) << behind.out;

  // On a workspace no daemon serves: committed into its library, then seen by `kwb specs`.
  const fs::path ws = root / "ws";
  auto direct = run_command(kwb + " spec add " + shell_quote(folder.string()) + " --workspace " + shell_quote(ws.string()));
  ASSERT_EQ(direct.exit_code, 0) << direct.out;
  EXPECT_NE(direct.out.find("added silu_gate_cli v1 (a new op) in library commit"), std::string::npos) << direct.out;
  auto shown = run_command(kwb + " specs silu_gate_cli --json --workspace " + shell_quote(ws.string()));
  ASSERT_EQ(shown.exit_code, 0) << shown.out;
  EXPECT_NE(shown.out.find("kwb_silu_gate_cli_bf16"), std::string::npos) << shown.out;
  // A changed reference without a new version is refused there too (exit 1).
  std::ofstream(folder / "reference.cpp", std::ios::app) << "// changed\n";
  auto refused = run_command(kwb + " spec add " + shell_quote(folder.string()) + " --workspace " +
                             shell_quote(ws.string()) + " 2>&1");
  EXPECT_EQ(refused.exit_code, 1) << refused.out;
  EXPECT_NE(refused.out.find("with another meaning"), std::string::npos) << refused.out;
  std::error_code ec;
  fs::remove_all(root, ec);
}

// Runs last in this file (gtest keeps the order): a restart reads the added specs from the library.
TEST_F(SpecAdd, AddedSpecsSurviveARestart) {
  auto files = silu_files("silu_gate_kept");
  auto r = post_spec(files, s_reviewer);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  const fs::path ws = s_daemon->workspace();
  s_daemon->stop();
  std::string error;
  ASSERT_TRUE(s_daemon->start({"--time-budget-ms", "50", "--rate", "5000"}, ws, &error)) << error;
  auto spec = listed("silu_gate_kept");
  ASSERT_TRUE(spec.is_object());
  EXPECT_EQ(spec["version"], 1);
  EXPECT_EQ(spec_commits("silu_gate_kept").size(), 1u);
}

}  // namespace
