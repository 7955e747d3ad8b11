// g++'s -fopt-info-vec-missed and clang++'s -Rpass-missed=loop-vectorize output to notes.
#include <gtest/gtest.h>

#include "build/vectorization_remarks.hpp"

namespace kwb::build {
namespace {

// What g++ 12 prints for kernels/prefix_sum/cpu/scalar.cpp (and a header's loop).
constexpr const char* k_gcc =
    "candidate.cpp:22:12: missed: couldn't vectorize loop\n"
    "candidate.cpp:23:7: missed: not vectorized: unsupported use in stmt.\n"
    "candidate.cpp:11:16: missed: couldn't vectorize loop\n"
    "candidate.cpp:12:20: missed: not vectorized: unsupported use in stmt.\n"
    "/usr/include/c++/12/bits/stl_algobase.h:931:18: missed: couldn't vectorize loop\n"
    "candidate.cpp:16:11: missed: not vectorized: vectorization is not profitable.\n"
    "candidate.cpp:16:11: missed: not vectorized: vectorization is not profitable.\n"
    "candidate.cpp:16:11: missed: not vectorized: vectorization is not profitable.\n"
    "candidate.cpp:30:5: warning: unused variable 'x' [-Wunused-variable]\n";

TEST(VectorizationRemarks, GccLoopsWithTheirReasons) {
  auto d = parse_vectorization_remarks(k_gcc, "candidate.cpp", "scalar.cpp");
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].file, "scalar.cpp");
  EXPECT_EQ(d[0].line, 22);
  EXPECT_EQ(d[0].col, 12);
  EXPECT_EQ(d[0].severity, "note");
  EXPECT_EQ(d[0].rule, "vectorization");
  EXPECT_EQ(d[0].message, "loop not vectorized: unsupported use in stmt. (line 23)");
  EXPECT_EQ(d[1].line, 11);
  EXPECT_EQ(d[2].line, 16);  // three identical remarks: one note
  EXPECT_EQ(d[2].message, "loop not vectorized: vectorization is not profitable.");
}

TEST(VectorizationRemarks, ClangRemarks) {
  auto d = parse_vectorization_remarks(
      "/job/candidate.cpp:8:3: remark: loop not vectorized [-Rpass-missed=loop-vectorize]\n"
      "candidate.cpp:9:3: remark: some other pass said something [-Rpass-missed=licm]\n",
      "candidate.cpp", "k.cpp");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, 8);
  EXPECT_EQ(d[0].message, "loop not vectorized");
}

TEST(VectorizationRemarks, CappedAndKeptByTheCacheForm) {
  std::string log;
  for (int i = 1; i <= 50; ++i) log += "candidate.cpp:" + std::to_string(i) + ":1: missed: couldn't vectorize loop\n";
  EXPECT_EQ(parse_vectorization_remarks(log, "candidate.cpp", "k.cpp").size(), k_max_vectorization_remarks);
  // The lines the compile cache keeps parse to the same notes as the full log.
  auto kept = vectorization_remark_lines(k_gcc, "candidate.cpp");
  EXPECT_EQ(kept.find("stl_algobase"), std::string::npos);
  auto a = parse_vectorization_remarks(k_gcc, "candidate.cpp", "s.cpp");
  auto b = parse_vectorization_remarks(kept, "candidate.cpp", "s.cpp");
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].line, b[i].line);
    EXPECT_EQ(a[i].message, b[i].message);
  }
  EXPECT_TRUE(parse_vectorization_remarks("candidate.cpp:x:1: missed: y\n\n:::\n", "candidate.cpp", "k").empty());
  EXPECT_EQ(vectorization_remark_flags("g++ 12.2.0"), std::vector<std::string>{"-fopt-info-vec-missed"});
  EXPECT_EQ(vectorization_remark_flags("clang++ 19.1.7"), std::vector<std::string>{"-Rpass-missed=loop-vectorize"});
}

}  // namespace
}  // namespace kwb::build
