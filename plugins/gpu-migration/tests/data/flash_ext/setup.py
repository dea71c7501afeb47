from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension  # expect: OPS-CPP-EXTENSION-IMPORT OPS-CPP-EXTENSION

setup(
    name="fused_ops",
    ext_modules=[CUDAExtension("fused_ops", ["csrc/fused.cu", "csrc/bind.cpp"])],  # expect: OPS-CPP-EXTENSION
    cmdclass={"build_ext": BuildExtension},  # expect: OPS-CPP-EXTENSION
    install_requires=["flash-attn>=2.0"],  # expect: THIRD-REQUIREMENT
)
