// The profile and sanitizer passes of a CUDA candidate (issue 34, docs/profiles.md) end to end on
// the fake driver: kwb eval runs kwb-gpu-runner under stand-ins of ncu and compute-sanitizer
// (tests/fake_tools) inside the candidate's sandbox, and the stand-ins write recordings of the real
// tools (tests/fixtures). What is checked is the plumbing: the tool wraps the runner in the
// sandbox, the call is made under it, its report is read back, parsed and lands in the verdict
// without changing its status or its timed figures.
#include <gtest/gtest.h>

#include <fstream>

#include "../../gpu/cuda_test_support.hpp"
#include "fake_gpus.hpp"
#include "temp_dir.hpp"

#ifndef KWB_TEST_FAKE_LIBCUDA
#define KWB_TEST_FAKE_LIBCUDA ""  // no CUDA toolkit at build time: the tests skip
#endif

namespace {

using namespace kwb::cudatest;
namespace fs = std::filesystem;

class FakeGpuTools : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(KWB_TEST_FAKE_LIBCUDA).empty()) GTEST_SKIP() << "built without the CUDA toolkit";
  }
  // A folder holding the stand-in `name` (ncu | compute-sanitizer) and, per tool, the recording it
  // writes: the tool's folder is what the sandbox sees of it (/kwb/tool), so the recordings go
  // beside it and a wrapper names them by their path inside the sandbox.
  fs::path tool(const std::string& name, const std::vector<std::pair<std::string, std::string>>& recordings) {
    fs::path dir = m_dir.path() / ("tool-" + name);
    fs::create_directories(dir);
    fs::copy_file(source_dir() / "tests/fake_tools" / name, dir / ("fake-" + name), fs::copy_options::overwrite_existing);
    std::string env;
    for (const auto& [var, fixture] : recordings) {
      fs::path file = source_dir() / "tests/fixtures" / fixture;
      fs::copy_file(file, dir / file.filename(), fs::copy_options::overwrite_existing);
      env += var + "=/kwb/tool/" + file.filename().string() + " ";
    }
    std::ofstream(dir / name) << "#!/bin/sh\n" << env << "exec /usr/bin/python3 /kwb/tool/fake-" << name << " \"$@\"\n";
    fs::permissions(dir / name, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
    return dir / name;
  }
  EvalResult eval(const std::string& source_text, const std::string& env, const std::string& extra) {
    fs::path file = m_dir.path() / "candidate_source.cu";
    std::ofstream(file) << source_text;
    return eval_file(file, env, extra);
  }
  EvalResult eval_file(const fs::path& file, const std::string& env, const std::string& extra) {
    // One fake GPU with a data sheet (fake_gpus.hpp): the physics floor is the sheet's, not a
    // calibration a busy CPU reads low, which an emulated kernel can beat.
    if (m_driver.empty()) m_driver = kwb::test::FakeGpus::make(m_dir.path() / "driver", 1);
    return run_for_verdict("KWB_LIBCLANG=off KWB_CUDA_DRIVER=" + shell_quote(m_driver.string()) + " " + env + " " +
                           (bin_dir() / "kwb").string() + " eval " + shell_quote(file.string()) +
                           " --op vector_add --json --time-budget-ms 30 --bench n1M " + extra + " --specs-dir " +
                           shell_quote((source_dir() / "specs").string()) + " --workspace " +
                           shell_quote((m_dir.path() / "ws").string()));
  }

  kwb::test::TempDir m_dir;
  fs::path m_driver;
};

TEST_F(FakeGpuTools, AProfileIsTakenUnderNcuAndItsFindingsReachTheWorkload) {
  fs::path ncu = tool("ncu", {{"KWB_FAKE_NCU_FIXTURE", "ncu/transpose_naive.raw.csv"}});
  auto r = eval_file(source_dir() / "kernels/vector_add/cuda/vectorized.cu", "KWB_NCU=" + shell_quote(ncu.string()),
                     "--profile");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
  const auto& p = r.verdict["profile"];
  ASSERT_TRUE(p.is_object()) << r.raw;
  EXPECT_EQ(p["status"], "measured") << p.dump();
  EXPECT_GT(p["ms"].get<double>(), 0);
  const auto& w = r.verdict["workloads"].back();
  ASSERT_EQ(w["name"], "n1M");
  ASSERT_TRUE(w["time"].is_object()) << "the timed figures are the benchmark's: " << w.dump();
  ASSERT_TRUE(w["feedback"]["profile"].is_array()) << w.dump();
  ASSERT_FALSE(w["feedback"]["profile"].empty()) << w.dump();
  const auto& k = w["feedback"]["profile"][0];
  // The recording is a naive transpose: 32 sectors per store request, said in plain words.
  EXPECT_GT(k["global_store_sectors_per_request"].get<double>(), 16.0) << k.dump();
  std::string findings = k["findings"].dump();
  EXPECT_NE(findings.find("uncoalesced"), std::string::npos) << findings;
  EXPECT_TRUE(r.verdict["summary"]["stage_ms"]["profile"].is_number());
}

