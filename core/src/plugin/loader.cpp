#include "plugin/loader.hpp"

#include "common/json_text.hpp"
#include "common/path_list.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

// The opaque host handle a plugin gets in load(). Lives until the Loader is destroyed.
struct skillrt_host {
  skillrt::plugin::Loader* loader = nullptr;
  skillrt::plugin::PluginRecord* record = nullptr;
  std::shared_ptr<boost::dll::shared_library> library;
  std::string config_text = "{}";
  std::string plugin_name;
  bool loading = false;
  std::string load_error;
  std::vector<std::shared_ptr<skillrt::Skill>> pending;
  std::vector<std::string> rejected;  // error lines for skills add_skill refused
};

namespace skillrt::plugin {

namespace {

std::string view(skillrt_str s) {
  return s.ptr == nullptr ? std::string() : std::string(s.ptr, s.len);
}

std::string label(const PluginRecord& record) {
  std::string out = "plugin " + record.file.string();
  if (!record.name.empty()) out += " (" + record.name + ")";
  return out;
}

bool has_elf_magic(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in.gcount() == 4 && std::memcmp(magic, "\x7f" "ELF", 4) == 0;
}

// Parses and compiles one of a skill's schemas; the error names skill, which schema, and where.
// A builtin plugin's schemas are the files under schemas/ that the test suite compiles at build
// time: for them the compile waits for the first call, which keeps start-up short.
Result<std::shared_ptr<const schema::CompiledSchema>> compile_schema(const std::string& skill,
                                                                     const char* which,
                                                                     skillrt_str text,
                                                                     bool deferred) {
  if (text.ptr == nullptr || text.len == 0) {
    return fail(Code::kInvalidArgument, "skill '" + skill + "' has no " + which +
                                            " schema: embed schemas/skills/" + skill + "." +
                                            which + ".json with skillrt_add_plugin(... SCHEMAS)");
  }
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(text.ptr, text.ptr + text.len);
  } catch (const nlohmann::json::parse_error& e) {
    return fail(Code::kInvalidArgument,
                "skill '" + skill + "' " + which + " schema is not valid JSON: " +
                    describe_parse_error(std::string_view(text.ptr, text.len), e) +
                    "; fix the schema file and rebuild the plugin");
  }
  if (deferred) return schema::CompiledSchema::defer(std::move(parsed));
  auto compiled = schema::CompiledSchema::compile(parsed);
  if (!compiled) {
    return fail(Code::kInvalidArgument, "skill '" + skill + "' " + which +
                                            " schema is not a valid draft-07 schema: " +
                                            compiled.error().message);
  }
  return *compiled;
}

}  // namespace

int32_t host_add_skill(skillrt_host* host, const skillrt_skill_def* def_in) {
  if (host == nullptr || def_in == nullptr) return SKILLRT_INVALID_ARGUMENT;
  if (!host->loading) {
    host->rejected.push_back(label(*host->record) + ": add_skill() called outside load()");
    return SKILLRT_FAILED_PRECONDITION;
  }
  // A plugin built against an older minor passes a shorter struct: missing fields stay zero.
  skillrt_skill_def def{};
  std::memcpy(&def, def_in, std::min<size_t>(def_in->struct_size, sizeof(def)));
  const std::string name = view(def.name);
  auto reject = [&](const std::string& why) {
    host->rejected.push_back(label(*host->record) + ": " + why);
    return SKILLRT_INVALID_ARGUMENT;
  };
  if (!is_valid_skill_name(name)) {
    return reject("skill name '" + name +
                  "' is not kebab-case [a-z0-9-]{1,64}: rename it, e.g. 'my-skill'");
  }
  if (def.invoke == nullptr) return reject("skill '" + name + "' has no invoke function");
  const bool deferred = host->record->builtin;
  auto input = compile_schema(name, "input", def.input_schema, deferred);
  if (!input) return reject(input.error().message);
  auto output = compile_schema(name, "output", def.output_schema, deferred);
  if (!output) return reject(output.error().message);
  for (const auto& p : host->pending) {
    if (p->name == name) return reject("skill '" + name + "' is registered twice by this plugin");
  }
  auto skill = std::make_shared<Skill>();
  skill->name = name;
  skill->title = view(def.title);
  skill->description = view(def.description);
  skill->plugin = host->plugin_name;
  skill->plugin_file = host->record->file.string();
  skill->flags = def.flags;
  skill->default_timeout_ms = def.default_timeout_ms;
  skill->invoke = def.invoke;
  skill->state = def.state;
  skill->input_schema = *input;
  skill->output_schema = *output;
  skill->library = host->library;
  host->pending.push_back(std::move(skill));
  return SKILLRT_OK;
}

