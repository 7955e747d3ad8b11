// Decisions under noise (issue 14, docs/benchmarks/decide.md): `kwb eval --compare` times each
// candidate interleaved against the library's incumbent while a second evaluation loop loads the
// machine. Identical kernels are never promotable, a kernel ~20 % faster everywhere is found
// faster in at least 90 % of the trials (asserted in the full form), a kernel 30 % slower on one workload and 2x faster on
// another is never promotable. KWB_DECIDE_TRIALS sets the trials per case (default: a short form
// for CI; the full form is 30), KWB_DECIDE_REPORT a file to append one JSON line per trial to.
//
// The prefix_sum replay: an incumbent record as bad as the one issue 14 saw (3 samples, 14 % and
// 69 % standard errors) does not keep a faster candidate out, and `kwb retime` replaces it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <fstream>

#include "support.hpp"

namespace {

using namespace kwb::test;
namespace fs = std::filesystem;

fs::path cases() { return source_dir() / "tests/integration/decide_cases"; }

int trials() {
  const char* t = std::getenv("KWB_DECIDE_TRIALS");
  return t && std::atoi(t) > 0 ? std::atoi(t) : 4;
}

// A kernels/ folder whose only kernel is `source`, as op/cpu/<name>.
fs::path kernels_with(const fs::path& root, const std::string& op, const std::string& entry, const fs::path& source) {
  auto dir = root / "kernels" / op / "cpu";
  fs::create_directories(dir);
  fs::copy_file(source, dir / source.filename(), fs::copy_options::overwrite_existing);
  std::ofstream(dir / source.filename().replace_extension(".json"))
      << R"({"op": ")" << op << R"(", "variant": ")" << (op == "prefix_sum" ? "i32" : "f32")
      << R"(", "backend": "cpu", "entry": ")" << entry << R"(", "summary": "decide-noise incumbent", "author": "test"})";
  return root / "kernels";
}

fs::path temp_root(const char* tag) {
  std::string tmpl = std::string("/tmp/kwb-") + tag + "-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back(0);
  const char* d = ::mkdtemp(buf.data());
  return d ? fs::path(d) : fs::path("/tmp");
}

// A second evaluation loop in its own workspace and process group, for the life of the object.
class BackgroundLoad {
 public:
  BackgroundLoad() {
    m_ws = temp_root("decide-bg");
    std::string loop = "while :; do " + (bin_dir() / "kwb").string() + " eval " +
                       shell_quote((source_dir() / "kernels/softmax/cpu/three_pass.cpp").string()) +
                       " --op softmax --workspace " + shell_quote(m_ws.string()) + " >/dev/null 2>&1; done";
    m_pid = ::fork();
    if (m_pid == 0) {
      ::setpgid(0, 0);
      ::execl("/bin/sh", "sh", "-c", loop.c_str(), nullptr);
      ::_exit(127);
    }
  }
  ~BackgroundLoad() {
    if (m_pid > 0) {
      ::kill(-m_pid, SIGKILL);
      ::waitpid(m_pid, nullptr, 0);
    }
    std::error_code ec;
    fs::remove_all(m_ws, ec);
  }
  bool running() const { return m_pid > 0 && ::kill(m_pid, 0) == 0; }

 private:
  pid_t m_pid = -1;
  fs::path m_ws;
};

struct Trial {
  bool promotable = false;
  bool has_decision = false;  // false: "not compared" (e.g. the incumbent could not be re-timed): a refusal
  std::string status, reason;
  std::map<std::string, std::string> labels;
  std::map<std::string, double> ratios;
};

