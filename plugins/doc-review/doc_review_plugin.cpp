// The doc-review plugin: a static review of documentation against a code checkout, on the five
// axes of CANN documentation quality (找得到 信得过 学得会 可操作 读得懂).
#include <skillrt/sdk.hpp>

#include "review.hpp"
#include "skillrt_embedded_schemas.h"

namespace {

void register_skills(skillrt::Registrar& r) {
  r.skill("doc-review")
      .title("Documentation review against the code (five axes)")
      .description(
          "Reviews a docs tree or one Markdown page (tutorials, developer guides, API pages) "
          "against a code checkout (op-plugin, torch_npu or an AscendC operator project), "
          "statically: it never edits the docs and never runs an example. Five axes: findable "
          "(links, anchors, pages reachable from an index), trustworthy (APIs, prototypes, "
          "parameters, defaults, dtypes, environment variables exist in the code), learnable "
          "(terms before definitions, steps without expected results, missing prerequisites "
          "and versions), operable (Python examples parse; the APIs, imports and keywords they "
          "use exist), readable (broken tables, mixed-language headings, overlong sentences). "
          "Each finding has axis, severity, page and line, evidence (with the code's file:line) "
          "and a fix; Markdown and HTML reports go to output_dir.")
      .input_schema(skillrt_embedded::schema("doc-review.input"))
      .output_schema(skillrt_embedded::schema("doc-review.output"))
      .read_only()
      .idempotent()
      .timeout_ms(300000)
      .handler([](const skillrt::Json& input, skillrt::Context& context) {
        skillrt::doc_review::ReviewHooks hooks;
        hooks.progress = [&context](double done, double total, const std::string& message) {
          context.progress(done, total, message);
        };
        hooks.cancelled = [&context] { return context.cancelled(); };
        try {
          return skillrt::doc_review::run_review(input, hooks);
        } catch (const skillrt::doc_review::InputError& e) {
          throw skillrt::invalid_argument(e.what());
        } catch (const skillrt::doc_review::Cancelled& e) {
          throw skillrt::SkillError(SKILLRT_CANCELLED, e.what());
        }
      });
}

}  // namespace

SKILLRT_PLUGIN("doc-review", "1.0.0", register_skills)
