#include "optoolkit/op_request.hpp"

#include "optoolkit/sources.hpp"

namespace skillrt::ops {

namespace {

ResolvedOp from_entry(const OpEntry& entry) {
  ResolvedOp op;
  op.schema = *entry.parsed.schema;
  op.text = entry.schema_text;
  op.file = entry.where.file;
  op.line = entry.where.line;
  op.section = entry.section;
  return op;
}

}  // namespace

std::vector<ResolvedOp> resolve_ops(const Json& input, bool with_variants) {
  std::vector<ResolvedOp> out;
  if (input.contains("schema")) {
    const std::string text = input.at("schema").get<std::string>();
    SchemaParseResult parsed = parse_schema(text);
    if (!parsed.ok()) {
      throw invalid_argument("field 'schema' does not parse as a function schema: " +
                             parsed.error.to_string() + "; fix the text or pass 'op' + 'source'");
    }
    ResolvedOp op;
    op.schema = *parsed.schema;
    op.text = text;
    out.push_back(std::move(op));
    return out;
  }
  if (!input.contains("op") || !input.contains("source")) {
    throw invalid_argument("give 'schema' (the full schema string) or both 'op' and 'source'");
  }
  const std::string name = input.at("op").get<std::string>();
  OpSource source;
  try {
    source = load_source_file(resolve_source_path(input.at("source").get<std::string>()));
  } catch (const std::exception& e) {
    throw invalid_argument(std::string("field 'source': ") + e.what());
  }
  auto hits = source.find(name);
  if (hits.empty()) {
    std::string near;
    for (const auto& n : source.nearest(name, 3)) near += (near.empty() ? "" : ", ") + n;
    throw invalid_argument("op '" + name + "' is not in " + source.file + " (nearest: " + near +
                           "); check field 'op'");
  }
  if (!hits.front()->parsed.ok()) {
    throw invalid_argument("the schema of '" + name + "' at " + source.file + ":" +
                           std::to_string(hits.front()->where.line) +
                           " does not parse: " + hits.front()->parsed.error.to_string());
  }
  out.push_back(from_entry(*hits.front()));
  if (!with_variants) return out;
  const FunctionSchema primary = out.front().schema;  // a copy: out grows below
  for (const OpEntry& entry : source.entries) {
    if (!entry.parsed.ok() || &entry == hits.front()) continue;
    const FunctionSchema& s = *entry.parsed.schema;
    if (s.name.base != primary.name.base || s.name.dunder || s.name.functional_overload) continue;
    if (s.kind != SchemaKind::kInplace && s.kind != SchemaKind::kOut) continue;
    // Siblings with the same non-out arguments as the primary: add.out belongs to add.Tensor,
    // not to add.Scalar.
    std::vector<std::string> a, b;
    for (const auto& arg : primary.arguments)
      if (!arg.out) a.push_back(arg.name + ":" + print_type(arg.type));
    for (const auto& arg : s.arguments)
      if (!arg.out) b.push_back(arg.name + ":" + print_type(arg.type));
    if (a != b) continue;
    bool dup = false;
    for (const auto& o : out) dup = dup || o.schema.kind == s.kind;
    if (!dup) out.push_back(from_entry(entry));
  }
  return out;
}

}  // namespace skillrt::ops
