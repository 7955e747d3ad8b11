// Issue 19's feedback without a GPU: a cuda candidate's no_device verdict still carries NVRTC's
// compiler facts for every config (with the theoretical occupancy at its bench launch shapes);
// the shipped CPU kernels get the compiler's vectorisation remarks, on their own lines,
// deduplicated and capped; a timed CPU workload has its roofline position.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <utility>

#include <httplib.h>

#include "daemon_support.hpp"
#include "support.hpp"
#include "util/hash.hpp"

namespace {

using namespace kwb::test;

bool disassembler_installed() {
  return std::filesystem::exists("/usr/local/cuda/bin/nvdisasm") || std::filesystem::exists("/usr/local/cuda/bin/cuobjdump");
}

nlohmann::json wait_done(httplib::Client& c, const std::string& id) {
  nlohmann::json cand = nlohmann::json::object();
  for (int i = 0; i < 10 && cand.value("state", "") != "done"; ++i) {
    auto g = c.Get("/v1/candidates/" + id + "?wait=60");
    if (!g) break;
    cand = nlohmann::json::parse(g->body, nullptr, false);
    if (!cand.is_object()) cand = nlohmann::json::object();
  }
  return cand;
}

TEST(Feedback, CudaNoDeviceVerdictCarriesCompilerFacts) {
  auto src = source_dir() / "kernels/vector_add/cuda/vectorized.cu";  // kwb:tune BLOCK=256,512
  auto r = kwb_eval_json(src.string(), "--op vector_add");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  ASSERT_EQ(r.verdict["status"], "no_device") << r.verdict["reason"];
  const auto& facts = r.verdict["compiler_facts"];
  ASSERT_EQ(facts.size(), 2u) << facts.dump();
  EXPECT_EQ(facts[0]["config"], "BLOCK=256");
  EXPECT_EQ(facts[1]["config"], "BLOCK=512");
  for (const auto& c : facts) {
    EXPECT_EQ(c["source"], "nvrtc ptxas -v");
    EXPECT_EQ(c["arch"], "sm_90a");
    EXPECT_EQ(c["ptx_sha256"].get<std::string>().size(), 64u);
    EXPECT_EQ(c["cubin_sha256"].get<std::string>().size(), 64u);
    ASSERT_EQ(c["kernels"].size(), 1u);
    const auto& k = c["kernels"][0];
    EXPECT_EQ(k["kernel"], "vector_add_f32");
    EXPECT_GT(k["registers"].get<int>(), 0);
    EXPECT_LE(k["registers"].get<int>(), 255);
    EXPECT_EQ(k["spill_store_bytes"], 0);
    EXPECT_EQ(k["max_threads_per_block"], 1024);
    // The kernel reads float4: 128-bit global loads, no tensor cores.
    EXPECT_GT(k["instructions"]["ld_global_v4"].get<int>(), 0) << k["instructions"].dump();
    EXPECT_FALSE(k["instructions"]["tensor_cores"].get<bool>());
    EXPECT_TRUE(k["runner"].is_null());  // no device: no driver view
    // One launch shape (block=(BLOCK)) across every bench workload.
    ASSERT_EQ(k["occupancy"].size(), 1u) << k["occupancy"].dump();
    const auto& o = k["occupancy"][0];
    EXPECT_EQ(o["threads"], c["config"] == "BLOCK=256" ? 256 : 512);
    EXPECT_GT(o["pct"].get<double>(), 0);
    EXPECT_LE(o["pct"].get<double>(), 100);
    EXPECT_FALSE(o["workloads"].empty());
    EXPECT_TRUE(o["runner_blocks_per_sm"].is_null());
  }
  // The table printer shows them.
  auto table = run_command(kwb_command("eval " + shell_quote(src.string()) + " --op vector_add"));
  EXPECT_NE(table.out.find("facts BLOCK=256 vector_add_f32:"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("occupancy"), std::string::npos) << table.out;
}

struct ShippedCpu {
  std::string source, op, variant;
};

std::vector<ShippedCpu> shipped_cpu_kernels() {
  std::vector<ShippedCpu> out;
  for (const auto& meta : std::filesystem::recursive_directory_iterator(source_dir() / "kernels")) {
    if (meta.path().extension() != ".json" || meta.path().parent_path().filename() != "cpu") continue;
    auto j = nlohmann::json::parse(read_text(meta.path()), nullptr, false);
    if (j.is_discarded()) continue;
    auto src = meta.path();
    src.replace_extension(".cpp");
    out.push_back({src.string(), j.value("op", ""), j.value("variant", "")});
  }
  return out;
}

TEST(Feedback, ShippedCpuKernelsGetVectorizationRemarks) {
  int with_remarks = 0;
  std::set<std::string> kernels_with_remarks;
  for (const auto& k : shipped_cpu_kernels()) {
    auto r = kwb_eval_json(k.source, "--op " + k.op + " --variant " + k.variant + " --no-bench");
    ASSERT_FALSE(r.verdict.is_discarded()) << k.source << ": " << r.raw;
    EXPECT_EQ(r.verdict["status"], "accepted") << k.source << ": " << r.verdict["reason"];
    const std::string name = std::filesystem::path(k.source).filename().string();
    size_t lines = 0;
    for (char ch : read_text(k.source)) lines += ch == '\n';
    std::set<int> seen;
    int count = 0;
    for (const auto& d : r.verdict["diagnostics"]) {
      if (d["rule"] != "vectorization") continue;
      ++count;
      EXPECT_EQ(d["severity"], "note");
      EXPECT_EQ(std::filesystem::path(d["file"].get<std::string>()).filename().string(), name) << d.dump();
      int line = d["line"].get<int>();
      EXPECT_GE(line, 1) << d.dump();
      EXPECT_LE(size_t(line), lines + 1) << d.dump();
      EXPECT_TRUE(seen.insert(line).second) << "two remarks for line " << line << " of " << name;
      EXPECT_TRUE(d["message"].get<std::string>().starts_with("loop not vectorized")) << d.dump();
    }
    EXPECT_LE(count, 20) << name;
    if (count > 0) kernels_with_remarks.insert(k.op + "/" + name);
    with_remarks += count > 0;
  }
  // prefix_sum's scalar scan carries a dependence from one element to the next: never vectorised.
  EXPECT_TRUE(kernels_with_remarks.count("prefix_sum/scalar.cpp")) << with_remarks << " kernels with remarks";
}

TEST(Feedback, TimedCpuWorkloadHasARooflinePosition) {
  auto src = source_dir() / "kernels/row_sum/cpu/blocked.cpp";
  auto spec = nlohmann::json::parse(read_text(source_dir() / "specs/row_sum/spec.json"), nullptr, false, /*ignore_comments=*/true);
  ASSERT_TRUE(spec.is_object());
  std::string bench = spec["workloads"]["bench"][0]["name"];
  auto r = kwb_eval_json(src.string(), "--op row_sum --bench " + bench + " --time-budget-ms 30");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  ASSERT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
  bool found = false;
  for (const auto& w : r.verdict["workloads"]) {
    if (w["kind"] != "bench") continue;
    found = true;
    ASSERT_TRUE(w["feedback"].is_object()) << w.dump();
    EXPECT_EQ(w["feedback"]["config"], "default");
    EXPECT_GT(w["feedback"]["intensity"].get<double>(), 0);  // row_sum adds: some flops per byte
    ASSERT_EQ(w["feedback"]["roofline"].size(), 1u);         // the cpu calibration: bandwidth only
    const auto& p = w["feedback"]["roofline"][0];
    EXPECT_EQ(p["peaks"], "calibrated");
    EXPECT_EQ(p["bound"], "memory");
    EXPECT_TRUE(p["flops_per_s"].is_null());
    EXPECT_NEAR(p["pct_of_roof"].get<double>(), w["roofline"]["pct_bw"].get<double>(), 1e-6);
    EXPECT_NEAR(p["headroom_pct"].get<double>(), 100 - p["pct_of_roof"].get<double>(), 1e-9);
  }
  EXPECT_TRUE(found);
}

// The daemon keeps a cuda candidate's PTX and cubin per config and serves them; SASS says why not.
TEST(Feedback, DaemonServesThePtxAndCubinOfEachConfig) {
  DaemonProcess d;
  d.start({"--no-auth", "--time-budget-ms", "20"});
  ASSERT_TRUE(d.running()) << d.log();
  httplib::Client c("127.0.0.1", d.port());
  c.set_read_timeout(120, 0);
  std::string src = read_text(source_dir() / "kernels/vector_add/cuda/vectorized.cu");
  nlohmann::json body = {{"op", "vector_add"}, {"backend", "cuda"}, {"source", src}};
  auto sub = c.Post("/v1/candidates", body.dump(), "application/json");
  ASSERT_TRUE(sub);
  ASSERT_EQ(sub->status, 202) << sub->body;
  std::string id = nlohmann::json::parse(sub->body)["id"];
  nlohmann::json cand = nlohmann::json::object();
  for (int i = 0; i < 10 && cand.value("state", "") != "done"; ++i) {
    auto g = c.Get("/v1/candidates/" + id + "?wait=60");
    ASSERT_TRUE(g);
    cand = nlohmann::json::parse(g->body);
  }
  ASSERT_EQ(cand["state"], "done") << cand.dump();
  ASSERT_EQ(cand["verdict"]["status"], "no_device") << cand["verdict"]["reason"];
  const auto& facts = cand["verdict"]["compiler_facts"];
  ASSERT_EQ(facts.size(), 2u);

  auto ptx = c.Get("/v1/candidates/" + id + "/artifacts/ptx");
  ASSERT_TRUE(ptx);
  ASSERT_EQ(ptx->status, 200) << ptx->body;
  EXPECT_NE(ptx->body.find(".entry vector_add_f32"), std::string::npos);
  EXPECT_EQ(ptx->get_header_value("Content-Type").rfind("text/plain", 0), 0u);
  auto cubin = c.Get("/v1/candidates/" + id + "/artifacts/cubin?config=BLOCK%3D512");
  ASSERT_TRUE(cubin);
  ASSERT_EQ(cubin->status, 200) << cubin->body;
  EXPECT_EQ(cubin->body.substr(0, 4), std::string("\x7f" "ELF"));
  EXPECT_EQ(kwb::util::sha256_hex(cubin->body), facts[1]["cubin_sha256"]);
  auto first_cubin = c.Get("/v1/candidates/" + id + "/artifacts/cubin");
  ASSERT_TRUE(first_cubin);
  EXPECT_EQ(kwb::util::sha256_hex(first_cubin->body), facts[0]["cubin_sha256"]);

  auto unknown = c.Get("/v1/candidates/" + id + "/artifacts/ptx?config=BLOCK%3D7");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_NE(unknown->body.find("BLOCK=256, BLOCK=512"), std::string::npos) << unknown->body;
  // SASS: disassembled in the sandbox where the toolkit has a disassembler, else each config says why not.
  auto sass = c.Get("/v1/candidates/" + id + "/artifacts/sass");
  ASSERT_TRUE(sass);
  if (disassembler_installed()) {
    ASSERT_EQ(sass->status, 200) << sass->body;
    EXPECT_NE(sass->body.find("vector_add_f32"), std::string::npos);
    EXPECT_EQ(kwb::util::sha256_hex(sass->body), facts[0]["sass_sha256"]);
    EXPECT_GT(facts[0]["kernels"][0]["sass"]["ldg_128"].get<int>(), 0) << facts[0].dump();  // float4 loads
  } else {
    EXPECT_EQ(sass->status, 501);
    EXPECT_NE(sass->body.find("no CUDA disassembler on this machine"), std::string::npos) << sass->body;
    for (const auto& f : facts) {
      EXPECT_TRUE(f["sass_sha256"].is_null());
      EXPECT_NE(f["sass_note"].get<std::string>().find("neither nvdisasm nor cuobjdump"), std::string::npos) << f.dump();
      EXPECT_TRUE(f["kernels"][0]["sass"].is_null());
    }
  }
  auto bad_param = c.Get("/v1/candidates/" + id + "/artifacts/ptx?kernel=x");
  ASSERT_TRUE(bad_param);
  EXPECT_EQ(bad_param->status, 400);
  auto none = c.Get("/v1/candidates/c-0000000000000000/artifacts/ptx");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 404);

  // A cpu candidate has none, and says so.
  nlohmann::json cpu = {{"op", "row_sum"}, {"source", read_text(source_dir() / "kernels/row_sum/cpu/blocked.cpp")}};
  auto cpu_sub = c.Post("/v1/candidates", cpu.dump(), "application/json");
  ASSERT_TRUE(cpu_sub);
  ASSERT_EQ(cpu_sub->status, 202) << cpu_sub->body;
  std::string cpu_id = nlohmann::json::parse(cpu_sub->body)["id"];
  auto a = c.Get("/v1/candidates/" + cpu_id + "/artifacts/cubin");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->status, 404);
  EXPECT_NE(a->body.find("cpu candidate"), std::string::npos) << a->body;
}

