#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>  // expect: OPS-CUDA-RUNTIME-CPP

torch::Tensor gelu(torch::Tensor x);
PYBIND11_MODULE(fused_ops, m) { m.def("gelu", &gelu); }
