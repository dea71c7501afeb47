#include "cli/cli.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "cli/detail/output.hpp"
#include "cli/runtime.hpp"
#include "common/json_text.hpp"
#include "common/logging.hpp"

namespace skillrt::cli {

namespace {

struct GlobalOptions {
  std::vector<std::string> plugin_paths;
  bool no_default_plugins = false;
  std::string log_level = "warn";
  bool json = false;
  size_t threads = 0;
};

struct RunOptions {
  std::string skill;
  std::string input = "{}";
  std::string output_file;
  bool check_only = false;
  bool quiet = false;
  int64_t timeout_ms = 0;
};

// Ctrl-C during `run` asks the skill to stop instead of killing the process mid-write.
exec::CancelFlag g_cancel;
extern "C" void on_sigint(int) {
  if (g_cancel) g_cancel->store(true);
}

int exit_code_for(Code code) {
  switch (code) {
    case Code::kOk:
      return kExitOk;
    case Code::kInvalidArgument:
      return kExitInvalidInput;
    case Code::kNotFound:
      return kExitUnknownSkill;
    case Code::kDeadlineExceeded:
      return kExitDeadline;
    case Code::kCancelled:
      return kExitCancelled;
    case Code::kInternal:
      return kExitPluginBug;
    default:
      return kExitSkillFailed;
  }
}

// --input is a file, "-" (stdin) or inline JSON. Bad JSON says where it broke.
Result<nlohmann::json> read_input(const std::string& arg) {
  std::string text;
  std::string where;
  if (arg == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    where = "stdin";
  } else {
    const auto first = arg.find_first_not_of(" \t\r\n");
    const bool looks_inline = first != std::string::npos &&
                              std::string_view("{[\"").find(arg[first]) != std::string_view::npos;
    std::error_code ec;
    if (!looks_inline && std::filesystem::is_regular_file(arg, ec)) {
      std::ifstream in(arg, std::ios::binary);
      if (!in) return fail(Code::kInvalidArgument, "--input: cannot read file '" + arg + "'");
      text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      where = "file '" + arg + "'";
    } else if (!looks_inline && !std::filesystem::exists(arg, ec) &&
               arg.find_first_of("{}[]:\"") == std::string::npos) {
      return fail(Code::kInvalidArgument, "--input: '" + arg +
                                              "' is neither an existing file nor JSON: pass a "
                                              "file path, '-' for stdin, or inline JSON");
    } else {
      text = arg;
      where = "inline JSON";
    }
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return fail(Code::kInvalidArgument,
                "--input (" + where + ") is not valid JSON: " + describe_parse_error(text, e));
  }
}

int fail_with(const GlobalOptions& g, int exit_code, Code code, const std::string& message,
              const std::vector<schema::Violation>& violations = {}) {
  detail::print_error(g.json, exit_code, code, message, violations);
  return exit_code;
}

int cmd_list(Runtime& rt, const GlobalOptions& g) {
  const auto skills = rt.registry().all();
  if (g.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& s : skills) out.push_back(detail::skill_summary(*s));
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  detail::print_skill_table(std::cout, skills);
  return kExitOk;
}

int cmd_describe(Runtime& rt, const GlobalOptions& g, const std::string& name) {
  auto skill = rt.registry().find(name);
  if (!skill) {
    return fail_with(g, kExitUnknownSkill, Code::kNotFound, rt.registry().not_found_message(name));
  }
  if (g.json) {
    std::cout << detail::skill_details(*skill).dump(2) << "\n";
    return kExitOk;
  }
  detail::print_skill_details(std::cout, *skill);
  return kExitOk;
}

int cmd_schema(Runtime& rt, const GlobalOptions& g, const std::string& name, bool output) {
  auto skill = rt.registry().find(name);
  if (!skill) {
    return fail_with(g, kExitUnknownSkill, Code::kNotFound, rt.registry().not_found_message(name));
  }
  const auto& schema = output ? skill->output_schema : skill->input_schema;
  std::cout << schema->source().dump(2) << "\n";
  return kExitOk;
}

int cmd_plugins(Runtime& rt, const GlobalOptions& g) {
  if (g.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : rt.loader().records()) out.push_back(detail::plugin_json(r));
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  detail::print_plugin_table(std::cout, rt.loader().records());
  return kExitOk;
}

int cmd_run(Runtime& rt, const GlobalOptions& g, const RunOptions& o) {
  auto input = read_input(o.input);
  if (!input) return fail_with(g, kExitInvalidInput, input.error().code, input.error().message);
  exec::CallOptions options;
  options.check_only = o.check_only;
  if (o.timeout_ms > 0) options.timeout = std::chrono::milliseconds(o.timeout_ms);
  options.cancel = exec::make_cancel_flag();
  g_cancel = options.cancel;
  std::signal(SIGINT, on_sigint);
  detail::ProgressPrinter progress(o.quiet, ::isatty(STDERR_FILENO) != 0);
  options.on_progress = [&progress](const exec::Progress& p) { progress.report(p); };
  exec::Outcome out = rt.executor().call(o.skill, *input, std::move(options));
  progress.finish();
  if (!out.ok()) return fail_with(g, exit_code_for(out.code), out.code, out.message, out.violations);
  const std::string text = out.result.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  if (o.output_file.empty()) {
    std::cout << text << "\n";
    return kExitOk;
  }
  auto written = detail::write_file_atomically(o.output_file, text + "\n");
  if (!written) return fail_with(g, kExitError, written.error().code, written.error().message);
  return kExitOk;
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"skillrt: agent skill runtime for PyTorch on Ascend NPU", "skillrt"};
  app.require_subcommand(1);
  GlobalOptions g;
  app.add_option("--plugin-path", g.plugin_paths,
                 "Extra plugin directory or file (repeatable; also SKILLRT_PLUGIN_PATH)");
  app.add_flag("--no-default-plugins", g.no_default_plugins,
               "Do not load the plugins installed beside the skillrt binary");
  app.add_option("--log-level", g.log_level, "trace|debug|info|warn|error|critical|off (stderr)");
  app.add_option("--threads", g.threads, "Worker threads for skill calls (default: cores)");

