// op-test generate: a torch_npu-style unit test file for one operator, from its schema.
#ifndef SKILLRT_OP_TEST_GENERATE_HPP_
#define SKILLRT_OP_TEST_GENERATE_HPP_

#include <skillrt/sdk.hpp>

namespace skillrt::op_test {

Json run_generate(const Json& input, Context* context);

}  // namespace skillrt::op_test

#endif  // SKILLRT_OP_TEST_GENERATE_HPP_
