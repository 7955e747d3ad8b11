#include "eval/runner_client_reply.hpp"

#include <string_view>

namespace kwb::eval::detail {

namespace {

enum class Kind { boolean, string, count, integer, number, counts, kernel_attributes };

// Every field of a reply that the workbench reads (runner_client.cpp, the CPU and CUDA
// evaluations), with its type. nlohmann's value()/get() throw on a mismatch, which took `kwb
// eval` down; here the mismatch is a finding instead.
struct Field {
  std::string_view name;
  Kind kind;
};
constexpr Field k_fields[] = {
    {"ok", Kind::boolean},
    {"error", Kind::string},
    {"ns", Kind::counts},
    {"paced", Kind::boolean},
    {"discarded", Kind::count},
    {"throttled_kept", Kind::count},
    {"cupti_samples", Kind::count},
    {"event_samples", Kind::count},
    {"cupti_short_batches", Kind::count},
    {"cupti_short_detail", Kind::string},
    {"launch_overhead_ns", Kind::number},
    {"sm_clock_min_mhz", Kind::count},
    {"sm_clock_max_mhz", Kind::count},
    {"sm_clock_mhz", Kind::count},
    {"present", Kind::boolean},
    {"reason", Kind::string},
    {"name", Kind::string},
    {"cc_major", Kind::count},
    {"cc_minor", Kind::count},
    {"sms", Kind::count},
    {"l2_bytes", Kind::count},
    {"memory_bytes", Kind::count},
    {"l2_persisting_bytes", Kind::integer},
    {"max_smem_optin", Kind::count},
    {"driver", Kind::string},
    {"max_sm_clock_mhz", Kind::count},
    {"pci_bus_id", Kind::string},
    {"copy_bytes_per_s", Kind::number},
    {"fma_flops_per_s", Kind::number},
    {"copy_bytes", Kind::count},
    {"clock", Kind::string},
    {"kernels", Kind::kernel_attributes},  // gpu load: what the driver says of each kernel
    {"occupancy", Kind::counts},           // gpu dims: blocks per SM of each launch
};

// One "kernels" entry of a gpu load reply: {name, registers, static_smem, local_bytes, max_threads}.
bool kernel_attributes(const nlohmann::json& v) {
  if (!v.is_object()) return false;
  auto name = v.find("name");
  if (name == v.end() || !name->is_string()) return false;
  for (const char* key : {"registers", "static_smem", "local_bytes", "max_threads"}) {
    auto it = v.find(key);
    if (it == v.end() || !(it->is_number_unsigned() || (it->is_number_integer() && it->get<int64_t>() >= 0)) ||
        it->get<int64_t>() > (1 << 30))
      return false;
  }
  return true;
}

bool has_kind(const nlohmann::json& v, Kind kind) {
  switch (kind) {
    case Kind::boolean: return v.is_boolean();
    case Kind::string: return v.is_string();
    case Kind::count: return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
    case Kind::integer: return v.is_number_integer();
    case Kind::number: return v.is_number();
    case Kind::counts:
      if (!v.is_array()) return false;
      for (const auto& e : v)
        if (!has_kind(e, Kind::count)) return false;
      return true;
    case Kind::kernel_attributes:
      if (!v.is_array()) return false;
      for (const auto& e : v)
        if (!kernel_attributes(e)) return false;
      return true;
  }
  return false;
}

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::boolean: return "a boolean";
    case Kind::string: return "a string";
    case Kind::count: return "a non-negative integer";
    case Kind::integer: return "an integer";
    case Kind::number: return "a number";
    case Kind::counts: return "an array of non-negative integers";
    case Kind::kernel_attributes:
      return "an array of {name, registers, static_smem, local_bytes, max_threads} (non-negative integers)";
  }
  return "?";
}

}  // namespace

std::string reply_problem(const nlohmann::json& reply, uint64_t seq) {
  if (!reply.is_object()) return std::string("a reply that is not a JSON object (") + reply.type_name() + ")";
  if (!reply.contains("ok")) return "a reply without \"ok\"";
  for (const Field& f : k_fields) {
    auto it = reply.find(std::string(f.name));
    if (it != reply.end() && !has_kind(*it, f.kind))
      return "a reply whose \"" + std::string(f.name) + "\" is not " + kind_name(f.kind) + " (" + it->dump().substr(0, 60) + ")";
  }
  auto s = reply.find("seq");
  if (s == reply.end() || !s->is_number_unsigned() || s->get<uint64_t>() != seq)
    return "a reply that does not answer the command just sent (seq " +
           (s == reply.end() ? std::string("missing") : s->dump()) + ", expected " + std::to_string(seq) + ")";
  if (!reply.at("ok").get<bool>() && !reply.contains("error")) return "a failure reply without \"error\"";
  return "";
}

}  // namespace kwb::eval::detail
