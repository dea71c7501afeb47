// The default source of the op-schema skill: PyTorch 2.11's native_functions.yaml, embedded in
// the plugin binary at build time (see CMakeLists.txt for why it is embedded).
#ifndef SKILLRT_OP_TOOLS_EMBEDDED_SOURCE_HPP_
#define SKILLRT_OP_TOOLS_EMBEDDED_SOURCE_HPP_

#include <string_view>

namespace skillrt::op_tools {

// The file's bytes, exactly as in the source tree.
std::string_view embedded_native_functions();
// The name evidence cites for lines of the embedded file.
std::string_view embedded_native_functions_name();

}  // namespace skillrt::op_tools

#endif  // SKILLRT_OP_TOOLS_EMBEDDED_SOURCE_HPP_
