// Properties of victim selection and candidate choice on thousands of seeded random clusters,
// checked against the naive reference (tests/reference/naive_preemption.hpp) and against first
// principles.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "preempt/preempt.hpp"
#include "reference/naive_preemption.hpp"
#include "support/random_cluster.hpp"

namespace properties_test {

namespace {

using pod = preempt::model::resource_pod;

struct outcome {
  preempt::status_code code;
  std::vector<std::string> reasons;
  std::vector<preempt::model::pod_id> victims;
  std::int64_t violations;
  friend bool operator==(const outcome&, const outcome&) = default;
};

outcome select(const rnd::world& w, std::size_t i, preempt::victim_scratch<pod>& scratch,
               std::vector<const pod*>& victims_out) {
  preempt::model::resource_fit_state state;
  w.cluster.prepare_state(i, state);
  std::vector<const pod*> nominated;
  for (const pod& n : w.nominated) nominated.push_back(&n);
  const auto r = preempt::select_victims(w.preemptor, w.cluster[i], state, w.budgets, nominated,
                                         scratch, preempt::default_policy{w.now});
  outcome o{r.outcome.code(), {}, {}, r.pdb_violations};
  for (auto reason : r.outcome.reasons()) o.reasons.emplace_back(reason);
  victims_out.assign(r.victims.begin(), r.victims.end());
  for (const pod* v : r.victims) o.victims.push_back(v->uid());
  return o;
}

// Resources left for the preemptor on node i once `gone` are removed (nominees not counted).
bool fits_without(const rnd::world& w, std::size_t i, const std::vector<const pod*>& gone,
                  const pod* back = nullptr) {
  preempt::model::resource_fit_state state;
  w.cluster.prepare_state(i, state);
  for (const pod* v : gone)
    if (v != back) (void)state.remove_pod(*v);
  std::vector<const pod*> nominated;
  for (const pod& n : w.nominated) nominated.push_back(&n);
  return preempt::fits_with_nominated(state, w.preemptor, nominated).is_success();
}

// The world in the naive reference's form: every nominated pod counts on every node.
struct reference_world {
  std::vector<std::vector<const pod*>> nominated;
  naive_reference::input in;
  explicit reference_world(const rnd::world& w) {
    std::vector<const pod*> all;
    for (const pod& n : w.nominated) all.push_back(&n);
    nominated.assign(w.cluster.size(), all);
    in.cluster = &w.cluster;
    in.budgets = &w.reference_budgets;
    in.nominated = &nominated;
    in.now = w.now;
  }
  reference_world(const reference_world&) = delete;
  reference_world& operator=(const reference_world&) = delete;
};

}  // namespace

TEST_CASE("select_victims agrees with the naive reference on random clusters") {
  preempt::victim_scratch<pod> scratch;  // shared across worlds: reuse must not leak state
  std::size_t candidates = 0, with_violations = 0;
  for (const auto seed : rnd::seeds(3000)) {
    CAPTURE(seed);
    const rnd::world w = rnd::make_world(seed);
    const reference_world ref(w);
    for (std::size_t i = 0; i < w.cluster.size(); ++i) {
      CAPTURE(i);
      std::vector<const pod*> victims;
      const outcome got = select(w, i, scratch, victims);
      const naive_reference::node_outcome want =
          naive_reference::select_victims(w.preemptor, ref.in, i);
      CHECK(got.code == want.code);
      CHECK(got.reasons == want.reasons);
      CHECK(got.victims == want.victims);
      CHECK(got.violations == want.violations);
      if (got.code != preempt::status_code::success) continue;
      ++candidates;
      with_violations += got.violations > 0 ? 1 : 0;
      // The victims make the preemptor fit.
      CHECK(fits_without(w, i, victims));
      for (const pod* v : victims) {
        // Every victim has strictly lower priority.
        CHECK(v->priority() < w.preemptor.priority());
        // Putting back any single victim breaks the fit (resource fit is monotone, so this holds
        // for every victim, not only at its own reprieve step).
        CHECK_FALSE(fits_without(w, i, victims, v));
      }
      // Victims come out in descending importance.
      CHECK(std::is_sorted(victims.begin(), victims.end(), [&](const pod* a, const pod* b) {
        return preempt::more_important_pod(*a, *b, w.now);
      }));
      // The same input always gives the same answer.
      std::vector<const pod*> again;
      CHECK(select(w, i, scratch, again) == got);
    }
  }
  // The generator must exercise the interesting paths.
  CHECK(candidates > 1000);
  CHECK(with_violations > 50);
}

TEST_CASE(
    "pick_best_candidate equals the naive reference's elimination chain on random candidates") {
  preempt::victim_scratch<pod> scratch;
  for (const auto seed : rnd::seeds(1500)) {
    CAPTURE(seed);
    const rnd::world w = rnd::make_world(seed);
    const reference_world ref(w);
    std::vector<std::vector<const pod*>> victim_store(w.cluster.size());
    std::vector<preempt::candidate<pod>> cands;
    std::vector<naive_reference::node_outcome> ref_cands;
    for (std::size_t i = 0; i < w.cluster.size(); ++i) {
      std::vector<const pod*> victims;
      const outcome o = select(w, i, scratch, victims);
      if (o.code != preempt::status_code::success) continue;
      victim_store[i] = victims;
      cands.push_back({i, w.cluster[i].name(), victim_store[i], o.violations});
      ref_cands.push_back({.node = i,
                           .code = preempt::status_code::success,
                           .reasons = {},
                           .victims = o.victims,
                           .violations = o.violations});
    }
    const auto best = preempt::pick_best_candidate<pod>(cands, w.now);
    if (cands.empty()) {
      CHECK(best.index == preempt::best_candidate::none);
      continue;
    }
    // Upstream: filter by each score in turn, keep all maxima, stop when one is left; the first
    // of a full tie.
    CHECK(best.index == naive_reference::pick_one_node(ref.in, ref_cands));
  }
}

}  // namespace properties_test
