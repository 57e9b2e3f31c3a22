// SPDX-License-Identifier: Apache-2.0
// The VolumeZone plugin, with the rows of upstream's volume_zone_test.go (TestSingleZone,
// TestMultiZone, TestWithBinding).
#include <doctest/doctest.h>

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "preempt/kubernetes/volume_zone.hpp"

namespace volume_zone_test {

namespace k8s = preempt::kubernetes;
using preempt::status_code;

namespace {

// A status whose reasons are copied (the filters' own texts live as long as their prefilter).
struct kept_status {
  status_code code_ = status_code::success;
  std::vector<std::string> reasons_;

  kept_status() = default;
  kept_status(const preempt::status& st) : code_(st.code()) {  // NOLINT: implicit on purpose
    for (std::string_view r : st.reasons()) reasons_.emplace_back(r);
  }
  status_code code() const noexcept { return code_; }
  bool is_success() const noexcept { return code_ == status_code::success; }
  explicit operator bool() const noexcept { return is_success(); }
  std::string reason() const { return reasons_.empty() ? std::string() : reasons_.front(); }
};

constexpr const char* beta_zone = "failure-domain.beta.kubernetes.io/zone";
constexpr const char* beta_region = "failure-domain.beta.kubernetes.io/region";
constexpr const char* zone = "topology.kubernetes.io/zone";
constexpr const char* region = "topology.kubernetes.io/region";

// Upstream's listers: volumes with labels, claims in "default" naming a volume or a class.
struct world {
  std::deque<k8s::persistent_volume> volumes;
  std::deque<k8s::persistent_volume_claim> claims;
  std::deque<k8s::storage_class> classes;
  k8s::storage_catalog catalog;

