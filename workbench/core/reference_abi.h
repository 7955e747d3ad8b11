/* The C interface between the workbench and a compiled reference (ABI version 2: version 1 had no
 * scalars).
 *
 * A reference shared object exports one symbol, kwb_reference_entry(block), where block points
 * at a kwb_ref_block at the start of the reference process's shared memory. The trusted side
 * fills in the variant, the params, the scalars and the tensors (offsets from the block's start: inputs in
 * their dtypes, outputs as one double per element) and sets status to KWB_REF_PENDING; the
 * entry computes and sets KWB_REF_DONE, or KWB_REF_FAILED with a message (what the reference
 * threw). core/reference_entry.hpp defines the entry on top of core/reference.hpp. Plain C, so
 * the layout is the same on both sides of the process boundary. */
#ifndef KWB_REFERENCE_ABI_H
#define KWB_REFERENCE_ABI_H
#include <stdint.h>

#define KWB_REF_MAGIC 0x5242574bu /* "KWBR" */
#define KWB_REF_ABI 2u
#define KWB_REF_NAME 64
#define KWB_REF_MAX_PARAMS 32
#define KWB_REF_MAX_SCALARS 16
#define KWB_REF_MAX_TENSORS 32
#define KWB_REF_MESSAGE 1024

enum kwb_ref_status { KWB_REF_PENDING = 0, KWB_REF_DONE = 1, KWB_REF_FAILED = 2 };
enum kwb_ref_role { KWB_REF_INPUT = 0, KWB_REF_OUTPUT = 1 };

struct kwb_ref_param {
  char name[KWB_REF_NAME];
  int64_t value;
};

struct kwb_ref_scalar {
  char name[KWB_REF_NAME];
  double value;
};

struct kwb_ref_tensor {
  char name[KWB_REF_NAME];
  uint32_t role;   /* kwb_ref_role: an inout tensor appears twice, once per role */
  uint32_t dtype;  /* kwb::core::DType of an input; outputs are doubles */
  uint64_t offset; /* bytes from the start of the block */
  uint64_t count;  /* elements */
};

struct kwb_ref_block {
  uint32_t magic, abi;
  char variant[KWB_REF_NAME];
  uint32_t n_params, n_tensors, n_scalars, reserved;
  struct kwb_ref_param params[KWB_REF_MAX_PARAMS];
  struct kwb_ref_scalar scalars[KWB_REF_MAX_SCALARS];
  struct kwb_ref_tensor tensors[KWB_REF_MAX_TENSORS];
  int32_t status; /* kwb_ref_status */
  char message[KWB_REF_MESSAGE];
};

#endif
