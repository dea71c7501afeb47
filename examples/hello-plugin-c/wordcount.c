/* A skillrt plugin in plain C99. It reads one string field from the validated input with a
 * deliberately small scanner (the host guarantees the shape), and writes its result as JSON. */
#include <skillrt/abi.h>
#include <stdio.h>
#include <string.h>

#include "skillrt_embedded_schemas.h"

static const skillrt_host_api* g_api;

static const skillrt_embedded_schema* find_schema(const char* key) {
  size_t i;
  for (i = 0; i < skillrt_embedded_schema_count; ++i) {
    if (strcmp(skillrt_embedded_schemas[i].key, key) == 0) return &skillrt_embedded_schemas[i];
  }
  return NULL;
}

/* Counts words in the JSON string value that follows "text": the input schema allows only that
 * one property, so the first string after the key is the value. Escapes count as word bytes. */
static long count_words(skillrt_str input) {
  const char* p = input.ptr;
  const char* end = input.ptr + input.len;
  const char* key = NULL;
  long words = 0;
  int in_word = 0;
  for (; p + 6 <= end; ++p) {
    if (memcmp(p, "\"text\"", 6) == 0) {
      key = p + 6;
      break;
    }
  }
  if (key == NULL) return -1;
  p = key;
  while (p < end && *p != '"') ++p; /* skip ':' and spaces to the opening quote */
  for (++p; p < end && *p != '"'; ++p) {
    int space = (*p == ' ' || *p == '\t' || *p == '\r');
    if (*p == '\\' && p + 1 < end) {
      space = (p[1] == 'n' || p[1] == 't' || p[1] == 'r');
      ++p;
    }
    if (space) {
      in_word = 0;
    } else if (!in_word) {
      in_word = 1;
      ++words;
    }
  }
  return words;
}

static int32_t invoke(void* state, skillrt_call* call, skillrt_str input) {
  char buf[64];
  skillrt_str out;
  long words = count_words(input);
  (void)state;
  if (words < 0) {
    static const char msg[] = "input has no \"text\" field: pass {\"text\": \"...\"}";
    skillrt_str m = {msg, sizeof(msg) - 1};
    g_api->set_error(call, SKILLRT_INVALID_ARGUMENT, m);
    return SKILLRT_INVALID_ARGUMENT;
  }
  out.len = (size_t)snprintf(buf, sizeof(buf), "{\"words\":%ld}", words);
  out.ptr = buf;
  return g_api->write_result(call, out);
}

static int32_t load(skillrt_host* host, const skillrt_host_api* api) {
  static const char kName[] = "word-count";
  static const char kDescription[] = "Counts the words in a text (C plugin example).";
  const skillrt_embedded_schema* in = find_schema("word-count.input");
  const skillrt_embedded_schema* out = find_schema("word-count.output");
  skillrt_skill_def def;
  g_api = api;
  if (in == NULL || out == NULL) {
    static const char msg[] = "word-count schemas are not embedded: rebuild with SCHEMAS";
    skillrt_str m = {msg, sizeof(msg) - 1};
    api->set_load_error(host, m);
    return SKILLRT_FAILED_PRECONDITION;
  }
  memset(&def, 0, sizeof(def));
  def.struct_size = sizeof(def);
  def.name.ptr = kName;
  def.name.len = sizeof(kName) - 1;
  def.description.ptr = kDescription;
  def.description.len = sizeof(kDescription) - 1;
  def.input_schema.ptr = in->text;
  def.input_schema.len = in->len;
  def.output_schema.ptr = out->text;
  def.output_schema.len = out->len;
  def.flags = SKILLRT_SKILL_READ_ONLY | SKILLRT_SKILL_IDEMPOTENT;
  def.invoke = &invoke;
  return api->add_skill(host, &def);
}

SKILLRT_EXPORT const skillrt_plugin* skillrt_plugin_v1(void) {
  static const skillrt_plugin kPlugin = {sizeof(skillrt_plugin), SKILLRT_ABI_MAJOR,
                                         SKILLRT_ABI_MINOR,      {"wordcount", 9},
                                         {"0.1.0", 5},           &load,
                                         NULL};
  return &kPlugin;
}