  void volume(std::string name, k8s::label_set labels) {
    k8s::persistent_volume v;
    v.name = std::move(name);
    v.labels = std::move(labels);
    volumes.push_back(std::move(v));
  }
  void claim(std::string name, std::string volume, std::optional<std::string> cls = {}) {
    k8s::persistent_volume_claim c;
    c.ns = "default";
    c.name = std::move(name);
    c.volume_name = std::move(volume);
    c.class_name = std::move(cls);
    claims.push_back(std::move(c));
  }
  void storage_class(std::string name, bool wait) {
    k8s::storage_class c;
    c.name = std::move(name);
    c.wait_for_first_consumer = wait;
    classes.push_back(std::move(c));
  }
  void index() {
    for (const auto& v : volumes) catalog.add(v);
    for (const auto& c : claims) catalog.add(c);
    for (const auto& c : classes) catalog.add(c);
    catalog.index();
  }
};

std::vector<k8s::pod_volume> with_claim(std::string claim) {
  k8s::pod_volume v;
  v.name = "vol";
  v.source = k8s::volume_source::claim;
  v.claim_name = std::move(claim);
  return {v};
}

struct outcome {
  kept_status prefilter;
  bool skipped = false;
  kept_status filter;
};

outcome run(const world& w, const std::vector<k8s::pod_volume>& volumes,
            const k8s::label_set& node) {
  k8s::volume_zone_prefilter z;
  z.prefilter("default", volumes, w.catalog);
  return {z.outcome(), z.outcome().is_success() && !z.active(), z.filter(node)};
}

bool conflict(const outcome& o) {
  return o.filter.code() == status_code::unschedulable_and_unresolvable &&
         o.filter.reason() == k8s::volume_zone_conflict_reason;
}

}  // namespace

TEST_CASE("kubernetes volume zone: TestSingleZone") {
  world w;
  w.volume("Vol_1", {{beta_zone, "us-west1-a"}});
  w.volume("Vol_2", {{beta_region, "us-west1"}, {"uselessLabel", "none"}});
  w.volume("Vol_3", {{beta_region, "us-west1"}});
  w.volume("Vol_Stable_1", {{zone, "us-west1-a"}});
  w.volume("Vol_Stable_2", {{region, "us-west1"}, {"uselessLabel", "none"}});
  w.volume("Vol_Stable_3", {{zone, "us-west1-a"}, {region, "us-west1-a"}});
  w.claim("PVC_1", "Vol_1");
  w.claim("PVC_2", "Vol_2");
  w.claim("PVC_3", "Vol_3");
  w.claim("PVC_4", "Vol_not_exist");
  w.claim("PVC_Stable_1", "Vol_Stable_1");
  w.claim("PVC_Stable_2", "Vol_Stable_2");
  w.claim("PVC_Stable_3", "Vol_Stable_3");
  w.index();

  SUBCASE("pod without volume") {
    const auto o = run(w, {}, {{beta_zone, "us-west1-a"}});
    CHECK(o.skipped);
    CHECK(o.filter.is_success());
  }
  SUBCASE("node without labels") { CHECK(run(w, with_claim("PVC_1"), {}).filter.is_success()); }
  SUBCASE("beta zone label matched") {
    CHECK(run(w, with_claim("PVC_1"), {{beta_zone, "us-west1-a"}, {"uselessLabel", "none"}})
              .filter.is_success());
  }
  SUBCASE("beta region label matched") {
    CHECK(run(w, with_claim("PVC_2"), {{beta_region, "us-west1"}, {"uselessLabel", "none"}})
              .filter.is_success());
  }
  SUBCASE("beta region label doesn't match") {
    CHECK(conflict(
        run(w, with_claim("PVC_2"), {{beta_region, "no_us-west1"}, {"uselessLabel", "none"}})));
  }
  SUBCASE("beta zone label doesn't match") {
    CHECK(conflict(
        run(w, with_claim("PVC_1"), {{beta_zone, "no_us-west1-a"}, {"uselessLabel", "none"}})));
  }
  SUBCASE("zone label matched") {
    CHECK(run(w, with_claim("PVC_Stable_1"), {{zone, "us-west1-a"}, {"uselessLabel", "none"}})
              .filter.is_success());
  }
  SUBCASE("region label matched") {
    CHECK(run(w, with_claim("PVC_Stable_2"), {{region, "us-west1"}, {"uselessLabel", "none"}})
              .filter.is_success());
  }
  SUBCASE("region label doesn't match") {
    CHECK(conflict(
        run(w, with_claim("PVC_Stable_2"), {{region, "no_us-west1"}, {"uselessLabel", "none"}})));
  }
  SUBCASE("zone label doesn't match") {
    CHECK(conflict(
        run(w, with_claim("PVC_Stable_1"), {{zone, "no_us-west1-a"}, {"uselessLabel", "none"}})));
  }
  SUBCASE("pv with zone and region, node with only zone") {
    CHECK(conflict(run(w, with_claim("PVC_Stable_3"), {{zone, "us-west1-a"}})));
  }
  SUBCASE("pv with zone,node with beta zone") {
    CHECK(conflict(run(w, with_claim("PVC_Stable_1"), {{beta_zone, "us-west1-a"}})));
  }
  SUBCASE("pv with beta label,node with ga label, matched") {
    CHECK(run(w, with_claim("PVC_1"), {{zone, "us-west1-a"}}).filter.is_success());
  }
  SUBCASE("pv with beta label,node with ga label, don't match") {
    CHECK(conflict(run(w, with_claim("PVC_1"), {{zone, "us-west1-b"}})));
  }
  SUBCASE("a claim bound to a missing volume: the PreFilter's NotFound") {
    const auto o = run(w, with_claim("PVC_4"), {{zone, "us-west1-a"}});
    CHECK(o.prefilter.code() == status_code::unschedulable_and_unresolvable);
    CHECK(o.prefilter.reason() == "persistentvolume \"Vol_not_exist\" not found");
  }
}

TEST_CASE("kubernetes volume zone: TestMultiZone") {
  world w;
  w.volume("Vol_1", {{beta_zone, "us-west1-a"}});
  w.volume("Vol_2", {{beta_zone, "us-west1-b"}, {"uselessLabel", "none"}});
  w.volume("Vol_3", {{beta_zone, "us-west1-c__us-west1-a"}});
  w.volume("Vol_Stable_1", {{zone, "us-west1-a"}});
  w.volume("Vol_Stable_2", {{zone, "us-west1-c__us-west1-a"}});
  w.claim("PVC_1", "Vol_1");
  w.claim("PVC_2", "Vol_2");
  w.claim("PVC_3", "Vol_3");
  w.claim("PVC_4", "Vol_not_exist");
  w.claim("PVC_Stable_1", "Vol_Stable_1");
  w.claim("PVC_Stable_2", "Vol_Stable_2");
  w.index();

  SUBCASE("node without labels") { CHECK(run(w, with_claim("PVC_3"), {}).filter.is_success()); }
  SUBCASE("beta zone label matched") {
    CHECK(run(w, with_claim("PVC_3"), {{beta_zone, "us-west1-a"}, {"uselessLabel", "none"}})
              .filter.is_success());
  }
  SUBCASE("beta zone label doesn't match") {
    CHECK(conflict(
        run(w, with_claim("PVC_1"), {{beta_zone, "us-west1-b"}, {"uselessLabel", "none"}})));
  }
  SUBCASE("zone label matched") {
    CHECK(run(w, with_claim("PVC_Stable_2"), {{zone, "us-west1-a"}, {"uselessLabel", "none"}})
              .filter.is_success());
  }
  SUBCASE("zone label doesn't match") {
    CHECK(conflict(
        run(w, with_claim("PVC_Stable_1"), {{zone, "us-west1-b"}, {"uselessLabel", "none"}})));
  }
}

TEST_CASE("kubernetes volume zone: TestWithBinding") {
  world w;
  w.storage_class("Class_Immediate", false);
  w.storage_class("Class_Wait", true);
  w.volume("Vol_1", {{beta_zone, "us-west1-a"}});
  w.claim("PVC_1", "Vol_1");
  w.claim("PVC_NoSC", "", "Class_0");
  w.claim("PVC_EmptySC", "");
  w.claim("PVC_WaitSC", "", "Class_Wait");
  w.claim("PVC_ImmediateSC", "", "Class_Immediate");
  w.index();
  const k8s::label_set node{{beta_zone, "us-west1-a"}, {"uselessLabel", "none"}};
  const auto rejected = [](const outcome& o, std::string_view message) {
    return o.prefilter.code() == status_code::unschedulable_and_unresolvable &&
           o.prefilter.reason() == message;
  };

  SUBCASE("label zone failure domain matched") {
    CHECK(run(w, with_claim("PVC_1"), node).filter.is_success());
  }
  SUBCASE("unbound volume empty storage class") {
    CHECK(rejected(run(w, with_claim("PVC_EmptySC"), node),
                   "PersistentVolumeClaim had no pv name and storageClass name"));
  }
  // Upstream's fake lister names the resource "storageclasses"; the informer's lister
  // kube-scheduler runs with names it "storageclass".
  SUBCASE("unbound volume no storage class") {
    CHECK(rejected(run(w, with_claim("PVC_NoSC"), node),
                   "storageclass.storage.k8s.io \"Class_0\" not found"));
  }
  // Upstream's row leaves volumeBindingMode unset ("VolumeBindingMode not set"); the API server
  // defaults it to Immediate, which the claim without a volume then rejects.
  SUBCASE("unbound volume immediate binding mode") {
    CHECK(rejected(run(w, with_claim("PVC_ImmediateSC"), node), "PersistentVolume had no name"));
  }
  SUBCASE("unbound volume wait binding mode") {
    const auto o = run(w, with_claim("PVC_WaitSC"), node);
    CHECK(o.skipped);
    CHECK(o.filter.is_success());
  }
}

TEST_CASE("kubernetes volume zone: multi-zone label values") {
  CHECK(k8s::label_zones("us-west1-c__us-west1-a") ==
        std::vector<std::string>{"us-west1-c", "us-west1-a"});
  CHECK_FALSE(k8s::label_zones("us-west1-c____us-west1-a"));  // an empty element: ignored label
  CHECK(k8s::ga_topology_label(beta_zone) == zone);
  CHECK(k8s::ga_topology_label(zone) == zone);
}

}  // namespace volume_zone_test
