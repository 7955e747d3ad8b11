// SASS of a cuda-form candidate (docs/verdict.md "Compiler facts"): each config's cubin is
// disassembled in the sandbox (build/disassembler.hpp) during the compile stage, kept with the
// candidate (GET /v1/candidates/{id}/artifacts/sass) and counted per kernel (build/sass_mix.hpp).
// A missing or failing disassembler never fails the candidate: its facts say why there is no SASS.
#include <chrono>

#include "build/disassembler.hpp"
#include "build/sass_mix.hpp"
#include "eval/cuda_plan_evaluation.hpp"
#include "util/hash.hpp"

namespace kwb::eval {

void CudaPlanEvaluation::add_sass() {
  auto t = std::chrono::steady_clock::now();
  m_sass_data.assign(m_cubin_data.size(), std::string());
  auto tool = build::find_disassembler(m_cuda.disassembler);
  for (size_t c = 0; c < m_cubin_data.size() && c < m_verdict.compiler_facts.size(); ++c) {
    core::ConfigFacts& facts = m_verdict.compiler_facts[c];
    if (!tool) {
      facts.sass_note = tool.error().message;
      continue;
    }
    facts.sass_tool = tool->identity;
    build::SassRequest req{m_cubin_data[c], m_opt.workspace / "jobs", m_opt.bwrap,
                           std::min(m_opt.compile_timeout_ms, 60000),
                           m_opt.compile_cache ? m_opt.workspace / "cache" / "sass" : std::filesystem::path()};
    auto sass = build::disassemble(*tool, req);
    if (!sass || !sass->ok) {
      facts.sass_note = "no SASS: " + (sass ? sass->reason : sass.error().what());
      continue;
    }
    auto mix = build::scan_sass(sass->text);
    for (auto& k : facts.kernels)
      if (auto it = mix.find(k.kernel); it != mix.end()) k.sass = it->second;
    facts.sass_sha256 = util::sha256_hex(sass->text);
    m_sass_data[c] = std::move(sass->text);
  }
  if (tool)
    m_verdict.summary.stage_ms["sass"] =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace kwb::eval
