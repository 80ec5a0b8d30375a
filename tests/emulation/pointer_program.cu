// SPDX-License-Identifier: Apache-2.0
// Raw-pointer kernels as extensions write them, unchanged, built by cuguard_emulate(... POINTERS):
// a pointer cast to a small vector type and to float4, a pointer passed on to a device helper
// (and an element's address) and to a __host__ __device__ one, a local pointer moved along a
// row, a deduced template launch, a void* parameter cast where it is used, a struct of void*
// members cast in a functor, a raw pointer in a kernel template's parameter pack, a template
// given a register array and a checked pointer, a helper kept unchecked by a pragma, a template
// taking const T* given a T*, a byte atomic's CAS on the word that holds the byte, dynamic
// shared bytes cast to float. With `plant`, each kernel but the last three is told of one
// element more than its buffer holds; the test matches each report's line, pointer and extent.
// Built by nvcc with cuguard_check_pointers too (its correct run, on a GPU).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

struct vec3 {
  float x, y, z;
};

// The sum of the three floats at p.
__device__ float sum3(const float* p) { return p[0] + p[1] + p[2]; }

// The second float at p: host code calls it too, with a host pointer.
__host__ __device__ inline float second(const float* p) { return p[1]; }

// out[i] = x + y + z of point i, read as a vec3 through a cast of the float buffer.
__global__ void point_sums(const float* points, float* out, int n) {
  const vec3* pts = (const vec3*)points;
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = pts[i].x + pts[i].y + sum3(&points[3 * i]) - pts[i].z - second(points + 3 * i); // pointers: vec3
}

// out[4q..4q+3] = 2 * in[4q..4q+3], a float4 at a time.
__global__ void twice4(const float* __restrict__ in, float* __restrict__ out, int quads) {
  const int q = static_cast<int>(threadIdx.x);
  if (q >= quads) return;
  const float4 v = reinterpret_cast<const float4*>(in)[q]; // pointers: float4
  reinterpret_cast<float4*>(out)[q] = make_float4(2 * v.x, 2 * v.y, 2 * v.z, 2 * v.w);
}

// Each row of `m` (rows x cols) set to its row number, through a pointer moved to the row.
template <class T>
__global__ void fill_rows(T* m, int rows, int cols) {
  const int r = static_cast<int>(threadIdx.x);
  if (r >= rows) return;
  T* row = m + r * cols;
  for (int c = 0; c < cols; ++c) row[c] = static_cast<T>(r); // pointers: row
}

// bytes[i] = i, through a void* cast where it is used.
__global__ void count_bytes(void* buffer, int n) {
  unsigned char* bytes = static_cast<unsigned char*>(buffer);
  for (int i = static_cast<int>(threadIdx.x); i < n; i += static_cast<int>(blockDim.x)) bytes[i] = static_cast<unsigned char>(i); // pointers: bytes
}

// A table of buffers as fused optimizers pass their tensor lists: void* members filled on the
// host, each cast to its element type in a functor that takes the table by reference.
struct buffer_table {
  void* addresses[2];
  int sizes[2];
};
template <class T>
struct scale_by {
  __device__ void operator()(buffer_table& t, int which, float by) const {
    T* x = (T*)t.addresses[which];
    for (int i = static_cast<int>(threadIdx.x); i < t.sizes[which]; i += static_cast<int>(blockDim.x)) x[i] *= by; // pointers: table
  }
};
template <class T, class F>
__global__ void apply_table(T table, F f, float by) {
  f(table, static_cast<int>(blockIdx.x), by);
}

// A kernel template whose parameter pack takes a raw pointer too (apex's `ArgTypes... args`).
template <class P, class... R>
__device__ P first_of(P p, R...) {
  return p;
}
template <class T, class... Extra>
__global__ void add_second(T* out, Extra... extra) {
  out[0] += first_of(extra...)[1];
}

// A register array and a checked pointer through one template (apex's load_store): x is
// copied out and back.
template <class T>
__device__ void copy2(T* dst, T* src) {
  dst[0] = src[0];
  dst[1] = src[1];
}
// A hot helper kept as written (`#pragma cuguard unchecked`), called with a checked pointer.
#pragma cuguard unchecked
__device__ float first_of_row(const float* __restrict__ row) { return row[0]; }
// The sum of the two elements at p: a template given a pointer to T, where it takes const T*.
template <typename T>
__device__ T sum2(const T* p) {
  return p[0] + p[1];
}
__global__ void round_trip(float* x) {
  float r[2];
  copy2(r, x);
  copy2(x, r);
  x[0] = first_of_row(x);
  x[1] = sum2(x) - x[0];
  memcpy(x, r, sizeof(float)); // (a checked pointer given to memcpy)
}