// The SASS path end to end with a stand-in disassembler (KWB_CUDA_DISASSEMBLER; the machines here
// have no nvdisasm): the daemon runs it in the sandbox on each config's cubin during the compile
// stage, counts its instruction mix into the facts, stores the text and serves it.
TEST(Feedback, DaemonKeepsAndServesTheSassOfEachConfig) {
  auto tools = workspace() / "sass-tools";
  std::filesystem::create_directories(tools);
  auto tool = tools / "nvdisasm";
  {
    std::ofstream out(tool);
    out << "#!/bin/sh\n"
           "if [ \"$1\" = --version ]; then echo 'Cuda compilation tools, release 13.0, V13.0.88'; exit 0; fi\n"
           "echo \"// uid $(id -u) magic $(head -c 4 \"$2\" | tail -c 3) bytes $(wc -c < \"$2\")\"\n"
           "printf '\\t.section\\t.text.vector_add_f32,\"ax\",@progbits\\n'\n"
           "printf '        /*0000*/                   LDG.E.128 R4, desc[UR4][R2.64] ;\\n'\n"
           "printf '        /*0010*/                   STG.E.128 desc[UR4][R6.64], R4 ;\\n'\n";
  }
  std::filesystem::permissions(tool, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                         std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                                         std::filesystem::perms::others_exec);
  ::setenv("KWB_CUDA_DISASSEMBLER", tool.c_str(), 1);
  DaemonProcess d;
  d.start({"--no-auth", "--time-budget-ms", "20"});
  ::unsetenv("KWB_CUDA_DISASSEMBLER");
  ASSERT_TRUE(d.running()) << d.log();
  httplib::Client c("127.0.0.1", d.port());
  c.set_read_timeout(120, 0);
  nlohmann::json body = {{"op", "vector_add"}, {"backend", "cuda"},
                         {"source", read_text(source_dir() / "kernels/vector_add/cuda/vectorized.cu")}};
  auto sub = c.Post("/v1/candidates", body.dump(), "application/json");
  ASSERT_TRUE(sub && sub->status == 202) << (sub ? sub->body : "");
  std::string id = nlohmann::json::parse(sub->body)["id"];
  auto cand = wait_done(c, id);
  ASSERT_EQ(cand.value("state", ""), "done") << cand.dump();
  const auto& facts = cand["verdict"]["compiler_facts"];
  ASSERT_EQ(facts.size(), 2u);
  for (const auto& f : facts) {
    EXPECT_EQ(f["sass_tool"], "nvdisasm 13.0.88") << f.dump();
    EXPECT_TRUE(f["sass_note"].is_null()) << f.dump();
    ASSERT_TRUE(f["sass_sha256"].is_string()) << f.dump();
    const auto& sass = f["kernels"][0]["sass"];
    EXPECT_EQ(sass["ldg_128"], 1) << sass.dump();
    EXPECT_EQ(sass["stg_128"], 1);
    EXPECT_EQ(sass["instructions"], 2);
  }
  EXPECT_TRUE(cand["verdict"]["summary"]["stage_ms"].contains("sass"));
  for (const char* config : {"BLOCK%3D256", "BLOCK%3D512"}) {
    auto r = c.Get("/v1/candidates/" + id + "/artifacts/sass?config=" + config);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    EXPECT_EQ(r->get_header_value("Content-Type").rfind("text/plain", 0), 0u);
    // It ran in the sandbox (uid 65534) on the config's cubin, an ELF image.
    EXPECT_EQ(r->body.rfind("// uid 65534 magic ELF bytes ", 0), 0u) << r->body;
    EXPECT_EQ(kwb::util::sha256_hex(r->body), facts[std::string(config).ends_with("256") ? 0 : 1]["sass_sha256"]);
  }
  // The table printer shows the SASS line.
  auto table = run_command("KWB_CUDA_DISASSEMBLER=" + shell_quote(tool.string()) + " " +
                           kwb_command("eval " + shell_quote((source_dir() / "kernels/vector_add/cuda/vectorized.cu").string()) +
                                       " --op vector_add"));
  EXPECT_NE(table.out.find("SASS: LDG 128/64/32-bit 1/0/0, STG 1/0/0, no tensor cores"), std::string::npos) << table.out;
}

