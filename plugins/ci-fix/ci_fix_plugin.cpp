// The ci-fix plugin: the ci-static-errors-fix skill (engine/ holds the logic).
#include <skillrt/sdk.hpp>

#include "skill.hpp"
#include "skillrt_embedded_schemas.h"

namespace {

void register_skills(skillrt::Registrar& r) {
  r.skill("ci-static-errors-fix")
      .title("Fix PR-gate static-check errors with proven-safe edits")
      .description(
          "Fixes the style and static-check findings that block a torch_npu or op-plugin PR gate, "
          "with whitelisted fixes only, as one patch. "
          "Clears the style and static-check findings that block torch_npu / op-plugin PR gates "
          "(flake8, pycodestyle, clang-format, cpplint, codespell/typos, lintrunner, pre-commit) "
          "using whitelisted fixes only: trailing whitespace, final newline, CRLF, spacing around "
          "operators and commas, blank lines, indentation, clang-format whitespace, typos in "
          "comments and docs. Each fix is proven by tokenizing the file before and after "
          "(Python and C/C++ tokenizers: strings, raw strings, comments, continuations, macro "
          "stringification) and reverted if the token streams differ. Unused imports, == None, "
          "import order, renames, rewraps and string literals are reported as residual with a "
          "suggested manual fix. Ingests a lint report or runs flake8/pycodestyle/clang-format "
          "with the repository's configs, re-runs them after fixing, and returns a patch (dry "
          "run) or writes atomically inside the repository (apply), with Markdown and JSON "
          "reports.")
      .input_schema(skillrt_embedded::schema("ci-static-errors-fix.input"))
      .output_schema(skillrt_embedded::schema("ci-static-errors-fix.output"))
      .destructive()
      .timeout_ms(600000)
      .handler([](const skillrt::Json& input, skillrt::Context& ctx) {
        skillrt::ci_fix::Hooks hooks;
        hooks.cancelled = [&ctx] { return ctx.cancelled(); };
        hooks.progress = [&ctx](double done, double total, const std::string& message) {
          ctx.progress(done, total, message);
        };
        try {
          return skillrt::ci_fix::run_ci_fix(input, hooks);
        } catch (const skillrt::ci_fix::RequestError& e) {
          throw skillrt::invalid_argument(e.what());
        } catch (const skillrt::ci_fix::Cancelled& e) {
          throw skillrt::SkillError(SKILLRT_CANCELLED, e.what());
        }
      });
}

}  // namespace

SKILLRT_PLUGIN("ci-fix", "1.0.0", register_skills)
