#pragma once
#include <span>

namespace kwb::store {
// Schema migrations; entry i moves the schema from version i to i+1. Append only.
std::span<const char* const> migrations();
}  // namespace kwb::store
