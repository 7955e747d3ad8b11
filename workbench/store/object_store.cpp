#include "store/object_store.hpp"

#include "util/fs.hpp"
#include "util/hash.hpp"

namespace kwb::store {

std::filesystem::path ObjectStore::path_of(const std::string& sha) const {
  return m_dir / sha.substr(0, 2) / sha.substr(2);
}

util::Result<std::string> ObjectStore::put(std::string_view data) {
  std::string sha = util::sha256_hex(data);
  auto path = path_of(sha);
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return sha;
  // On disk before the candidate row that names it is committed.
  if (auto r = util::write_file_durable(path, data); !r) return std::unexpected(r.error());
  return sha;
}

util::Result<std::string> ObjectStore::get(const std::string& sha) const {
  if (sha.size() != 64 || sha.find_first_not_of("0123456789abcdef") != std::string::npos)
    return util::fail("object " + sha, "not a sha256");
  return util::read_file(path_of(sha));
}

}  // namespace kwb::store
