#include "cli/cli.hpp"

#include <unistd.h>

#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>

#include "cli/config_file.hpp"
#include "cli/detail/indent.hpp"
#include "cli/detail/output.hpp"
#include "common/json_text.hpp"
#include "common/logging.hpp"
#include "common/stdout_aside.hpp"
#include "exec/isolation/worker.hpp"
#include "host/host_api.hpp"
#include "host/runtime.hpp"
#include "mcp/server.hpp"
#include "mcp/tool_definition.hpp"
#include "transport/http_transport.hpp"
#include "transport/stdio_transport.hpp"
#include "web/page.hpp"

namespace skillrt::cli {

using host::Runtime;
using host::RuntimeOptions;

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

// What MCP clients would be shown that breaks their rules or budgets, per skill: third-party
// authors see it here before an agent drops their tool.
std::vector<std::pair<std::string, std::string>> tool_problems(Runtime& rt) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& skill : rt.registry().all()) {
    const mcp::ToolDefinition def = mcp::tool_definition(*skill, true);
    for (const auto& w : def.warnings) out.emplace_back(skill->name, w);
    for (const auto& b : mcp::tool_rule_breaches(def.tool)) out.emplace_back(skill->name, b);
  }
  return out;
}

int cmd_plugins(Runtime& rt, const GlobalOptions& g) {
  const auto problems = rt.doc_problems();
  const auto tools = tool_problems(rt);
  if (g.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : rt.loader().records()) out.push_back(detail::plugin_json(r));
    nlohmann::json docs = nlohmann::json::array();
    for (const auto& p : problems)
      docs.push_back({{"file", p.path.string()}, {"problem", p.message}});
    nlohmann::json tool_json = nlohmann::json::array();
    for (const auto& [skill, problem] : tools)
      tool_json.push_back({{"skill", skill}, {"problem", problem}});
    std::cout << nlohmann::json{{"plugins", out},
                                {"skill_docs", docs},
                                {"tool_definitions", tool_json}}
                     .dump(2)
              << "\n";
    return kExitOk;
  }
  detail::print_plugin_table(std::cout, rt.loader().records());
  if (!problems.empty()) {
    std::cout << "\nskill documents (SKILL.md):\n";
    for (const auto& p : problems) std::cout << "  " << p.message << "\n";
  }
  if (!tools.empty()) {
    std::cout << "\ntool definitions (what MCP clients are shown):\n";
    for (const auto& [skill, problem] : tools)
      std::cout << "  " << skill << ": " << problem << "\n";
  }
  return kExitOk;
}

int cmd_run(Runtime& rt, const GlobalOptions& g, const RunOptions& o) {
  auto input = read_input(o.input);
  if (!input) return fail_with(g, kExitInvalidInput, input.error().code, input.error().message);
  exec::CallOptions options;
  options.check_only = o.check_only;
  options.result_text_only = true;
  if (o.timeout_ms > 0) options.timeout = std::chrono::milliseconds(o.timeout_ms);
  options.cancel = exec::make_cancel_flag();
  g_cancel = options.cancel;
  std::signal(SIGINT, on_sigint);
  detail::ProgressPrinter progress(o.quiet, ::isatty(STDERR_FILENO) != 0);
  options.on_progress = [&progress](const exec::Progress& p) { progress.report(p); };
  // While the skill runs, fd 1 points at stderr: the result is all `run` prints on stdout,
  // whatever an in-process plugin writes meanwhile.
  auto aside = StdoutAside::divert();
  if (!aside) return fail_with(g, kExitError, aside.error().code, aside.error().message);
  exec::Outcome out = rt.executor().call(o.skill, *input, std::move(options));
  aside->restore();
  progress.finish();
  if (!out.ok())
    return fail_with(g, exit_code_for(out.code), out.code, out.message, out.violations);
  // A result checked as text (no DOM built for it) is printed by re-indenting that text.
  const std::string text =
      out.result.is_null() && !out.result_text.empty()
          ? detail::indent_json(out.result_text)
          : out.result.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  if (o.output_file.empty()) {
    std::cout << text << "\n";
    return kExitOk;
  }
  auto written = detail::write_file_atomically(o.output_file, text + "\n");
  if (!written) return fail_with(g, kExitError, written.error().code, written.error().message);
  return kExitOk;
}

