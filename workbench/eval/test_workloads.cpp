#include "eval/test_workloads.hpp"

#include "spec/shape_draw.hpp"

namespace kwb::eval {

util::Result<std::vector<core::Workload>> evaluation_test_workloads(const core::Spec& spec, SeedSource& seeds) {
  auto drawn = spec::draw_workloads(spec, seeds.next());
  if (!drawn)
    return util::fail("", "spec " + spec.op + " v" + std::to_string(spec.version) + ": cannot draw test shapes: " +
                              drawn.error().what() + "; the spec is at fault, not the candidate");
  std::vector<core::Workload> out = spec.test_workloads;
  out.insert(out.end(), drawn->begin(), drawn->end());
  return out;
}

}  // namespace kwb::eval