TEST_F(FakeGpuTools, WithoutNcuTheProfileSaysWhereItLooked) {
  auto r = eval_file(source_dir() / "kernels/vector_add/cuda/vectorized.cu",
                     "KWB_NCU=" + shell_quote((m_dir.path() / "no-ncu").string()), "--profile");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "accepted");
  EXPECT_EQ(r.verdict["profile"]["status"], "unavailable") << r.verdict["profile"];
  EXPECT_NE(r.verdict["profile"]["reason"].get<std::string>().find("KWB_NCU"), std::string::npos);
}

TEST_F(FakeGpuTools, AnOverrunIsRunUnderTheSanitizerAndItsLineReachesTheDiagnostics) {
  fs::path san = tool("compute-sanitizer", {{"KWB_FAKE_SANITIZER_FIXTURE_MEMCHECK", "sanitizer/memcheck_oob.txt"},
                                            {"KWB_FAKE_SANITIZER_FIXTURE_INITCHECK", "sanitizer/initcheck_clean.txt"},
                                            {"KWB_FAKE_SANITIZER_FIXTURE_RACECHECK", "sanitizer/racecheck_clean.txt"},
                                            {"KWB_FAKE_SANITIZER_FIXTURE_SYNCCHECK", "sanitizer/synccheck_clean.txt"}});
  // The recording is of the probe kernels (tests/fixtures/record/probe.cu); a candidate's report
  // names the program NVRTC compiled, candidate.cu.
  std::string oob = read_text(san.parent_path() / "memcheck_oob.txt");
  for (size_t at; (at = oob.find("/tmp/r/probe.cu")) != std::string::npos;) oob.replace(at, 15, "candidate.cu");
  std::ofstream(san.parent_path() / "memcheck_oob.txt") << oob;
  // "overrun" writes c[n]: the guard zone finds it; the sanitizer then says where.
  auto r = eval("// kwb:launch overrun grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n)\n"
                "extern \"C\" __global__ void overrun(const float* a, const float* b, float* c, long long n) {}\n",
                "KWB_COMPUTE_SANITIZER=" + shell_quote(san.string()), "");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "incorrect") << "the status stays what the checks found: " << r.verdict["reason"];
  const auto& s = r.verdict["sanitizer"];
  ASSERT_TRUE(s.is_object()) << r.raw;
  EXPECT_EQ(s["status"], "findings") << s.dump();
  EXPECT_FALSE(s["workload"].get<std::string>().empty());
  ASSERT_GE(s["runs"].size(), 2u) << "memcheck, then initcheck: " << s.dump();
  EXPECT_EQ(s["runs"][0]["tool"], "memcheck");
  EXPECT_EQ(s["runs"][0]["status"], "findings");
  bool named = false;
  for (const auto& d : r.verdict["diagnostics"])
    if (d["rule"] == "memcheck") {
      named = true;
      EXPECT_EQ(d["file"], "candidate_source.cu") << "candidate.cu is the submitted file: " << d.dump();
      EXPECT_EQ(d["line"], 53) << d.dump();
      EXPECT_NE(d["message"].get<std::string>().find("thread"), std::string::npos) << d.dump();
    }
  EXPECT_TRUE(named) << r.verdict["diagnostics"].dump();
}

TEST_F(FakeGpuTools, ACorrectKernelIsNotRunUnderTheSanitizer) {
  fs::path san = tool("compute-sanitizer", {{"KWB_FAKE_SANITIZER_FIXTURE", "sanitizer/memcheck_oob.txt"}});
  auto r = eval_file(source_dir() / "kernels/vector_add/cuda/vectorized.cu",
                     "KWB_COMPUTE_SANITIZER=" + shell_quote(san.string()), "");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "accepted");
  EXPECT_TRUE(r.verdict["sanitizer"].is_null()) << r.verdict["sanitizer"];
}

