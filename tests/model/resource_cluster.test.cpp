// resource_cluster's bulk load (add_pods) against one add_pod at a time: the same importance
// order, the same cache order and the same summed requests, on seeded random nodes with many
// ties of priority and start time, loaded empty or on top of pods already there. And
// resource_node::strictly_ordered, kept up to date through every kind of change, against a count
// over the node's pods.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "preempt/preempt.hpp"

namespace resource_cluster_test {

namespace {

using preempt::model::resource_cluster;
using preempt::model::resource_pod;

resource_pod make_pod(std::mt19937_64& g, preempt::model::pod_id uid) {
  preempt::model::pod_spec s;
  s.uid = uid;
  s.priority = static_cast<std::int32_t>(g() % 4) * 100;
  s.requests.set(preempt::model::resource::cpu, static_cast<std::int64_t>(g() % 1000));
  if (g() % 5 != 0) s.start_time = static_cast<preempt::timestamp>(g() % 6);
  return resource_pod(std::move(s));
}

// Whether every two neighbours of the node are strictly ordered for any `now`, counted afresh.
bool strictly_ordered_by_count(const preempt::model::resource_node& n) {
  const auto pods = n.pods();
  for (std::size_t k = 1; k < pods.size(); ++k) {
    const resource_pod &a = pods[k - 1], &b = pods[k];
    if (a.priority() == b.priority() &&
        !(a.start_time() && b.start_time() && *a.start_time() < *b.start_time()))
      return false;
  }
  return true;
}

void check_same(const resource_cluster& a, const resource_cluster& b) {
  REQUIRE(a[0].pods().size() == b[0].pods().size());
  for (std::size_t k = 0; k < a[0].pods().size(); ++k) {
    CHECK(a[0].pods()[k].uid() == b[0].pods()[k].uid());
    CHECK(a[0].cache_position(k) == b[0].cache_position(k));
  }
  CHECK(a[0].requested()[preempt::model::resource::cpu] ==
        b[0].requested()[preempt::model::resource::cpu]);
  CHECK(a[0].requested()[preempt::model::resource::pods] ==
        b[0].requested()[preempt::model::resource::pods]);
}

}  // namespace

TEST_CASE("resource_cluster::add_pods orders a node as add_pod one at a time does") {
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 g(seed);
    const std::size_t before = seed % 3 == 0 ? 0 : g() % 40, added = g() % 60;
    resource_cluster one, bulk;
    one.add_node("n", {});
    bulk.add_node("n", {});
    preempt::model::pod_id uid = 1;
    // Pods already on the node, some removed so that the cache order is no longer arrival order.
    for (std::size_t k = 0; k < before; ++k) {
      const resource_pod p = make_pod(g, uid++);
      one.add_pod(0, p);
      bulk.add_pod(0, p);
    }
    for (preempt::model::pod_id u = 1; u < uid; u += 3) {
      CHECK(one.remove_pod(0, u));
      CHECK(bulk.remove_pod(0, u));
    }
    std::vector<resource_pod> batch;
    for (std::size_t k = 0; k < added; ++k) {
      // Uids come out of order, so importance order is not arrival order even on full ties.
      batch.push_back(make_pod(g, 1000 + (k * 7919) % 4999));
      one.add_pod(0, batch.back());
    }
    bulk.add_pods(0, batch);
    CHECK(batch.empty());
    check_same(one, bulk);
    // Changes after a bulk load keep the orders equal too.
    const resource_pod late = make_pod(g, 99);
    one.add_pod(0, late);
    bulk.add_pod(0, late);
    check_same(one, bulk);
  }
}

TEST_CASE("resource_node::strictly_ordered follows add_pod, add_pods and remove_pod") {
  std::size_t strict = 0, loose = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 g(seed);
    resource_cluster c;
    c.add_node("n", {});
    std::vector<preempt::model::pod_id> present;
    preempt::model::pod_id uid = 1;
    const auto check = [&] {
      const bool expected = strictly_ordered_by_count(c[0]);
      CHECK(c[0].strictly_ordered() == expected);
      ++(expected ? strict : loose);
    };
    for (int step = 0; step < 40; ++step) {
      const auto action = g() % 6;
      if (action < 3 || present.empty()) {
        // Few priorities and start times, some missing: ties come and go.
        preempt::model::pod_spec s;
        s.uid = uid;
        s.priority = static_cast<std::int32_t>(g() % 3) * 100;
        if (g() % 4 != 0) s.start_time = static_cast<preempt::timestamp>(g() % 40);
        c.add_pod(0, resource_pod(std::move(s)));
        present.push_back(uid++);
      } else if (action < 5) {
        const std::size_t k = g() % present.size();
        CHECK(c.remove_pod(0, present[k]));
        present.erase(present.begin() + static_cast<std::ptrdiff_t>(k));
      } else {
        std::vector<resource_pod> batch;
        for (std::size_t k = g() % 4; k > 0; --k) {
          batch.push_back(make_pod(g, 10000 + uid));
          present.push_back(10000 + uid++);
        }
        c.add_pods(0, batch);
      }
      check();
    }
  }
  // Both answers were seen many times.
  CHECK(strict > 500);
  CHECK(loose > 500);
}

}  // namespace resource_cluster_test
