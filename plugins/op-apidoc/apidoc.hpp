// op-apidoc: the API page of an NPU operator in the house template (generate) and a checker
// that compares an existing page with the schema (check).
#ifndef SKILLRT_OP_APIDOC_APIDOC_HPP_
#define SKILLRT_OP_APIDOC_APIDOC_HPP_

#include <skillrt/sdk.hpp>

namespace skillrt::op_apidoc {

Json run_generate(const Json& input);
Json run_check(const Json& input);

}  // namespace skillrt::op_apidoc

#endif  // SKILLRT_OP_APIDOC_APIDOC_HPP_