// `kwb eval --compare` of `source` against the library made from `kernels` in `ws`.
Trial compare(const fs::path& source, const std::string& op, const fs::path& ws, const fs::path& kernels,
              const std::string& tag) {
  auto r = run_command("env KWB_TIME_BUDGET_MS=300 " + (bin_dir() / "kwb").string() + " eval " +
                       shell_quote(source.string()) + " --op " + op + " --compare --json --workspace " +
                       shell_quote(ws.string()) + " --kernels-dir " + shell_quote(kernels.string()));
  Trial t;
  auto v = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_TRUE(v.is_object()) << r.out;
  if (!v.is_object()) return t;
  t.status = v.value("status", "");
  t.reason = v.value("reason", "");
  // A correct kernel is never judged wrong; a limit hit on a loaded machine (time_limit, error)
  // is a refusal to decide, counted with "not compared".
  for (const char* wrong : {"incorrect", "compile_error", "rejected", "sandbox_violation", "crashed"})
    EXPECT_NE(t.status, wrong) << tag << ": " << t.reason;
  const auto& d = v["summary"]["decision"];
  t.has_decision = d.is_object();
  t.promotable = d.is_object() && d.value("promotable", false);
  for (const auto& w : v["workloads"])
    if (w["comparison"].is_object()) {
      t.labels[w["name"]] = w["comparison"]["label"];
      t.ratios[w["name"]] = w["comparison"]["ratio"];
    }
  if (const char* report = std::getenv("KWB_DECIDE_REPORT"))
    std::ofstream(report, std::ios::app) << nlohmann::json{{"case", tag},
                                                           {"promotable", t.promotable},
                                                           {"status", t.status},
                                                           {"reason", t.reason},
                                                           {"labels", t.labels},
                                                           {"ratios", t.ratios},
                                                           {"comparisons", [&] {
                                                              nlohmann::json c = nlohmann::json::array();
                                                              for (const auto& w : v["workloads"])
                                                                if (w["comparison"].is_object())
                                                                  c.push_back({{"workload", w["name"]}, {"c", w["comparison"]}});
                                                              return c;
                                                            }()},
                                                           {"machine", v["summary"]["machine"]},
                                                           {"decide_ms", v["summary"]["stage_ms"].value("decide", 0.0)}}
                                                    .dump()
                                             << "\n";
  return t;
}

TEST(DecideUnderNoise, IdenticalNeverFasterAlwaysMixedNever) {
  auto root = temp_root("decide-noise");
  auto lib_a = kernels_with(root / "a", "vector_add", "kwb_vector_add_f32", cases() / "base.cpp");
  auto lib_b = kernels_with(root / "b", "vector_add", "kwb_vector_add_f32", cases() / "split_incumbent.cpp");
  BackgroundLoad load;
  ASSERT_TRUE(load.running());
  const int n = trials();
  int identical_promotable = 0, faster_found = 0, mixed_promotable = 0, not_compared = 0;
  auto refused = [&](const Trial& t, const char* tag, int i) {
    if (t.has_decision) return false;
    ++not_compared;
    std::printf("trial %d (%s): not compared: %s\n", i, tag, t.reason.c_str());
    return true;
  };
  for (int i = 0; i < n; ++i) {
    auto same = compare(cases() / "base_copy.cpp", "vector_add", root / "ws-a", lib_a, "identical");
    refused(same, "identical", i);
    identical_promotable += same.promotable;
    EXPECT_FALSE(same.promotable) << "trial " << i << ": an identical kernel was promotable: " << same.reason;

    auto fast = compare(cases() / "faster.cpp", "vector_add", root / "ws-a", lib_a, "faster");
    refused(fast, "faster", i);
    faster_found += fast.promotable;
    if (!fast.promotable) std::printf("trial %d: the faster kernel was not found faster: %s\n", i, fast.reason.c_str());
    for (const auto& [w, label] : fast.labels) EXPECT_NE(label, "slower") << "trial " << i << " " << w;

    auto mixed = compare(cases() / "split_candidate.cpp", "vector_add", root / "ws-b", lib_b, "mixed");
    refused(mixed, "mixed", i);
    mixed_promotable += mixed.promotable;
    EXPECT_FALSE(mixed.promotable) << "trial " << i << ": a 30 % regression was promotable: " << mixed.reason;
    // Noise may leave either workload undecided, never decided the wrong way.
    EXPECT_NE(mixed.labels["n1M"], "faster") << "trial " << i << ": " << mixed.reason;
    EXPECT_NE(mixed.labels["n1M"], "same") << "trial " << i << ": " << mixed.reason;
    EXPECT_NE(mixed.labels["n16M"], "slower") << "trial " << i << ": " << mixed.reason;
    EXPECT_NE(mixed.labels["n16M"], "same") << "trial " << i << ": " << mixed.reason;
  }
  std::printf("not compared (a refusal to decide): %d of %d evaluations\n", not_compared, 3 * n);
  EXPECT_TRUE(load.running()) << "the background load stopped early";
  EXPECT_EQ(identical_promotable, 0);
  EXPECT_EQ(mixed_promotable, 0);
  // Power: at least 90 % (27 of 30) in the full form (KWB_DECIDE_TRIALS >= 10, on a machine
  // whose load is the background loop). The CI short form shares its 2 cores with whatever
  // ctest runs beside it, where noise may rightly leave the faster kernel undecided: it asserts
  // the safety side only (nothing wrongly promotable, the faster kernel never labelled slower)
  // and prints the power it saw.
  std::printf("faster kernel found faster in %d of %d trials\n", faster_found, n);
  if (n >= 10) {
    EXPECT_GE(faster_found, n - n / 10) << faster_found << " of " << n;
  }
  std::error_code ec;
  fs::remove_all(root, ec);
}

