// __global__ kernels below are what the analysis must find
#include <cuda_runtime.h>  // expect: OPS-CUDA-RUNTIME-CPP

__global__ void gelu_kernel(const float* x, float* y, int n) {  // expect: OPS-CUDA-KERNEL
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 0.5f * x[i] * (1.0f + tanhf(0.79788456f * x[i]));
}
