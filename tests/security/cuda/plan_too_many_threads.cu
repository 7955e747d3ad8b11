// kwb-expect: op=softmax status=rejected reason="block has 2048 threads" stage=compile
// A block of 2048 threads cannot launch on any current GPU; the plan is refused before compiling.
// kwb:launch k grid=(rows) block=(32, 64) args=(x, y, rows, cols)
extern "C" __global__ void k(const float* x, float* y, long long rows, long long cols) {}
