// kwb:launch transpose_f32 grid=(ceil_div(cols, 32), ceil_div(rows, 32)) block=(32, 8) args=(x, y, rows, cols)
// y[c, r] = x[r, c]. Each block moves one 32x32 tile: coalesced row reads of x into shared
// memory, coalesced row writes of y from its columns. The tile has 33 columns so that reading a
// column touches 32 different banks. Edge tiles are guarded element by element.
#define TILE 32
#define ROWS 8

extern "C" __global__ void transpose_f32(const float* __restrict__ x, float* __restrict__ y, long long rows,
                                         long long cols) {
  __shared__ float tile[TILE][TILE + 1];
  const long long c0 = (long long)blockIdx.x * TILE, r0 = (long long)blockIdx.y * TILE;
  const int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
  for (int k = 0; k < TILE; k += ROWS) {
    const long long r = r0 + ty + k, c = c0 + tx;
    if (r < rows && c < cols) tile[ty + k][tx] = __ldg(x + r * cols + c);
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < TILE; k += ROWS) {
    const long long c = c0 + ty + k, r = r0 + tx;  // y row c, column r
    if (c < cols && r < rows) y[c * rows + r] = tile[tx][ty + k];
  }
}
