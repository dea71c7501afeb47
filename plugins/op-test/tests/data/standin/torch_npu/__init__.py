# Stand-in for torch_npu used by op-test's tests on machines without an NPU: only the testing
# helpers a generated test imports, written from their documented behaviour
# (see plugins/op-test/tests/data/README.md). Not torch_npu.
IS_STANDIN = True