// Each of the n bytes at b plus one, through a CAS loop on the aligned word that holds it (a byte
// atomic as extensions write it): the word may reach past the last byte.
__global__ void add_bytes(unsigned char* b, int n) {
  const int i = static_cast<int>(threadIdx.x);
  if (i >= n) return;
  unsigned* word = (unsigned*)(b + i - ((size_t)(b + i) & 3));
  const unsigned shift = static_cast<unsigned>((size_t)(b + i) & 3) * 8;
  unsigned old = *word, assumed;
  do {
    assumed = old;
    old = atomicCAS(word, assumed, assumed + (1u << shift));
  } while (assumed != old);
}

// Each of x[0] and x[1] through dynamic shared memory declared at namespace scope as bytes, cast
// to float where it is used (mmcv's filtered_lrelu).
extern __shared__ char shared_bytes[];
__global__ void via_shared(float* x) {
  float* staged = (float*)shared_bytes;
  staged[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = staged[threadIdx.x];
}

int main(int argc, char** argv) {
  const int plant = argc > 1 && std::strcmp(argv[1], "plant") == 0 ? 1 : 0;
  float *points = nullptr, *sums = nullptr, *in = nullptr, *out = nullptr, *m = nullptr;
  void* buffer = nullptr;
  unsigned char* odd = nullptr;
  if (cudaMalloc(&odd, 6) != cudaSuccess || cudaMalloc(&points, 4 * 3 * sizeof(float)) != cudaSuccess || cudaMalloc(&sums, 4 * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&in, 8 * sizeof(float)) != cudaSuccess || cudaMalloc(&out, 8 * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&m, 3 * 5 * sizeof(float)) != cudaSuccess || cudaMalloc(&buffer, 16) != cudaSuccess) {
    std::printf("no CUDA device: skipped\n"); // (built by nvcc, cuguard_check_pointers)
    return 77;
  }
  std::vector<float> host(12);
  for (int i = 0; i < 12; ++i) host[static_cast<std::size_t>(i)] = static_cast<float>(i);
  if (second(host.data()) != 1.0f) return 2;
  cudaMemcpy(points, host.data(), 12 * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(in, host.data(), 8 * sizeof(float), cudaMemcpyHostToDevice);
  point_sums<<<1, 32>>>(points, sums, 4 + plant);
  cudaDeviceSynchronize();
  twice4<<<1, 32>>>(in, out, 2 + plant);
  cudaDeviceSynchronize();
  fill_rows<<<1, 32>>>(m, 3 + plant, 5);
  cudaDeviceSynchronize();
  count_bytes<<<1, 32>>>(buffer, 16 + plant);
  cudaDeviceSynchronize();
  buffer_table table;
  table.addresses[0] = in;
  table.addresses[1] = out;
  table.sizes[0] = 8;
  table.sizes[1] = 8 + plant;
  apply_table<<<2, 32>>>(table, scale_by<float>{}, 0.5f);
  cudaDeviceSynchronize();
  cudaMemset(odd, 0, 6);
  add_bytes<<<1, 32>>>(odd, 6);
  add_second<<<1, 1>>>(out, in);
  round_trip<<<1, 1>>>(out);
  via_shared<<<1, 2, 2 * sizeof(float)>>>(out);
  cudaDeviceSynchronize();
  std::vector<float> s(4), o(8), rows(15);
  std::vector<unsigned char> b(16), c(6);
  cudaMemcpy(c.data(), odd, 6, cudaMemcpyDeviceToHost);
  cudaMemcpy(s.data(), sums, 4 * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(o.data(), out, 8 * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(rows.data(), m, 15 * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(b.data(), buffer, 16, cudaMemcpyDeviceToHost);
  std::printf("sums %g %g %g %g; doubled, halved %g %g; rows %g %g %g; bytes %d %d; odd %d %d\n", s[0], s[1], s[2], s[3],
              o[0], o[7], rows[0], rows[5], rows[14], b[1], b[15], c[0], c[5]);
  for (void* p : {static_cast<void*>(points), static_cast<void*>(sums), static_cast<void*>(in), static_cast<void*>(out),
                  static_cast<void*>(m), buffer, static_cast<void*>(odd)})
    cudaFree(p);
  return 0;
}
