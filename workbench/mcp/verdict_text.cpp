#include "mcp/verdict_text.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace kwb::mcp {

namespace {

using nlohmann::json;

std::string str(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

std::string num(const json& v) {
  if (v.is_number_float()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v.get<double>());
    return buf;
  }
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string ratio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3gx", r);
  return buf;
}

// The first workload with a first_mismatch, as one line.
json first_mismatch(const json& verdict) {
  for (const auto& w : verdict.value("workloads", json::array())) {
    const json& m = w.value("first_mismatch", json());
    if (!m.is_object()) continue;
    json out = m;
    out["workload"] = w.value("name", "");
    out["params"] = w.value("params", json::object());
    out["mismatches"] = w.value("mismatches", json());
    out["max_abs_err"] = w.value("max_abs_err", json());
    return out;
  }
  return nullptr;
}

std::string mismatch_line(const json& m) {
  std::string idx;
  for (const auto& i : m.value("index", json::array())) idx += (idx.empty() ? "" : ",") + num(i);
  std::string line = "first mismatch: workload " + str(m, "workload") + " " + json(m.value("params", json::object())).dump() +
                     ", tensor " + str(m, "tensor") + "[" + idx + "]: got " + num(m.value("got", json())) +
                     ", expected " + num(m.value("expected", json()));
  std::string extra;
  if (m.contains("mismatches") && !m["mismatches"].is_null()) extra = "mismatches " + num(m["mismatches"]);
  if (m.contains("max_abs_err") && !m["max_abs_err"].is_null()) extra += (extra.empty() ? "" : ", ") + std::string("max abs err ") + num(m["max_abs_err"]);
  return extra.empty() ? line : line + " (" + extra + ")";
}

json first_diagnostic(const json& verdict) {
  const json d = verdict.value("diagnostics", json::array());
  for (const auto& x : d)
    if (str(x, "severity") == "error") return x;
  return d.empty() ? json() : d[0];
}

std::string diagnostic_line(const json& d) {
  std::string where = str(d, "file");
  if (d.value("line", 0) > 0) where += ":" + num(d["line"]);  // 0: not about a line of the file
  if (d.value("line", 0) > 0 && d.value("col", 0) > 0) where += ":" + num(d["col"]);
  return "diagnostic: " + where + ": " + str(d, "severity") + ": " + str(d, "message");
}

// "vs incumbent: geomean 1.23x; n1M faster 1.25x [1.2, 1.3], n16M same 1.01x; promotable: no (...)"
std::string speedup_line(const json& verdict) {
  const json s = verdict.value("summary", json::object());
  const json g = s.value("geomean_vs_incumbent", json());
  std::string parts;
  for (const auto& w : verdict.value("workloads", json::array())) {
    const json c = w.value("comparison", json());
    if (!c.is_object()) continue;
    std::string p = str(w, "name") + " " + str(c, "label");
    if (c.contains("ratio") && c["ratio"].is_number()) p += " " + ratio(c["ratio"].get<double>());
    if (c.contains("low") && c["low"].is_number() && c.contains("high") && c["high"].is_number())
      p += " [" + num(c["low"]) + ", " + num(c["high"]) + "]";
    parts += (parts.empty() ? "" : ", ") + p;
  }
  if (!g.is_number() && parts.empty()) return "vs incumbent: not compared";
  std::string line = "vs incumbent: ";
  line += g.is_number() ? "geomean " + ratio(g.get<double>()) + " (> 1 is faster)" : "no geomean";
  if (!parts.empty()) line += "; " + parts;
  const json d = s.value("decision", json());
  if (d.is_object()) {
    line += std::string("; promotable: ") + (d.value("promotable", false) ? "yes" : "no");
    if (!str(d, "reason").empty()) line += " (" + str(d, "reason") + ")";
  }
  return line;
}

// Why it is as fast as it is (docs/verdict.md "Feedback"): each timed bench workload's roofline
// position and, per kernel of the configs those workloads used (or the first config), its
// registers, spills, occupancy and wide loads. Null when the verdict has neither.
json feedback(const json& verdict) {
  json roofline = json::array(), kernels = json::array();
  std::vector<std::string> configs;
  for (const auto& w : verdict.value("workloads", json::array())) {
    const json f = w.value("feedback", json());
    if (!f.is_object()) continue;
    configs.push_back(str(f, "config"));
    for (const auto& r : f.value("roofline", json::array()))
      roofline.push_back({{"workload", w.value("name", "")}, {"config", str(f, "config")}, {"peaks", str(r, "peaks")},
                          {"intensity", f.value("intensity", json())}, {"bound", str(r, "bound")},
                          {"pct_of_roof", r.value("pct_of_roof", json())}, {"headroom_pct", r.value("headroom_pct", json())}});
  }
  const json facts = verdict.value("compiler_facts", json::array());
  for (const auto& c : facts) {
    std::string label = str(c, "config");
    if (!(configs.empty() ? &c == &facts.front() : std::find(configs.begin(), configs.end(), label) != configs.end()))
      continue;
    for (const auto& k : c.value("kernels", json::array())) {
      json occ = json::array();
      for (const auto& o : k.value("occupancy", json::array()))
        occ.push_back({{"threads", o.value("threads", json())}, {"pct", o.value("pct", json())},
                       {"limited_by", o.value("limited_by", json())}});
      const json m = k.value("instructions", json::object());
      json entry = {{"config", label}, {"kernel", str(k, "kernel")}, {"registers", k.value("registers", json())},
                    {"spill_store_bytes", k.value("spill_store_bytes", json())},
                    {"spill_load_bytes", k.value("spill_load_bytes", json())},
                    {"ld_global_v4", m.value("ld_global_v4", json())}, {"ld_global", m.value("ld_global", json())},
                    {"tensor_cores", m.value("tensor_cores", json())}, {"occupancy", occ}};
      // The SASS, where there is one, is the exact count (ptxas may vectorise, split or spill).
      if (const json sass = k.value("sass", json()); sass.is_object())
        entry["sass"] = {{"ldg_128", sass.value("ldg_128", json())}, {"ldg_64", sass.value("ldg_64", json())},
                         {"ldg_32", sass.value("ldg_32", json())}, {"stg_128", sass.value("stg_128", json())},
                         {"stg_32", sass.value("stg_32", json())}, {"ldl", sass.value("ldl", json())},
                         {"stl", sass.value("stl", json())}, {"tensor_cores", sass.value("tensor_cores", json())}};
      if (!str(c, "source").starts_with("nvrtc")) entry["ld_global_v4"] = entry["ld_global"] = nullptr;  // no PTX kept
      kernels.push_back(std::move(entry));
    }
  }
  if (roofline.empty() && kernels.empty()) return nullptr;
  return {{"roofline", roofline}, {"kernels", kernels}};
}

// "feedback: n1M memory-bound 62% of the calibrated roof (38% headroom); kernel k [BLOCK=256]: 28 regs, ..."
std::string feedback_line(const json& f) {
  std::string parts;
  for (const auto& r : f.value("roofline", json::array()))
    if (str(r, "peaks") == "calibrated")
      parts += (parts.empty() ? "" : "; ") + str(r, "workload") + " " + str(r, "bound") + "-bound, " +
               num(r.value("pct_of_roof", json())) + "% of the calibrated roof (" + num(r.value("headroom_pct", json())) +
               "% headroom)";
  for (const auto& k : f.value("kernels", json::array())) {
    std::string p = "kernel " + str(k, "kernel") + " [" + str(k, "config") + "]: " + num(k.value("registers", json())) +
                    " regs";
    if (k.value("spill_store_bytes", 0) + k.value("spill_load_bytes", 0) > 0)
      p += ", SPILLS " + num(k["spill_store_bytes"]) + "/" + num(k["spill_load_bytes"]) + " B st/ld";
    for (const auto& o : k.value("occupancy", json::array()))
      p += ", occupancy " + num(o.value("pct", json())) + "% at " + num(o.value("threads", json())) + " threads (" +
           (o.value("limited_by", json()).is_string() ? o["limited_by"].get<std::string>() : "-") + ")";
    if (const json sass = k.value("sass", json()); sass.is_object()) {
      p += ", SASS LDG.128/LDG.32 " + num(sass.value("ldg_128", json())) + "/" + num(sass.value("ldg_32", json()));
      if (sass.value("ldl", 0) + sass.value("stl", 0) > 0)
        p += ", local memory LDL/STL " + num(sass["ldl"]) + "/" + num(sass["stl"]);
      p += sass.value("tensor_cores", false) ? ", tensor cores" : ", no tensor cores";
    } else if (k.value("ld_global_v4", json()).is_number()) {
      p += ", ld.global v4/scalar " + num(k.value("ld_global_v4", json())) + "/" + num(k.value("ld_global", json()));
      p += k.value("tensor_cores", false) ? ", tensor cores" : ", no tensor cores";
    }
    parts += (parts.empty() ? "" : "; ") + p;
  }
  return "feedback: " + parts;
}

}  // namespace

