// kwb-runner: loads one candidate shared object inside the sandbox and calls its entry point
// on buffers laid out by the trusted evaluator (sandbox/protocol/protocol.hpp).
#include <dlfcn.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "protocol/protocol.hpp"
#include "runner/entry_call.hpp"

namespace kwb::runner {

int64_t monotonic_ns() {
  timespec ts{};
  ::syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

namespace {

struct Buffer {
  char* ptr = nullptr;
  size_t bytes = 0;
  bool output = false;
};

struct State {
  int cmd_fd = 3, reply_fd = 4, shm_fd = 5;
  int go_fd = -1, done_fd = -1;  // the paced timing handshake (protocol.hpp), -1 = not offered
  EntryFn entry = nullptr;
  char* base = nullptr;
  size_t mapped = 0;
  std::vector<Buffer> buffers;
  std::vector<intptr_t> args;
  std::vector<double> reals;  // the spec's scalars, passed after the params
  std::vector<char> flush;
  int discarded = 0;  // samples retaken because the thread was preempted
};

long involuntary_switches() {
  rusage ru{};
  ::getrusage(RUSAGE_THREAD, &ru);
  return ru.ru_nivcsw;
}

nlohmann::json error(const std::string& text) { return {{"ok", false}, {"error", text}}; }

nlohmann::json do_load(State& s, const nlohmann::json& cmd) {
  std::string so = cmd.value("so", ""), entry = cmd.value("entry", "");
  void* handle = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) return error(std::string("cannot load the candidate: ") + ::dlerror());
  void* sym = ::dlsym(handle, entry.c_str());
  if (!sym)
    return error("entry point '" + entry + "' not found in the candidate: declare it extern \"C\" "
                 "with the spec's signature");
  s.entry = reinterpret_cast<EntryFn>(sym);
  return {{"ok", true}};
}

// Maps the arena at `at` (0: wherever the kernel puts it). A streaming kernel's speed depends on
// the linear address of its buffers (one read 0.74-1.25x against itself in another runner process
// on an AMD EPYC, docs/benchmarks/decide.md "Two processes, one kernel"), so
// the workbench gives every CPU runner that it times the same address; a range already taken
// there (by memory the candidate mapped when it was loaded) is an error, not another address.
char* map_arena(State& s, size_t bytes, uintptr_t at, std::string& problem) {
  const int fixed = at ? MAP_FIXED_NOREPLACE : 0;
  void* p = ::mmap(reinterpret_cast<void*>(at), bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE | fixed,
                   s.shm_fd, 0);
  if (p == MAP_FAILED) {
    char where[64];
    std::snprintf(where, sizeof where, " at %#llx", static_cast<unsigned long long>(at));
    problem = std::string("mmap of the shared buffers") + (at ? where : "") + " failed: " + std::strerror(errno) +
              (at && errno == EEXIST ? " (that address range is taken: memory mapped there when the candidate was "
                                       "loaded?)"
                                     : "");
    return nullptr;
  }
  if (at && p != reinterpret_cast<void*>(at)) {  // a kernel without MAP_FIXED_NOREPLACE took it as a hint
    ::munmap(p, bytes);
    problem = "mmap of the shared buffers did not place them at the address asked for";
    return nullptr;
  }
  return static_cast<char*>(p);
}

nlohmann::json do_map(State& s, const nlohmann::json& cmd) {
  size_t bytes = cmd.at("shm_bytes").get<size_t>();
  const uintptr_t at = cmd.value("at", uintptr_t(0));
  // The same memfd at the same size (and address): the mapping is kept (a new one faulted every
  // page in again, on every workload of a reference process); a new one is populated in one go.
  if (!s.base || s.mapped != bytes || (at && s.base != reinterpret_cast<char*>(at))) {
    if (s.base) ::munmap(s.base, s.mapped);
    s.base = nullptr;
    std::string problem;
    char* p = map_arena(s, bytes, at, problem);
    if (!p) return error(problem);
    s.base = p;
    s.mapped = bytes;
  }
  s.buffers.clear();
  s.args.clear();
  for (const auto& b : cmd.at("buffers")) {
    size_t off = b.at("offset").get<size_t>(), len = b.at("bytes").get<size_t>();
    if (off + len > bytes) return error("buffer outside the shared mapping");
    s.buffers.push_back({s.base + off, len, b.at("output").get<bool>()});
    s.args.push_back(reinterpret_cast<intptr_t>(s.base + off));
  }
  for (const auto& v : cmd.at("params")) s.args.push_back(intptr_t(v.get<int64_t>()));
  s.reals = cmd.value("scalars", std::vector<double>{});
  if (s.args.size() > size_t(k_max_args)) return error("too many entry arguments");
  if (s.reals.size() > size_t(k_max_reals)) return error("too many scalar arguments");
  return {{"ok", true}};
}

nlohmann::json do_call(State& s) {
  if (!s.entry || !s.base) return error("call before load/map");
  int64_t t0 = monotonic_ns();
  call_entry(s.entry, s.args, s.reals);
  int64_t t1 = monotonic_ns();
  return {{"ok", true}, {"ns", {t1 - t0}}};
}

bool read_full(int fd, void* data, size_t bytes) {
  size_t done = 0;
  while (done < bytes) {
    ssize_t n = ::read(fd, static_cast<char*>(data) + done, bytes - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

// Paced timing (protocol.hpp): the trusted side poisons the outputs, flushes the caches, reads
// the clock and releases each call with a 'g' on go_fd; the runner calls and answers with its
// own duration (8 bytes) on done_fd, which the trusted side only cross-checks. An 'e' ends the
// batch. Acknowledged first, so the runner has nothing left to do after the last call.
bool paced_calls(State& s) {
  for (;;) {
    char go = 0;
    if (!read_full(s.go_fd, &go, 1)) return false;
    if (go == 'e') return true;
    if (go != 'g') return false;
    int64_t t0 = monotonic_ns();
    call_entry(s.entry, s.args, s.reals);
    int64_t t1 = monotonic_ns();
    int64_t ns = t1 - t0;
    if (::write(s.done_fd, &ns, sizeof ns) != sizeof ns) return false;
  }
  return true;
}

nlohmann::json do_time(State& s, const nlohmann::json& cmd) {
  if (!s.entry || !s.base) return error("time before load/map");
  int calls = cmd.at("calls").get<int>();
  if (cmd.value("paced", false)) {
    if (s.go_fd < 0) return error("paced timing without its descriptors");
    return {{"ok", true}, {"paced", true}};
  }
  size_t flush_bytes = cmd.value("flush_bytes", size_t(0));
  if (s.flush.size() != flush_bytes) s.flush.assign(flush_bytes, 0);
  std::vector<int64_t> ns;
  ns.reserve(size_t(calls));
  for (int i = 0; i < calls; ++i) {
    // A sample during which the OS preempted the thread measures the machine, not the kernel:
    // retake it (at most 3 times; the count is reported by "stats").
    for (int attempt = 0;; ++attempt) {
      // Untimed: evict caches by writing a buffer larger than the last-level cache, then poison
      // the outputs so a kernel cannot skip work because the answer is already there.
      for (size_t j = 0; j < s.flush.size(); j += 64) s.flush[j] = char(s.flush[j] + 1);
      for (auto& b : s.buffers)
        if (b.output) std::memset(b.ptr, 0xff, b.bytes);
      long before = involuntary_switches();
      int64_t t0 = monotonic_ns();
      call_entry(s.entry, s.args, s.reals);
      int64_t t1 = monotonic_ns();
      if (involuntary_switches() != before && attempt < 3) {
        ++s.discarded;
        continue;
      }
      ns.push_back(t1 - t0);
      break;
    }
  }
  return {{"ok", true}, {"ns", ns}};
}

}  // namespace
}  // namespace kwb::runner

int main(int argc, char** argv) {
  using namespace kwb;
  runner::State state;
  int fds = argc == 3 && std::string(argv[1]) == "--fds"
                ? std::sscanf(argv[2], "%d,%d,%d,%d,%d", &state.cmd_fd, &state.reply_fd, &state.shm_fd, &state.go_fd,
                              &state.done_fd)
                : 0;
  if (fds == 3 || fds == 5) {
  } else {
    std::fprintf(stderr, "usage: kwb-runner --fds CMD,REPLY,SHM[,GO,DONE] (started by the workbench)\n");
    return 2;
  }
  wire::LineReader reader(state.cmd_fd);
  while (true) {
    nlohmann::json cmd;
    auto st = reader.read(cmd, -1);
    if (st != wire::LineReader::Status::ok) return st == wire::LineReader::Status::closed ? 0 : 3;
    nlohmann::json reply;
    try {
      std::string op = cmd.value("op", "");
      if (op == "load") reply = runner::do_load(state, cmd);
      else if (op == "map") reply = runner::do_map(state, cmd);
      else if (op == "call") reply = runner::do_call(state);
      else if (op == "time") reply = runner::do_time(state, cmd);
      else if (op == "stats") {
        reply = {{"ok", true}, {"discarded", state.discarded}};
        state.discarded = 0;
      } else if (op == "quit") return 0;
      else reply = runner::error("unknown command '" + op + "'");
    } catch (const std::exception& e) {
      reply = runner::error(std::string("bad command: ") + e.what());
    }
    if (cmd.contains("seq")) reply["seq"] = cmd["seq"];  // the answer names its command
    if (!wire::write_line(state.reply_fd, reply)) return 4;
    if (reply.contains("paced") && !runner::paced_calls(state)) return 5;
  }
}
