// The `skillrt` command line.
#pragma once

namespace skillrt::cli {

// Documented exit codes (README, docs/cli.md).
enum ExitCode : int {
  kExitOk = 0,
  kExitError = 1,          // anything not listed below (I/O, internal)
  kExitUsage = 2,          // bad command line
  kExitInvalidInput = 3,   // input is not JSON or fails the skill's input schema
  kExitSkillFailed = 4,    // the skill ran and reported an error
  kExitUnknownSkill = 5,   // no skill of that name
  kExitDeadline = 6,       // the call missed its deadline
  kExitCancelled = 7,      // the call was cancelled (Ctrl-C)
  kExitPluginBug = 8,      // the plugin broke its contract (output schema, invalid JSON)
};

int run(int argc, char** argv);

}  // namespace skillrt::cli
