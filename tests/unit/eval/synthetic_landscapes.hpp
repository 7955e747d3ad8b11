#pragma once
// Synthetic tuning landscapes for the search's tests (tests/unit/eval/test_config_search.cpp):
// deterministic objectives over GEMM-like spaces of 500+ configs, timed with multiplicative
// noise, and cost-model priors that are right in part only. These are a CPU-side proxy for
// issue 38's done-when, not measurements of any GPU (docs/tuning.md "Synthetic figures").
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/launch_plan.hpp"
#include "spec/launch_plan.hpp"

namespace kwb::eval::synthetic {

struct Landscape {
  std::string name;
  std::vector<core::TuneConfig> configs;
  std::vector<double> truth;  // ns per config
  std::vector<double> prior;  // a cost model's prediction (empty: none)
};

inline std::vector<core::TuneConfig> space_of(const std::string& lines) {
  auto plan = spec::parse_launch_plan("// kwb:launch k grid=(1) block=(32) args=()\n" + lines, "synthetic.cu");
  return plan ? spec::tune_configs(*plan) : std::vector<core::TuneConfig>{};
}

// A deterministic +-1 per config (ruggedness the smooth model cannot know).
inline double rugged(const core::TuneConfig& c) {
  uint64_t h = 1469598103934665603ull;
  for (char ch : c.label()) h = (h ^ uint64_t(uint8_t(ch))) * 1099511628211ull;
  h ^= h >> 29;
  return double(h % 2001) / 1000.0 - 1.0;
}

inline double lg(double x) { return std::log2(x); }

// A tiled kernel with a smooth optimum (tile area, aspect, BK, stages matched to BK, warps
// matched to the tile) and 3 % ruggedness; the prior knows the tile terms only, with a wrong weight.
inline Landscape tiled() {
  Landscape l{"tiled", space_of("// kwb:tune BM=range(16,256,16) BN=pow2(16,256) BK=pow2(8,64) STAGES=2..5 "
                                "WARPS=pow2(1,8)\n// kwb:constraint BM*BN <= 16384\n"
                                "// kwb:constraint (BM + BN) * BK * STAGES <= 24576\n"),
              {}, {}};
  for (const auto& c : l.configs) {
    const double bm = double(c.values.at("BM")), bn = double(c.values.at("BN")), bk = double(c.values.at("BK"));
    const double st = double(c.values.at("STAGES")), wa = double(c.values.at("WARPS"));
    const double p_tile = 0.12 * std::pow(lg(bm * bn) - 13, 2), p_aspect = 0.05 * std::pow(lg(bm / bn), 2);
    const double p_bk = 0.08 * std::pow(lg(bk) - 5, 2), p_st = 0.04 * std::pow(st - (bk <= 16 ? 4 : 3), 2);
    const double p_warps = 0.06 * std::pow(lg(wa) - std::clamp(lg(bm * bn / 2048), 0.0, 3.0), 2);
    l.truth.push_back(1000 * (1 + p_tile + p_aspect + p_bk + p_st + p_warps) * (1 + 0.03 * rugged(c)));
    l.prior.push_back(1000 * (1 + 0.06 * std::pow(lg(bm * bn) - 13, 2) + 0.05 * std::pow(lg(bm / bn), 2)));
  }
  return l;
}

// Two basins, the global one narrower and 4 % faster; searched without a prior.
inline Landscape two_basins() {
  Landscape l{"two-basins", space_of("// kwb:tune X=range(0,30,1) Y=range(0,30,1)\n// kwb:constraint X + Y <= 40\n"),
              {}, {}};
  for (const auto& c : l.configs) {
    const double x = double(c.values.at("X")), y = double(c.values.at("Y"));
    const double wide = 1 + 0.004 * ((x - 8) * (x - 8) + (y - 8) * (y - 8));
    const double narrow = 0.96 * (1 + 0.02 * ((x - 22) * (x - 22) + (y - 14) * (y - 14)));
    l.truth.push_back(1000 * std::min(wide, narrow) * (1 + 0.02 * rugged(c)));
  }
  return l;
}

// A GEMM of 4096 x 4096 on 132 SMs: waves of tiles (the quantization makes it saw-toothed),
// occupancy from shared memory and threads; the prior is the same model without the waves'
// quantization and with no notion of the pipeline's stages.
inline Landscape waves() {
  Landscape l{"waves", space_of("// kwb:tune BM=range(32,256,32) BN=range(32,256,32) STAGES=2..5 WARPS=pow2(2,16)\n"
                                "// kwb:constraint BM*BN <= 32768\n"),
              {}, {}};
  for (const auto& c : l.configs) {
    const double bm = double(c.values.at("BM")), bn = double(c.values.at("BN"));
    const double st = double(c.values.at("STAGES")), wa = double(c.values.at("WARPS"));
    const double smem = (bm + bn) * 32 * 2 * st;
    const double occ = std::max(1.0, std::min(std::floor(228 * 1024 / smem), std::floor(64 / wa)));
    const double tiles = std::ceil(4096 / bm) * std::ceil(4096 / bn);
    const double per_tile = bm * bn * 4096 * 2 / (1e3 * std::min(wa, 8.0) * (0.7 + 0.1 * std::min(st, 4.0)));
    const double intensity = 1 + 64 / bm + 64 / bn;  // small tiles reread more
    const double t = std::ceil(tiles / (132 * occ)) * per_tile * intensity / std::sqrt(occ);
    l.truth.push_back(t * (1 + 0.02 * rugged(c)));
    l.prior.push_back(tiles / (132 * occ) * (bm * bn * 4096 * 2 / (1e3 * std::min(wa, 8.0))) * intensity /
                      std::sqrt(occ));
  }
  return l;
}

}  // namespace kwb::eval::synthetic
