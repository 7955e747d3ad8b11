#include "build/nvrtc_cache.hpp"

#include "util/fs.hpp"
#include "util/hash.hpp"

namespace kwb::build {

namespace {
constexpr const char* k_salt = "kwb-cubin-v3";  // v2: entries carry <key>.l2; v3: <key>.ptx
constexpr size_t k_max_entry = 256u << 20;
}  // namespace

CubinKey cubin_key(const std::string& nvrtc_version, const std::string& arch, const std::vector<std::string>& options,
                   const std::string& program_name, const std::string& source) {
  CubinKey k;
  k.text = std::string(k_salt) + "\n";
  k.text += "nvrtc " + nvrtc_version + "\n";
  k.text += "arch " + arch + "\n";
  for (const auto& o : options) k.text += "option " + o + "\n";
  k.text += "name " + program_name + "\n";
  k.text += "source sha256:" + util::sha256_hex(source) + "\n";
  k.hex = util::sha256_hex(k.text);
  return k;
}

std::optional<CachedCubin> CubinCache::find(const CubinKey& key) const {
  auto cubin = util::read_file_nofollow(m_dir / (key.hex + ".cubin"), k_max_entry);
  if (!cubin || cubin->empty()) return std::nullopt;
  auto log = util::read_file_nofollow(m_dir / (key.hex + ".log"), k_max_entry);
  if (!log) return std::nullopt;
  auto l2 = util::read_file_nofollow(m_dir / (key.hex + ".l2"), 256);
  if (!l2) return std::nullopt;
  auto ptx = util::read_file_nofollow(m_dir / (key.hex + ".ptx"), k_max_entry);
  if (!ptx) return std::nullopt;
  return CachedCubin{std::move(*cubin), std::move(*log), std::move(*l2), std::move(*ptx)};
}

util::Result<void> CubinCache::put(const CubinKey& key, const CachedCubin& entry) const {
  std::error_code ec;
  std::filesystem::create_directories(m_dir, ec);
  if (ec) return util::fail(m_dir.string(), "cannot create the cubin cache: " + ec.message());
  if (auto r = util::write_file_atomic(m_dir / (key.hex + ".key"), key.text); !r) return r;
  if (auto r = util::write_file_atomic(m_dir / (key.hex + ".log"), entry.log); !r) return r;
  if (auto r = util::write_file_atomic(m_dir / (key.hex + ".l2"), entry.l2_policy); !r) return r;
  if (auto r = util::write_file_atomic(m_dir / (key.hex + ".ptx"), entry.ptx); !r) return r;
  return util::write_file_atomic(m_dir / (key.hex + ".cubin"), entry.cubin);
}

}  // namespace kwb::build
