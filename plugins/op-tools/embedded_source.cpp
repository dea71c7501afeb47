#include "embedded_source.hpp"

#ifndef SKILLRT_OP_SCHEMA_DEFAULT_SOURCE_PATH
#error "SKILLRT_OP_SCHEMA_DEFAULT_SOURCE_PATH must name the YAML file to embed"
#endif
#ifndef SKILLRT_OP_SCHEMA_DEFAULT_SOURCE_NAME
#error "SKILLRT_OP_SCHEMA_DEFAULT_SOURCE_NAME must name the embedded file for evidence"
#endif

// .incbin keeps the 600 KB file out of the compiler (a generated char array would cost seconds
// of compile time and memory on every build); the symbols are hidden so nothing leaks from the
// plugin.
__asm__(
    ".pushsection .rodata.skillrt_op_tools_source,\"a\",@progbits\n"
    ".global skillrt_op_tools_source_begin\n"
    ".hidden skillrt_op_tools_source_begin\n"
    "skillrt_op_tools_source_begin:\n"
    ".incbin \"" SKILLRT_OP_SCHEMA_DEFAULT_SOURCE_PATH
    "\"\n"
    ".global skillrt_op_tools_source_end\n"
    ".hidden skillrt_op_tools_source_end\n"
    "skillrt_op_tools_source_end:\n"
    ".byte 0\n"
    ".popsection\n");

extern "C" const char skillrt_op_tools_source_begin[];
extern "C" const char skillrt_op_tools_source_end[];

namespace skillrt::op_tools {

std::string_view embedded_native_functions() {
  return std::string_view(
      skillrt_op_tools_source_begin,
      static_cast<size_t>(skillrt_op_tools_source_end - skillrt_op_tools_source_begin));
}

std::string_view embedded_native_functions_name() { return SKILLRT_OP_SCHEMA_DEFAULT_SOURCE_NAME; }

}  // namespace skillrt::op_tools