// A cuda-launcher candidate (built by nvcc) gets ptxas's facts per kernel in a no_device verdict.
TEST(Feedback, CudaLauncherNoDeviceVerdictCarriesPtxasFacts) {
  auto src = source_dir() / "specs/vector_add/template.f32.launcher.cu";
  auto r = kwb_eval_json(src.string(), "--op vector_add --backend cuda-launcher");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  ASSERT_EQ(r.verdict["status"], "no_device") << r.verdict["reason"];
  const auto& facts = r.verdict["compiler_facts"];
  ASSERT_EQ(facts.size(), 1u) << r.verdict.dump();
  EXPECT_EQ(facts[0]["config"], "default");
  EXPECT_EQ(facts[0]["source"], "nvcc -Xptxas -v");
  EXPECT_EQ(facts[0]["arch"], "sm_90a");
  ASSERT_EQ(facts[0]["kernels"].size(), 1u) << facts.dump();
  const auto& k = facts[0]["kernels"][0];
  EXPECT_NE(k["kernel"].get<std::string>().find("3add"), std::string::npos) << k.dump();  // the mangled `add`
  EXPECT_GT(k["registers"].get<int>(), 0);
  EXPECT_LE(k["registers"].get<int>(), 255);
  EXPECT_EQ(k["spill_store_bytes"], 0);
  EXPECT_EQ(k["max_threads_per_block"], 1024);
  EXPECT_TRUE(k["occupancy"].empty());  // the host code picks the launch shape
}

