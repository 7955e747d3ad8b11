// kwb:launch vector_add_f32 grid=(max(1, min(ceil_div(n, 4 * BLOCK), 132 * 16))) block=(BLOCK) args=(a, b, c, n)
// kwb:tune BLOCK=256,512
// c = a + b: a grid-stride loop over 16-byte vectors (float4) with a scalar tail. The grid is
// capped at 16 blocks per SM of an H200 (132 SMs); each thread keeps several loads in flight.
extern "C" __global__ void vector_add_f32(const float* __restrict__ a, const float* __restrict__ b,
                                          float* __restrict__ c, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long done = 0;
  if (((reinterpret_cast<unsigned long long>(a) | reinterpret_cast<unsigned long long>(b) | reinterpret_cast<unsigned long long>(c)) & 15) == 0) {
    const long long vecs = n / 4;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* c4 = reinterpret_cast<float4*>(c);
    for (long long i = first; i < vecs; i += stride) {
      const float4 x = __ldg(a4 + i), y = __ldg(b4 + i);
      c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    done = vecs * 4;
  }
  for (long long i = done + first; i < n; i += stride) c[i] = a[i] + b[i];
}