nlohmann::json candidates_json(const std::vector<router::Candidate>& candidates) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : candidates) {
    nlohmann::json entry = {{"skill", c.skill}, {"score", c.score}, {"matched", c.matched}};
    if (c.task > 0) entry["task"] = c.task;
    out.push_back(std::move(entry));
  }
  return out;
}

std::string describe_candidate(const router::Candidate& c) {
  std::string line = c.skill + " (score " + std::to_string(c.score).substr(0, 4);
  if (!c.matched.empty()) {
    line += ", matched:";
    for (const auto& m : c.matched) line += " " + m;
  }
  return line + ")";
}

int cmd_route(Runtime& rt, const GlobalOptions& g, const std::string& text, size_t top) {
  const auto& router = rt.router();
  const auto ranked = router.rank(text, top);
  if (g.json) {
    nlohmann::json out = {{"text", text},
                          {"none", ranked.empty()},
                          {"threshold", router.threshold()},
                          {"candidates", candidates_json(ranked)}};
    if (ranked.empty()) out["nearest"] = candidates_json(router.rank_all(text, 3));
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  if (ranked.empty()) {
    std::cout << "none: no skill fits this request";
    const auto nearest = router.rank_all(text, 3);
    if (!nearest.empty()) {
      std::cout << " (nearest below the threshold " << router.threshold() << ":";
      for (const auto& c : nearest) std::cout << " " << describe_candidate(c);
      std::cout << ")";
    }
    std::cout << "\n";
    return kExitOk;
  }
  // Several tasks asked one after another read "task 1:", "task 2:"; otherwise the list is the
  // best skill and its alternatives.
  for (size_t i = 0; i < ranked.size(); ++i) {
    if (ranked[i].task > 0) {
      std::cout << "task " << ranked[i].task << ": " << describe_candidate(ranked[i]) << "\n";
    } else {
      std::cout << i + 1 << ". " << describe_candidate(ranked[i]) << "\n";
    }
  }
  return kExitOk;
}

// Routes, then runs the best skill, or stops and says which required inputs are missing.
int cmd_ask(Runtime& rt, const GlobalOptions& g, const std::string& text,
            const std::string& input_arg, bool quiet) {
  const auto ranked = rt.router().rank(text, 5);
  if (ranked.empty()) {
    return fail_with(g, kExitUnknownSkill, Code::kNotFound,
                     "no skill fits \"" + text +
                         "\": try `skillrt route` to see the nearest, or "
                         "`skillrt list`");
  }
  const auto& best = ranked.front();
  std::cerr << "skillrt: routed to " << describe_candidate(best) << "\n";
  // A request with several tasks in a row: each needs its own input, so only the first runs
  // here, and the others are named with the command that runs each, so none is dropped unseen.
  if (best.task > 0 && ranked.size() > 1) {
    std::cerr << "skillrt: this request asks for " << ranked.size()
              << " tasks in a row; running task 1 now. After it:";
    for (size_t i = 1; i < ranked.size(); ++i) {
      std::cerr << "\n  task " << ranked[i].task << ": " << describe_candidate(ranked[i])
                << "; run it with `skillrt run " << ranked[i].skill << " --input <json>`";
    }
    std::cerr << "\n";
  }
  auto input =
      input_arg.empty() ? Result<nlohmann::json>(nlohmann::json::object()) : read_input(input_arg);
  if (!input) return fail_with(g, kExitInvalidInput, input.error().code, input.error().message);
  auto skill = rt.registry().find(best.skill);
  exec::CallOptions check;
  check.check_only = true;
  auto checked = rt.executor().call(best.skill, *input, check);
  if (!checked.ok()) {
    std::string missing;
    const auto& schema = skill->input_schema->source();
    for (const auto& v : checked.violations) {
      if (v.keyword != "required" || !v.pointer.empty()) continue;
      for (const auto& name : schema.value("required", nlohmann::json::array())) {
        const std::string key = name.get<std::string>();
        if (input->contains(key)) continue;
        std::string desc;
        if (schema.contains("properties") && schema["properties"].contains(key)) {
          desc = schema["properties"][key].value("description", "");
        }
        missing += "\n  " + key + (desc.empty() ? "" : ": " + desc);
      }
      break;
    }
    if (!missing.empty()) {
      return fail_with(
          g, kExitInvalidInput, Code::kInvalidArgument,
          "skill '" + best.skill + "' needs these inputs; pass them with --input:" + missing,
          checked.violations);
    }
    return fail_with(g, exit_code_for(checked.code), checked.code, checked.message,
                     checked.violations);
  }
  RunOptions o;
  o.skill = best.skill;
  o.input = input->dump();
  o.quiet = quiet;
  return cmd_run(rt, g, o);
}

int cmd_export(Runtime& rt, const GlobalOptions& g, const std::string& target,
               const std::string& scope) {
  router::ExportOptions options;
  if (target == "claude") {
    options.target = router::ExportTarget::kClaude;
  } else if (target == "codex") {
    options.target = router::ExportTarget::kCodex;
  } else {
    options.target = router::ExportTarget::kDirectory;
    options.directory = target;
  }
  if (scope != "user" && scope != "project") {
    return fail_with(g, kExitUsage, Code::kInvalidArgument,
                     "--scope must be 'user' or 'project', got '" + scope + "'");
  }
  options.scope = scope == "user" ? router::ExportScope::kUser : router::ExportScope::kProject;
  std::vector<router::SkillDoc> docs;
  std::vector<std::string> skipped;
  for (const auto& doc : rt.skill_docs().docs) {
    if (rt.registry().find(doc.name)) {
      docs.push_back(doc);
    } else {
      skipped.push_back(doc.name);
    }
  }
  auto written = router::export_skills(docs, options);
  if (!written) return fail_with(g, kExitError, written.error().code, written.error().message);
  if (g.json) {
    nlohmann::json files = nlohmann::json::array();
    for (const auto& f : *written) files.push_back(f.string());
    std::cout << nlohmann::json{{"written", files}, {"skipped_without_plugin", skipped}}.dump(2)
              << "\n";
    return kExitOk;
  }
  for (const auto& f : *written) std::cout << f.string() << "\n";
  if (!skipped.empty()) {
    std::cerr << "skillrt: not exported (no plugin provides them here):";
    for (const auto& s : skipped) std::cerr << " " << s;
    std::cerr << "\n";
  }
  return kExitOk;
}

struct ServeOptions {
  std::string http;  // [HOST:]PORT; empty: stdio
  std::string token;
  std::vector<std::string> origins;
  size_t max_line_mb = 16;
  unsigned idle_poll_us = 50;
  std::string fixtures;  // test-only: the conformance suite's fixture tools, resources, prompts
  bool insecure_no_token = false;  // serve a non-loopback address without a token, on purpose
};

// 127.0.0.0/8, ::1 and localhost: only this machine can connect.
bool is_loopback_host(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

int cmd_serve(Runtime& rt, const GlobalOptions& g, const ServeOptions& o) {
  mcp::ServerOptions so;
  so.version = SKILLRT_VERSION;
  so.fixtures_file = o.fixtures;
  for (const auto& dir : rt.skills_dirs()) {
    std::error_code ec;
    if (std::filesystem::is_directory(dir, ec)) {
      so.skills_dir = dir;
      break;
    }
  }
  mcp::Server server(rt.executor(), so);
  if (o.http.empty()) {
    transport::StdioOptions stdio;
    stdio.max_line_bytes = o.max_line_mb << 20;
    stdio.idle_poll = std::chrono::microseconds(o.idle_poll_us);
    return transport::run_stdio(server, stdio);
  }
  transport::HttpOptions http;
  std::string port_text = o.http;
  if (auto colon = o.http.rfind(':'); colon != std::string::npos) {
    http.host = o.http.substr(0, colon);
    port_text = o.http.substr(colon + 1);
  }
  int port = -1;
  try {
    size_t used = 0;
    port = std::stoi(port_text, &used);
    if (used != port_text.size()) port = -1;
  } catch (const std::exception&) {
    port = -1;
  }
  if (port < 0 || port > 65535) {
    return fail_with(g, kExitUsage, Code::kInvalidArgument,
                     "--http '" + o.http + "': expected [HOST:]PORT, e.g. 8765 or 127.0.0.1:8765");
  }
  http.port = static_cast<uint16_t>(port);
  // Every skill, file-writing ones included, would be callable by anyone who reaches the port.
  if (!is_loopback_host(http.host) && o.token.empty() && !o.insecure_no_token) {
    return fail_with(g, kExitUsage, Code::kInvalidArgument,
                     "--http '" + o.http +
                         "' listens beyond this machine without a token, so anyone who reaches "
                         "the port could run every skill (file-writing ones included); add "
                         "--token <secret> (clients send Authorization: Bearer <secret>), or "
                         "--insecure-no-token if that is really meant");
  }
  if (!is_loopback_host(http.host) && o.token.empty()) {
    spdlog::warn(
        "serving {} without a token (--insecure-no-token): any client that reaches the "
        "port can run every skill",
        o.http);
  }
  http.token = o.token;
  http.allowed_origins = o.origins;
  http.max_body_bytes = o.max_line_mb << 20;
  http.idle_poll = std::chrono::microseconds(o.idle_poll_us);
  http.page = web::serve;
  http.on_listening = [&http](uint16_t bound) {
    spdlog::warn("skillrt MCP server listening on http://{}:{}/mcp", http.host, bound);
    // With the token in it, as Jupyter does: the address is the key to the page.
    spdlog::warn("skillrt web page: {}", web::page_url(http.host, bound, http.token));
  };
  return transport::run_http(server, http);
}

// What the host will use, after the config file and the command line are merged.
int cmd_config(const GlobalOptions& g, const HostConfig& config, const RuntimeOptions& ro) {
  nlohmann::json out;
  out["config_file"] =
      config.file.empty() ? nlohmann::json(nullptr) : nlohmann::json(config.file.string());
  out["plugin_paths"] = ro.plugin_paths;
  out["default_plugins"] = ro.default_plugins;
  out["skills_dirs"] = ro.skills_dirs;
  out["threads"] = ro.executor.pool_size;
  out["isolation"] = ro.isolation;
  out["worker_memory_mb"] = ro.worker.memory_limit_mb;
  out["log_level"] = g.log_level;
  out["max_call_depth"] = ro.executor.max_depth;
  out["deadlines"] = {{"default_ms", ro.executor.default_timeout.count()},
                      {"grace_ms", ro.executor.grace.count()},
                      {"skills", nlohmann::json::object()}};
  for (const auto& [skill, ms] : ro.executor.skill_timeouts) {
    out["deadlines"]["skills"][skill] = ms.count();
  }
  nlohmann::json plugins = nlohmann::json::object();
  for (const auto& [name, mode] : ro.plugin_isolation) plugins[name]["isolation"] = mode;
  for (const auto& [name, settings] : ro.plugin_settings) plugins[name]["settings"] = settings;
  out["plugins"] = plugins;
  if (g.json) {
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "config file: "
            << (config.file.empty() ? std::string("(none)") : config.file.string()) << "\n";
  for (const auto& [key, value] : out.items()) {
    if (key == "config_file") continue;
    std::cout << key << ": " << value.dump() << "\n";
  }
  return kExitOk;
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"skillrt: agent skill runtime for PyTorch on Ascend NPU", "skillrt"};
  app.require_subcommand(1);
  GlobalOptions g;
  std::string config_path;
  app.add_option("--config", config_path,
                 "Host config file (YAML; default ~/.config/skillrt/config.yaml when present)");
  app.add_option("--plugin-path", g.plugin_paths,
                 "Extra plugin directory or file (repeatable; also SKILLRT_PLUGIN_PATH)");
  app.add_flag("--no-default-plugins", g.no_default_plugins,
               "Do not load the plugins installed beside the skillrt binary");
  app.add_option("--log-level", g.log_level, "trace|debug|info|warn|error|critical|off (stderr)");
  app.add_option("--threads", g.threads, "Worker threads for skill calls (default: cores)");
  std::string isolation = "auto";
  app.add_option("--isolation", isolation,
                 "Where plugins run: auto (third-party plugins in worker processes, builtin "
                 "ones in-process), process, or in-process")
      ->check(CLI::IsMember({"auto", "process", "in-process"}));
  size_t worker_memory_mb = 0;
  app.add_option("--worker-memory-mb", worker_memory_mb,
                 "Address-space limit for each worker process, in MB (0: none)");
  std::vector<std::string> skills_dirs;
  app.add_option("--skills-dir", skills_dirs,
                 "Extra directory of <skill>/SKILL.md folders (repeatable; also "
                 "SKILLRT_SKILLS_PATH)");

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
  auto* config_cmd =
      app.add_subcommand("config", "Show the effective host configuration and where it came from");
  config_cmd->add_flag("--json", g.json, "Print JSON");
  ServeOptions serve_opts;
  auto* serve = app.add_subcommand("serve", "Serve every skill as an MCP tool (stdio by default)");
  serve->add_option("--http", serve_opts.http,
                    "Streamable HTTP on [HOST:]PORT instead of stdio (binds 127.0.0.1 unless a "
                    "host is given; port 0 picks a free one)");
  serve->add_option("--token", serve_opts.token, "Require Authorization: Bearer <token> (HTTP)");
  serve->add_flag("--insecure-no-token", serve_opts.insecure_no_token,
                  "Allow a non-loopback --http address without --token (every skill becomes "
                  "callable by anyone who reaches the port)");
  serve->add_option("--allow-origin", serve_opts.origins,
                    "An Origin allowed besides loopback ones (HTTP, repeatable)");
  serve->add_option("--max-message-mb", serve_opts.max_line_mb,
                    "Largest message accepted, in MiB (default 16)");
  serve
      ->add_option("--idle-poll-us", serve_opts.idle_poll_us,
                   "Longest the server polls for the next request before it sleeps; adapts to "
                   "the client, 0 turns it off (default 50)")
      ->check(CLI::Range(0u, 10000u));
  // Test-only, hidden from --help: the conformance test serves mcp-fixtures/conformance.json.
  serve->add_option("--mcp-fixtures", serve_opts.fixtures, "Conformance fixtures file (tests)")
      ->group("");
  std::string worker_plugin;
  std::string worker_config = "{}";
  auto* worker = app.add_subcommand("__worker", "");  // internal: process isolation
  worker->group("");
  worker->add_option("--plugin", worker_plugin)->required();
  worker->add_option("--config-json", worker_config);
  std::string text;
  size_t top = 5;
  auto* route = app.add_subcommand("route", "Rank the skills that fit a free-text request");
  route->add_option("text", text, "The request, in Chinese, English or both")->required();
  route->add_option("--top", top, "How many candidates to show")->check(CLI::Range(1, 100));
  route->add_flag("--json", g.json, "Print JSON");
  std::string ask_input;
  bool ask_quiet = false;
  auto* ask = app.add_subcommand("ask", "Route a request, then run the best skill");
  ask->add_option("text", text, "The request")->required();
  ask->add_option("--input,-i", ask_input, "The skill's input: file, - or inline JSON");
  ask->add_flag("--quiet,-q", ask_quiet, "No progress output");
  ask->add_flag("--json", g.json, "Errors as a JSON object on stdout");
  auto* skills_cmd = app.add_subcommand("skills", "Agent Skills packages (SKILL.md)");
  skills_cmd->require_subcommand(1);
  std::string export_target;
  std::string export_scope = "project";
  auto* export_cmd = skills_cmd->add_subcommand(
      "export", "Write SKILL.md folders where Claude Code or Codex look for skills");
  export_cmd->add_option("--target", export_target, "claude, codex, or a directory")->required();
  export_cmd->add_option("--scope", export_scope, "user (~/.claude, ~/.codex) or project (.)");
  export_cmd->add_flag("--json", g.json, "Print JSON");

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
  if (*worker) exec::run_worker(worker_plugin, worker_config, host::host_api());
  if (*version) {
    std::cout << "skillrt " << SKILLRT_VERSION << " (plugin ABI " << SKILLRT_ABI_MAJOR << "."
              << SKILLRT_ABI_MINOR << ")\n";
    return kExitOk;
  }

  // The config file fills what the command line left unset; lists are searched after the
  // command line's entries.
  HostConfig config;
  std::optional<std::filesystem::path> config_file;
  if (app.count("--config") > 0) {
    config_file = config_path;
  } else {
    config_file = default_config_path();
  }
  if (config_file) {
    auto loaded = load_host_config(*config_file);
    if (!loaded) {
      std::cerr << "skillrt: " << loaded.error().message << "\n";
      return kExitUsage;
    }
    config = std::move(*loaded);
  }
  if (app.count("--log-level") == 0 && config.log_level) {
    if (auto logging = setup_logging(*config.log_level); logging) g.log_level = *config.log_level;
  }
  RuntimeOptions ro;
  ro.plugin_paths = g.plugin_paths;
  ro.plugin_paths.insert(ro.plugin_paths.end(), config.plugin_paths.begin(),
                         config.plugin_paths.end());
  ro.default_plugins = !g.no_default_plugins && config.default_plugins.value_or(true);
  ro.skills_dirs = skills_dirs;
  ro.skills_dirs.insert(ro.skills_dirs.end(), config.skills_dirs.begin(), config.skills_dirs.end());
  ro.isolation = app.count("--isolation") > 0 ? isolation : config.isolation.value_or(isolation);
  ro.plugin_isolation = config.plugin_isolation;
  ro.plugin_settings = config.plugin_settings;
  ro.worker.memory_limit_mb = app.count("--worker-memory-mb") > 0
                                  ? worker_memory_mb
                                  : config.worker_memory_mb.value_or(worker_memory_mb);
  ro.worker.log_level = g.log_level;
  ro.executor.pool_size = app.count("--threads") > 0 ? g.threads : config.threads.value_or(0);
  if (config.default_deadline) ro.executor.default_timeout = *config.default_deadline;
  if (config.grace) ro.executor.grace = *config.grace;
  if (config.max_call_depth) ro.executor.max_depth = *config.max_call_depth;
  ro.executor.skill_timeouts.insert(config.skill_deadlines.begin(), config.skill_deadlines.end());
  if (*config_cmd) return cmd_config(g, config, ro);
  Runtime rt(ro);
  int code = kExitOk;
  if (*list) code = cmd_list(rt, g);
  if (*describe) code = cmd_describe(rt, g, skill_name);
  if (*schema_cmd) code = cmd_schema(rt, g, skill_name, schema_output);
  if (*plugins) code = cmd_plugins(rt, g);
  if (*run_cmd) code = cmd_run(rt, g, run_opts);
  if (*route) code = cmd_route(rt, g, text, top);
  if (*ask) code = cmd_ask(rt, g, text, ask_input, ask_quiet);
  if (*export_cmd) code = cmd_export(rt, g, export_target, export_scope);
  if (*serve) code = cmd_serve(rt, g, serve_opts);
  std::cout.flush();
  std::fflush(nullptr);
  // The runtime is never destroyed: production never unloads plugin libraries (Boost.DLL's
  // documented crash causes), and a skill that ignored its deadline may still be running.
  std::_Exit(code);
}

}  // namespace skillrt::cli
