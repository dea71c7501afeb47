// Stand-in for the generated op_plugin/OpApiInterface.h (declarations come from the kernels).
#ifndef OPA_STUB_OP_API_INTERFACE_H_
#define OPA_STUB_OP_API_INTERFACE_H_
#include "op_plugin/utils/op_api_common.h"
#endif  // OPA_STUB_OP_API_INTERFACE_H_
