#include "analysis/protocol.hpp"

#include <cstdint>
#include <cstring>

namespace kwb::analysis::detail {

using nlohmann::json;

namespace {

// The source travels base64-encoded: it may hold bytes that are not UTF-8, which JSON cannot carry.
constexpr char k_b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  for (size_t i = 0; i < in.size(); i += 3) {
    uint32_t v = uint32_t(uint8_t(in[i])) << 16;
    if (i + 1 < in.size()) v |= uint32_t(uint8_t(in[i + 1])) << 8;
    if (i + 2 < in.size()) v |= uint8_t(in[i + 2]);
    out += k_b64[(v >> 18) & 63];
    out += k_b64[(v >> 12) & 63];
    out += i + 1 < in.size() ? k_b64[(v >> 6) & 63] : '=';
    out += i + 2 < in.size() ? k_b64[v & 63] : '=';
  }
  return out;
}

util::Result<std::string> unbase64(std::string_view in) {
  std::string out;
  uint32_t v = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    const char* p = std::strchr(k_b64, c);
    if (!p || !c) return util::fail("source", "invalid base64");
    v = (v << 6) | uint32_t(p - k_b64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += char((v >> bits) & 0xff);
    }
  }
  return out;
}

json launches_to_json(const std::vector<KernelLaunch>& launches) {
  json out = json::array();
  for (const auto& l : launches) {
    json args = json::array();
    for (const auto& a : l.args)
      args.push_back({{"kind", a.kind == core::LaunchArg::Kind::tensor   ? "tensor"
                               : a.kind == core::LaunchArg::Kind::param  ? "param"
                               : a.kind == core::LaunchArg::Kind::scalar ? "scalar"
                                                                         : "workspace"},
                      {"name", a.name},
                      {"index", a.index}});
    out.push_back({{"kernel", l.kernel}, {"args", args}, {"line", l.line}});
  }
  return out;
}

}  // namespace

json request_to_json(const Request& r) {
  json tensors = json::array();
  for (const auto& t : r.spec.tensors)
    tensors.push_back({{"name", t.name}, {"role", core::role_name(t.role)}, {"optional", t.optional}});
  json dtypes = json::object();
  for (const auto& [name, dt] : r.variant.dtypes) dtypes[name] = core::dtype_name(dt);
  return {{"spec", {{"op", r.spec.op}, {"version", r.spec.version}, {"tensors", tensors}, {"params", r.spec.params},
                    {"scalars", r.spec.scalar_names()}}},
          {"variant", {{"name", r.variant.name}, {"entry", r.variant.entry}, {"dtypes", dtypes}}},
          {"backend", r.backend},
          {"source_base64", base64(r.source)},
          {"display_name", r.display_name},
          {"kernel_names", r.kernel_names},
          {"flags", r.flags},
          {"launches", launches_to_json(r.launches)}};
}

util::Result<OwnedRequest> request_from_json(const json& j) {
  try {
    OwnedRequest r;
    const auto& s = j.at("spec");
    r.spec.op = s.at("op").get<std::string>();
    r.spec.version = s.at("version").get<int>();
    r.spec.params = s.at("params").get<std::vector<std::string>>();
    for (const auto& name : s.value("scalars", std::vector<std::string>{})) r.spec.scalars.push_back({name, {}});
    for (const auto& t : s.at("tensors")) {
      core::TensorSpec ts;
      ts.name = t.at("name").get<std::string>();
      ts.optional = t.value("optional", false);
      std::string role = t.at("role").get<std::string>();
      ts.role = role == "in" ? core::Role::in : role == "out" ? core::Role::out : core::Role::inout;
      r.spec.tensors.push_back(ts);
    }
    const auto& v = j.at("variant");
    r.variant.name = v.at("name").get<std::string>();
    r.variant.entry = v.at("entry").get<std::string>();
    for (const auto& [name, dt] : v.at("dtypes").items()) {
      auto parsed = core::parse_dtype(dt.get<std::string>());
      if (!parsed) return util::fail("variant.dtypes." + name, "unknown dtype " + dt.dump());
      r.variant.dtypes[name] = *parsed;
    }
    r.backend = j.at("backend").get<std::string>();
    auto source = unbase64(j.at("source_base64").get<std::string>());
    if (!source) return std::unexpected(source.error());
    r.source = std::move(*source);
    r.display_name = j.at("display_name").get<std::string>();
    r.kernel_names = j.at("kernel_names").get<std::vector<std::string>>();
    r.flags = j.at("flags").get<std::vector<std::string>>();
    for (const auto& l : j.at("launches")) {
      KernelLaunch launch{l.at("kernel").get<std::string>(), {}, l.at("line").get<int>()};
      for (const auto& a : l.at("args")) {
        std::string kind = a.at("kind").get<std::string>();
        core::LaunchArg arg;
        arg.kind = kind == "tensor"   ? core::LaunchArg::Kind::tensor
                   : kind == "param"  ? core::LaunchArg::Kind::param
                   : kind == "scalar" ? core::LaunchArg::Kind::scalar
                                      : core::LaunchArg::Kind::workspace;
        arg.name = a.at("name").get<std::string>();
        arg.index = a.at("index").get<int>();
        launch.args.push_back(arg);
      }
      r.launches.push_back(std::move(launch));
    }
    return r;
  } catch (const json::exception& e) {
    return util::fail("analysis request", e.what());
  }
}

json report_to_json(const Report& r) {
  json findings = json::array();
  for (const auto& d : r.findings)
    findings.push_back({{"file", d.file}, {"line", d.line}, {"col", d.col}, {"severity", d.severity},
                        {"message", d.message}, {"rule", d.rule}});
  return {{"available", r.available}, {"unavailable_reason", r.unavailable_reason}, {"findings", findings},
          {"ms", r.ms}, {"parsed_with", r.parsed_with}};
}

util::Result<Report> report_from_json(const json& j) {
  try {
    Report r;
    r.available = j.at("available").get<bool>();
    r.unavailable_reason = j.at("unavailable_reason").get<std::string>();
    r.ms = j.at("ms").get<double>();
    r.parsed_with = j.value("parsed_with", "");
    for (const auto& d : j.at("findings"))
      r.findings.push_back(core::Diagnostic{d.at("file").get<std::string>(), d.at("line").get<int>(),
                                            d.at("col").get<int>(), d.at("severity").get<std::string>(),
                                            d.at("message").get<std::string>(), d.at("rule").get<std::string>()});
    return r;
  } catch (const json::exception& e) {
    return util::fail("analysis report", e.what());
  }
}

}  // namespace kwb::analysis::detail
