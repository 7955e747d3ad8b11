#include "app/serve_support.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <thread>

#include <fmt/format.h>

#include "store/token_repository.hpp"
#include "util/fs.hpp"

namespace kwb::app {

std::string fixed1(double s) { return fmt::format("{:.1f} s", s); }

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void ensure_admin_token(store::Database& db, const std::filesystem::path& workspace, StartupLog& log) {
  store::TokenRepository tokens(db);
  auto all = tokens.all();
  if (!all || !all->empty()) return;
  auto secret = tokens.create("bootstrap-admin", "admin");
  if (!secret) return;
  auto file = workspace / "admin.token";
  if (util::write_file_atomic(file, *secret + "\n")) ::chmod(file.c_str(), 0600);
  log.say("admin-token", "created the first admin token, saved in " + file.string());
}

StopSignal::StopSignal() : m_state(std::make_shared<State>()) {
  sigemptyset(&m_state->set);
  sigaddset(&m_state->set, SIGINT);
  sigaddset(&m_state->set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &m_state->set, nullptr);
  std::thread([state = m_state] {
    int sig = 0;
    sigwait(&state->set, &sig);
    std::lock_guard lock(state->mutex);  // held while stopping: the destructor waits for it
    if (!state->stop) {
      std::fprintf(stderr, "kwb serve: signal %d %s, exiting\n", sig, state->ran ? "while stopping" : "during start-up");
      std::_Exit(128 + sig);
    }
    state->stop(sig);
  }).detach();
}

}  // namespace kwb::app
