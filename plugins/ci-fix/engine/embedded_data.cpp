// The whitelist, the typo table and op-plugin's .clang-format are compiled into the plugin, like
// its JSON Schemas: the .so stays self-describing and cannot pick up a mismatched data file.
#include "skill.hpp"

#ifndef SKILLRT_CI_FIX_DATA_DIR
#error "SKILLRT_CI_FIX_DATA_DIR must name plugins/ci-fix/data"
#endif

#define SKILLRT_CI_FIX_EMBED(sym, file)                 \
  __asm__(".pushsection .rodata.skillrt_ci_fix_" #sym   \
          ",\"a\",@progbits\n"                          \
          ".global skillrt_ci_fix_" #sym                \
          "_begin\n"                                    \
          ".hidden skillrt_ci_fix_" #sym                \
          "_begin\n"                                    \
          "skillrt_ci_fix_" #sym                        \
          "_begin:\n"                                   \
          ".incbin \"" SKILLRT_CI_FIX_DATA_DIR "/" file \
          "\"\n"                                        \
          ".global skillrt_ci_fix_" #sym                \
          "_end\n"                                      \
          ".hidden skillrt_ci_fix_" #sym                \
          "_end\n"                                      \
          "skillrt_ci_fix_" #sym                        \
          "_end:\n"                                     \
          ".byte 0\n"                                   \
          ".popsection\n");                             \
  extern "C" const char skillrt_ci_fix_##sym##_begin[]; \
  extern "C" const char skillrt_ci_fix_##sym##_end[];

SKILLRT_CI_FIX_EMBED(whitelist, "whitelist.json")
SKILLRT_CI_FIX_EMBED(typos, "typos.tsv")
SKILLRT_CI_FIX_EMBED(clang_format, "op-plugin.clang-format")

namespace skillrt::ci_fix {

namespace {
std::string_view view(const char* b, const char* e) {
  return std::string_view(b, static_cast<size_t>(e - b));
}
}  // namespace

std::string_view embedded_whitelist() {
  return view(skillrt_ci_fix_whitelist_begin, skillrt_ci_fix_whitelist_end);
}
std::string_view embedded_typos() {
  return view(skillrt_ci_fix_typos_begin, skillrt_ci_fix_typos_end);
}
std::string_view embedded_op_plugin_clang_format() {
  return view(skillrt_ci_fix_clang_format_begin, skillrt_ci_fix_clang_format_end);
}

}  // namespace skillrt::ci_fix
