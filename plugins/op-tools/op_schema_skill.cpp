#include "op_schema_skill.hpp"

#include <string>

#include "detail/source_cache.hpp"
#include "optoolkit/diff.hpp"
#include "optoolkit/schema.hpp"
#include "optoolkit/sources.hpp"

namespace skillrt::op_tools {
namespace {

using ops::FunctionSchema;
using ops::OpEntry;
using ops::OpSource;

Json or_null(const std::optional<std::string>& s) { return s ? Json(*s) : Json(nullptr); }

Json location(const ops::SourceLocation& where) {
  return Json{{"file", where.file}, {"line", where.line}};
}

Json describe(const FunctionSchema& s, Json source) {
  Json args = Json::array();
  for (const ops::Argument& a : s.arguments) {
    args.push_back(Json{
        {"name", a.name},
        {"type", ops::print_type(a.type)},
        {"default", or_null(a.default_value)},
        {"kwarg_only", a.kwarg_only},
        {"out", a.out},
        {"annotation", a.annotation ? Json(ops::print_annotation(*a.annotation)) : Json(nullptr)},
        {"is_write", a.is_write()}});
  }
  Json rets = Json::array();
  for (const ops::Return& r : s.returns) {
    rets.push_back(Json{
        {"name", or_null(r.name)},
        {"type", ops::print_type(r.type)},
        {"annotation", r.annotation ? Json(ops::print_annotation(*r.annotation)) : Json(nullptr)}});
  }
  return Json{{"name", s.name.full_base()},
              {"overload", s.name.overload.empty() ? Json(nullptr) : Json(s.name.overload)},
              {"kind", std::string(ops::to_string(s.kind))},
              {"arguments", std::move(args)},
              {"returns", std::move(rets)},
              {"roundtrip", ops::print_schema(s)},
              {"source", std::move(source)}};
}

std::optional<ops::Grammar> requested_grammar(const Json& input) {
  if (!input.contains("grammar")) return std::nullopt;
  const std::string g = input.at("grammar").get<std::string>();
  if (g == "permissive") return ops::Grammar::permissive();
  if (g == "upstream") return ops::Grammar::upstream();
  if (g == "torchnpugen") return ops::Grammar::torchnpugen();
  throw invalid_argument("grammar '" + g + "' is unknown; use permissive, upstream or torchnpugen");
}

std::shared_ptr<const OpSource> load(const Json& input, const char* field) {
  if (!input.contains(field)) return detail::embedded_source();
  const std::string given = input.at(field).get<std::string>();
  try {
    return detail::file_source(ops::resolve_source_path(given));
  } catch (const ops::SourceError& e) {
    throw invalid_argument(std::string(field) + ": " + e.what());
  }
}

// The parsed schema of an entry, under the requested grammar when one is given.
ops::SchemaParseResult parse_entry(const OpEntry& e, const std::optional<ops::Grammar>& grammar) {
  if (!grammar) return e.parsed;
  return ops::parse_schema(e.schema_text, *grammar);
}

std::string not_found_message(const OpSource& src, const std::string& op) {
  std::string msg = "op '" + op + "' not found in " + src.file + " (" +
                    std::to_string(src.entries.size()) + " entries)";
  const auto near = src.nearest(op);
  if (!near.empty()) {
    msg += "; nearest names: ";
    for (size_t i = 0; i < near.size(); ++i) msg += (i ? ", " : "") + near[i];
  }
  return msg + ". Names are written 'base.overload', e.g. 'add.Tensor'";
}

Json run_schema(const Json& input) {
  const std::string text = input.at("schema").get<std::string>();
  const ops::SchemaParseResult r =
      ops::parse_schema(text, requested_grammar(input).value_or(ops::Grammar::permissive()));
  if (!r.ok()) throw invalid_argument(r.error.to_string() + " (in schema '" + text + "')");
  return describe(*r.schema, nullptr);
}

Json run_op(const Json& input) {
  const auto src = load(input, "source");
  const std::string op = input.at("op").get<std::string>();
  const auto found = src->find(op);
  if (found.empty()) throw invalid_argument(not_found_message(*src, op));
  const OpEntry& e = *found.front();
  const ops::SchemaParseResult r = parse_entry(e, requested_grammar(input));
  if (!r.ok()) {
    throw invalid_argument("op '" + op + "' at " + e.where.file + ":" +
                           std::to_string(e.where.line) +
                           " does not parse: " + r.error.to_string());
  }
  return describe(*r.schema, location(e.where));
}

Json run_batch(const Json& input) {
  const auto src = load(input, "source");
  const auto grammar = requested_grammar(input);
  Json out_ops = Json::array();
  Json not_found = Json::array();
  Json errors = Json::array();
  auto add = [&](const OpEntry& e) {
    const ops::SchemaParseResult r = parse_entry(e, grammar);
    if (r.ok()) {
      out_ops.push_back(describe(*r.schema, location(e.where)));
    } else {
      errors.push_back(Json{{"op", e.op_name()},
                            {"schema", e.schema_text},
                            {"source", location(e.where)},
                            {"error", r.error.to_string()}});
    }
  };
  const Json& ops_field = input.at("ops");
  if (ops_field.is_string()) {
    if (ops_field.get<std::string>() != "all") {
      throw invalid_argument("ops: expected a list of op names or the string \"all\"");
    }
    for (const OpEntry& e : src->entries) add(e);
  } else {
    for (const Json& name : ops_field) {
      const std::string op = name.get<std::string>();
      const auto found = src->find(op);
      if (found.empty()) {
        not_found.push_back(Json{{"op", op}, {"nearest", src->nearest(op)}});
        continue;
      }
      for (const OpEntry* e : found) add(*e);
    }
  }
  return Json{{"source", Json{{"file", src->file},
                              {"format", std::string(ops::to_string(src->format))},
                              {"entries", src->entries.size()}}},
              {"ops", std::move(out_ops)},
              {"not_found", std::move(not_found)},
              {"errors", std::move(errors)}};
}

Json op_ref(const ops::OpRef& r) {
  return Json{{"op", r.op},
              {"section", r.section.empty() ? Json(nullptr) : Json(r.section)},
              {"schema", r.schema},
              {"source", location(r.where)}};
}

Json run_diff(const Json& input) {
  const Json& spec = input.at("diff");
  const auto old_src = load(spec, "old");
  const auto new_src = load(spec, "new");
  if (old_src->format != new_src->format) {
    throw invalid_argument("diff: 'old' is " + std::string(ops::to_string(old_src->format)) +
                           " but 'new' is " + std::string(ops::to_string(new_src->format)) +
                           "; compare two versions of the same file");
  }
  const ops::SourceDiff d = ops::diff_sources(*old_src, *new_src);
  Json added = Json::array();
  for (const auto& r : d.added) added.push_back(op_ref(r));
  Json removed = Json::array();
  for (const auto& r : d.removed) removed.push_back(op_ref(r));
  Json changed = Json::array();
  for (const ops::ChangedOp& c : d.changed) {
    Json changes = Json::array();
    for (const ops::OpChange& ch : c.changes) {
      changes.push_back(Json{{"what", ch.what},
                             {"subject", ch.subject},
                             {"old", or_null(ch.old_value)},
                             {"new", or_null(ch.new_value)}});
    }
    changed.push_back(Json{{"op", c.new_op.op},
                           {"old", op_ref(c.old_op)},
                           {"new", op_ref(c.new_op)},
                           {"changes", std::move(changes)}});
  }
  auto summary = [](const OpSource& s) {
    return Json{{"file", s.file},
                {"format", std::string(ops::to_string(s.format))},
                {"entries", s.entries.size()}};
  };
  return Json{{"old", summary(*old_src)},      {"new", summary(*new_src)},
              {"added", std::move(added)},     {"removed", std::move(removed)},
              {"changed", std::move(changed)}, {"unchanged", d.unchanged}};
}

}  // namespace

Json run_op_schema(const Json& input) {
  if (!input.is_object()) throw invalid_argument("input must be a JSON object");
  int modes = 0;
  for (const char* k : {"schema", "op", "ops", "diff"}) modes += input.contains(k) ? 1 : 0;
  if (modes != 1) {
    throw invalid_argument(
        "give exactly one of 'schema' (parse a schema), 'op' (look one up), "
        "'ops' (a list or \"all\") or 'diff' ({\"old\": path, \"new\": path})");
  }
  try {
    if (input.contains("schema")) return run_schema(input);
    if (input.contains("op")) return run_op(input);
    if (input.contains("ops")) return run_batch(input);
    return run_diff(input);
  } catch (const ops::SourceError& e) {
    throw invalid_argument(e.what());
  }
}

}  // namespace skillrt::op_tools
