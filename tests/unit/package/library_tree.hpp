#pragma once
// A small library tree for the export's tests: vector_add/f32 with an "any" CPU kernel, one for
// cpu-x86_64-v3 and one for cpu-x86_64-v4, a CUDA kernel with a BLOCK tunable and two recorded
// configs, and a cuda-launcher entry. The spec is the repository's own specs/vector_add.
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>

#include "library/dispatch.hpp"
#include "package/export.hpp"
#include "spec/catalog.hpp"
#include "util/fs.hpp"

namespace kwb::test {

inline const std::filesystem::path& specs_dir() {
  static const std::filesystem::path dir = std::filesystem::path(KWB_TEST_SOURCE_DIR) / "specs";
  return dir;
}

inline const spec::Catalog& vector_add_catalog() {
  static const auto catalog = [] {
    spec::CatalogSource only;
    only.folders = {{"vector_add", specs_dir() / "vector_add"}};
    auto c = spec::Catalog::load(std::vector<spec::CatalogSource>{only});
    if (!c) throw std::runtime_error(c.error().what());
    return std::move(*c);
  }();
  return catalog;
}

inline std::string cpu_kernel(const std::string& comment) {
  return "// " + comment +
         "\n#include <cstdint>\n"
         "extern \"C\" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {\n"
         "  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];\n}\n";
}

struct LibraryTree {
  std::map<std::string, std::string> files;  // library path -> text (dispatch.json apart)
  library::Dispatch dispatch;

  library::DispatchEntry& entry(const std::string& kernel) {
    for (auto& e : dispatch.entries)
      if (e.kernel == kernel) return e;
    throw std::runtime_error("no dispatch entry for " + kernel);
  }
  void write(const std::filesystem::path& dir) const {
    for (const auto& [path, text] : files)
      if (auto w = util::write_file_atomic(dir / path, text); !w) throw std::runtime_error(w.error().what());
    if (auto w = util::write_file_atomic(dir / "dispatch.json", library::dispatch_text(dispatch)); !w)
      throw std::runtime_error(w.error().what());
  }
};

inline LibraryTree small_library() {
  LibraryTree t;
  t.files["vector_add/cpu/scalar.cpp"] = cpu_kernel("the baseline: any x86-64");
  t.files["vector_add/cpu/scalar.json"] = R"({"flags": ["-O2", "-march=native", "-funroll-loops"]})";
  t.files["vector_add/cpu/avx2.cpp"] = cpu_kernel("promoted on an AVX2 machine");
  t.files["vector_add/cpu/avx2.json"] = R"({"flags": ["-mtune=native", "-ffast-math"]})";
  t.files["vector_add/cpu/avx512.cpp"] = cpu_kernel("promoted on an AVX-512 machine");
  t.files["vector_add/cuda/grid.cu"] =
      "// kwb:launch vector_add_f32 grid=(ceil_div(n, BLOCK)) block=(BLOCK) args=(a, b, c, n)\n"
      "// kwb:tune BLOCK=128,256,512\n"
      "extern \"C\" __global__ void vector_add_f32(const float* a, const float* b, float* c, long long n) {\n"
      "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) c[i] = a[i] + b[i];\n}\n";
  t.files["vector_add/cuda-launcher/streamed.cu"] = "// a launcher\n";
  auto cpu = [](std::string cls, std::string kernel) {
    return library::DispatchEntry{"vector_add", "f32", "cpu", std::move(cls), std::move(kernel), "kwb_vector_add_f32",
                                  "", 0, {}};
  };
  t.dispatch.upsert(cpu("any", "vector_add/cpu/scalar.cpp"));
  t.dispatch.upsert(cpu("cpu-x86_64-v3", "vector_add/cpu/avx2.cpp"));
  t.dispatch.upsert(cpu("cpu-x86_64-v4", "vector_add/cpu/avx512.cpp"));
  library::DispatchEntry cuda{"vector_add", "f32", "cuda", "cuda-sm_90", "vector_add/cuda/grid.cu", "", "", 0, {}};
  // Params left empty are the spec's bench workload's (n1M: 1048576, n16M: 16777216).
  cuda.configs = {{"n16M", {}, {{"BLOCK", 512}}, 900.0}, {"n1M", {}, {{"BLOCK", 256}}, 30.0},
                  {"n256M", {}, {{"BLOCK", 512}}, 12000.0}};
  t.dispatch.upsert(cuda);
  t.dispatch.upsert(library::DispatchEntry{"vector_add", "f32", "cuda-launcher", "any",
                                           "vector_add/cuda-launcher/streamed.cu", "kwb_vector_add_f32", "", 0, {}});
  return t;
}

inline package::ExportRequest export_request(const std::filesystem::path& library, const std::filesystem::path& out) {
  package::ExportRequest r;
  r.library_dir = library;
  r.catalog = &vector_add_catalog();
  r.specs_dir = specs_dir();
  r.out_dir = out;
  r.cpu_device_class = "cpu-x86_64-v3";
  r.backends = {"cpu", "cuda", "cuda-launcher"};
  return r;
}

}  // namespace kwb::test