// Rewrites exported records as bad as issue 14's: 3 samples, standard errors of 69 % (n1M) and
// 14.3 % (n16M), n16M's median 2.5x its real one. Returns how many rows it changed.
int corrupt_records(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream out;
  int changed = 0;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) cols.push_back(c);
    if (line.empty() || line[0] == '#' || line.rfind("Validator", 0) == 0 || cols.size() < 10 || cols[0] == "op") {
      out << line << "\n";
      continue;
    }
    const bool big = cols[3] == "n16M";
    if (big) cols[7] = std::to_string(std::stod(cols[7]) * 2.5);
    cols[8] = big ? "14.3" : "69";
    cols[9] = "3";
    for (size_t i = 0; i < cols.size(); ++i) out << (i ? "\t" : "") << cols[i];
    out << "\n";
    ++changed;
  }
  std::ofstream(file) << out.str();
  return changed;
}

// workload -> samples of the exported records.
std::map<std::string, int> samples_in(const fs::path& file) {
  std::ifstream in(file);
  std::map<std::string, int> out;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) cols.push_back(c);
    if (cols.size() >= 10 && cols[0] == "prefix_sum") out[cols[3]] = std::atoi(cols[9].c_str());
  }
  return out;
}

TEST(DecideUnderNoise, ABadIncumbentRecordDoesNotKeepAFasterCandidateOutAndRetimeReplacesIt) {
  auto root = temp_root("decide-replay");
  auto kernels = kernels_with(root, "prefix_sum", "kwb_prefix_sum_i32", cases() / "prefix_sum_slow.cpp");
  auto ws = root / "ws";
  auto kwb = [&](const std::string& args) {
    // The kernels folder through the environment: `tuning` commands do not read it, and a
    // subcommand refuses settings it does not read as flags.
    return run_command("env KWB_TIME_BUDGET_MS=300 KWB_KERNELS_DIR=" + shell_quote(kernels.string()) + " " +
                       (bin_dir() / "kwb").string() + " " + args + " --workspace " + shell_quote(ws.string()));
  };
  auto first = kwb("retime prefix_sum --backend cpu --json --init");  // a new workspace
  ASSERT_EQ(first.exit_code, 0) << first.out;
  auto file = root / "records.tsv";
  ASSERT_EQ(kwb("tuning export --op prefix_sum --out " + shell_quote(file.string())).exit_code, 0);
  ASSERT_EQ(corrupt_records(file), 2) << read_text(file);
  ASSERT_EQ(kwb("tuning import " + shell_quote(file.string())).exit_code, 0);
  auto bad = root / "bad.tsv";
  ASSERT_EQ(kwb("tuning export --op prefix_sum --out " + shell_quote(bad.string())).exit_code, 0);
  ASSERT_EQ(samples_in(bad)["n16M"], 3) << read_text(bad);  // the bad record is in place

  auto t = compare(source_dir() / "kernels/prefix_sum/cpu/scalar.cpp", "prefix_sum", ws, kernels, "replay");
  EXPECT_TRUE(t.promotable) << t.reason;
  EXPECT_EQ(t.labels["n16M"], "faster") << t.reason;
  EXPECT_GT(t.ratios["n16M"], 1.5) << t.reason;

  auto again = kwb("retime prefix_sum --backend cpu --json");
  ASSERT_EQ(again.exit_code, 0) << again.out;
  auto fresh = root / "fresh.tsv";
  ASSERT_EQ(kwb("tuning export --op prefix_sum --out " + shell_quote(fresh.string())).exit_code, 0);
  auto samples = samples_in(fresh);
  EXPECT_GE(samples["n1M"], 10) << read_text(fresh);
  EXPECT_GE(samples["n16M"], 10) << read_text(fresh);
  std::error_code ec;
  fs::remove_all(root, ec);
}

}  // namespace
