#pragma once
// The C entry of a compiled reference (core/reference_abi.h), included after the reference's
// own source with KWB_REFERENCE_OP defined to its function's name (the spec's op):
//   <specs/<op>/reference.cpp>
//   #define KWB_REFERENCE_OP softmax
//   #include "core/reference_entry.hpp"
// It unpacks the block into a ReferenceArgs, calls kwb::reference::KWB_REFERENCE_OP and turns
// what it throws into a message for the trusted side.
#include <cstring>
#include <exception>
#include <string>

#include "core/reference.hpp"
#include "core/reference_abi.h"

#ifndef KWB_REFERENCE_OP
#error "define KWB_REFERENCE_OP to the reference function's name before including core/reference_entry.hpp"
#endif

namespace kwb::reference {
void KWB_REFERENCE_OP(const kwb::core::ReferenceArgs& a);
}

namespace kwb::reference_entry {
inline std::string bounded(const char* text) { return std::string(text, strnlen(text, KWB_REF_NAME)); }
inline void fail(kwb_ref_block* b, const std::string& what) {
  std::memset(b->message, 0, sizeof b->message);
  std::memcpy(b->message, what.data(), what.size() < sizeof b->message - 1 ? what.size() : sizeof b->message - 1);
  b->status = KWB_REF_FAILED;
}
}  // namespace kwb::reference_entry

extern "C" __attribute__((visibility("default"))) void kwb_reference_entry(char* base) {
  using namespace kwb::reference_entry;
  auto* b = reinterpret_cast<kwb_ref_block*>(base);
  if (b->magic != KWB_REF_MAGIC || b->abi != KWB_REF_ABI || b->n_params > KWB_REF_MAX_PARAMS ||
      b->n_tensors > KWB_REF_MAX_TENSORS || b->n_scalars > KWB_REF_MAX_SCALARS)
    return fail(b, "the reference was built for another interface version (rebuild it)");
  try {
    kwb::core::ReferenceArgs a;
    a.variant = bounded(b->variant);
    for (uint32_t i = 0; i < b->n_params; ++i) a.params[bounded(b->params[i].name)] = b->params[i].value;
    for (uint32_t i = 0; i < b->n_scalars; ++i) a.scalars[bounded(b->scalars[i].name)] = b->scalars[i].value;
    for (uint32_t i = 0; i < b->n_tensors; ++i) {
      const kwb_ref_tensor& t = b->tensors[i];
      a.counts[bounded(t.name)] = size_t(t.count);
      if (t.role == KWB_REF_OUTPUT) a.outputs[bounded(t.name)] = reinterpret_cast<double*>(base + t.offset);
      else a.inputs[bounded(t.name)] = base + t.offset;
    }
    kwb::reference::KWB_REFERENCE_OP(a);
    b->status = KWB_REF_DONE;
  } catch (const std::exception& e) {
    fail(b, std::string("it threw: ") + e.what());
  } catch (...) {
    fail(b, "it threw something that is not a std::exception");
  }
}
