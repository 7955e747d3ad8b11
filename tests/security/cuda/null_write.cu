// kwb-expect: op=vector_add status=crashed reason="CUDA_ERROR_ILLEGAL_ADDRESS"
// Writes through a null pointer: the kernel faults, the launch reports an illegal address.
// kwb:launch fault grid=(1) block=(32) args=(a, b, c, n)
extern "C" __global__ void fault(const float* a, const float* b, float* c, long long n) {
  float* volatile p = nullptr;
  if (threadIdx.x == 0) *p = a[0] + b[0] + float(n);
}
