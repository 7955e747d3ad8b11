// forbidden-call: references to library functions, types and variables a kernel must not use,
// resolved through the referenced declaration (a local variable named `open` is not `::open`).
#include <fmt/format.h>

#include <map>
#include <string_view>

#include "analysis/checks.hpp"

namespace kwb::analysis {

namespace {

struct Group {
  const char* name;
  const char* why;
};

const Group k_process{"process", "starts or controls processes, signals or the system"};
const Group k_file{"file", "does file or descriptor I/O (the runner's channels are descriptors too)"};
const Group k_network{"network", "uses the network"};
const Group k_environment{"environment", "reads or changes the environment"};
const Group k_dynamic{"dynamic-loading", "loads or looks up code at run time"};
const Group k_timer{"timer", "reads a clock: a kernel must not observe time (the runner times it)"};
const Group k_thread{"thread", "creates threads: parallelism goes through OpenMP, whose thread count the runner sets"};
const Group k_exec_memory{"exec-memory", "maps memory executable (or with a protection the analyzer cannot see)"};

struct Forbidden {
  const Group* group;
  int prot_arg = -1;  // exec-memory: the argument holding PROT_* flags
};

const std::map<std::string, Forbidden, std::less<>>& table() {
  static const auto t = [] {
    std::map<std::string, Forbidden, std::less<>> m;
    auto add = [&](const Group& g, std::initializer_list<const char*> names) {
      for (const char* n : names) m[n] = Forbidden{&g};
    };
    add(k_process, {"fork", "vfork", "clone", "clone3", "execve", "execveat", "execv", "execvp", "execvpe", "execl",
                    "execlp", "execle", "fexecve", "system", "popen", "posix_spawn", "posix_spawnp", "kill", "killpg",
                    "tkill", "tgkill", "pthread_kill", "ptrace", "prctl", "syscall", "signal", "sigaction", "sigset",
                    "setitimer", "alarm", "setrlimit", "prlimit", "prlimit64", "daemon", "setuid", "setgid",
                    "seteuid", "setegid", "chroot", "unshare", "setns", "mount", "umount", "umount2",
                    "pivot_root", "swapon", "swapoff", "reboot", "sethostname", "setdomainname", "personality",
                    "init_module", "finit_module", "delete_module", "kexec_load", "add_key", "request_key", "keyctl"});
    add(k_file, {"open", "open64", "openat", "openat64", "creat", "creat64", "fopen", "fopen64", "freopen",
                 "freopen64", "fdopen", "opendir", "fdopendir", "tmpfile", "tmpfile64", "mkstemp", "mkostemp",
                 "mkdtemp", "read", "write", "pread", "pwrite", "pread64", "pwrite64", "readv", "writev", "preadv",
                 "pwritev", "close", "dup", "dup2", "dup3", "fcntl", "ioctl", "lseek", "lseek64", "unlink", "unlinkat",
                 "remove", "rename", "renameat", "renameat2", "mkdir", "rmdir", "chmod", "fchmod", "chown", "fchown",
                 "truncate", "ftruncate", "memfd_create", "shm_open", "pipe", "pipe2", "mkfifo", "symlink", "link",
                 "readlink", "sendfile", "splice", "std::basic_ifstream", "std::basic_ofstream", "std::basic_fstream",
                 "std::basic_filebuf", "std::random_device"});
    add(k_network, {"socket", "socketpair", "connect", "bind", "listen", "accept", "accept4", "send", "sendto",
                    "sendmsg", "recv", "recvfrom", "recvmsg", "getaddrinfo", "gethostbyname", "gethostbyname2"});
    add(k_environment, {"getenv", "secure_getenv", "setenv", "putenv", "unsetenv", "clearenv", "environ",
                        "__environ"});
    add(k_dynamic, {"dlopen", "dlmopen", "dlsym", "dlvsym", "dladdr", "dladdr1", "dlinfo", "dl_iterate_phdr"});
    add(k_timer, {"clock_gettime", "clock_getres", "gettimeofday", "time", "clock", "timespec_get", "ftime", "times",
                  "getrusage", "omp_get_wtime", "omp_get_wtick", "__rdtsc", "__rdtscp", "_rdtsc",
                  "__builtin_ia32_rdtsc", "__builtin_ia32_rdtscp", "__builtin_readcyclecounter",
                  "std::chrono::steady_clock::now", "std::chrono::system_clock::now",
                  "std::chrono::high_resolution_clock::now", "clock64", "__globaltimer"});
    add(k_thread, {"pthread_create", "thrd_create", "std::thread", "std::jthread", "std::async"});
    for (const char* n : {"mmap", "mmap64", "mprotect", "pkey_mprotect"}) m[n] = Forbidden{&k_exec_memory, 2};
    return m;
  }();
  return t;
}

constexpr long long k_prot_exec = 0x4;  // PROT_EXEC on Linux

class CallCheck {
 public:
  explicit CallCheck(const Context& ctx) : m_ctx(ctx), m_ast(ctx.ast), m_cx(ctx.ast.cx) {}

