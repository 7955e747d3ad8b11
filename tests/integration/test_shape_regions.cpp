// Shape regions end to end (issue 38, docs/library.md "Shape regions"), on CPU kernels: a library
// seeded with two vector_add incumbents, a fast one for n <= 1500000 and a slow one above; a
// candidate that is fast above 1500000 only is compared by the daemon with each region's incumbent
// on the workloads of that region, is promotable for the upper region only and is promoted for it
// only; the next candidate is compared with the new incumbent there and the old one below; and the
// package exported from that library calls each region's kernel for the params of its region.
#include <gtest/gtest.h>

#include <fstream>

#include "export_support.hpp"
#include "library/repository.hpp"
#include "library_flow.hpp"

namespace {

using namespace kwb::test;
namespace fs = std::filesystem;

// Slow (32 volatile round trips per element) for n <= 1500000, a plain loop above.
const std::string k_split = R"(// vector_add, CPU: fast for large n only
#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* __restrict a, const float* __restrict b, float* __restrict c, int64_t n) {
  if (n <= 1500000) {
    for (int64_t i = 0; i < n; ++i) {
      volatile float x = a[i];
      for (int r = 0; r < 32; ++r) x = x;
      c[i] = x + b[i];
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
)";

void write_regional_kernel(const fs::path& kernels, const std::string& name, const std::string& source, const char* region) {
  auto dir = kernels / "vector_add" / "cpu";
  fs::create_directories(dir);
  std::ofstream(dir / (name + ".cpp")) << source;
  std::ofstream(dir / (name + ".json")) << R"({"op": "vector_add", "variant": "f32", "backend": "cpu",
    "entry": "kwb_vector_add_f32", "summary": "test incumbent of a region", "author": "test", "region": )" << region << "}";
}

class ShapeRegions : public ::testing::Test {
 protected:
  void SetUp() override {
    write_regional_kernel(m_dir / "kernels", "small", fast("fast, for small n"), R"({"n": [1, 1500000]})");
    write_regional_kernel(m_dir / "kernels", "large", k_slow, R"({"n": [1500001, 9223372036854775807]})");
    const fs::path specs = light_vector_add_specs(m_dir.path());  // bench n1M (small) and n2M (large)
    std::string error;
    ASSERT_TRUE(m_daemon.start({"--no-auth", "--time-budget-ms", "150", "--kernels-dir", (m_dir / "kernels").string(),
                                "--specs-dir", specs.string()},
                               m_dir / "ws", &error))
        << error;
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", m_daemon.port());
    c.set_read_timeout(180, 0);
    return c;
  }
  std::string submit(const std::string& source) {
    auto r = client().Post("/v1/candidates", nlohmann::json{{"op", "vector_add"}, {"source", source}}.dump(), "application/json");
    return r && r->status == 202 ? body_of(r)["id"].get<std::string>() : "";
  }
  // The verdict once its comparison is decided.
  nlohmann::json decided(const std::string& id) {
    for (int i = 0; i < 20; ++i) {
      auto j = body_of(client().Get("/v1/candidates/" + id + "?wait=60"));
      if (j.is_object() && j["state"] == "done" && j.value("/comparison/state"_json_pointer, "") != "pending") return j["verdict"];
    }
    return {};
  }
  TempDir m_dir;
  DaemonProcess m_daemon;
};

const nlohmann::json* bench(const nlohmann::json& v, const std::string& name) {
  for (const auto& w : v["workloads"])
    if (w["kind"] == "bench" && w["name"] == name) return &w;
  return nullptr;
}

