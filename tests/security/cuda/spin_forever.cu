// kwb-expect: op=vector_add status=time_limit reason="did not finish within" args="--run-timeout-ms 3000"
// Never finishes: the runner's call does not return, the workbench kills the sandbox at the
// command deadline (the driver then tears the context and the kernel down).
// kwb:launch spin grid=(1) block=(32) args=(a, b, c, n)
extern "C" __global__ void spin(const float* a, const float* b, float* c, long long n) {
  volatile long long k = 0;
  while (k >= 0) k = k + 1 - 1;
  c[0] = a[0] + b[0] + float(n);
}
