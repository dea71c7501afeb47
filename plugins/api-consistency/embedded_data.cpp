// The triage rules and op-plugin's API table are assembled into the .so: the plugin behaves the
// same from the build tree, an install or a copy, and cannot pair a binary with rules of another
// version. Users replace the rules at run time with the `rules_file` input.
#include <string_view>

#ifndef SKILLRT_APIC_RULES_PATH
#error "SKILLRT_APIC_RULES_PATH must name data/triage_rules.yaml"
#endif
#ifndef SKILLRT_APIC_OPS_PATH
#error "SKILLRT_APIC_OPS_PATH must name data/op_plugin_functions.yaml"
#endif

__asm__(
    ".pushsection .rodata.skillrt_apic_data,\"a\",@progbits\n"
    ".global skillrt_apic_rules_begin\n.hidden skillrt_apic_rules_begin\n"
    "skillrt_apic_rules_begin:\n.incbin \"" SKILLRT_APIC_RULES_PATH
    "\"\n"
    ".global skillrt_apic_rules_end\n.hidden skillrt_apic_rules_end\n"
    "skillrt_apic_rules_end:\n.byte 0\n"
    ".global skillrt_apic_ops_begin\n.hidden skillrt_apic_ops_begin\n"
    "skillrt_apic_ops_begin:\n.incbin \"" SKILLRT_APIC_OPS_PATH
    "\"\n"
    ".global skillrt_apic_ops_end\n.hidden skillrt_apic_ops_end\n"
    "skillrt_apic_ops_end:\n.byte 0\n.popsection\n");

extern "C" const char skillrt_apic_rules_begin[];
extern "C" const char skillrt_apic_rules_end[];
extern "C" const char skillrt_apic_ops_begin[];
extern "C" const char skillrt_apic_ops_end[];

namespace skillrt::apic {

std::string_view embedded_rules() {
  return {skillrt_apic_rules_begin,
          static_cast<size_t>(skillrt_apic_rules_end - skillrt_apic_rules_begin)};
}

std::string_view embedded_ops_yaml() {
  return {skillrt_apic_ops_begin,
          static_cast<size_t>(skillrt_apic_ops_end - skillrt_apic_ops_begin)};
}

}  // namespace skillrt::apic
