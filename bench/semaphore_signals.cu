// What a split-K program's signals to the other programs of its tile cost: a `red.release.gpu`
// per semaphore against one `fence.acq_rel.gpu` and a `red.relaxed.gpu` per semaphore, 2 to 16
// programs per group, timed with `%globaltimer` (bench/results/semaphores/). On a machine with
// an sm_90 GPU: `nvcc -O2 -arch=sm_90a -o sem bench/semaphore_signals.cu && ./sem`.
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>
#include <algorithm>

__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t;
}
__device__ __forceinline__ void red_release(unsigned* a) {
  asm volatile("red.release.gpu.global.add.u32 [%0], 1;" :: "l"(a) : "memory");
}
__device__ __forceinline__ void red_relaxed(unsigned* a) {
  asm volatile("red.relaxed.gpu.global.add.u32 [%0], 1;" :: "l"(a) : "memory");
}
__device__ __forceinline__ void fence_gpu() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
__device__ __forceinline__ unsigned ld_acq(unsigned* a) {
  unsigned v; asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(a) : "memory"); return v;
}
__device__ __forceinline__ unsigned cas_acq(unsigned* a, unsigned c, unsigned n) {
  unsigned v; asm volatile("atom.acquire.gpu.global.cas.b32 %0, [%1], %2, %3;" : "=r"(v) : "l"(a), "r"(c), "r"(n) : "memory"); return v;
}

// variant 0: ways-1 red.release; 1: fence + relaxed reds; 2: one red.release only (timing only)
__global__ void exch(float4* part, unsigned* sems, int ways, int variant, unsigned long long* times) {
  int tile = blockIdx.x / ways, share = blockIdx.x % ways;
  float4* mine = part + (size_t)blockIdx.x * 4096;  // 64 KiB
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) mine[i] = make_float4(i, i, i, i);
  __syncthreads();
  unsigned long long t0 = gtime(), t1 = 0, t2 = 0;
  if (threadIdx.x == 0) {
    unsigned* s = sems + tile * ways;
    if (variant == 0) {
      for (int p = 0; p < ways; p++) if (p != share) red_release(s + p);
    } else if (variant == 1) {
      fence_gpu();
      for (int p = 0; p < ways; p++) if (p != share) red_relaxed(s + p);
    } else {
      red_release(s + (share + 1) % ways);
    }
    t1 = gtime();
    if (variant != 2) {
      unsigned need = ways - 1;
      while (true) {
        unsigned seen = ld_acq(s + share);
        if (seen >= need) { if (cas_acq(s + share, seen, seen - need) == seen) break; }
        else __nanosleep(100);
      }
    } else {
      while (true) {
        unsigned seen = ld_acq(s + share);
        if (seen >= 1) { if (cas_acq(s + share, seen, seen - 1) == seen) break; }
        else __nanosleep(100);
      }
    }
    t2 = gtime();
    times[3 * blockIdx.x] = t0; times[3 * blockIdx.x + 1] = t1; times[3 * blockIdx.x + 2] = t2;
  }
  __syncthreads();
}

int main() {
  float4* part; unsigned* sems; unsigned long long* times;
  cudaMalloc(&part, 132ull * 65536); cudaMalloc(&sems, 4096); cudaMemset(sems, 0, 4096);
  cudaMalloc(&times, 132 * 3 * 8);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  const char* names[] = {"ways-1 red.release", "fence + relaxed reds", "one red.release (timing only)"};
  for (int ways : {2, 4, 8, 16}) {
    int blocks = (128 / ways) * ways;
    for (int v = 0; v < 3; v++) {
      for (int i = 0; i < 20; i++) exch<<<blocks, 256>>>(part, sems, ways, v, times);
      cudaEventRecord(a);
      for (int i = 0; i < 200; i++) exch<<<blocks, 256>>>(part, sems, ways, v, times);
      cudaEventRecord(b); cudaEventSynchronize(b);
      float ms; cudaEventElapsedTime(&ms, a, b);
      std::vector<unsigned long long> t(blocks * 3);
      cudaMemcpy(t.data(), times, blocks * 24, cudaMemcpyDeviceToHost);
      double sig = 0, wait = 0, sigmax = 0;
      for (int i = 0; i < blocks; i++) { double s = t[3*i+1]-t[3*i]; sig += s; sigmax = std::max(sigmax, s); wait += t[3*i+2]-t[3*i+1]; }
      printf("ways %2d  %-30s kernel %6.2f us  signal mean %6.0f ns max %6.0f ns  wait mean %6.0f ns  err %s\n",
             ways, names[v], ms * 1000 / 200, sig / blocks, sigmax, wait / blocks, cudaGetErrorString(cudaGetLastError()));
    }
  }
  return 0;
}
