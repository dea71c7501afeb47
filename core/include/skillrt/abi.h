/*
 * skillrt plugin ABI, version 1.
 *
 * This header is the only contract between the skillrt host and a plugin. It is C99 so that a
 * plugin can be written in any language that can export a C function. Rules that hold for every
 * item below:
 *
 *  - Strings are UTF-8 `skillrt_str` views {ptr, len}; they are not NUL-terminated unless said.
 *  - No allocation crosses the boundary. A string handed to a callee is valid only until the
 *    callee returns, unless the item says otherwise; whoever needs it longer copies it.
 *  - No exception, longjmp or C++ standard library type crosses the boundary.
 *  - Structs carry `struct_size` and only ever grow at the end, so a reader checks the size
 *    before touching a field that a newer minor version added.
 *
 * Versioning: SKILLRT_ABI_MAJOR is part of the entry symbol's name and must match exactly. The
 * host refuses a plugin whose abi_minor is newer than its own. Any change to this file must bump
 * one of the two numbers (a test hashes this file to enforce it).
 */
#ifndef SKILLRT_ABI_H_
#define SKILLRT_ABI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SKILLRT_ABI_MAJOR 1
#define SKILLRT_ABI_MINOR 0

/* The entry symbol's name carries the major version. */
#define SKILLRT_ENTRY_SYMBOL "skillrt_plugin_v1"

#if defined(_WIN32)
#define SKILLRT_EXPORT __declspec(dllexport)
#else
#define SKILLRT_EXPORT __attribute__((visibility("default")))
#endif

/* A UTF-8 string view. Ownership and lifetime are stated wherever one is passed. */
typedef struct skillrt_str {
  const char* ptr;
  size_t len;
} skillrt_str;

/* Status codes: the numbers of google.rpc.Code, shared by the host's own errors. */
typedef enum skillrt_code {
  SKILLRT_OK = 0,
  SKILLRT_CANCELLED = 1,
  SKILLRT_UNKNOWN = 2,
  SKILLRT_INVALID_ARGUMENT = 3,
  SKILLRT_DEADLINE_EXCEEDED = 4,
  SKILLRT_NOT_FOUND = 5,
  SKILLRT_ALREADY_EXISTS = 6,
  SKILLRT_PERMISSION_DENIED = 7,
  SKILLRT_RESOURCE_EXHAUSTED = 8,
  SKILLRT_FAILED_PRECONDITION = 9,
  SKILLRT_ABORTED = 10,
  SKILLRT_OUT_OF_RANGE = 11,
  SKILLRT_UNIMPLEMENTED = 12,
  SKILLRT_INTERNAL = 13,
  SKILLRT_UNAVAILABLE = 14,
  SKILLRT_DATA_LOSS = 15,
  SKILLRT_UNAUTHENTICATED = 16
} skillrt_code;

/* Log levels, in the order spdlog uses. */
typedef enum skillrt_log_level {
  SKILLRT_LOG_TRACE = 0,
  SKILLRT_LOG_DEBUG = 1,
  SKILLRT_LOG_INFO = 2,
  SKILLRT_LOG_WARN = 3,
  SKILLRT_LOG_ERROR = 4
} skillrt_log_level;

/* Skill flags (skillrt_skill_def.flags). The hint flags become MCP tool annotations. */
#define SKILLRT_SKILL_READ_ONLY ((uint64_t)1 << 0)   /* does not modify its environment */
#define SKILLRT_SKILL_DESTRUCTIVE ((uint64_t)1 << 1) /* may delete or overwrite data */
#define SKILLRT_SKILL_IDEMPOTENT ((uint64_t)1 << 2)  /* repeating a call has no extra effect */
#define SKILLRT_SKILL_OPEN_WORLD ((uint64_t)1 << 3)  /* talks to systems outside the host */
#define SKILLRT_SKILL_SERIAL ((uint64_t)1 << 4)      /* the host never runs two calls at once */

/* Opaque handle for the host during load(). Valid from load() until the process exits. Its
 * functions may be called from any thread. */
typedef struct skillrt_host skillrt_host;

/* Opaque handle for one call. Valid only until the skill's invoke function returns; the
 * functions taking it may be called from any thread during that time. */
typedef struct skillrt_call skillrt_call;

/* Receives the outcome of call_skill() or route(). `code` is SKILLRT_OK with `payload` the result
 * JSON, or an error code with `payload` the error message. `payload` is owned by the host and
 * valid only during the callback. Called exactly once, on the calling thread, before call_skill()
 * or route() returns. */
typedef void (*skillrt_result_fn)(void* user, int32_t code, skillrt_str payload);