void host_set_load_error(skillrt_host* host, skillrt_str message) {
  if (host == nullptr) return;
  host->load_error = view(message);
}

skillrt_str host_plugin_config(skillrt_host* host) {
  if (host == nullptr) return skillrt_str{"{}", 2};
  return skillrt_str{host->config_text.data(), host->config_text.size()};
}

void host_log(skillrt_host* host, int32_t level, skillrt_str message) {
  const std::string who = host == nullptr ? std::string("plugin") : host->plugin_name;
  const auto lvl = static_cast<spdlog::level::level_enum>(std::clamp(level, 0, 4));
  spdlog::log(lvl, "[{}] {}", who, std::string_view(message.ptr == nullptr ? "" : message.ptr,
                                                    message.ptr == nullptr ? 0 : message.len));
}

Loader::Loader(Registry& registry, const skillrt_host_api* api, LoaderOptions options)
    : registry_(registry), api_(api), options_(std::move(options)) {}

Loader::~Loader() = default;

std::vector<std::string> Loader::errors() const {
  std::vector<std::string> out;
  for (const auto& r : records_) out.insert(out.end(), r.errors.begin(), r.errors.end());
  return out;
}

void Loader::load_directory(const std::filesystem::path& dir, bool builtin) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".so" && entry.is_regular_file(ec)) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<PluginRecord*> batch;
  for (const auto& f : files) {
    if (auto* record = add_record(f, builtin)) batch.push_back(record);
  }

  // Start-up time is mostly dlopen and schema checks, and only the checks run in parallel with
  // another plugin's dlopen: a few threads are enough. Workers are started from this thread
  // alone, because a worker's parent-death signal follows the thread that forked it.
  std::vector<std::unique_ptr<skillrt_host>> hosts(batch.size());
  std::vector<std::size_t> local;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (!batch[i]->isolated) local.push_back(i);
  }
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t k = next++; k < local.size(); k = next++) {
      hosts[local[k]] = open(*batch[local[k]]);
    }
  };
  const std::size_t threads =
      std::min<std::size_t>({local.size(), std::max(1U, std::thread::hardware_concurrency()), 4});
  std::vector<std::thread> helpers;
  for (std::size_t t = 1; t < threads; ++t) helpers.emplace_back(work);
  work();
  for (auto& h : helpers) h.join();

  // Registration stays in file order, so which plugin wins a contested name never varies.
  for (std::size_t i = 0; i < batch.size(); ++i) finish(*batch[i], std::move(hosts[i]));
}

void Loader::load_file(const std::filesystem::path& file, bool builtin) {
  PluginRecord* record = add_record(file, builtin);
  if (record == nullptr) return;
  finish(*record, record->isolated ? nullptr : open(*record));
}

PluginRecord* Loader::add_record(const std::filesystem::path& file, bool builtin) {
  std::error_code ec;
  const auto canonical = std::filesystem::weakly_canonical(file, ec);
  const auto& path = ec ? file : canonical;
  // The same file reached through two search-path entries is one plugin, not a conflict.
  for (const auto& r : records_) {
    if (r.file == path) return nullptr;
  }
  PluginRecord& record = records_.emplace_back();
  record.file = path;
  record.builtin = builtin;
  record.isolated = options_.isolate && options_.load_isolated && options_.isolate(path, builtin);
  return &record;
}

void Loader::finish(PluginRecord& record, std::unique_ptr<skillrt_host> host) {
  if (record.isolated) {
    auto skills = options_.load_isolated(record);
    commit_skills(record, skills);
  } else if (host != nullptr) {
    std::vector<std::shared_ptr<Skill>> pending = std::move(host->pending);
    hosts_.push_back(std::move(host));
    if (record.loaded) commit_skills(record, pending);
  }
  if (options_.log_errors) {
    for (const auto& e : record.errors) spdlog::error("{}", e);
  }
}

