#pragma once
// Private to kwb::speccheck: whether a spec's tolerances admit honest kernels.
//  - Representable: the reference's outputs rounded to the output dtype (what any kernel must
//    write) stay within the tolerance of themselves; integer outputs are whole and in range.
//  - Conditioning: the reference on inputs moved one ulp away from zero, rounded to the output
//    dtype, stays within the tolerance of its unmoved outputs. Aggregated per variant and output
//    over every run, reported once with the worst element and the tolerance it would need.
#include <map>
#include <set>
#include <string>
#include <utility>

#include "speccheck/problem.hpp"
#include "speccheck/reference_run.hpp"

namespace kwb::speccheck::detail {

class ToleranceSanity {
 public:
  explicit ToleranceSanity(double widespread_share) : m_widespread(widespread_share) {}
  // `want`: the reference's outputs; problems of representability go to `out` at once (once per
  // variant and output).
  void check_representable(const Case& c, const Outputs& want, Findings& out);
  void add_perturbed(const Case& c, const Outputs& want, const Outputs& moved);
  void report(const core::Spec& spec, Findings& out) const;

 private:
  struct Worst {
    size_t violations = 0, elements = 0, runs = 0;
    double share = 0;       // the largest share of one run's elements over the tolerance
    std::string share_at;   // that run's context and counts
    double ratio = 0;       // |got - want| / (atol + rtol * |want|) of the worst element
    std::string ratio_at;   // where, with its values
    double need_atol = 0, need_rtol = 0;
    bool rtol_cannot = false;  // an element with want = 0 over atol: only atol helps
    bool non_finite = false;   // a finite want became NaN or Inf
  };
  double m_widespread;
  std::map<std::pair<size_t, std::string>, Worst> m_worst;  // (variant index, output)
  std::set<std::pair<size_t, std::string>> m_reported;     // representability, reported once
};

}  // namespace kwb::speccheck::detail
