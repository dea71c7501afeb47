// The table of skills: unique kebab-case names, descriptors and compiled schemas.
#pragma once

#include <skillrt/abi.h>

#include <boost/dll/shared_library.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/error.hpp"
#include "schema/compiled_schema.hpp"

namespace skillrt {

// One registered skill. Immutable once in the registry.
struct Skill {
  std::string name;
  std::string title;
  std::string description;
  std::string plugin;       // the plugin's name
  std::string plugin_file;  // the file it came from
  uint64_t flags = 0;       // SKILLRT_SKILL_*
  uint32_t default_timeout_ms = 0;
  skillrt_invoke_fn invoke = nullptr;
  void* state = nullptr;
  std::shared_ptr<const schema::CompiledSchema> input_schema;
  std::shared_ptr<const schema::CompiledSchema> output_schema;
  // Keeps the library mapped for as long as the skill exists; never released in production.
  std::shared_ptr<boost::dll::shared_library> library;
  // For a skill served by a worker process: keeps the worker's client (the invoke state) alive.
  std::shared_ptr<void> owner;
  bool isolated = false;  // runs in a worker process
};

// True for names the registry accepts: [a-z0-9-]{1,64}, not starting or ending with '-'.
bool is_valid_skill_name(std::string_view name);

// Built while plugins load, then frozen: the table never changes while calls run, so reads take
// no lock and need no cache.
//
// Threading: add() and freeze() are called by the one thread that assembles the host. After
// freeze() the registry is read-only and every const member may be called from any thread;
// threads started after freeze() see the whole table (thread creation orders them after it).
// Before freeze(), reads are for that same assembling thread only.
class Registry {
 public:
  // Adds a skill. A name taken by another plugin makes both unavailable (the outcome must not
  // depend on load order); the error names both files. Fails once frozen.
  Result<void> add(std::shared_ptr<const Skill> skill);
  // Ends loading: later add() calls fail.
  void freeze() { frozen_ = true; }
  bool frozen() const { return frozen_; }

  // nullptr when absent.
  std::shared_ptr<const Skill> find(std::string_view name) const;
  // All skills, sorted by name.
  std::vector<std::shared_ptr<const Skill>> all() const;
  // Names within edit distance, nearest first, for "did you mean".
  std::vector<std::string> suggest(std::string_view name, size_t max = 3) const;
  // "unknown skill 'x'; did you mean 'y'? Run `skillrt list` to see every skill."
  std::string not_found_message(std::string_view name) const;

 private:
  // Looked up by a name in a string_view without building a string: find() runs on every call.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
  };

  bool frozen_ = false;
  std::unordered_map<std::string, std::shared_ptr<const Skill>, NameHash, std::equal_to<>> skills_;
  std::map<std::string, std::string, std::less<>> conflicted_;  // name -> first file
};

}  // namespace skillrt
