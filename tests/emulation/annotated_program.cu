// SPDX-License-Identifier: Apache-2.0
// A CUDA program as it is written for nvcc, that tells its tools about its memory through NVTX
// (nvtx3/nvToolsExtMem.h): a pool with a sub-allocator's regions in it, permissions, a name.
// Built unchanged by cuguard_emulate(... SANITIZE), what compute-sanitizer finds from the
// annotations is reported: a store one past a region of the pool, a store into a region after it
// was unregistered, a store to memory made read-only, a read of memory made write-only, and the
// named allocation in leakcheck's line. `annotated_program correct` keeps to its regions and
// permissions: nothing is reported (tests/device/CMakeLists.txt).
#include <nvtx3/nvToolsExtMem.h>
#include <nvtx3/nvToolsExtMemCudaRt.h>

#include <cstdio>
#include <cstring>

__global__ void fill(unsigned char* v) { v[threadIdx.x] = static_cast<unsigned char>(threadIdx.x); }
__global__ void store_one(unsigned* v) { *v = 7u; }
__global__ void load_one(const unsigned* v, unsigned* out) { *out = *v; }

nvtxMemHeapHandle_t make_pool(nvtxDomainHandle_t domain, void* base, size_t bytes) {
  nvtxMemVirtualRangeDesc_t range = {};
  range.size = bytes;
  range.ptr = base;
  nvtxMemHeapDesc_t heap = {};
  heap.extCompatID = NVTX_EXT_COMPATID_MEM;
  heap.structSize = sizeof heap;
  heap.usage = NVTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR;
  heap.type = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
  heap.typeSpecificDescSize = sizeof range;
  heap.typeSpecificDesc = &range;
  return nvtxMemHeapRegister(domain, &heap);
}

void add_region(nvtxDomainHandle_t domain, nvtxMemHeapHandle_t pool, void* p, size_t bytes) {
  nvtxMemVirtualRangeDesc_t range = {};
  range.size = bytes;
  range.ptr = p;
  nvtxMemRegionsRegisterBatch_t batch = {};
  batch.extCompatID = NVTX_EXT_COMPATID_MEM;
  batch.structSize = sizeof batch;
  batch.regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
  batch.heap = pool;
  batch.regionCount = 1;
  batch.regionDescElementSize = sizeof range;
  batch.regionDescElements = &range;
  nvtxMemRegionsRegister(domain, &batch);
}

void remove_region(nvtxDomainHandle_t domain, void* p) {
  nvtxMemRegionRef_t ref;
  ref.pointer = p;
  nvtxMemRegionsUnregisterBatch_t batch = {};
  batch.extCompatID = NVTX_EXT_COMPATID_MEM;
  batch.structSize = sizeof batch;
  batch.refType = NVTX_MEM_REGION_REF_TYPE_POINTER;
  batch.refCount = 1;
  batch.refElementSize = sizeof ref;
  batch.refElements = &ref;
  nvtxMemRegionsUnregister(domain, &batch);
}

void permit(nvtxDomainHandle_t domain, const void* p, uint32_t flags) {
  nvtxMemPermissionsAssignRegionDesc_t region;
  region.flags = flags;
  region.regionRefType = NVTX_MEM_REGION_REF_TYPE_POINTER;
  region.region.pointer = p;
  nvtxMemPermissionsAssignBatch_t batch = {};
  batch.extCompatID = NVTX_EXT_COMPATID_MEM;
  batch.structSize = sizeof batch;
  batch.permissions = nvtxMemCudaGetProcessWidePermissions(domain);
  batch.regionCount = 1;
  batch.regionElementSize = sizeof region;
  batch.regionElements = &region;
  nvtxMemPermissionsAssign(domain, &batch);
}

void name(nvtxDomainHandle_t domain, const void* p, const char* text) {
  nvtxMemRegionNameDesc_t label;
  label.regionRefType = NVTX_MEM_REGION_REF_TYPE_POINTER;
  label.nameType = NVTX_MESSAGE_TYPE_ASCII;
  label.region.pointer = p;
  label.name.ascii = text;
  nvtxMemRegionsNameBatch_t batch = {};
  batch.extCompatID = NVTX_EXT_COMPATID_MEM;
  batch.structSize = sizeof batch;
  batch.regionCount = 1;
  batch.regionElementSize = sizeof label;
  batch.regionElements = &label;
  nvtxMemRegionsName(domain, &batch);
}

int main(int argc, char** argv) {
  const bool correct = argc > 1 && std::strcmp(argv[1], "correct") == 0;
  nvtxDomainHandle_t domain = nvtxDomainCreateA("cuguard-test");
  unsigned char* pool = nullptr;
  unsigned* word = nullptr;
  unsigned* out = nullptr;
  unsigned* kept = nullptr;
  if (cudaMalloc(&pool, 1024) != cudaSuccess || cudaMalloc(&word, sizeof(unsigned)) != cudaSuccess ||
      cudaMalloc(&out, sizeof(unsigned)) != cudaSuccess || cudaMalloc(&kept, 16) != cudaSuccess)
    return 1;
  nvtxMemHeapHandle_t heap = make_pool(domain, pool, 1024);
  unsigned char* region = pool + 64;
  add_region(domain, heap, region, 32);
  fill<<<1, correct ? 32 : 33>>>(region); // one past the region
  cudaDeviceSynchronize();
  remove_region(domain, region);
  if (!correct) fill<<<1, 1>>>(region); // the region is gone
  cudaDeviceSynchronize();
  cudaMemset(word, 0, sizeof(unsigned));
  permit(domain, word, NVTX_MEM_PERMISSIONS_REGION_FLAGS_READ);
  if (correct) load_one<<<1, 1>>>(word, out);
  else store_one<<<1, 1>>>(word); // read-only
  cudaDeviceSynchronize();
  permit(domain, word, NVTX_MEM_PERMISSIONS_REGION_FLAGS_WRITE);
  if (correct) store_one<<<1, 1>>>(word);
  else load_one<<<1, 1>>>(word, out); // write-only
  cudaDeviceSynchronize();
  name(domain, kept, "kept buffer");
  if (correct) cudaMemset(kept, 0, 16);
  std::printf("%s kernels ran\n", correct ? "correct" : "annotated");
  nvtxMemHeapUnregister(domain, heap);
  cudaFree(pool);
  cudaFree(word);
  cudaFree(out);
  if (correct) cudaFree(kept);
  return 0; // `kept` is not freed in the first run: leakcheck names it
}