// The library at the daemon's head, each kernel's body replaced by one that adds its tag to every
// output (small 1, large 2, the promoted candidate 3), exported for this CPU's class, built, and
// called: which kernel ran is read from the outputs.
void expect_the_package_picks_by_region(const fs::path& library, const std::string& promoted, const TempDir& dir) {
  auto repo = kwb::library::Repository::open(library);
  ASSERT_TRUE(repo) << repo.error().what();
  auto files = (*repo)->files();
  ASSERT_TRUE(files) << files.error().what();
  auto tagged = [](int tag) {
    return "#include <cstdint>\nextern \"C\" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) "
           "{ for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i] + " + std::to_string(tag) + ".0f; }\n";
  };
  (*files)["vector_add/cpu/small.cpp"] = tagged(1);
  (*files)["vector_add/cpu/large.cpp"] = tagged(2);
  (*files)[promoted] = tagged(3);
  for (const auto& [path, text] : *files) ASSERT_TRUE(kwb::util::write_file_atomic(dir / "lib" / path, text));
  auto req = request(dir / "lib", dir / "pkg");
  req.ops = {"vector_add"};
  req.backends = {"cpu"};
  auto report = kwb::package::write_package(req);
  ASSERT_TRUE(report) << report.error().what();
  const std::string dispatcher = read_text(dir / "pkg" / "src" / "vector_add_f32.cpp");
  EXPECT_NE(dispatcher.find("n >= 1500001LL"), std::string::npos) << dispatcher;
  EXPECT_NE(dispatcher.find("n >= 1LL && n <= 1500000LL"), std::string::npos) << dispatcher;
  ASSERT_EQ(build_package(dir / "pkg", dir / "build", "-DCMAKE_BUILD_TYPE=Release -DKWB_BUILD_EXAMPLE=OFF", "regions"), "");
  auto install = sh("cmake --install " + shell_quote((dir / "build").string()) + " --prefix " + shell_quote((dir / "prefix").string()));
  ASSERT_EQ(install.exit_code, 0) << install.out;
  ASSERT_TRUE(kwb::util::write_file_atomic(dir / "app" / "CMakeLists.txt", R"(cmake_minimum_required(VERSION 3.25)
project(app LANGUAGES CXX)
find_package(kwb REQUIRED)
add_executable(app main.cpp)
target_link_libraries(app PRIVATE kwb::kernels)
)"));
  ASSERT_TRUE(kwb::util::write_file_atomic(dir / "app" / "main.cpp", R"(#include <kwb/kernels.hpp>
#include <cstdio>
#include <vector>
int tag(long n) {  // the tag of the kernel that served n elements
  std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n, 0.0f);
  if (kwb::vector_add_f32(a.data(), b.data(), c.data(), n) != kwb::ok) return -1;
  return int(c[n - 1] - 3.0f);
}
int main() { std::printf("tags %d %d %d %d\n", tag(1000), tag(1500000), tag(1500001), tag(2097152)); }
)"));
  auto app = sh("cmake -S " + shell_quote((dir / "app").string()) + " -B " + shell_quote((dir / "app" / "build").string()) +
                " -G Ninja -DCMAKE_PREFIX_PATH=" + shell_quote((dir / "prefix").string()) + " && cmake --build " +
                shell_quote((dir / "app" / "build").string()) + " && " + shell_quote((dir / "app" / "build" / "app").string()));
  ASSERT_EQ(app.exit_code, 0) << app.out;
  // The lower region's incumbent below 1500001, the candidate promoted for the upper one above
  // (this CPU has the x86-64 level it was promoted under).
  EXPECT_NE(app.out.find("tags 1 1 3 3"), std::string::npos) << app.out << "\n" << dispatcher;
}

TEST_F(ShapeRegions, EachRegionsIncumbentIsChosenAndAWinInOneRegionIsPromotedThereOnly) {
  const std::string split = submit(k_split);
  ASSERT_FALSE(split.empty());
  auto v = decided(split);
  ASSERT_EQ(v["status"], "accepted") << v.dump(2);
  const std::string reason = v["reason"];
  // The daemon compared n1M with the lower region's incumbent and n2M with the upper one's.
  EXPECT_NE(reason.find("region n in [1, 1500000]: does not beat the incumbent vector_add/cpu/small.cpp"), std::string::npos) << reason;
  EXPECT_NE(reason.find("region n in [1500001, max]: beats the incumbent vector_add/cpu/large.cpp"), std::string::npos) << reason;
  ASSERT_NE(bench(v, "n1M"), nullptr);
  ASSERT_NE(bench(v, "n2M"), nullptr);
  EXPECT_LT((*bench(v, "n1M"))["vs_incumbent"].get<double>(), 1.0) << v.dump(2);
  EXPECT_GT((*bench(v, "n2M"))["vs_incumbent"].get<double>(), 1.0) << v.dump(2);
  ASSERT_EQ(v["summary"]["beats_incumbent"], true) << reason;
  const auto& d = v["summary"]["decision"];
  EXPECT_EQ(d["wins"], nlohmann::json::array({"n2M"})) << d.dump();
  EXPECT_EQ(d["regressions"], nlohmann::json::array({"n1M"})) << d.dump();
  EXPECT_NE(d["reason"].get<std::string>().find("promotable in region n in [1500001, max] (vector_add/cpu/large.cpp)"),
            std::string::npos) << d.dump();
  EXPECT_EQ(v["summary"]["incumbent"]["kernel"], "vector_add/cpu/large.cpp");

  auto promoted = client().Post("/v1/candidates/" + split + "/promote", "", "application/json");
  ASSERT_TRUE(promoted);
  ASSERT_EQ(promoted->status, 200) << promoted->body;
  auto repo = kwb::library::Repository::open(m_daemon.workspace() / "library");
  ASSERT_TRUE(repo) << repo.error().what();
  auto log = (*repo)->log("", 1);
  ASSERT_TRUE(log && !log->empty());
  EXPECT_EQ(log->front().trailers.at("Kwb-Region"), "n in [1500001, max]");
  EXPECT_EQ(log->front().trailers.at("Kwb-Replaces"), "vector_add/cpu/large.cpp");
  auto dispatch = kwb::library::parse_dispatch(*(*repo)->read("dispatch.json"));
  ASSERT_TRUE(dispatch) << dispatch.error().what();
  const std::string cls = kwb::library::host_cpu_class(), kernel = "vector_add/cpu/f32_" + split + ".cpp";
  EXPECT_EQ(dispatch->incumbent("vector_add", "f32", "cpu", cls, {{"n", 2097152}})->kernel, kernel);
  EXPECT_EQ(dispatch->incumbent("vector_add", "f32", "cpu", cls, {{"n", 1048576}})->kernel, "vector_add/cpu/small.cpp");
  auto lib = body_of(client().Get("/v1/library/vector_add"));
  bool listed = false;
  for (const auto& e : lib["entries"])
    listed = listed || (e["kernel"] == kernel && e["region"] == nlohmann::json::parse(R"({"n": [1500001, 9223372036854775807]})"));
  EXPECT_TRUE(listed) << lib.dump(2);

  // The next candidate meets the promoted kernel in the upper region and the old one below.
  const std::string next = submit(fast("fast everywhere"));
  auto nv = decided(next);
  ASSERT_EQ(nv["status"], "accepted") << nv.dump(2);
  const std::string next_reason = nv["reason"];
  EXPECT_NE(next_reason.find("incumbent vector_add/cpu/small.cpp"), std::string::npos) << next_reason;
  EXPECT_NE(next_reason.find("incumbent " + kernel), std::string::npos) << next_reason;
  EXPECT_EQ(next_reason.find("vector_add/cpu/large.cpp"), std::string::npos) << next_reason;

  expect_the_package_picks_by_region(m_daemon.workspace() / "library", kernel, m_dir);

  m_daemon.stop();
  // `kwb eval --compare` on the same library compares region by region too (the same referee).
  std::ofstream(m_dir / "split.cpp") << k_split;
  auto eval = run_command("env KWB_TIME_BUDGET_MS=150 " + (bin_dir() / "kwb").string() + " eval " +
                          shell_quote((m_dir / "split.cpp").string()) + " --op vector_add --compare --json --workspace " +
                          shell_quote((m_dir / "ws").string()) + " --kernels-dir " + shell_quote((m_dir / "kernels").string()) +
                          " --specs-dir " + shell_quote((m_dir / "specs").string()));
  auto ev = nlohmann::json::parse(eval.out, nullptr, false);
  ASSERT_TRUE(ev.is_object()) << eval.out;
  const std::string eval_reason = ev.value("reason", "");
  EXPECT_NE(eval_reason.find("region n in [1, 1500000]: does not beat the incumbent vector_add/cpu/small.cpp"),
            std::string::npos) << eval_reason;
  EXPECT_NE(eval_reason.find("region n in [1500001, max]:"), std::string::npos) << eval_reason;
  EXPECT_NE(eval_reason.find("identical"), std::string::npos) << "its own source is the upper region's incumbent: " << eval_reason;

  // The scorecard measures each region's incumbent on the workloads of its region, rows naming it.
  auto report = run_command((bin_dir() / "kwb").string() + " library report --measure --op vector_add --backend cpu "
                            "--no-rivals --json --workspace " + shell_quote((m_dir / "ws").string()) + " --kernels-dir " +
                            shell_quote((m_dir / "kernels").string()) + " --specs-dir " + shell_quote((m_dir / "specs").string()));
  ASSERT_EQ(report.exit_code, 0) << report.out;
  auto card = nlohmann::json::parse(report.out, nullptr, false);
  ASSERT_TRUE(card.is_object()) << report.out;
  std::map<std::string, std::pair<std::string, std::string>> rows;  // workload -> kernel, region
  for (const auto& r : card["rows"]) rows[r["workload"]] = {r["kernel"], r.value("region", "")};
  EXPECT_EQ(rows["n1M"], std::make_pair(std::string("vector_add/cpu/small.cpp"), std::string("n in [1, 1500000]"))) << card.dump(2);
  EXPECT_EQ(rows["n2M"], std::make_pair(kernel, std::string("n in [1500001, max]"))) << card.dump(2);
}

}  // namespace