/* A skill's invoke function. `input` is JSON already validated against the input schema, owned
 * by the host and valid until return. The skill produces its result through write_result() and
 * returns SKILLRT_OK, or calls set_error() and returns the error code. May run on any host
 * thread, concurrently with other calls unless the skill is SKILLRT_SKILL_SERIAL. Must not
 * throw, longjmp or exit. */
typedef int32_t (*skillrt_invoke_fn)(void* state, skillrt_call* call, skillrt_str input);

/* What a plugin registers for one skill. Every string is copied by add_skill(), so the plugin
 * may free them afterwards. `state` is passed back to invoke unchanged and must stay valid until
 * the plugin's unload() returns. */
typedef struct skillrt_skill_def {
  uint32_t struct_size; /* sizeof(skillrt_skill_def) as the plugin was compiled */
  skillrt_str name;     /* kebab-case, [a-z0-9-]{1,64} */
  skillrt_str title;    /* short human title; may be empty */
  skillrt_str description;
  skillrt_str input_schema;  /* JSON Schema (draft-07) text */
  skillrt_str output_schema; /* JSON Schema (draft-07) text */
  uint64_t flags;            /* SKILLRT_SKILL_* */
  uint32_t default_timeout_ms; /* 0: the host's default */
  skillrt_invoke_fn invoke;
  void* state;
} skillrt_skill_def;

/* Services the host offers. The table is owned by the host, and valid until the process exits.
 * Every function is thread-safe. */
typedef struct skillrt_host_api {
  uint32_t struct_size;
  uint16_t abi_major;
  uint16_t abi_minor;

  /* Load time (only valid inside load()). */

  /* Registers a skill. Returns SKILLRT_OK, or an error code after which the host has recorded
   * why (bad name, duplicate, invalid schema); the plugin may go on registering others. */
  int32_t (*add_skill)(skillrt_host* host, const skillrt_skill_def* def);
  /* Explains why load() is about to fail. The message is copied. */
  void (*set_load_error)(skillrt_host* host, skillrt_str message);
  /* The plugin's settings from the host config file as a JSON object ("{}" when none). Owned by
   * the host, valid until the process exits. */
  skillrt_str (*plugin_config)(skillrt_host* host);

  /* Any time. */

  /* Writes a log line under the plugin's name. The message is copied. */
  void (*log)(skillrt_host* host, int32_t level, skillrt_str message);

  /* Call time (only valid with a live call handle). */

  /* Sets the call's result JSON; a later call replaces an earlier one. Copied. */
  int32_t (*write_result)(skillrt_call* call, skillrt_str json);
  /* Sets the call's error. The message is copied; it should name what failed and what to do. */
  void (*set_error)(skillrt_call* call, int32_t code, skillrt_str message);
  /* Reports progress: `done` of `total` (total <= 0: unknown), with an optional message. */
  void (*report_progress)(skillrt_call* call, double done, double total, skillrt_str message);
  /* Non-zero once the caller cancelled or the deadline passed: stop soon and return. */
  int32_t (*is_cancelled)(skillrt_call* call);
  /* Calls another skill through the host (validated like any call, with this call's deadline
   * and cancellation). The outcome goes to `on_result` before this returns; the return value is
   * the same code. */
  int32_t (*call_skill)(skillrt_call* call, skillrt_str skill, skillrt_str input,
                        skillrt_result_fn on_result, void* user);
  /* Routes free text to skills; the payload is a JSON array of {skill, score, matched}. */
  int32_t (*route)(skillrt_call* call, skillrt_str text, skillrt_result_fn on_result, void* user);
} skillrt_host_api;

/* The plugin descriptor, returned by the entry symbol. Static storage: the host reads it and
 * never frees it. */
typedef struct skillrt_plugin {
  uint32_t struct_size; /* sizeof(skillrt_plugin) as the plugin was compiled */
  uint16_t abi_major;   /* SKILLRT_ABI_MAJOR the plugin was compiled with */
  uint16_t abi_minor;   /* SKILLRT_ABI_MINOR the plugin was compiled with */
  skillrt_str name;     /* plugin name, kebab-case */
  skillrt_str version;  /* plugin version, free form (semver advised) */
  /* Registers the plugin's skills. Called once, on one thread, before any invoke. Returns
   * SKILLRT_OK, or an error code (optionally after set_load_error()); on error the host drops
   * every skill the plugin registered. `host` and `api` stay valid until the process exits. */
  int32_t (*load)(skillrt_host* host, const skillrt_host_api* api);
  /* Releases what load() acquired. Called at most once, after every call has returned; may be
   * NULL. Production hosts never call it (they never unload a library). */
  void (*unload)(void);
} skillrt_plugin;

/* The one exported symbol. Its name carries the major version. */
typedef const skillrt_plugin* (*skillrt_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* SKILLRT_ABI_H_ */