// Without a GPU a profile request is answered no_device (cuda) or not_applicable (cpu), through
// `kwb eval --profile`, "profile": true, POST .../profile and `kwb profile ID`; a wrong type is a 400.
TEST(Feedback, ProfileRequestsSayNoDeviceWithoutAGpu) {
  auto cuda_src = source_dir() / "kernels/vector_add/cuda/vectorized.cu";
  auto e = kwb_eval_json(cuda_src.string(), "--op vector_add --profile");
  ASSERT_FALSE(e.verdict.is_discarded()) << e.raw;
  ASSERT_EQ(e.verdict["status"], "no_device");
  EXPECT_EQ(e.verdict["profile"]["status"], "no_device") << e.verdict["profile"].dump();
  EXPECT_NE(e.verdict["profile"]["reason"].get<std::string>().find("no CUDA device"), std::string::npos);
  EXPECT_FALSE(e.verdict["compiler_facts"].empty());  // the facts are there all the same
  auto plain = kwb_eval_json(cuda_src.string(), "--op vector_add");
  ASSERT_FALSE(plain.verdict.is_discarded()) << plain.raw;
  EXPECT_TRUE(plain.verdict["profile"].is_null());  // not asked for

  DaemonProcess d;
  d.start({"--no-auth", "--time-budget-ms", "20"});
  ASSERT_TRUE(d.running()) << d.log();
  httplib::Client c("127.0.0.1", d.port());
  c.set_read_timeout(120, 0);
  nlohmann::json body = {{"op", "vector_add"}, {"backend", "cuda"}, {"source", read_text(cuda_src)}, {"profile", true}};
  auto sub = c.Post("/v1/candidates", body.dump(), "application/json");
  ASSERT_TRUE(sub);
  ASSERT_EQ(sub->status, 202) << sub->body;
  std::string id = nlohmann::json::parse(sub->body)["id"];
  auto cand = wait_done(c, id);
  ASSERT_EQ(cand.value("state", ""), "done") << cand.dump();
  EXPECT_EQ(cand["profile"], true);
  EXPECT_EQ(cand["links"]["profile"], "/v1/candidates/" + id + "/profile");
  EXPECT_EQ(cand["verdict"]["profile"]["status"], "no_device") << cand["verdict"].dump();

  // A profile pass of a candidate submitted without one: a new candidate, parent the first.
  body.erase("profile");
  auto first = c.Post("/v1/candidates", body.dump(), "application/json");
  ASSERT_TRUE(first && first->status == 202);
  std::string first_id = nlohmann::json::parse(first->body)["id"];
  ASSERT_EQ(wait_done(c, first_id).value("state", ""), "done");
  auto again = c.Post("/v1/candidates/" + first_id + "/profile", "", "application/json");
  ASSERT_TRUE(again);
  ASSERT_EQ(again->status, 202) << again->body;
  auto reply = nlohmann::json::parse(again->body);
  EXPECT_EQ(reply["parent"], first_id);
  std::string profiled = reply["id"];
  EXPECT_NE(profiled, first_id);
  auto p = wait_done(c, profiled);
  ASSERT_EQ(p.value("state", ""), "done") << p.dump();
  EXPECT_EQ(p["parent"], first_id);
  EXPECT_EQ(p["profile"], true);
  EXPECT_EQ(p["note"], "profile of " + first_id);
  EXPECT_EQ(p["verdict"]["profile"]["status"], "no_device");
  auto first_after = wait_done(c, first_id);
  EXPECT_TRUE(first_after["verdict"]["profile"].is_null());  // the first verdict is left as it was

  // kwb profile ID --wait --json against the daemon: the verdict, its profile no_device.
  auto cli = run_command((bin_dir() / "kwb").string() + " profile " + first_id + " --wait --json --server http://127.0.0.1:" +
                         std::to_string(d.port()));
  EXPECT_EQ(cli.exit_code, 1) << cli.out;  // a no_device verdict is not accepted
  auto v = nlohmann::json::parse(cli.out, nullptr, false);
  ASSERT_TRUE(v.is_object()) << cli.out;
  EXPECT_EQ(v["profile"]["status"], "no_device") << cli.out;

  // cpu: not applicable; a wrong type and an unknown candidate are clear errors.
  nlohmann::json cpu = {{"op", "row_sum"}, {"source", read_text(source_dir() / "kernels/row_sum/cpu/blocked.cpp")},
                        {"profile", true}};
  auto cpu_sub = c.Post("/v1/candidates", cpu.dump(), "application/json");
  ASSERT_TRUE(cpu_sub && cpu_sub->status == 202) << (cpu_sub ? cpu_sub->body : "");
  auto cpu_done = wait_done(c, nlohmann::json::parse(cpu_sub->body)["id"]);
  EXPECT_EQ(cpu_done["verdict"]["profile"]["status"], "not_applicable") << cpu_done.dump();
  cpu["profile"] = "yes";
  auto bad = c.Post("/v1/candidates", cpu.dump(), "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->body.find("profile: expected true or false, got string"), std::string::npos) << bad->body;
  auto none = c.Post("/v1/candidates/c-0000000000000000/profile", "", "application/json");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 404);
  auto field = c.Post("/v1/candidates/" + first_id + "/profile", R"({"x": 1})", "application/json");
  ASSERT_TRUE(field);
  EXPECT_EQ(field->status, 400) << field->body;
}

}  // namespace
