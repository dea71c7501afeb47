// The MCP server as `skillrt serve` composes it, for the interop tests: loads plugins from the
// given folders (no installed plugins) and serves them over stdio or HTTP. It also takes the
// test-only --mcp-fixtures file that the conformance suite needs.
//
//   mcp_test_server [--plugin-path DIR]... [--skills-dir DIR] [--mcp-fixtures FILE]
//                   [--http [HOST:]PORT] [--token T] [--allow-origin O]...
#include <iostream>
#include <string>
#include <vector>

#include "common/logging.hpp"
#include "exec/executor.hpp"
#include "mcp/server.hpp"
#include "plugin/loader.hpp"
#include "registry/registry.hpp"
#include "transport/http_transport.hpp"
#include "transport/stdio_transport.hpp"

namespace {

int usage(const std::string& why) {
  std::cerr << "mcp_test_server: " << why << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> plugin_dirs;
  skillrt::mcp::ServerOptions server_options;
  skillrt::transport::HttpOptions http;
  bool use_http = false;
  std::string log_level = "warn";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return usage("option " + arg + " needs a value");
    const std::string value = argv[++i];
    if (arg == "--plugin-path") {
      plugin_dirs.push_back(value);
    } else if (arg == "--skills-dir") {
      server_options.skills_dir = value;
    } else if (arg == "--mcp-fixtures") {
      server_options.fixtures_file = value;
    } else if (arg == "--token") {
      http.token = value;
    } else if (arg == "--allow-origin") {
      http.allowed_origins.push_back(value);
    } else if (arg == "--log-level") {
      log_level = value;
    } else if (arg == "--http") {
      use_http = true;
      const size_t colon = value.rfind(':');
      if (colon != std::string::npos) http.host = value.substr(0, colon);
      http.port = static_cast<uint16_t>(std::stoi(value.substr(colon + 1)));
    } else {
      return usage("unknown option " + arg);
    }
  }
  if (!skillrt::setup_logging(log_level)) return usage("bad --log-level " + log_level);
  static skillrt::Registry registry;
  static skillrt::plugin::Loader loader(registry, skillrt::exec::host_api());
  for (const auto& dir : plugin_dirs) loader.load_directory(dir, false);
  for (const auto& error : loader.errors()) std::cerr << "mcp_test_server: " << error << "\n";
  static skillrt::exec::Executor executor(registry, {});
  static skillrt::mcp::Server server(executor, server_options);
  int code = 0;
  if (use_http) {
    http.on_listening = [&](uint16_t port) {
      std::cerr << "listening on http://" << http.host << ":" << port << "/mcp" << std::endl;
    };
    code = skillrt::transport::run_http(server, http);
  } else {
    code = skillrt::transport::run_stdio(server, {});
  }
  std::cerr.flush();
  // Like skillrt itself: plugin libraries are never unloaded.
  std::_Exit(code);
}
