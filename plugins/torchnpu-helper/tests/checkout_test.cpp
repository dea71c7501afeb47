// A checkout is indexed once and then only what changed is re-read.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "helper.hpp"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(SKILLRT_TORCHNPU_HELPER_CACHE).parent_path() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

json ask(const fs::path& root, const fs::path& cache, const std::string& question) {
  return skillrt::torchnpu_helper::run_helper(json{{"question", question},
                                                   {"checkouts", {root.string()}},
                                                   {"bundled", false},
                                                   {"cache_dir", cache.string()}},
                                              json::object());
}

}  // namespace

TEST_CASE("a checkout is re-indexed incrementally after a file changes", "[checkout]") {
  const fs::path root = fresh_dir("checkout-incremental/torch_npu_clone");
  const fs::path cache = fresh_dir("checkout-incremental-cache");
  write(root / "torch_npu" / "__init__.py", "import os\n");
  write(root / "torch_npu" / "npu" / "queue.py",
        "import os\n\ndef level():\n    return os.environ.get(\"ZETA_QUEUE_LEVEL\", \"1\")\n");
  write(root / "docs" / "zeta.md", "# ZETA_QUEUE_LEVEL\n\nSets the zeta queue level; default 1.\n");
  write(root / "op_impl.cpp",
        "void f(int n) {\n  TORCH_CHECK(n > 0, \"zeta count must be positive\");\n}\n");

  const json first = ask(root, cache, "What is the default of ZETA_QUEUE_LEVEL?");
  REQUIRE(first["status"] == "answered");
  const json& source = first["index"]["sources"][0];
  CHECK(source["repo"] == "Ascend/pytorch");
  CHECK(source["added"] == 4);
  bool env_passage = false;
  for (const json& p : first["passages"]) env_passage = env_passage || p["kind"] == "env";
  CHECK(env_passage);

  const json again = ask(root, cache, "What is the default of ZETA_QUEUE_LEVEL?");
  CHECK(again["index"]["sources"][0]["unchanged"] == 4);
  CHECK(again["index"]["sources"][0]["added"] == 0);

  // Rewrite one file (new mtime, new bytes) and drop another.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  write(root / "docs" / "zeta.md", "# ZETA_QUEUE_LEVEL\n\nSets the zeta queue level; default 7.\n");
  fs::remove(root / "op_impl.cpp");
  const json after = ask(root, cache, "What is the default of ZETA_QUEUE_LEVEL?");
  const json& stats = after["index"]["sources"][0];
  CHECK(stats["changed"] == 1);
  CHECK(stats["removed"] == 1);
  CHECK(stats["unchanged"] == 2);
  bool seven = false;
  for (const json& p : after["passages"]) {
    seven = seven || p["quote"].get<std::string>().find("default 7") != std::string::npos;
  }
  CHECK(seven);
  const json gone = ask(root, cache, "zeta count must be positive TORCH_CHECK");
  for (const json& p : gone["passages"]) CHECK(p["path"] != "op_impl.cpp");
}
