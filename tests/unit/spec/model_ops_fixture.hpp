#pragma once
// A spec using the format's features for model ops (docs/specs.md): a label tensor bounded by a
// param, a declared scalar, an optional tensor, ragged offsets, distinct expert ids, and a top-k
// style index output under a set rule. Each test mutates it to break one field.
#include <string>

#include <nlohmann/json.hpp>

namespace kwb::spec::fixture {

using Json = nlohmann::ordered_json;

inline const std::string k_file = "specs/ce/spec.json";

inline const char* const k_model_ops = R"json({
  "op": "ce",
  "version": 1,
  "summary": "Fixture: cross entropy over a vocabulary, with the model-op fields.",
  "params": ["rows", "vocab", "batch", "k"],
  "scalars": [{"name": "smoothing", "value": 0.0}, {"name": "scale"}],
  "tensors": [
    {"name": "logits", "role": "in", "shape": ["rows", "vocab"]},
    {"name": "labels", "role": "in", "shape": ["rows"]},
    {"name": "weight", "role": "in", "shape": ["vocab"], "optional": true},
    {"name": "cu", "role": "in", "shape": ["batch + 1"]},
    {"name": "experts", "role": "in", "shape": ["rows", "k"]},
    {"name": "loss", "role": "out", "shape": ["rows"]},
    {"name": "top", "role": "out", "shape": ["rows", "k"]},
    {"name": "top_idx", "role": "out", "shape": ["rows", "k"], "set": {"of": "logits", "values": "top"}}
  ],
  "variants": [
    {"name": "f32", "entry": "kwb_ce_f32",
     "dtypes": {"logits": "f32", "labels": "i32", "cu": "i32", "experts": "i8", "loss": "f32", "top": "f32",
                "top_idx": "i32"},
     "tolerance": {"loss": {"atol": 1e-5, "rtol": 1e-5}, "top": {"exact": true}, "top_idx": {"exact": true}},
     "roofline": {"bytes": "4*rows*vocab", "flops": "rows*vocab"}},
    {"name": "weighted", "entry": "kwb_ce_weighted",
     "dtypes": {"logits": "f32", "labels": "i64", "weight": "f32", "cu": "i64", "experts": "i32", "loss": "f32",
                "top": "f32", "top_idx": "i64"},
     "tolerance": {"loss": {"atol": 1e-5, "rtol": 1e-5}, "top": {"exact": true}, "top_idx": {"exact": true}},
     "roofline": {"bytes": "4*rows*vocab + 4*vocab", "flops": "rows*vocab"}}
  ],
  "distributions": [
    {"name": "normal", "tensors": {
      "logits": {"kind": "normal", "mean": 0, "stddev": 1},
      "labels": {"kind": "int_uniform", "lo": 0, "hi": "vocab - 1"},
      "weight": {"kind": "uniform", "lo": 0.5, "hi": 1.5},
      "cu": {"kind": "offsets", "end": "rows", "max_length": "rows"},
      "experts": {"kind": "distinct", "lo": 0, "hi": "min(vocab, 64) - 1", "per_row": true}}}
  ],
  "workloads": {
    "test": [{"name": "r7v9", "params": {"rows": 7, "vocab": 9, "batch": 3, "k": 2}, "scalars": {"scale": 1.0}},
             {"name": "r33v40", "params": {"rows": 33, "vocab": 40, "batch": 5, "k": 4},
              "scalars": {"smoothing": 0.1, "scale": 0.5}}],
    "bench": [{"name": "big", "params": {"rows": 64, "vocab": 32000, "batch": 8, "k": 8}, "scalars": {"scale": 1}}]
  },
  "shapes": {"ranges": {"rows": "1..64", "vocab": "8..1000", "batch": "1..8", "k": "1..8"},
             "scalars": {"smoothing": [0, 0.2], "scale": [0.125, 8]}}
})json";

inline Json model_ops() { return Json::parse(k_model_ops); }

}  // namespace kwb::spec::fixture
