#include "eval/gpu_failure.hpp"

#include <string_view>

namespace kwb::eval {

CheckFailure classify_gpu_failure(core::Status status, const std::string& reason) {
  struct Tag {
    const char* text;
    core::Status status;
  };
  static constexpr Tag k_tags[] = {{"[no_device] ", core::Status::no_device},
                                   {"[launch] ", core::Status::rejected},
                                   {"[fault] ", core::Status::crashed},
                                   {"[stream] ", core::Status::rejected},
                                   {"[graph] ", core::Status::rejected}};
  if (status == core::Status::error)
    for (const auto& t : k_tags)
      if (auto at = reason.find(t.text); at != std::string::npos)
        return {t.status, reason.substr(0, at) + reason.substr(at + std::string_view(t.text).size())};
  return {status, reason};
}

}  // namespace kwb::eval
