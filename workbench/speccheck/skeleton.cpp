#include "speccheck/skeleton.hpp"

#include <fmt/format.h>

#include "util/fs.hpp"

namespace kwb::speccheck {

namespace fs = std::filesystem;

namespace {

bool is_op_name(const std::string& s) {
  if (s.empty() || s.size() > 64 || !(s[0] >= 'a' && s[0] <= 'z')) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

// {op} is the op's name; braces of the JSON are doubled for fmt.
constexpr const char* k_spec = R"(// {op}: TODO one line on what the op computes (this skeleton describes a copy, y = x).
// The format is docs/specs.md; `kwb spec check <this folder>` reports every problem with file and field.
// Comments (// and /* */) are allowed anywhere; unknown fields are errors.
{{
  // The op's name: [a-z][a-z0-9_]*, equal to the name of this folder.
  "op": "{op}",
  // Bump when the meaning changes (reference, tolerance, distributions, workloads): results of
  // other versions are not comparable.
  "version": 1,
  // One line, shown by `kwb specs`.
  "summary": "TODO: what {op} computes, e.g. y = x for a rows x cols matrix",
  // Integer (int64) scalars that size the workloads; they follow the tensors in the entry point's
  // arguments. `min`, `max` and `ceil_div` are reserved.
  "params": ["rows", "cols"],
  // Optional: floating-point scalars (eps, a scale), passed as double after the params, e.g.
  // "scalars": [{{"name": "eps", "value": 1e-5}}]; a workload may give its own ("scalars": {{...}}).
  // The tensors in entry-point argument order: role "in", "out" or "inout"; the shape is one
  // expression over the params per dimension (+ - * / %, ceil_div, min, max), each >= 1.
  // "finite" (outputs only, optional): true = every element must be finite under every
  // distribution, false = never checked; left out = finite unless an input has nan/inf/max/lowest specials.
  // "optional": true lets a variant leave the tensor out (a bias); "set": {{"of": "x", "values": "v"}}
  // compares an output of indices as a set per row (top-k). docs/specs.md "Fields for model ops".
  "tensors": [
    {{"name": "x", "role": "in",  "shape": ["rows", "cols"]}},
    {{"name": "y", "role": "out", "shape": ["rows", "cols"]}}
  ],
  // One per dtype combination, each its own extern "C" entry symbol.
  "variants": [
    {{
      "name": "f32",
      "entry": "kwb_{op}_f32",
      // A dtype for every tensor: f32, f64, bf16, f16, i32, u32, i64, u8, f8e4m3, f8e5m2, i8.
      "dtypes": {{"x": "f32", "y": "f32"}},
      // Every out/inout tensor: {{"atol": a, "rtol": r}} (|got - want| <= atol + rtol * |want|) or
      // {{"exact": true}} (integers must be exact; fp8: exact or "rtol": 0). No defaults. TODO: as
      // tight as honest kernels allow: `kwb spec check` says when inputs one ulp off already break
      // it, and how much of it a CPU template (template.f32.cpp beside this file) uses.
      "tolerance": {{"y": {{"atol": 1e-6, "rtol": 1e-5}}}},
      // Minimal bytes moved (> 0) and useful operations (>= 0), for roofline figures.
      "roofline": {{"bytes": "4*rows*cols*2", "flops": "rows*cols"}}
    }}
  ],
  // Named input cases: a generator for every in/inout tensor (uniform lo/hi, normal mean/stddev,
  // int_uniform lo/hi, constant value; optional "specials" + "specials_fraction": nan, inf, -inf,
  // +0, -0, denormal, max, lowest; for index tensors int_uniform/distinct with bounds over the
  // params ("hi": "vocab - 1"), offsets (end, min_length, max_length), permutation). Test workloads
  // run under every distribution, bench workloads under the first. TODO: add the adversarial
  // cases of your op (large offsets, specials).
  "distributions": [
    {{"name": "normal", "tensors": {{"x": {{"kind": "normal", "mean": 0, "stddev": 1}}}}}},
    {{"name": "large_offset", "note": "TODO: why this case exists, e.g. values near 1e4",
     "tensors": {{"x": {{"kind": "uniform", "lo": 9990, "hi": 10010}}}}}},
    {{"name": "signed_zeros_and_denormals",
     "tensors": {{"x": {{"kind": "normal", "mean": 0, "stddev": 1,
                       "specials": ["+0", "-0", "denormal"], "specials_fraction": 0.05}}}}}}
  ],
  "workloads": {{
    // Correctness sizes: each param takes 1, a prime, a value above 32 and one above 128 that are
    // not multiples of 32 and 128 (the check warns otherwise).
    "test": [
      {{"name": "1x1", "params": {{"rows": 1, "cols": 1}}}},
      {{"name": "1x7", "params": {{"rows": 1, "cols": 7}}}},
      {{"name": "3x31", "params": {{"rows": 3, "cols": 31}}}},
      {{"name": "33x129", "params": {{"rows": 33, "cols": 129}}}},
      {{"name": "131x5", "params": {{"rows": 131, "cols": 5}}}},
      {{"name": "2x4099", "params": {{"rows": 2, "cols": 4099}}}}
    ],
    // Realistic sizes for timing; "label" says what real use each stands for, "backends" keeps
    // GPU-sized ones off the CPU. Every workload must fit its device class (cpu: half this
    // machine's memory, cuda: 139 GiB).
    "bench": [
      {{"name": "1024x1024", "params": {{"rows": 1024, "cols": 1024}}, "label": "TODO: a real use of this size"}},
      {{"name": "8192x8192", "params": {{"rows": 8192, "cols": 8192}}, "backends": ["cuda", "cuda-launcher"],
       "label": "TODO: a GPU-sized use"}}
    ]
  }},
  // Fresh test shapes: every evaluation also draws `count` shapes from these ranges with its secret
  // seed (edge values favoured), so a kernel tuned to the published test shapes is caught.
  // "constraints": ["cols % 4 == 0"] narrows them; max_elements caps all tensors together.
  "shapes": {{"ranges": {{"rows": "1..4096", "cols": "1..70000"}}, "count": 3, "max_elements": 1048576}}
}}
)";

constexpr const char* k_reference = R"(// Trusted reference for {op} (docs/specs.md, "Reference"). TODO: compute the op.
// It reads the inputs in the variant's dtypes (a.in<float>("x") for f32; bf16/f16 are uint16_t
// bits: decode with core::bf16_to_float) and writes EVERY element of every output as a double
// (a.out("y")), accumulating in double where it matters. It must be deterministic: no statics,
// no reading an output before writing it. `kwb spec check` runs it to check all of that.
#include <cstdint>

#include "core/parallel_ranges.hpp"
#include "core/reference.hpp"

namespace kwb::reference {{

void {op}(const core::ReferenceArgs& a) {{
  const int64_t rows = a.param("rows"), cols = a.param("cols");
  const float* x = a.in<float>("x");
  double* y = a.out("y");
  // Rows on several threads when the work is large; each row exactly as a serial loop.
  core::parallel_ranges(rows, rows * cols, [&](int64_t r0, int64_t r1) {{
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = double(x[r * cols + c]);  // TODO: the op
  }});
}}

}}  // namespace kwb::reference
)";

}  // namespace

std::string skeleton_spec(const std::string& op) { return fmt::format(fmt::runtime(k_spec), fmt::arg("op", op)); }
std::string skeleton_reference(const std::string& op) {
  return fmt::format(fmt::runtime(k_reference), fmt::arg("op", op));
}

util::Result<fs::path> write_skeleton(const fs::path& parent, const std::string& op) {
  if (!is_op_name(op)) return util::fail(op, "not an op name: use [a-z][a-z0-9_]* (at most 64 characters)");
  const fs::path dir = parent / op;
  std::error_code ec;
  if (fs::exists(dir, ec)) return util::fail(dir.string(), "already exists: pick another op name or --dir");
  fs::create_directories(dir, ec);
  if (ec) return util::fail(dir.string(), "cannot create: " + ec.message());
  if (auto w = util::write_file_atomic(dir / "spec.json", skeleton_spec(op)); !w) return std::unexpected(w.error());
  if (auto w = util::write_file_atomic(dir / "reference.cpp", skeleton_reference(op)); !w)
    return std::unexpected(w.error());
  return dir;
}

}  // namespace kwb::speccheck
