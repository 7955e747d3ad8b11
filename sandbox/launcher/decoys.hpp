#pragma once
// Decoy host secrets (docs/security.md "Decoys"): for candidate runs, files with fake contents are
// bound read-only at the paths an escape attempt reads first (/etc/shadow, root's SSH key, ...),
// which the sandbox otherwise lacks, and watched with inotify from the trusted side. An open of a
// missing file fails quietly (ENOENT) and libraries probe missing paths all the time, so a missing
// file cannot tell an attempt from a probe; an open of a decoy can: no honest kernel reads
// /etc/shadow. Each sandbox gets its own files (inotify reports per inode), so an open is the
// sandbox's own. The events are queued by the kernel at the open itself: whoever reads them after
// the command answered sees every open the command made before answering.
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "launcher/sandbox.hpp"
#include "util/error.hpp"

namespace kwb::sandbox::detail {

class Decoys {
 public:
  // Writes one decoy per inside path into a fresh private folder and starts watching them.
  static util::Result<std::unique_ptr<Decoys>> plant(const std::vector<std::string>& inside_paths);
  ~Decoys();  // stops watching and removes the folder
  Decoys(const Decoys&) = delete;
  Decoys& operator=(const Decoys&) = delete;

  // Read-only binds of the decoys at their inside paths, for bwrap.
  std::vector<Bind> binds() const;
  // Inside paths opened (or read) so far, sorted; accumulates across calls.
  std::vector<std::string> opened();

 private:
  Decoys() = default;
  std::filesystem::path m_dir;
  int m_inotify = -1;
  std::map<int, std::string> m_inside_by_watch;
  std::map<std::string, std::filesystem::path> m_host_by_inside;
  std::set<std::string> m_opened;
};

}  // namespace kwb::sandbox::detail
