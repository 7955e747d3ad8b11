// The rule table (docs/analysis.md explains each rule with examples).
#include "analysis/analyzer.hpp"

namespace kwb::analysis {

namespace {
const RuleInfo k_rules[] = {
    {"entry-signature", "error",
     "The variant's entry point (cpu, cuda-launcher) or the launch plan's kernels (cuda) exist, are "
     "extern \"C\" (and __global__ for kernels), return void and take exactly the spec's parameters: "
     "tensors in spec order as pointers to the variant's element types (const for inputs), then int64_t "
     "params (then a cudaStream_t for cuda-launcher)."},
    {"forbidden-call", "error",
     "No process, file/descriptor, network, environment, dynamic-loading, timer or thread-creation calls "
     "(std::thread, pthread_create; parallelism goes through OpenMP), no executable memory mappings. Resolved "
     "by the referenced declaration, not by text."},
    {"launcher-streams", "error",
     "cuda-launcher: all GPU work goes on the entry's cudaStream_t parameter. No stream, event or graph "
     "creation or capture, no host callbacks, no device-wide synchronisation, reset or configuration, no "
     "host (pinned/managed) allocations or copies to host memory, no cudaMemcpy/cudaMemset without Async; "
     "every kernel launch has 4 launch-configuration arguments whose 4th is the stream, and every stream "
     "argument (cudaMemcpyAsync, cudaMallocAsync, CUB, cublasSetStream, ...) is the stream; cuBLAS calls "
     "need cublasSetStream."},
    {"inline-asm", "error",
     "No inline or file-scope assembly, except PTX in CUDA device code made of allow-listed instructions "
     "(mma, wgmma, ldmatrix, stmatrix, cp.async, ld, st, mov, shfl, bar, fence, cvt, ...) that reads no "
     "clock register. Empty templates (compiler barriers) are allowed."},
    {"mutable-global-state", "error",
     "No static-storage variable of the candidate (namespace scope, static member, function-local static, "
     "thread_local, __device__ global) is written, or has writable memory reached through it, inside a "
     "function: state kept across calls (a cache keyed by pointer or shape) is not allowed; a static "
     "cuBLAS handle, stream, event or graph is reported even when only initialised. Reading "
     "const/constexpr tables is fine."},
    {"include", "error",
     "Only system headers, included with <...>: no quoted, absolute, '..' or computed includes and no "
     "#embed. The parser sees nothing else."},
    {"preprocessor", "error",
     "No tests of the compiler's identity or features (__clang__, __GNUC__, __NVCC__, __has_builtin, "
     "__has_include, ...): the analyzer (clang) and the compiler must see the same code; in cuda-launcher "
     "sources also __CUDA_ARCH__ (the analysis parses the host side)."},
    {"symbol-alias", "error",
     "No asm labels, alias/weakref/ifunc/symver attributes or #pragma redefine_extname/weak: renaming a "
     "declaration to another symbol would hide which function is really called."},
    {"precision-downcast", "warning",
     "In a variant with f32 outputs, an accumulation in a loop into a half/bfloat16 variable, or a float "
     "to half/bfloat16 conversion feeding an accumulation."},
    {"parse", "error",
     "The analyzer's compiler (clang) must accept the source; its errors are reported with their "
     "location (verdict status compile_error)."},
    {"analysis-unavailable", "note",
     "libclang (or, for CUDA, the CUDA headers) is not installed here, so no static analysis ran; "
     "cpu candidates are still compiled and run in the sandbox."},
};
}  // namespace

std::span<const RuleInfo> rules() { return k_rules; }

}  // namespace kwb::analysis
