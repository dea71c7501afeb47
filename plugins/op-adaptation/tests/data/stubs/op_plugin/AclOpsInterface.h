// Stand-in for the generated op_plugin/AclOpsInterface.h.
#ifndef OPA_STUB_ACL_OPS_INTERFACE_H_
#define OPA_STUB_ACL_OPS_INTERFACE_H_
#include "op_plugin/utils/op_api_common.h"
#endif  // OPA_STUB_ACL_OPS_INTERFACE_H_