  auto* list = app.add_subcommand("list", "List every available skill");
  list->add_flag("--json", g.json, "Print JSON");
  std::string skill_name;
  auto* describe = app.add_subcommand("describe", "Show a skill's description and schemas");
  describe->add_option("skill", skill_name, "Skill name")->required();
  describe->add_flag("--json", g.json, "Print JSON");
  bool schema_output = false;
  auto* schema_cmd = app.add_subcommand("schema", "Print a skill's input (or output) schema");
  schema_cmd->add_option("skill", skill_name, "Skill name")->required();
  schema_cmd->add_flag("--output", schema_output, "Print the output schema instead");
  RunOptions run_opts;
  auto* run_cmd = app.add_subcommand("run", "Run a skill on a JSON input");
  run_cmd->add_option("skill", run_opts.skill, "Skill name")->required();
  run_cmd->add_option("--input,-i", run_opts.input, "A file, - for stdin, or inline JSON")
      ->required();
  run_cmd->add_option("--output,-o", run_opts.output_file, "Write the result JSON to this file");
  run_cmd->add_flag("--check-only", run_opts.check_only, "Validate the input; do not run");
  run_cmd->add_option("--timeout", run_opts.timeout_ms, "Deadline in milliseconds");
  run_cmd->add_flag("--quiet,-q", run_opts.quiet, "No progress output");
  run_cmd->add_flag("--json", g.json, "Errors as a JSON object on stdout");
  auto* plugins = app.add_subcommand("plugins", "List plugin files, versions and load errors");
  plugins->add_flag("--json", g.json, "Print JSON");
  auto* version = app.add_subcommand("version", "Print the skillrt and ABI versions");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "skillrt: usage error: " << e.what() << " (see `skillrt --help`)\n";
    return kExitUsage;
  }
  if (auto logging = setup_logging(g.log_level); !logging) {
    std::cerr << "skillrt: usage error: " << logging.error().message << "\n";
    return kExitUsage;
  }
  if (*version) {
    std::cout << "skillrt " << SKILLRT_VERSION << " (plugin ABI " << SKILLRT_ABI_MAJOR << "."
              << SKILLRT_ABI_MINOR << ")\n";
    return kExitOk;
  }

  RuntimeOptions ro;
  ro.plugin_paths = g.plugin_paths;
  ro.default_plugins = !g.no_default_plugins;
  ro.executor.pool_size = g.threads;
  Runtime rt(ro);
  int code = kExitOk;
  if (*list) code = cmd_list(rt, g);
  if (*describe) code = cmd_describe(rt, g, skill_name);
  if (*schema_cmd) code = cmd_schema(rt, g, skill_name, schema_output);
  if (*plugins) code = cmd_plugins(rt, g);
  if (*run_cmd) code = cmd_run(rt, g, run_opts);
  std::cout.flush();
  std::fflush(nullptr);
  // The runtime is never destroyed: production never unloads plugin libraries (Boost.DLL's
  // documented crash causes), and a skill that ignored its deadline may still be running.
  std::_Exit(code);
}

}  // namespace skillrt::cli
