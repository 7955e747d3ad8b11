// kwb-analyzer: runs libclang on candidate sources for analysis::analyze() (worker_pool.cpp),
// so that a source that crashes or exhausts the parser takes down this process only.
//
//   kwb-analyzer --cache-dir DIR [--libclang PATH] [--cuda-path DIR]
//
// stdin/stdout carry one JSON object per line (analysis/protocol.hpp); the first line written
// is {"ready": true}. The process ends at end of input or when its parent process ends.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "analysis/engine.hpp"
#include "analysis/protocol.hpp"

namespace {

constexpr rlim_t k_address_space = rlim_t(8) << 30;   // a parser running away fails here, not the host

void reply(const nlohmann::json& j) {
  std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  // End with the parent process, even in the middle of a parse. (PR_SET_PDEATHSIG would fire when
  // the parent *thread* that started us ends, and a pooled worker outlives that thread.)
  pid_t parent = ::getppid();
  std::thread([parent] {
    while (::getppid() == parent) std::this_thread::sleep_for(std::chrono::milliseconds(500));
    ::_exit(3);
  }).detach();
  rlimit core{0, 0};
  ::setrlimit(RLIMIT_CORE, &core);
  rlimit as{k_address_space, k_address_space};
  ::setrlimit(RLIMIT_AS, &as);

  kwb::analysis::detail::EngineConfig config;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--cache-dir") config.cache_dir = argv[i + 1];
    else if (flag == "--libclang") config.libclang_path = argv[i + 1];
    else if (flag == "--cuda-path") config.cuda_path = argv[i + 1];
    else {
      std::fprintf(stderr, "kwb-analyzer: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  reply({{"ready", true}});
  std::string line;
  while (std::getline(std::cin, line)) {
    auto msg = nlohmann::json::parse(line, nullptr, false);
    std::string kind = msg.is_object() ? msg.value("kind", "") : "";
    if (kind == "warm_up") {
      reply({{"warm", kwb::analysis::detail::warm_up_here(msg.value("backend", ""), config)}});
      continue;
    }
    kwb::analysis::Report report;
    auto request = kind == "analyze" && msg.contains("request")
                       ? kwb::analysis::detail::request_from_json(msg["request"])
                       : kwb::util::fail("kwb-analyzer", "expected {\"kind\": \"analyze\", \"request\": ...}");
    if (!request)
      report.unavailable_reason = "static analysis failed: " + request.error().what();
    else
      report = kwb::analysis::detail::analyze_here(request->view(), config);
    reply({{"report", kwb::analysis::detail::report_to_json(report)}});
  }
  return 0;
}
