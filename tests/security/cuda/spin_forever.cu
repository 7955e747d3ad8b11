// kwb-expect: op=vector_add status=time_limit reason="did not finish within" args="--run-timeout-ms 3000"
// Never finishes: the runner's call does not return, the workbench kills the sandbox at the
// command deadline (the driver then tears the context and the kernel down). The loop stores
// through a volatile pointer on every iteration, an observable side effect, so the compiler may
// not assume it terminates (a side-effect-free endless loop may be removed under C++'s forward
// progress rule: an earlier version of this case finished at once).
// kwb:launch spin grid=(1) block=(32) args=(a, b, c, n)
extern "C" __global__ void spin(const float* a, const float* b, float* c, long long n) {
  volatile float* out = c;
  for (;;) out[threadIdx.x % n] = a[0] + b[0];
}
