// kwb specs [OP]: list the operator specs, or show one.
#include <cstdio>
#include <iostream>

#include "app/commands.hpp"
#include <nlohmann/json.hpp>

#include "spec/loader.hpp"

namespace kwb::app {

namespace {

nlohmann::json spec_json(const core::Spec& s) {
  nlohmann::json variants = nlohmann::json::array();
  for (const auto& v : s.variants) variants.push_back({{"name", v.name}, {"entry", v.entry}});
  nlohmann::json tensors = nlohmann::json::array();
  for (const auto& t : s.tensors) tensors.push_back({{"name", t.name}, {"role", core::role_name(t.role)}, {"shape", t.shape}});
  auto workloads = [](const std::vector<core::Workload>& ws) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& w : ws) a.push_back({{"name", w.name}, {"params", w.params}, {"backends", w.backends}, {"label", w.label}});
    return a;
  };
  nlohmann::json dists = nlohmann::json::array();
  for (const auto& d : s.distributions) dists.push_back({{"name", d.name}, {"note", d.note}});
  return {{"op", s.op}, {"version", s.version}, {"summary", s.summary}, {"params", s.params},
          {"tensors", tensors}, {"variants", variants}, {"distributions", dists},
          {"test_workloads", workloads(s.test_workloads)}, {"bench_workloads", workloads(s.bench_workloads)},
          {"deterministic", s.deterministic}, {"file", s.file.string()}};
}

}  // namespace

void add_specs_command(CLI::App& app, util::Settings& settings, int& code) {
  auto op = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("specs", "List operator specs, or show one");
  cmd->add_option("op", *op, "Show this op in full");
  cmd->add_flag("--json", *json, "Print JSON");
  add_setting_flags(*cmd, settings);
  cmd->callback([op, json, &settings, &code] {
    auto catalog = spec::Catalog::load(settings.get("specs-dir"));
    if (!catalog) {
      std::fprintf(stderr, "kwb specs: %s\n", catalog.error().what().c_str());
      code = 2;
      return;
    }
    nlohmann::json out = nlohmann::json::array();
    for (const auto& name : catalog->ops()) {
      if (!op->empty() && name != *op) continue;
      out.push_back(spec_json(*catalog->find(name)));
    }
    if (!op->empty() && out.empty()) {
      std::fprintf(stderr, "kwb specs: unknown op '%s'\n", op->c_str());
      code = 2;
      return;
    }
    if (*json || !op->empty()) {
      std::cout << (op->empty() ? out : out[0]).dump(2) << "\n";
      return;
    }
    for (const auto& s : out) {
      std::string vs;
      for (const auto& v : s["variants"]) vs += (vs.empty() ? "" : ",") + v["name"].get<std::string>();
      std::printf("%-12s %-10s %s\n", s["op"].get<std::string>().c_str(), vs.c_str(), s["summary"].get<std::string>().c_str());
    }
  });
}

}  // namespace kwb::app