json candidate_summary(const json& c) {
  const json v = c.value("verdict", json());
  json out = {{"id", c.value("id", "")},
              {"op", c.value("op", "")},
              {"state", c.value("state", "")},
              {"done", c.value("state", "") == "cancelled" ||
                           (c.value("state", "") == "done" &&
                            c.value("comparison", json::object()).value("state", "") != "pending")},
              {"status", c.value("status", json())},
              {"comparison", c.value("comparison", json::object()).value("state", "none")}};
  if (!v.is_object()) return out;
  const json s = v.value("summary", json::object());
  out["variant"] = v.value("variant", "");
  out["backend"] = v.value("backend", "");
  out["reason"] = v.value("reason", "");
  out["first_mismatch"] = first_mismatch(v);
  out["diagnostic"] = first_diagnostic(v);
  out["speedup_vs_incumbent"] = s.value("geomean_vs_incumbent", json());
  out["beats_incumbent"] = s.value("beats_incumbent", json());
  out["feedback"] = feedback(v);
  out["verdict"] = v;
  return out;
}

std::string candidate_text(const json& c) {
  const std::string id = c.value("id", ""), state = c.value("state", "");
  const json v = c.value("verdict", json());
  if (state == "cancelled") return "cancelled: " + id + " was cancelled before a verdict";
  if (!v.is_object())
    return "running: " + id + " is " + state + " (no verdict yet); call get_verdict with {\"id\": \"" + id +
           "\", \"wait_s\": 60} to wait for it";
  std::string text = str(v, "status") + ": " + id + " " + str(v, "op") + "/" + str(v, "variant") + " (" +
                     str(v, "backend") + ") on " + str(v, "device") + "\nreason: " + str(v, "reason");
  if (json m = first_mismatch(v); m.is_object()) text += "\n" + mismatch_line(m);
  if (json d = first_diagnostic(v); d.is_object()) text += "\n" + diagnostic_line(d);
  text += "\n" + speedup_line(v);
  if (json f = feedback(v); f.is_object()) text += "\n" + feedback_line(f);
  if (const json p = v.value("profile", json()); p.is_object())
    text += "\nprofile: " + str(p, "status") + ": " + str(p, "reason");
  return text;
}

}  // namespace kwb::mcp
