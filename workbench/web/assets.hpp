#pragma once
// The review pages' files (workbench/web/assets/), embedded in the binary at build time
// (workbench/CMakeLists.txt generates web/assets_data.cpp from the folder), so `kwb serve`
// needs no file at run time and works offline.
#include <span>
#include <string_view>

namespace kwb::web {

struct Asset {
  std::string_view name;          // file name, e.g. "app.js"
  std::string_view content_type;  // from the extension
  std::string_view body;
};

std::span<const Asset> assets();
// The asset of that name, or null.
const Asset* find_asset(std::string_view name);

}  // namespace kwb::web
