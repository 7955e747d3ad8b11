// A candidate's backend (core/backend.hpp): one name per form that parses back, what each form
// implies, the form inferred from a file, and the names as a filter lists them.
#include <gtest/gtest.h>

#include "core/backend.hpp"
#include "core/backend_inference.hpp"
#include "core/filters.hpp"

namespace kwb::core {
namespace {

TEST(Backend, EveryFormHasOneNameThatParsesBack) {
  std::vector<std::string> names;
  for (Backend b : k_backends) {
    names.emplace_back(backend_name(b));
    EXPECT_EQ(parse_backend(backend_name(b)), b) << backend_name(b);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"cpu", "cuda", "cuda-launcher"}));
  EXPECT_EQ(backend_names(), names);
  EXPECT_EQ(backend_list(), "cpu, cuda, cuda-launcher");
  for (const char* unknown : {"", "CPU", "gpu", "cuda_launcher", "cuda-launcher "})
    EXPECT_FALSE(parse_backend(unknown)) << '"' << unknown << '"';
}

TEST(Backend, WhatEachFormImplies) {
  EXPECT_FALSE(on_gpu(Backend::cpu));
  EXPECT_TRUE(on_gpu(Backend::cuda));
  EXPECT_TRUE(on_gpu(Backend::cuda_launcher));
  EXPECT_TRUE(reviewer_only(Backend::cuda_launcher));
  EXPECT_FALSE(reviewer_only(Backend::cuda));
  EXPECT_FALSE(reviewer_only(Backend::cpu));
  EXPECT_EQ(source_extension(Backend::cpu), ".cpp");
  EXPECT_EQ(source_extension(Backend::cuda), ".cu");
  EXPECT_EQ(source_extension(Backend::cuda_launcher), ".cu");
  // By a serialized name: a name that is none implies nothing.
  EXPECT_TRUE(on_gpu("cuda-launcher"));
  EXPECT_FALSE(on_gpu("gpu"));
  EXPECT_TRUE(reviewer_only("cuda-launcher"));
  EXPECT_FALSE(reviewer_only("launcher"));
  EXPECT_TRUE(is_backend("cuda", Backend::cuda));
  EXPECT_FALSE(is_backend("cuda", Backend::cuda_launcher));
  EXPECT_FALSE(is_backend("", Backend::cpu));
}

TEST(Backend, TheFormOfAFileWithoutOneGiven) {
  EXPECT_EQ(infer_backend("k.cpp", "extern \"C\" void f();"), Backend::cpu);
  EXPECT_EQ(infer_backend("k.cu", "// kwb:launch grid=(1) block=(1) k(x)\n__global__ void k(float* x) {}"), Backend::cuda);
  EXPECT_EQ(infer_backend("k.cu", "extern \"C\" void f(float* x, cudaStream_t stream);"), Backend::cuda_launcher);
  EXPECT_EQ(infer_backend("k.cu", "__global__ void k(float* x) {}"), Backend::cuda);
}

}  // namespace
}  // namespace kwb::core