std::unique_ptr<skillrt_host> Loader::open(PluginRecord& record) {
  auto error = [&](const std::string& what) { record.errors.push_back(label(record) + ": " + what); };
  if (!has_elf_magic(record.file)) {
    error("not a shared library (no ELF header): remove it from the plugin path");
    return nullptr;
  }
  auto library = std::make_shared<boost::dll::shared_library>();
  try {
    library->load(boost::dll::fs::path(record.file),
                  boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    error(std::string("cannot be loaded: ") + e.what() +
          ": check that its dependencies are installed (ldd)");
    return nullptr;
  }
  if (!library->has(SKILLRT_ENTRY_SYMBOL)) {
    error("no entry symbol '" SKILLRT_ENTRY_SYMBOL
          "': build it with SKILLRT_PLUGIN() from skillrt/sdk.hpp or export the function from C");
    return nullptr;
  }
  auto entry = library->get<const skillrt_plugin*()>(SKILLRT_ENTRY_SYMBOL);
  const skillrt_plugin* desc = entry();
  if (desc == nullptr) {
    error("entry symbol '" SKILLRT_ENTRY_SYMBOL "' returned NULL: it must return its descriptor");
    return nullptr;
  }
  record.abi_major = desc->abi_major;
  record.abi_minor = desc->abi_minor;
  if (desc->abi_major != SKILLRT_ABI_MAJOR) {
    error("ABI major version " + std::to_string(desc->abi_major) + " does not match the host's " +
          std::to_string(SKILLRT_ABI_MAJOR) + ": rebuild the plugin against skillrt SDK " +
          std::to_string(SKILLRT_ABI_MAJOR) + ".x");
    return nullptr;
  }
  if (desc->abi_minor > SKILLRT_ABI_MINOR) {
    error("ABI version " + std::to_string(desc->abi_major) + "." +
          std::to_string(desc->abi_minor) + " is newer than the host's " +
          std::to_string(SKILLRT_ABI_MAJOR) + "." + std::to_string(SKILLRT_ABI_MINOR) +
          ": upgrade skillrt or rebuild the plugin against the host's SDK");
    return nullptr;
  }
  if (desc->struct_size < offsetof(skillrt_plugin, unload) + sizeof(desc->unload)) {
    error("descriptor is too small (struct_size " + std::to_string(desc->struct_size) +
          "): rebuild the plugin against the skillrt SDK");
    return nullptr;
  }
  record.name = view(desc->name);
  record.version = view(desc->version);
  if (record.name.empty() || desc->load == nullptr) {
    error("descriptor has no name or no load function: fill both in skillrt_plugin");
    return nullptr;
  }

  auto host = std::make_unique<skillrt_host>();
  host->loader = this;
  host->record = &record;
  host->library = library;
  host->plugin_name = record.name;
  if (auto it = options_.plugin_config.find(record.name); it != options_.plugin_config.end()) {
    host->config_text = it->second.dump();
  } else if (auto any = options_.plugin_config.find("*"); any != options_.plugin_config.end()) {
    host->config_text = any->second.dump();
  }
  host->loading = true;
  const int32_t rc = desc->load(host.get(), api_);
  host->loading = false;
  if (rc != SKILLRT_OK) {
    std::string why = "load() failed with " + code_name(code_from_int(rc));
    why += host->load_error.empty() ? " and gave no reason: see the plugin's own log lines above"
                                    : ": " + host->load_error;
    error(why);
    host->pending.clear();
    return host;  // kept: the library stays mapped, as its code may still be referenced
  }
  record.loaded = true;
  for (auto& line : host->rejected) record.errors.push_back(std::move(line));
  return host;
}

void Loader::commit_skills(PluginRecord& record, std::vector<std::shared_ptr<Skill>>& skills) {
  auto error = [&](const std::string& what) { record.errors.push_back(label(record) + ": " + what); };
  for (auto& skill : skills) {
    const std::string name = skill->name;
    auto added = registry_.add(std::move(skill));
    if (added) {
      record.skills.push_back(name);
      continue;
    }
    error(added.error().message);
    // The earlier plugin lost the name as well; keep its record truthful.
    for (auto& other : records_) {
      auto it = std::find(other.skills.begin(), other.skills.end(), name);
      if (&other != &record && it != other.skills.end()) other.skills.erase(it);
    }
  }
  skills.clear();
}

SearchPath default_search_path(const std::vector<std::string>& extra) {
  SearchPath out;
  std::error_code ec;
  const auto exe = boost::dll::program_location(ec);
  if (!ec) out.builtin_dir = std::filesystem::path(exe.parent_path().string()) / ".." / "lib" /
                             "skillrt" / "plugins";
  if (const char* env = std::getenv("SKILLRT_PLUGIN_PATH")) append_path_list(env, out.extra_dirs);
  for (const auto& e : extra) append_path_list(e, out.extra_dirs);
  if (!out.builtin_dir.empty()) {
    out.builtin_dir = std::filesystem::weakly_canonical(out.builtin_dir, ec);
  }
  return out;
}

}  // namespace skillrt::plugin