// Clean before promotion (docs/profiles.md): an op the library has no CUDA kernel for, so the
// candidate would be its first incumbent (promotable without a comparison); under --compare the
// sanitizer gate runs every test workload under memcheck, racecheck and synccheck first.
class FakeGpuGate : public FakeGpuTools {
 protected:
  // memcheck and synccheck clean; racecheck's recording `racecheck`.
  fs::path sanitizer_with_racecheck(const std::string& racecheck) {
    return tool("compute-sanitizer", {{"KWB_FAKE_SANITIZER_FIXTURE_MEMCHECK", "sanitizer/memcheck_clean.txt"},
                                      {"KWB_FAKE_SANITIZER_FIXTURE_RACECHECK", racecheck},
                                      {"KWB_FAKE_SANITIZER_FIXTURE_SYNCCHECK", "sanitizer/synccheck_clean.txt"}});
  }
  EvalResult eval_first_kernel(const fs::path& sanitizer) {
    fs::path specs = m_dir.path() / "specs";
    fs::create_directories(specs / "vadd_gate");
    std::string spec = read_text(source_dir() / "specs/vector_add/spec.json");
    spec.replace(spec.find("\"op\": \"vector_add\""), std::string("\"op\": \"vector_add\"").size(), "\"op\": \"vadd_gate\"");
    // One small bench workload (a promotable verdict times them all; the fake emulates on the CPU).
    size_t b = spec.find("\"bench\": ["), e = spec.find("\n    ]", b);
    EXPECT_NE(b, std::string::npos);
    EXPECT_NE(e, std::string::npos);
    spec = spec.substr(0, b) + "\"bench\": [\n      {\"name\": \"n4k\", \"params\": {\"n\": 4096}, \"label\": \"small\"}" +
           spec.substr(e);
    std::ofstream(specs / "vadd_gate/spec.json") << spec;
    std::string reference = read_text(source_dir() / "specs/vector_add/reference.cpp");  // kwb::reference::<op>
    for (size_t at; (at = reference.find("vector_add(")) != std::string::npos;) reference.replace(at, 10, "vadd_gate");
    std::ofstream(specs / "vadd_gate/reference.cpp") << reference;
    if (m_driver.empty()) m_driver = kwb::test::FakeGpus::make(m_dir.path() / "driver", 1);
    return run_for_verdict("KWB_LIBCLANG=off KWB_CUDA_DRIVER=" + shell_quote(m_driver.string()) +
                           " KWB_COMPUTE_SANITIZER=" + shell_quote(sanitizer.string()) + " " +
                           (bin_dir() / "kwb").string() + " eval " +
                           shell_quote((source_dir() / "kernels/vector_add/cuda/vectorized.cu").string()) +
                           " --op vadd_gate --json --time-budget-ms 30 --compare --no-baseline --specs-dir " +
                           shell_quote(specs.string()) + " --workspace " + shell_quote((m_dir.path() / "ws").string()));
  }
};

TEST_F(FakeGpuGate, ARacyKernelThatPassesItsChecksIsNotPromotable) {
  auto r = eval_first_kernel(sanitizer_with_racecheck("sanitizer/racecheck_race.txt"));
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
  const auto& d = r.verdict["summary"]["decision"];
  ASSERT_TRUE(d.is_object()) << r.verdict["summary"].dump();
  EXPECT_FALSE(d["promotable"].get<bool>()) << d.dump();
  EXPECT_FALSE(r.verdict["summary"]["beats_incumbent"].get<bool>());
  EXPECT_NE(d["reason"].get<std::string>().find("compute-sanitizer found errors"), std::string::npos) << d.dump();
  EXPECT_EQ(r.verdict["sanitizer"]["status"], "findings") << r.verdict["sanitizer"].dump();
  ASSERT_EQ(r.verdict["sanitizer"]["runs"].size(), 3u);
  EXPECT_EQ(r.verdict["sanitizer"]["runs"][1]["tool"], "racecheck");
  bool race = false;
  for (const auto& x : r.verdict["diagnostics"]) race = race || x["rule"] == "racecheck";
  EXPECT_TRUE(race) << r.verdict["diagnostics"].dump();
}

TEST_F(FakeGpuGate, ACleanKernelStaysPromotableAndSaysSo) {
  auto r = eval_first_kernel(sanitizer_with_racecheck("sanitizer/racecheck_clean.txt"));
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
  const auto& d = r.verdict["summary"]["decision"];
  ASSERT_TRUE(d.is_object()) << r.verdict["summary"].dump();
  EXPECT_TRUE(d["promotable"].get<bool>()) << d.dump();
  EXPECT_NE(d["reason"].get<std::string>().find("compute-sanitizer clean on every test workload (memcheck, racecheck, "
                                                "synccheck)"),
            std::string::npos)
      << d.dump();
  EXPECT_EQ(r.verdict["sanitizer"]["status"], "clean");
}

}  // namespace
