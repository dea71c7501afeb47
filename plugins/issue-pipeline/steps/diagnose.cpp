// Step diagnose: a blocking rerun, the local root-cause rules, the skills worth consulting for this
// failure, candidate files and the baseline of the related operator tests.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "detail/case_runner.hpp"
#include "detail/text.hpp"

namespace skillrt::issue_pipeline::detail {

namespace fs = std::filesystem;

namespace {

Json rules_json(const std::vector<RuleHit>& hits, const std::string& source) {
  Json matched = Json::array();
  for (const auto& h : hits) {
    Json ev = Json::array();
    for (const auto& l : h.evidence) ev.push_back(to_json(l));
    matched.push_back(Json{{"rule", h.rule},
                           {"class", h.cls},
                           {"title", h.title},
                           {"evidence", ev},
                           {"source", source}});
  }
  return matched;
}

// The aten operator the first rule that captured one names ("aten::add.Tensor"), or empty.
std::string named_operator(const std::vector<RuleHit>& hits) {
  for (const auto& h : hits) {
    if (!h.op.empty()) return h.op;
  }
  return "";
}

// "aten::add.Tensor" -> "add": the name files and tests use.
std::string operator_base(const std::string& op) {
  std::string base = op;
  if (base.rfind("aten::", 0) == 0) base = base.substr(6);
  return base.substr(0, base.find('.'));
}

// Does the output show NPU, ACL or graph-mode markers anywhere in its first 200,000 bytes?
bool has_npu_markers(const std::string& text) {
  static const std::regex kNpuMarkers(
      R"(ERR\d{5}|\bE[ZEHIL]\d{4}\b|aclnn|\bacl\w*|\bNPU\b|\bnpu\b|HCCL|torch\._dynamo|torch\._inductor|PrivateUse1)");
  std::string scan = text.substr(0, std::min<size_t>(text.size(), 200000));
  std::istringstream lines(scan);
  std::string l;
  while (std::getline(lines, l)) {
    if (l.size() < 2000 && std::regex_search(l, kNpuMarkers)) return true;
  }
  return false;
}

// The root-cause class a consulted skill's answer implies, with why; both left empty when it
// implies none.
void class_from_callee(const Json& c, std::string* cls, std::string* why) {
  if (c["status"] != "ok") return;
  const Json& out = c["output"];
  if (c["skill"] == "npu-graph-diagnose") {
    const std::string conc = out.value("conclusion", "undetermined");
    static const std::map<std::string, std::string> kMap = {{"env-config", "environment-build"},
                                                            {"operator", "behaviour-mismatch"},
                                                            {"framework-bug", "missing-dispatch"}};
    auto it = kMap.find(conc);
    if (it != kMap.end()) {
      *cls = it->second;
      *why = "npu-graph-diagnose concluded " + conc +
             (out["rule"].is_object() ? " (rule " + out["rule"].value("id", "") + ")" : "");
    }
  } else if (c["skill"] == "op-test" && out.contains("failures") && !out["failures"].empty()) {
    const std::string conc = out["failures"][0].value("class", "");
    if (conc == "environment") *cls = "environment-build";
    if (conc == "adaptation-bug") *cls = "behaviour-mismatch";
    if (!cls->empty()) {
      *why = "op-test triage classed the failure " + conc + " (rule " +
             out["failures"][0].value("rule", "") + ")";
    }
  }
}

// Weighs what the consulted skills said against the local rules' class: a callee decides only
// when the rules could not. Marks each callee's agreement and bounds the copies of their outputs.
void weigh_consulted(Json& consulted, std::string* conclusion, std::string* decided_by,
                     Json* notes) {
  Json unavailable = Json::array();
  for (auto& c : consulted) {
    if (c["status"] == "not registered" || c["status"] == "failed") {
      unavailable.push_back(c["skill"].get<std::string>() + ": " + c.value("message", ""));
    }
    std::string cls;
    std::string why;
    class_from_callee(c, &cls, &why);
    if (!cls.empty()) {
      c["suggests"] = cls;
      c["agreement"] =
          *conclusion == "undetermined" ? "decides" : (cls == *conclusion ? "agrees" : "differs");
      if (*conclusion == "undetermined") {
        *conclusion = cls;
        *decided_by = why;
      }
    } else if (c["status"] == "ok") {
      c["agreement"] = "no class";
    }
    // Full callee outputs can be large; state.json keeps a bounded copy.
    if (c.contains("output") && c["output"].dump().size() > 20000) {
      c["output"] = Json{{"truncated", true}, {"text", c["output"].dump().substr(0, 20000)}};
    }
  }
  if (!unavailable.empty()) {
    notes->push_back(
        "could not consult: " + join(unavailable.get<std::vector<std::string>>(), "; ") +
        " (the conclusion rests on the local rules and the skills that answered)");
  }
}

}  // namespace

void CaseRunner::step_diagnose() {
  const Json& repro = st("reproduce")["result"];
  if (repro["verdict"] == "not_reproduced") {
    failed("diagnose", SKILLRT_FAILED_PRECONDITION,
           "reproduce found no failure (" + repro["reason"].get<std::string>() +
               "): nothing to diagnose. Compare the environment with the CI job, or reset "
               "reproduce and run it again");
  }
  std::string text_source;
  Json notes = Json::array();
  const std::string text = diagnosis_text(repro, &text_source, &notes);
  const auto hits = match_rules(text, worktrees(), state_["test"]["file"]);
  const Json matched = rules_json(hits, text_source);
  const std::string op = named_operator(hits);
  const std::string op_base = operator_base(op);
  const std::string first_class = hits.empty() ? "undetermined" : hits.front().cls;
  Json consulted = consult_skills(text, first_class, op_base);
  std::string conclusion = first_class;
  std::string decided_by =
      hits.empty() ? "" : "rule " + hits.front().rule + " (" + hits.front().title + ")";
  weigh_consulted(consulted, &conclusion, &decided_by, &notes);
  Json candidates = frame_candidates(text);
  const Json related_files = operator_files(op_base, &candidates);
  const Json related = related_baselines(related_files);
  if (conclusion == "undetermined") {
    notes.push_back("no rule matched and no consulted skill gave a class: read " + text_source +
                    " and set the fix by hand");
  }
  finish("diagnose", Json{{"class", conclusion},
                          {"label", class_label(conclusion)},
                          {"decided_by", decided_by},
                          {"rules", matched},
                          {"operator", op.empty() ? Json(nullptr) : Json(op)},
                          {"candidates", candidates},
                          {"consulted", consulted},
                          {"related_tests", related},
                          {"diagnosed_output", text_source},
                          {"notes", notes}});
}

// Asynchronous NPU errors surface at a later call; a blocking rerun pins them to the operator that
// failed (shared/domain/errors-and-diagnosis.md 6). When the rerun passes, the reproduce output is
// diagnosed instead.
std::string CaseRunner::diagnosis_text(const Json& repro, std::string* source, Json* notes) {
  const auto argv = test_argv(false);
  const CmdResult r = command("diagnose", "rerun with ASCEND_LAUNCH_BLOCKING=1", argv,
                              worktree("pytorch"), test_env(true), test_timeout());
  check_test_run("diagnose", r, "the blocking rerun");
  if (!target_passed(r)) {
    *source = r.output_file;
    return r.output;
  }
  *source = repro["run"]["output_file"];
  notes->push_back(
      "the blocking rerun passed: the failure is intermittent; diagnosing the "
      "reproduce output instead");
  return read_file(repro["run"]["output_file"]);
}

Json CaseRunner::consult(const std::string& skill, const Json& input) {
  Json rec{{"skill", skill}, {"input_keys", Json::array()}};
  for (auto it = input.begin(); it != input.end(); ++it) rec["input_keys"].push_back(it.key());
  try {
    const Json out = ctx_.call(skill, input);
    rec["status"] = "ok";
    rec["output"] = out;
  } catch (const SkillError& e) {
    rec["status"] = e.code() == SKILLRT_NOT_FOUND ? "not registered" : "failed";
    rec["code"] = e.code();
    rec["message"] = std::string(e.what()).substr(0, 600);
  } catch (const std::exception& e) {
    rec["status"] = "failed";
    rec["message"] = std::string(e.what()).substr(0, 600);
  }
  return rec;
}

// Skill-to-skill: which skill is worth asking depends on the failure.
Json CaseRunner::consult_skills(const std::string& text, const std::string& first_class,
                                const std::string& op_base) {
  Json consulted = Json::array();
  consulted.push_back(consult("op-test", Json{{"mode", "triage"}, {"log", text}}));
  if (has_npu_markers(text) || state_["route"]["route"] == "distributed" ||
      first_class == "undetermined") {
    consulted.push_back(consult("npu-graph-diagnose", Json{{"log", text}}));
  } else {
    consulted.push_back(Json{{"skill", "npu-graph-diagnose"},
                             {"status", "not needed"},
                             {"message",
                              "no NPU/ACL/graph-mode marker in the output and the "
                              "local rules decided"}});
  }
  if (first_class == "behaviour-mismatch") {
    Json in{{"id", case_id_}, {"log_text", text}};
    if (!op_base.empty()) in["api"] = "torch." + op_base;
    const Signature sig = failure_signature(text);
    if (sig.found) in["description"] = sig.exception + ": " + sig.message;
    consulted.push_back(consult("api-consistency", in));
  }
  return consulted;
}

// Candidate files, first part: the NPU-side frames of the traceback, innermost first.
Json CaseRunner::frame_candidates(const std::string& text) {
  Json candidates = Json::array();
  std::set<std::string> seen;
  const auto frames = traceback_frames(text);
  for (auto f = frames.rbegin(); f != frames.rend(); ++f) {
    for (const auto& repo : kRepos) {
      const std::string root = worktree(repo) + "/";
      if (f->file.rfind(root, 0) != 0) continue;
      const std::string rel = f->file.substr(root.size());
      if (repo == "pytorch" && rel.rfind("test/", 0) == 0) continue;
      const std::string key = repo + ":" + rel + ":" + std::to_string(f->line);
      if (!seen.insert(key).second) continue;
      candidates.push_back(Json{{"repo", repo},
                                {"file", rel},
                                {"line", f->line},
                                {"why", "traceback frame in " + f->function + " (log line " +
                                            std::to_string(f->log_line) + ")"}});
    }
  }
  return candidates;
}

// Candidate files, second part: where op-plugin and torch_npu name the operator (up to ten
// non-test hits each). Returns the related operator tests found there (test_<op>.py, at most 5).
Json CaseRunner::operator_files(const std::string& op_base, Json* candidates) {
  Json related_files = Json::array();
  if (op_base.empty()) return related_files;
  for (const std::string repo : {"op_plugin", "torch_npu"}) {
    const CmdResult g =
        git("diagnose", "where " + op_base + " is named", worktree(repo),
            {"grep", "-n", "-w", "-I", "-e", op_base, "--", "*.yaml", "*.py", "*.cpp", "*.h"});
    std::istringstream lines(g.output);
    std::string l;
    int n = 0;
    while (std::getline(lines, l) && n < 10) {
      const auto c1 = l.find(':');
      const auto c2 = c1 == std::string::npos ? c1 : l.find(':', c1 + 1);
      if (c2 == std::string::npos) continue;
      const std::string file = l.substr(0, c1);
      if (file.find("test") != std::string::npos) continue;
      candidates->push_back(Json{{"repo", repo},
                                 {"file", file},
                                 {"line", std::atoi(l.substr(c1 + 1, c2 - c1 - 1).c_str())},
                                 {"why", "names " + op_base + ": " + l.substr(c2 + 1, 160)}});
      ++n;
    }
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(worktree(repo), ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      if (it->path().filename() == ".git") {
        it.disable_recursion_pending();
        continue;
      }
      if (it->path().filename() == "test_" + op_base + ".py" && related_files.size() < 5) {
        related_files.push_back(
            Json{{"repo", repo}, {"file", fs::relative(it->path(), worktree(repo)).string()}});
      }
    }
  }
  return related_files;
}

// The related tests' baseline, so verify can tell a regression from a test that already failed.
Json CaseRunner::related_baselines(const Json& related_files) {
  Json related = Json::array();
  for (const auto& f : related_files) {
    const std::string wt = worktree(f["repo"]);
    const std::vector<std::string> argv{state_["settings"]["python"], f["file"], "-v"};
    const CmdResult rr =
        command("diagnose", "baseline of related operator test " + f["file"].get<std::string>(),
                argv, wt, test_env(), test_timeout());
    check_test_run("diagnose", rr, "the related test " + f["file"].get<std::string>());
    related.push_back(Json{
        {"repo", f["repo"]}, {"file", f["file"]}, {"command", argv}, {"baseline", run_record(rr)}});
  }
  return related;
}

}  // namespace skillrt::issue_pipeline::detail