  void run() {
    for (size_t i = 0; i < m_ast.nodes.size(); ++i) {
      const Node& n = m_ast.nodes[i];
      switch (n.kind) {
        case CXCursor_DeclRefExpr:
        case CXCursor_MemberRefExpr:
        case CXCursor_TypeRef:
        case CXCursor_TemplateRef:
          check_reference(int(i), m_ast.referenced(int(i)));
          break;
        case CXCursor_OverloadedDeclRef: {  // an unresolved name in a template: every candidate
          unsigned count = m_cx.getNumOverloadedDecls(n.cursor);
          for (unsigned k = 0; k < count; ++k) check_reference(int(i), m_cx.getOverloadedDecl(n.cursor, k));
          break;
        }
        case CXCursor_CallExpr: {  // constructors of temporaries: std::thread(f)
          CXCursor ref = m_ast.referenced(int(i));
          if (!m_ast.is_null(ref) && m_cx.getCursorKind(ref) == CXCursor_Constructor)
            check_reference(int(i), m_cx.getCursorSemanticParent(ref));
          break;
        }
        default: break;
      }
    }
  }

 private:
  // The names a declaration may be known by: its qualified name, and for a C function declared
  // but not defined by the candidate, the symbol it binds to (an asm label can rename it).
  const Forbidden* lookup(CXCursor decl, std::string& shown) const {
    CXCursorKind k = m_cx.getCursorKind(decl);
    if (k == CXCursor_TypedefDecl || k == CXCursor_TypeAliasDecl) {  // std::ifstream -> std::basic_ifstream
      CXType under = m_ast.canonical(m_cx.getCursorType(decl));
      CXCursor d = m_cx.getTypeDeclaration(under);
      if (!m_ast.is_null(d)) decl = d;
      k = m_cx.getCursorKind(decl);
    }
    // A template specialisation names its template: std::basic_ifstream<char> -> std::basic_ifstream.
    std::string name = m_ast.qualified_name(decl);
    if (auto lt = name.find('<'); lt != std::string::npos) name.resize(lt);
    const auto& t = table();
    auto it = t.find(name);
    if (it == t.end() && name.starts_with("std::filesystem::")) {
      static const Forbidden fs_group{&k_file};
      shown = "'" + name + "'";
      return &fs_group;
    }
    if (it != t.end()) {
      // Own definitions are not library calls (a candidate may define its own `clock()` helper);
      // a declaration without a definition in the candidate resolves to the library.
      bool defined_here = false;
      if (k == CXCursor_FunctionDecl || k == CXCursor_VarDecl) {
        CXCursor def = m_cx.getCursorDefinition(decl);
        defined_here = !m_ast.is_null(def) && m_ast.in_main_file(def);
      }
      if (!defined_here) {
        shown = "'" + name + "'";
        return &it->second;
      }
    }
    if (k == CXCursor_FunctionDecl) {
      std::string symbol = m_cx.str(m_cx.Cursor_getMangling(decl));
      if (!symbol.empty() && symbol[0] == '\x01') symbol.erase(0, 1);
      if (symbol != name)
        if (auto s = t.find(symbol); s != t.end()) {
          shown = "'" + name + "' (symbol '" + symbol + "')";
          return &s->second;
        }
    }
    return nullptr;
  }

  void check_reference(int i, CXCursor decl) {
    if (m_ast.is_null(decl)) return;
    std::string shown;
    const Forbidden* f = lookup(decl, shown);
    if (!f) return;
    if (f->prot_arg >= 0 && !exec_protection(i, f->prot_arg)) return;
    std::string what = m_ast.nodes[i].kind == CXCursor_TypeRef || m_ast.nodes[i].kind == CXCursor_TemplateRef ||
                               m_ast.nodes[i].kind == CXCursor_CallExpr
                           ? "use of"
                           : "reference to";
    m_ctx.out.add("forbidden-call", "error", m_ast.position(m_ast.nodes[i].cursor),
                  fmt::format("{} {} ({}): it {}", what, shown, f->group->name, f->group->why));
  }

  // mmap/mprotect: flagged when the protection argument may contain PROT_EXEC (or the function is
  // not called directly, so the argument cannot be seen).
  bool exec_protection(int ref, int arg) const {
    int p = m_ast.nodes[ref].parent;
    while (p >= 0 && m_ast.nodes[p].kind == CXCursor_UnexposedExpr) p = m_ast.nodes[p].parent;
    if (p < 0 || m_ast.nodes[p].kind != CXCursor_CallExpr) return true;
    CXCursor call = m_ast.nodes[p].cursor;
    if (m_cx.Cursor_getNumArguments(call) <= arg) return true;
    CXEvalResult r = m_cx.Cursor_Evaluate(m_cx.Cursor_getArgument(call, unsigned(arg)));
    if (!r) return true;
    bool exec = true;
    if (m_cx.EvalResult_getKind(r) == CXEval_Int) exec = (m_cx.EvalResult_getAsLongLong(r) & k_prot_exec) != 0;
    m_cx.EvalResult_dispose(r);
    return exec;
  }

  const Context& m_ctx;
  const Ast& m_ast;
  const Libclang& m_cx;
};

}  // namespace

void check_calls(const Context& ctx) { CallCheck(ctx).run(); }

}  // namespace kwb::analysis
