// kwb.tuning.v1 files: round trip through text, one Validator block per identity, and errors
// that name the line and column.
#include <gtest/gtest.h>

#include "library/tuning_file.hpp"

namespace kwb::library {
namespace {

store::TuningRecord record(const std::string& workload, const std::string& toolchain, double ns, int spec_version = 1) {
  store::TuningRecord r;
  r.op = "softmax";
  r.variant = "f32";
  r.backend = "cuda";
  r.workload = workload;
  r.params = {{"rows", 4096}, {"cols", 1000}};
  r.source_sha256 = std::string(64, 'a');
  r.config = {{"BLOCK", 256}};
  r.identity = {"NVIDIA H200 (sm_90, 132 SMs, CUDA driver 13.0)", toolchain, "0.1.0", spec_version};
  r.median_ns = ns;
  r.stderr_pct = 0.25;
  r.samples = 40;
  return r;
}

TEST(TuningFile, RoundTripsWithOneValidatorBlockPerIdentity) {
  std::vector<store::TuningRecord> in = {record("a", "NVRTC 13.0 -arch=sm_90a", 1500.5),
                                         record("b", "NVRTC 13.0 -arch=sm_90a", 2500),
                                         record("a", "NVRTC 12.8 -arch=sm_90a", 1600),
                                         record("c", "NVRTC 13.0 -arch=sm_90a", 1700, 2)};
  std::string text = tuning_file_text(in);
  EXPECT_TRUE(text.starts_with("# kwb.tuning.v1\n")) << text;
  size_t blocks = 0;
  for (size_t at = text.find("Validator: device="); at != std::string::npos; at = text.find("Validator: device=", at + 1))
    ++blocks;
  EXPECT_EQ(blocks, 3u) << text;  // the spec version is part of the identity
  EXPECT_NE(text.find("Validator: spec_version=2\n"), std::string::npos) << text;
  auto out = parse_tuning_file(text, "t.tsv");
  ASSERT_TRUE(out) << out.error().what();
  ASSERT_EQ(out->size(), 4u);
  int matched = 0;
  for (const auto& r : *out)
    for (const auto& o : in)
      if (r.workload == o.workload && r.identity == o.identity) {
        ++matched;
        EXPECT_DOUBLE_EQ(r.median_ns, o.median_ns);
        EXPECT_EQ(r.params, o.params);
        EXPECT_EQ(r.config, o.config);
        EXPECT_EQ(r.samples, o.samples);
      }
  EXPECT_EQ(matched, 4);
}

TEST(TuningFile, FilesWithoutASpecVersionAreVersionOne) {
  std::string text = "# kwb.tuning.v1\nValidator: device=d\nValidator: toolchain=t\nValidator: workbench=w\n"
                     "softmax\tf32\tcuda\tw\t{}\t" + std::string(64, 'b') + "\t{}\t3\t0\t1\n";
  auto r = parse_tuning_file(text, "t.tsv");
  ASSERT_TRUE(r) << r.error().what();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ(r->front().identity.spec_version, 1);
  auto bad = parse_tuning_file("# kwb.tuning.v1\nValidator: spec_version=0\n", "t.tsv");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().what().find("t.tsv:2: spec_version: expected an integer >= 1"), std::string::npos)
      << bad.error().what();
}

TEST(TuningFile, ErrorsNameLineAndColumn) {
  std::string head = "# kwb.tuning.v1\nValidator: device=d\nValidator: toolchain=t\nValidator: workbench=w\n";
  std::string sha(64, 'b');
  struct Case {
    std::string text, expect;
  } cases[] = {
      {"kwb tuning\n", "t.tsv:1: expected the header"},
      {"# kwb.tuning.v1\nsoftmax\tf32\n", "t.tsv:2: a record before its Validator lines"},
      {"# kwb.tuning.v1\nValidator: color=blue\n", "t.tsv:2: expected 'Validator: device="},
      {head + "softmax\tf32\tcuda\tw\n", "t.tsv:5: expected 10 tab-separated columns"},
      {head + "softmax\tf32\ttpu\tw\t{}\t" + sha + "\t{}\t1\t0\t1\n", "t.tsv:5: backend"},
      {head + "softmax\tf32\tcuda\tw\t{\"rows\": 1.5}\t" + sha + "\t{}\t1\t0\t1\n", "t.tsv:5: params.rows"},
      {head + "softmax\tf32\tcuda\tw\t{}\tabc\t{}\t1\t0\t1\n", "t.tsv:5: source_sha256"},
      {head + "softmax\tf32\tcuda\tw\t{}\t" + sha + "\t{}\t-3\t0\t1\n", "t.tsv:5: median_ns"},
      {head + "softmax\tf32\tcuda\tw\t{}\t" + sha + "\t{}\t3\tnan\t1\n", "t.tsv:5: stderr_pct"},
      {head + "softmax\tf32\tcuda\tw\t{}\t" + sha + "\t{}\t3\t0\t0\n", "t.tsv:5: samples"},
  };
  for (const auto& c : cases) {
    auto r = parse_tuning_file(c.text, "t.tsv");
    ASSERT_FALSE(r) << c.text;
    EXPECT_NE(r.error().what().find(c.expect), std::string::npos) << r.error().what();
  }
}

}  // namespace
}  // namespace kwb::library
