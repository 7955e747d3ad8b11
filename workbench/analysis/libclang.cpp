#include "analysis/libclang.hpp"

#include <dlfcn.h>

#include <map>
#include <memory>
#include <mutex>

namespace kwb::analysis {

namespace {

constexpr int k_min_major = 17;  // clang_getCursor{Binary,Unary}OperatorKind arrived in 17

util::Result<std::unique_ptr<Libclang>> open_one(const std::string& file) {
  void* handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    return util::fail(file, why ? why : "dlopen failed");
  }
  auto lib = std::make_unique<Libclang>();
  lib->path = file;
#define KWB_LIBCLANG_RESOLVE(name)                                                                   \
  lib->name = reinterpret_cast<decltype(lib->name)>(::dlsym(handle, "clang_" #name));                \
  if (!lib->name)                                                                                    \
    return util::fail(file, "has no symbol clang_" #name " (libclang " + std::to_string(k_min_major) + \
                                " or newer is needed; install libclang1-19)");
  KWB_LIBCLANG_FUNCTIONS(KWB_LIBCLANG_RESOLVE)
#undef KWB_LIBCLANG_RESOLVE
  lib->version = lib->str(lib->getClangVersion());
  // "Debian clang version 19.1.7 (...)" / "clang version 19.1.7": the number after "version ".
  if (auto at = lib->version.find("version "); at != std::string::npos)
    lib->major = std::atoi(lib->version.c_str() + at + 8);
  if (lib->major < k_min_major)
    return util::fail(file, "is '" + lib->version + "'; libclang " + std::to_string(k_min_major) +
                                " or newer is needed (install libclang1-19)");
  return lib;
}

}  // namespace

util::Result<const Libclang*> load_libclang(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, util::Result<std::unique_ptr<Libclang>>> loaded;
  std::lock_guard lock(mutex);
  auto it = loaded.find(path);
  if (it == loaded.end()) {
    util::Result<std::unique_ptr<Libclang>> result = util::fail("", "");
    if (!path.empty()) {
      result = open_one(path);
    } else {
      std::string tried;
      for (const char* candidate : k_libclang_candidates) {
        result = open_one(candidate);
        if (result) break;
        tried += std::string(tried.empty() ? "" : ", ") + candidate;
        // A library that exists but is unusable is worth reporting as such.
        if (result.error().message.find("needed") != std::string::npos) break;
      }
      if (!result && result.error().message.find("needed") == std::string::npos)
        result = util::fail("libclang", "not found (tried " + tried +
                                            "; install libclang1-19 or set KWB_LIBCLANG to its path)");
    }
    it = loaded.emplace(path, std::move(result)).first;
  }
  if (!it->second) return std::unexpected(it->second.error());
  return it->second->get();
}

}  // namespace kwb::analysis
