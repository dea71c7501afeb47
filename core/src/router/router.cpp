#include "router/router.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_map>
#include <utility>

#include "router/detail/analyzer.hpp"

namespace skillrt::router {

namespace {

using detail::Role;
using detail::Term;
using detail::TermKind;

double query_weight(const Weights& w, TermKind kind) {
  switch (kind) {
    case TermKind::kWord:
      return w.word;
    case TermKind::kConcept:
      return w.concept_word;
    case TermKind::kCjkWord:
      return w.cjk_word;
    case TermKind::kCjkBigram:
      return w.cjk_bigram;
  }
  return 0.0;
}

double role_weight(const Weights& w, Role role) {
  switch (role) {
    case Role::kPlain:
      return 1.0;
    case Role::kAction:
      return w.action;
    case Role::kObject:
      return w.object;
    case Role::kNegated:
      return w.negated;
    case Role::kContext:
      return w.context;
  }
  return 1.0;
}

struct Posting {
  uint32_t skill;
  float weight;  // idf * saturated tf
};

struct QueryTerm {
  std::string text;
  std::string display;
  double weight = 0.0;
  int64_t id = -1;                                   // -1: the term occurs in no card
  std::vector<std::pair<uint32_t, uint32_t>> spans;  // content units it stands on
};

// How many of the best candidates get the (costlier) coverage feature; the rest are too
// far behind to pass the threshold anyway.
constexpr size_t kCoverageCandidates = 16;

// Margin is (raw - best other raw) / (raw + kMarginShrink), see Features::margin.
constexpr double kMarginShrink = 1.0;

// What a matched term looks like in explanations: the word as the request wrote it (lower
// case, not stemmed), and for a lexicon concept the word it came from.
std::string display_of(const Term& t) {
  if (t.kind == TermKind::kConcept && t.surface != t.text) return t.surface + "→" + t.text;
  std::string out = t.surface;
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

struct Router::Query {
  std::vector<QueryTerm> terms;
  std::vector<detail::Unit> units;  // weighted by role
  double content = 0.0;             // total unit weight
  double known = 0.0;               // unit weight that some card's terms stand on
  // The task is to make or pick something (its object head) that no card knows: "write a
  // limerick about graph mode", "写一首关于 NPU 的诗", "recommend a film". No skill does
  // that work, whatever field words the rest of the request mentions.
  bool made_unknown = false;
};

struct Router::Index {
  std::vector<SkillCard> cards;
  Weights weights;
  std::unordered_map<std::string, uint32_t, detail::TransparentHash, std::equal_to<>> term_ids;
  std::vector<double> idf;
  std::vector<std::vector<Posting>> postings;  // by term id, sorted by skill

  Index(std::vector<SkillCard> in, Weights w) : cards(std::move(in)), weights(w) { build(); }

  void build() {
    const auto& lexicon = detail::Lexicon::builtin();
    size_t n = cards.size();
    // Per skill: (term id, weighted frequency), accumulated in a scratch array indexed by
    // term id so that a card's text is hashed once per term occurrence and never copied.
    std::vector<std::vector<std::pair<uint32_t, double>>> tf(n);
    std::vector<double> length(n, 0.0);
    std::vector<double> scratch;
    std::vector<uint32_t> touched;
    term_ids.reserve(4096 + 64 * n);
    auto add = [&](std::string_view text, double field_weight, double& len) {
      for (Term& t : detail::analyze(text, lexicon)) {
        double w = field_weight * (t.kind == TermKind::kCjkBigram ? 0.5 : 1.0);
        auto [it, inserted] =
            term_ids.try_emplace(std::move(t.text), static_cast<uint32_t>(postings.size()));
        if (inserted) postings.emplace_back();
        uint32_t id = it->second;
        if (id >= scratch.size()) scratch.resize(id + 1, 0.0);
        if (scratch[id] == 0.0) touched.push_back(id);
        scratch[id] += w;
        len += w;
      }
    };
    for (size_t s = 0; s < n; ++s) {
      const SkillCard& card = cards[s];
      std::string name = card.name;
      std::replace(name.begin(), name.end(), '-', ' ');
      add(name, weights.name, length[s]);
      add(card.description, weights.description, length[s]);
      for (const auto& k : card.keywords) add(k, weights.keywords, length[s]);
      for (const auto& e : card.examples) add(e, weights.examples, length[s]);
      tf[s].reserve(touched.size());
      for (uint32_t id : touched) {
        tf[s].emplace_back(id, scratch[id]);
        postings[id].push_back(Posting{static_cast<uint32_t>(s), 0.0F});
        scratch[id] = 0.0;
      }
      touched.clear();
    }
    double avg_length = 0.0;
    for (double l : length) avg_length += l;
    avg_length = n > 0 ? avg_length / static_cast<double>(n) : 1.0;
    if (avg_length <= 0.0) avg_length = 1.0;

    auto total = static_cast<double>(n);
    // idf relative to a term unique to one skill: raw scores then mean the same with 2
    // skills loaded as with 200, so one calibration serves every installation.
    double unique_idf = std::log(1.0 + (total - 0.5) / 1.5);
    if (unique_idf <= 0.0) unique_idf = 1.0;
    idf.resize(postings.size());
    for (size_t id = 0; id < postings.size(); ++id) {
      auto df = static_cast<double>(postings[id].size());
      idf[id] = std::log(1.0 + (total - df + 0.5) / (df + 0.5)) / unique_idf;
    }
    // Postings were appended in skill order, so each list is already sorted by skill.
    std::vector<size_t> cursor(postings.size(), 0);
    for (size_t s = 0; s < n; ++s) {
      double norm = weights.k1 * (1.0 - weights.b + weights.b * length[s] / avg_length);
      for (auto [id, f] : tf[s]) {
        Posting& p = postings[id][cursor[id]++];
        p.weight = static_cast<float>(idf[id] * f * (weights.k1 + 1.0) / (f + norm));
      }
    }
  }

  // The request's terms and units in the unit range [begin, end), weighted by kind and role;
  // units are renumbered from begin.
  Query query(const detail::Analysis& analysis, const detail::Structure& structure, uint32_t begin,
              uint32_t end) const {
    Query out;
    out.units.reserve(end - begin);
    for (uint32_t u = begin; u < end; ++u) {
      double w = analysis.units[u].weight * role_weight(weights, structure.roles[u]);
      out.units.push_back(detail::Unit{w, analysis.units[u].not_head});
      out.content += w;
    }
    out.terms.reserve(analysis.terms.size());
    std::unordered_map<std::string_view, size_t> seen;
    for (const Term& t : analysis.terms) {
      if (t.unit_begin < begin || t.unit_begin >= end || t.unit_end > end) continue;
      double w = query_weight(weights, t.kind) * role_weight(weights, role_of(t, structure));
      std::pair<uint32_t, uint32_t> span{t.unit_begin - begin, t.unit_end - begin};
      auto [it, inserted] = seen.try_emplace(t.text, out.terms.size());
      if (!inserted) {
        QueryTerm& same = out.terms[it->second];
        same.spans.push_back(span);
        // The strongest reading of a term wins: "算子" as a lexicon word beats its bigram.
        if (w > same.weight) {
          same.weight = w;
          same.display = display_of(t);
        }
        continue;
      }
      QueryTerm q{t.text, display_of(t), w, -1, {span}};
      if (auto found = term_ids.find(q.text); found != term_ids.end()) q.id = found->second;
      out.terms.push_back(std::move(q));
    }
    std::vector<char> known(out.units.size(), 0);
    for (const QueryTerm& q : out.terms) {
      if (q.id < 0) continue;
      for (auto [b, e] : q.spans) std::fill(known.begin() + b, known.begin() + e, 1);
    }
    for (size_t u = 0; u < known.size(); ++u) out.known += known[u] ? out.units[u].weight : 0.0;
    // The task makes something (write, 生成, recommend) that no card knows, and no other task
    // of this part acts on something a card knows.
    bool makes = std::any_of(structure.made.begin(), structure.made.end(),
                             [&](uint32_t u) { return u >= begin && u < end; });
    bool object_known = false;
    for (uint32_t u = begin; u < end && makes; ++u) {
      if (structure.roles[u] != Role::kObject || analysis.units[u].weight <= 0.0) continue;
      object_known = object_known || known[u - begin] != 0;
    }
    out.made_unknown = makes && !object_known;
    return out;
  }

  // The posting of `skill` in `term`'s list, or null.
  const Posting* find_posting(const QueryTerm& term, size_t skill) const {
    if (term.id < 0) return nullptr;
    const auto& list = postings[static_cast<size_t>(term.id)];
    auto it = std::lower_bound(list.begin(), list.end(), skill,
                               [](const Posting& p, size_t s) { return p.skill < s; });
    return it == list.end() || it->skill != skill ? nullptr : &*it;
  }
};

double Calibration::apply(const Features& f) const {
  double z = bias + w_raw * std::log1p(f.raw) + w_coverage * f.coverage + w_margin * f.margin +
             w_matched * std::log1p(f.matched) + w_known * f.known;
  return 1.0 / (1.0 + std::exp(-z));
}

Router::Router(std::vector<SkillCard> cards, double threshold)
    : Router(std::move(cards), threshold, Calibration::fitted()) {}

Router::Router(std::vector<SkillCard> cards, double threshold, Calibration calibration,
               Weights weights)
    : index_(std::make_unique<const Index>(std::move(cards), weights)),
      threshold_(threshold),
      calibration_(calibration) {}

Router::~Router() = default;
Router::Router(Router&&) noexcept = default;
Router& Router::operator=(Router&&) noexcept = default;

const std::vector<SkillCard>& Router::cards() const { return index_->cards; }

std::vector<ScoredSkill> Router::score(std::string_view text) const {
  auto analysis = detail::analyze_units(text, detail::Lexicon::builtin());
  auto structure = detail::structure_of(analysis);
  return score(index_->query(analysis, structure, 0, static_cast<uint32_t>(analysis.units.size())));
}

std::vector<ScoredSkill> Router::score(const Query& query) const {
  const Index& ix = *index_;
  size_t n = ix.cards.size();
  std::vector<double> raw(n, 0.0);
  for (const QueryTerm& q : query.terms) {
    if (q.id < 0) continue;
    for (const Posting& p : ix.postings[static_cast<size_t>(q.id)]) {
      raw[p.skill] += q.weight * p.weight;
    }
  }
  std::vector<ScoredSkill> out;
  for (size_t s = 0; s < n; ++s) {
    if (raw[s] <= 0.0) continue;
    ScoredSkill scored;
    scored.card = s;
    scored.features.raw = raw[s];
    out.push_back(scored);
  }
  std::sort(out.begin(), out.end(), [&](const ScoredSkill& a, const ScoredSkill& b) {
    if (a.features.raw != b.features.raw) return a.features.raw > b.features.raw;
    return ix.cards[a.card].name < ix.cards[b.card].name;
  });
  // Coverage: the share of the request's content that this skill's matched terms stand on.
  // One generic word matching in a long unrelated request gives high raw but low coverage.
  std::vector<char> covered(query.units.size());
  for (size_t i = 0; i < out.size() && i < kCoverageCandidates; ++i) {
    if (query.content <= 0.0) break;
    std::fill(covered.begin(), covered.end(), 0);
    for (const QueryTerm& q : query.terms) {
      if (ix.find_posting(q, out[i].card) == nullptr) continue;
      for (auto [b, e] : q.spans) std::fill(covered.begin() + b, covered.begin() + e, 1);
    }
    double hit = 0.0;
    for (size_t u = 0; u < covered.size(); ++u) hit += covered[u] ? query.units[u].weight : 0.0;
    out[i].features.coverage = std::min(1.0, hit / query.content);
    out[i].features.matched = hit;
  }
  double known = query.content > 0.0 ? std::min(1.0, query.known / query.content) : 0.0;
  for (size_t i = 0; i < out.size(); ++i) {
    double best_other = 0.0;
    if (i == 0) {
      best_other = out.size() > 1 ? out[1].features.raw : 0.0;
    } else {
      best_other = out[0].features.raw;
    }
    // Shrunk for small scores: one stray word matching one skill is no clear lead.
    double r = out[i].features.raw;
    out[i].features.margin = std::clamp((r - best_other) / (r + kMarginShrink), -1.0, 1.0);
    out[i].features.known = known;
    out[i].score = query.made_unknown ? 0.0 : calibration_.apply(out[i].features);
  }
  return out;
}

namespace {

// Explanations: the request terms that found a skill, by how much they added. `find` gives
// the skill's posting of a term, or null.
template <class Find>
std::vector<std::string> matched_terms(const std::vector<QueryTerm>& terms, Find find) {
  std::vector<std::pair<double, std::string>> hits;
  for (const QueryTerm& q : terms) {
    const Posting* p = find(q);
    if (p != nullptr) hits.emplace_back(q.weight * p->weight, q.display);
  }
  std::stable_sort(hits.begin(), hits.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> out;
  for (auto& [_, display] : hits) {
    if (std::find(out.begin(), out.end(), display) != out.end()) continue;
    out.push_back(std::move(display));
    if (out.size() == 8) break;
  }
  return out;
}

}  // namespace

std::vector<Candidate> Router::ranked(std::string_view text, size_t top_k,
                                      bool apply_threshold) const {
  const Index& ix = *index_;
  std::vector<Candidate> out;
  if (top_k == 0) return out;
  auto analysis = detail::analyze_units(text, detail::Lexicon::builtin());
  auto structure = detail::structure_of(analysis);
  auto candidate = [&](const Query& query, const ScoredSkill& s, size_t task) {
    auto find = [&](const QueryTerm& q) { return ix.find_posting(q, s.card); };
    return Candidate{ix.cards[s.card].name, s.score, matched_terms(query.terms, find), task};
  };

  // Several tasks one after another: each part routed on its own; when at least two parts
  // confidently name different skills, those are the answer, in the request's order.
  if (structure.segments.size() > 1) {
    std::vector<Candidate> tasks;
    for (auto [begin, end] : structure.segments) {
      Query part = ix.query(analysis, structure, begin, end);
      auto scored = score(part);
      // The part's skill is its most probable candidate; raw order can tie ("analyse last
      // week's PRs": a tracker and the PR analysis both know PRs and weeks).
      auto top = std::max_element(
          scored.begin(), scored.end(),
          [](const ScoredSkill& a, const ScoredSkill& b) { return a.score < b.score; });
      if (top == scored.end() || top->score < threshold_) continue;
      const std::string& skill = ix.cards[top->card].name;
      bool seen = std::any_of(tasks.begin(), tasks.end(),
                              [&](const Candidate& c) { return c.skill == skill; });
      if (!seen) tasks.push_back(candidate(part, *top, tasks.size() + 1));
    }
    if (tasks.size() > 1) {
      if (tasks.size() > top_k) tasks.resize(top_k);
      out = std::move(tasks);
      // The answer is complete; rank_all goes on with the nearest others after it.
      if (apply_threshold) return out;
    }
  }

  Query whole = ix.query(analysis, structure, 0, static_cast<uint32_t>(analysis.units.size()));
  for (const ScoredSkill& s : score(whole)) {
    if (out.size() >= top_k) break;
    if (apply_threshold && s.score < threshold_) continue;
    const std::string& skill = ix.cards[s.card].name;
    if (std::any_of(out.begin(), out.end(), [&](const Candidate& c) { return c.skill == skill; })) {
      continue;
    }
    out.push_back(candidate(whole, s, 0));
  }
  return out;
}

std::vector<Candidate> Router::rank(std::string_view text, size_t top_k) const {
  return ranked(text, top_k, true);
}

std::vector<Candidate> Router::rank_all(std::string_view text, size_t top_k) const {
  return ranked(text, top_k, false);
}

}  // namespace skillrt::router
