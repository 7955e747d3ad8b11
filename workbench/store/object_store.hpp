#pragma once
// Content-addressed blobs (candidate sources): workspace/objects/<2 hex>/<62 hex>, written
// atomically, named by SHA-256, so identical sources are stored once.
#include <filesystem>
#include <string>

#include "util/error.hpp"

namespace kwb::store {

class ObjectStore {
 public:
  explicit ObjectStore(std::filesystem::path dir) : m_dir(std::move(dir)) {}
  util::Result<std::string> put(std::string_view data);  // returns the sha256
  util::Result<std::string> get(const std::string& sha256) const;
  std::filesystem::path path_of(const std::string& sha256) const;

 private:
  std::filesystem::path m_dir;
};

}  // namespace kwb::store
