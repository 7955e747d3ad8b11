#pragma once
// A fresh directory under /tmp (mkdtemp), removed with everything in it at the end.
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace kwb::test {

class TempDir {
 public:
  TempDir() {
    char templ[] = "/tmp/kwb-unit-test-XXXXXX";
    if (!mkdtemp(templ)) throw std::runtime_error("mkdtemp failed");
    m_path = templ;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }
  std::filesystem::path operator/(const std::string& name) const { return m_path / name; }

 private:
  std::filesystem::path m_path;
};

}  // namespace kwb::test
