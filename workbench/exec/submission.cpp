#include "exec/submission.hpp"

#include <regex>
#include <set>

#include "build/flags.hpp"
#include "core/backend.hpp"
#include "spec/launch_plan.hpp"
#include "util/hash.hpp"

namespace kwb::exec {

namespace {

std::unexpected<Refusal> bad(std::string field, std::string message, RefusalCode code = RefusalCode::invalid,
                             std::string type = "invalid_field") {
  return std::unexpected(Refusal{code, std::move(type), field + ": " + message});
}

std::unexpected<Refusal> refuse(RefusalCode code, std::string type, std::string message) {
  return std::unexpected(Refusal{code, std::move(type), std::move(message)});
}

const char* type_name(const nlohmann::json& v) { return v.type_name(); }

// "\"cpu\", \"cuda\" or \"cuda-launcher\"": every backend's name (core/backend.hpp), quoted.
std::string quoted_backends() {
  std::string out;
  const size_t n = std::size(core::k_backends);
  for (size_t i = 0; i < n; ++i)
    out += (i == 0 ? "" : i + 1 == n ? " or " : ", ") + ("\"" + std::string(core::backend_name(core::k_backends[i])) + "\"");
  return out;
}

// The class asked for must be one this daemon's executor evaluates on, of the candidate's kind.
std::optional<std::unexpected<Refusal>> check_device_class(const store::CandidateRecord& r, const SubmissionRules& rules) {
  const std::string kind = core::on_gpu(r.backend) ? "cuda" : "cpu";
  std::string known;
  const exec::DeviceClassInfo* found = nullptr;
  for (const auto& c : rules.device_classes) {
    known += (known.empty() ? "" : ", ") + c.device_class;
    if (c.device_class == r.device_class) found = &c;
  }
  if (known.empty())
    known = rules.executor == "slurm" ? "none: the daemon's --slurm-device-classes names none" : "none";
  if (!found)
    return bad("device_class", "this daemon (executor " + rules.executor + ") does not evaluate on device class '" +
                                   r.device_class + "' (known: " + known + "; GET /v1/devices)",
               RefusalCode::unprocessable, "unknown_device_class");
  if (found->kind != kind)
    return bad("device_class", "device class " + r.device_class + " is a " + found->kind + " class; a " + r.backend +
                                   " candidate needs a " + kind + " class (known: " + known + ")",
               RefusalCode::unprocessable, "unknown_device_class");
  return std::nullopt;
}

}  // namespace

std::expected<Submission, Refusal> parse_submission(const std::string& body, const spec::Catalog& catalog,
                                                    const SubmissionRules& rules) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(body);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    if (what.find("UTF-8") != std::string::npos || what.find("utf-8") != std::string::npos)
      return refuse(RefusalCode::invalid, "invalid_utf8", "body is not valid UTF-8: " + what);
    return refuse(RefusalCode::invalid, "invalid_json", "body is not valid JSON: " + what);
  }
  if (!j.is_object()) return refuse(RefusalCode::invalid, "invalid_json", "body must be a JSON object");
  static const std::set<std::string> known = {"op", "variant", "backend", "source", "source_name", "launch",
                                              "tune", "flags", "note", "parent", "bench",
                                              "device_class", "profile"};
  for (const auto& [k, v] : j.items())
    if (!known.contains(k)) return bad(k, "unknown field (expected: op, variant, backend, source, source_name, flags, note, parent, launch, tune, bench, device_class, profile)");

  Submission s;
  auto& r = s.rec;
  auto want_string = [&](const char* field, bool required, std::string& out) -> std::optional<std::unexpected<Refusal>> {
    if (!j.contains(field)) {
      if (required) return bad(field, "required field is missing");
      return std::nullopt;
    }
    if (!j[field].is_string()) return bad(field, std::string("expected string, got ") + type_name(j[field]));
    out = j[field].get<std::string>();
    return std::nullopt;
  };
  if (auto e = want_string("op", true, r.op)) return *e;
  const core::Spec* spec = catalog.find(r.op);
  if (!spec) {
    std::string ops;
    for (const auto& o : catalog.ops()) ops += (ops.empty() ? "" : ", ") + o;
    return bad("op", "unknown op '" + r.op + "' (known: " + ops + ")", RefusalCode::unprocessable, "unknown_op");
  }
  if (auto e = want_string("variant", false, r.variant)) return *e;
  if (!r.variant.empty() && !spec->find_variant(r.variant))
    return bad("variant", "op " + r.op + " has no variant '" + r.variant + "'", RefusalCode::unprocessable, "unknown_variant");
  r.backend = core::backend_name(core::Backend::cpu);
  if (auto e = want_string("backend", false, r.backend)) return *e;
  const auto form = core::parse_backend(r.backend);
  if (!form) return bad("backend", "expected " + quoted_backends() + ", got \"" + r.backend + "\"");
  bool served = false;
  for (const auto& b : rules.backends) served = served || b == r.backend;
  if (!served) return bad("backend", "this daemon does not evaluate '" + r.backend + "' candidates yet", RefusalCode::unprocessable, "unsupported_backend");
  for (const char* cuda_only : {"launch", "tune"})
    if (j.contains(cuda_only) && *form != core::Backend::cuda)
      return bad(cuda_only, "only the cuda backend takes a launch plan (this is a " + r.backend + " submission)");
  if (auto e = want_string("source", true, s.source)) return *e;
  if (s.source.empty()) return bad("source", "must not be empty");
  if (s.source.size() > rules.max_source_bytes)
    return bad("source", "larger than " + std::to_string(rules.max_source_bytes) + " bytes", RefusalCode::too_large, "too_large");
  if (j.contains("launch") || j.contains("tune")) {  // the plan as comment lines after the source
    if (j.contains("launch") && !j["launch"].is_string() && !j["launch"].is_array())
      return bad("launch", std::string("expected a string or an array of strings, got ") + type_name(j["launch"]));
    if (j.contains("tune") && !j["tune"].is_object())
      return bad("tune", std::string("expected an object such as {\"BLOCK\": [128, 256]}, got ") + type_name(j["tune"]));
    auto lines = spec::plan_lines_from_json(j.value("launch", nlohmann::json()), j.value("tune", nlohmann::json()));
    if (!lines) return refuse(RefusalCode::invalid, "invalid_field", lines.error().what());
    if (s.source.back() != '\n') s.source += '\n';
    s.source += *lines;
  }
  r.source_name = "candidate" + std::string(core::source_extension(*form));
  if (auto e = want_string("source_name", false, r.source_name)) return *e;
  static const std::regex name_re(R"([A-Za-z0-9_][A-Za-z0-9_.-]{0,99})");
  if (!std::regex_match(r.source_name, name_re) || r.source_name.find("..") != std::string::npos)
    return bad("source_name", "must be a plain file name ([A-Za-z0-9_.-], no '/' or '..'), got \"" + r.source_name + "\"");
  if (j.contains("flags")) {
    if (!j["flags"].is_array()) return bad("flags", std::string("expected array of strings, got ") + type_name(j["flags"]));
    for (size_t i = 0; i < j["flags"].size(); ++i) {
      if (!j["flags"][i].is_string())
        return bad("flags[" + std::to_string(i) + "]", std::string("expected string, got ") + type_name(j["flags"][i]));
      r.flags.push_back(j["flags"][i].get<std::string>());
    }
    if (auto ok = build::check_flags(r.flags); !ok)
      return refuse(RefusalCode::unprocessable, "forbidden_flag", ok.error().what());
  }
  if (j.contains("bench")) {
    if (!j["bench"].is_array()) return bad("bench", std::string("expected array of bench workload names, got ") + type_name(j["bench"]));
    for (size_t i = 0; i < j["bench"].size(); ++i) {
      if (!j["bench"][i].is_string())
        return bad("bench[" + std::to_string(i) + "]", std::string("expected string, got ") + type_name(j["bench"][i]));
      r.bench.push_back(j["bench"][i].get<std::string>());
    }
    if (auto ok = spec::check_bench_selection(*spec, r.backend, r.bench); !ok)
      return refuse(RefusalCode::unprocessable, "unknown_workload", ok.error().what());
  }
  if (j.contains("profile")) {
    if (!j["profile"].is_boolean()) return bad("profile", std::string("expected true or false, got ") + type_name(j["profile"]));
    r.profile = j["profile"].get<bool>();
  }
  if (auto e = want_string("note", false, r.note)) return *e;
  if (r.note.size() > 4096) return bad("note", "longer than 4096 bytes");
  if (j.contains("parent")) {
    std::string parent;
    if (auto e = want_string("parent", false, parent)) return *e;
    static const std::regex id_re(R"(c-[0-9a-f]{16})");
    if (!std::regex_match(parent, id_re)) return bad("parent", "expected a candidate id like c-0123456789abcdef");
    r.parent = parent;
  }
  if (auto e = want_string("device_class", false, r.device_class)) return *e;
  if (j.contains("device_class"))
    if (auto e = check_device_class(r, rules)) return *e;
  s.request_sha256 = util::sha256_hex(j.dump());  // key order and blanks do not matter
  return s;
}

}  // namespace kwb::exec
