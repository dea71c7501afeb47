// The rule table and torch_npu's apis_config.json are assembled into the binary: the plugin stays
// one self-describing file that works the same from the build tree, an install or a copy, and
// cannot pick up a rule file from another version. Users extend the table at run time through
// the `rules_file` input instead.
#include <string_view>

#ifndef SKILLRT_GPU_MIGRATION_RULES_PATH
#error "SKILLRT_GPU_MIGRATION_RULES_PATH must name data/rules.json"
#endif
#ifndef SKILLRT_GPU_MIGRATION_APIS_CONFIG_PATH
#error "SKILLRT_GPU_MIGRATION_APIS_CONFIG_PATH must name data/apis_config.json"
#endif

__asm__(
    ".pushsection .rodata.skillrt_gpu_migration_data,\"a\",@progbits\n"
    ".global skillrt_gpu_migration_rules_begin\n"
    ".hidden skillrt_gpu_migration_rules_begin\n"
    "skillrt_gpu_migration_rules_begin:\n"
    ".incbin \"" SKILLRT_GPU_MIGRATION_RULES_PATH
    "\"\n"
    ".global skillrt_gpu_migration_rules_end\n"
    ".hidden skillrt_gpu_migration_rules_end\n"
    "skillrt_gpu_migration_rules_end:\n"
    ".byte 0\n"
    ".global skillrt_gpu_migration_apis_begin\n"
    ".hidden skillrt_gpu_migration_apis_begin\n"
    "skillrt_gpu_migration_apis_begin:\n"
    ".incbin \"" SKILLRT_GPU_MIGRATION_APIS_CONFIG_PATH
    "\"\n"
    ".global skillrt_gpu_migration_apis_end\n"
    ".hidden skillrt_gpu_migration_apis_end\n"
    "skillrt_gpu_migration_apis_end:\n"
    ".byte 0\n"
    ".popsection\n");

extern "C" const char skillrt_gpu_migration_rules_begin[];
extern "C" const char skillrt_gpu_migration_rules_end[];
extern "C" const char skillrt_gpu_migration_apis_begin[];
extern "C" const char skillrt_gpu_migration_apis_end[];

namespace skillrt::gpu_migration::detail {

std::string_view builtin_rules_text() {
  return std::string_view(
      skillrt_gpu_migration_rules_begin,
      static_cast<size_t>(skillrt_gpu_migration_rules_end - skillrt_gpu_migration_rules_begin));
}

std::string_view builtin_apis_config_text() {
  return std::string_view(
      skillrt_gpu_migration_apis_begin,
      static_cast<size_t>(skillrt_gpu_migration_apis_end - skillrt_gpu_migration_apis_begin));
}

}  // namespace skillrt::gpu_migration::detail
