// SPDX-License-Identifier: Apache-2.0
// The VolumeRestrictions plugin, with the rows of upstream's volume_restrictions_test.go
// (TestGCEDiskConflicts, TestAWSDiskConflicts, TestRBDDiskConflicts, TestISCSIDiskConflicts,
// TestAccessModeConflicts), and its AddPod/RemovePod in a node's what-if overlay.
#include <doctest/doctest.h>

#include <algorithm>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "preempt/kubernetes/volume_restrictions.hpp"

namespace volume_restrictions_test {

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

using volumes = std::vector<k8s::pod_volume>;

k8s::pod_volume disk(k8s::volume_source source, std::string id) {
  k8s::pod_volume v;
  v.name = "v";
  v.source = source;
  v.disk = std::move(id);
  return v;
}
k8s::pod_volume rbd(std::vector<std::string> monitors, std::string pool, std::string image) {
  k8s::pod_volume v = disk(k8s::volume_source::rbd, std::move(image));
  v.monitors = std::move(monitors);
  v.pool = std::move(pool);
  return v;
}
k8s::pod_volume claim(std::string name) {
  k8s::pod_volume v;
  v.name = name;
  v.source = k8s::volume_source::claim;
  v.claim_name = std::move(name);
  return v;
}

struct outcome {
  kept_status prefilter;
  bool skipped = false;
  kept_status filter;
};

// PreFilter for `pod` (namespace default), then Filter on a node whose pods have `node_pods`.
// `used` are the claims scheduled pods mount (IsPVCUsedByPods).
outcome run(const volumes& pod, const std::vector<volumes>& node_pods,
            const k8s::storage_catalog& storage = {}, std::vector<std::string> used = {}) {
  k8s::volume_restrictions_prefilter pre;
  pre.prefilter("default", pod, storage, [&](std::string_view ns, std::string_view name) {
    const std::string key = std::string(ns) + "/" + std::string(name);
    return std::find(used.begin(), used.end(), key) != used.end();
  });
  outcome o{pre.outcome(), pre.outcome().is_success() && !pre.active(), {}};
  k8s::volume_restrictions_overlay overlay;
  overlay.reset(&pre);
  for (const volumes& p : node_pods) overlay.add_resident(p);
  o.filter = overlay.filter();
  return o;
}

bool disk_conflict(const outcome& o) {
  return !o.skipped && o.filter.code() == status_code::unschedulable &&
         o.filter.reason() == k8s::disk_conflict_reason;
}
bool runs_and_fits(const outcome& o) { return !o.skipped && o.filter.is_success(); }

// The four rows every disk kind's table has.
void disk_rows(const k8s::pod_volume& state, const k8s::pod_volume& state2) {
  SUBCASE("nothing") { CHECK(run({}, {}).skipped); }
  SUBCASE("one state") { CHECK(run({}, {{state}}).skipped); }
  SUBCASE("same state") { CHECK(disk_conflict(run({state}, {{state}}))); }
  SUBCASE("different state") { CHECK(runs_and_fits(run({state2}, {{state}}))); }
}

}  // namespace

TEST_CASE("kubernetes volume restrictions: TestGCEDiskConflicts") {
  disk_rows(disk(k8s::volume_source::gce_pd, "foo"), disk(k8s::volume_source::gce_pd, "bar"));
  SUBCASE("pod with a volume that doesn't have restrictions") {
    k8s::pod_volume none;
    none.name = "volume with no restriction";
    CHECK(run({none}, {}).skipped);
  }
  SUBCASE("the same disk read-only on both sides: no conflict") {
    k8s::pod_volume ro = disk(k8s::volume_source::gce_pd, "foo");
    ro.read_only = true;
    CHECK(runs_and_fits(run({ro}, {{ro}})));
  }
}

TEST_CASE("kubernetes volume restrictions: TestAWSDiskConflicts") {
  disk_rows(disk(k8s::volume_source::aws_ebs, "foo"), disk(k8s::volume_source::aws_ebs, "bar"));
  SUBCASE("read-only does not matter for EBS") {
    k8s::pod_volume ro = disk(k8s::volume_source::aws_ebs, "foo");
    ro.read_only = true;
    CHECK(disk_conflict(run({ro}, {{ro}})));
  }
}

TEST_CASE("kubernetes volume restrictions: TestRBDDiskConflicts") {
  disk_rows(rbd({"a", "b"}, "foo", "bar"), rbd({"c", "d"}, "foo", "bar"));
  SUBCASE("one monitor in common, same pool and image") {
    CHECK(disk_conflict(run({rbd({"b", "x"}, "foo", "bar")}, {{rbd({"a", "b"}, "foo", "bar")}})));
  }
  SUBCASE("another pool") {
    CHECK(runs_and_fits(run({rbd({"a"}, "rbd", "bar")}, {{rbd({"a", "b"}, "foo", "bar")}})));
  }
}

TEST_CASE("kubernetes volume restrictions: TestISCSIDiskConflicts") {
  disk_rows(disk(k8s::volume_source::iscsi, "iqn.2016-12.server:storage.target01"),
            disk(k8s::volume_source::iscsi, "iqn.2017-12.server:storage.target01"));
}

TEST_CASE("kubernetes volume restrictions: TestAccessModeConflicts") {
  std::deque<k8s::persistent_volume_claim> claims;
  const auto add_claim = [&](std::string name, std::uint8_t modes) {
    k8s::persistent_volume_claim c;
    c.ns = "default";
    c.name = std::move(name);
    c.access_modes = modes;
    claims.push_back(std::move(c));
  };
  add_claim("claim-with-rwop-1", k8s::read_write_once_pod);
  add_claim("claim-with-rwop-2", k8s::read_write_once_pod);
  add_claim("claim-with-rwx", k8s::read_write_many);
  k8s::storage_catalog storage;
  for (const auto& c : claims) storage.add(c);
  storage.index();
  const volumes pod_with_one_pvc{claim("claim-with-rwop-1")};
  const volumes pod_with_two_pvcs{claim("claim-with-rwop-1"), claim("claim-with-rwop-2")};
  const volumes pod_with_rwx{claim("claim-with-rwx")};

  SUBCASE("nothing") { CHECK(run({}, {}, storage).skipped); }
  SUBCASE("failed to get PVC") {
    const auto o = run(pod_with_one_pvc, {}, k8s::storage_catalog{});
    CHECK(o.prefilter.code() == status_code::unschedulable_and_unresolvable);
    CHECK(o.prefilter.reason() == "persistentvolumeclaim \"claim-with-rwop-1\" not found");
  }
  SUBCASE("no access mode conflict") {
    CHECK(run(pod_with_one_pvc, {pod_with_rwx}, storage, {"default/claim-with-rwx"}).skipped);
  }
  SUBCASE("access mode conflict, unschedulable") {
    const auto o = run(pod_with_one_pvc, {pod_with_one_pvc, pod_with_rwx}, storage,
                       {"default/claim-with-rwop-1", "default/claim-with-rwx"});
    CHECK(o.filter.code() == status_code::unschedulable);
    CHECK(o.filter.reason() == k8s::read_write_once_pod_conflict_reason);
  }
  SUBCASE("two conflicts, unschedulable") {
    const auto o =
        run(pod_with_two_pvcs, {pod_with_two_pvcs, pod_with_rwx}, storage,
            {"default/claim-with-rwop-1", "default/claim-with-rwop-2", "default/claim-with-rwx"});
    CHECK(o.filter.code() == status_code::unschedulable);
    CHECK(o.filter.reason() == k8s::read_write_once_pod_conflict_reason);
  }
}

TEST_CASE("kubernetes volume restrictions: RemovePod and AddPod move the ReadWriteOncePod count") {
  k8s::persistent_volume_claim c;
  c.ns = "default";
  c.name = "data";
  c.access_modes = k8s::read_write_once_pod;
  k8s::storage_catalog storage;
  storage.add(c);
  storage.index();
  const volumes pod{claim("data")};
  k8s::volume_restrictions_prefilter pre;
  pre.prefilter("default", pod, storage, [](auto, auto) { return true; });
  REQUIRE(pre.active());
  CHECK(pre.conflicting_refs() == 1);
  k8s::volume_restrictions_overlay overlay;
  overlay.reset(&pre);
  overlay.add_resident(pod);  // the holder on this node: the count already has it
  CHECK(overlay.filter().code() == status_code::unschedulable);
  overlay.update(pod, -1);  // the dry run evicts the holder
  CHECK(overlay.filter().is_success());
  overlay.update(pod, +1);  // and gives it back
  CHECK(overlay.filter().code() == status_code::unschedulable);
  overlay.update(pod, -1);
  // Upstream compares claim names only: a pod of another namespace with a claim of that name
  // counts when it is added (a nominated pod, say).
  overlay.update(volumes{claim("data")}, +1);
  CHECK(overlay.filter().code() == status_code::unschedulable);
}

TEST_CASE(
    "kubernetes volume restrictions: a pod of another node moves the ReadWriteOncePod count "
    "only") {
  k8s::persistent_volume_claim c;
  c.ns = "default";
  c.name = "data";
  c.access_modes = k8s::read_write_once_pod;
  k8s::storage_catalog storage;
  storage.add(c);
  storage.index();
  const k8s::pod_volume pd = disk(k8s::volume_source::gce_pd, "pd-1");
  const volumes pod{claim("data"), pd};
  k8s::volume_restrictions_prefilter pre;
  pre.prefilter("default", pod, storage, [](auto, auto) { return true; });
  REQUIRE(pre.active());
  k8s::volume_restrictions_overlay overlay;
  overlay.reset(&pre);
  CHECK(overlay.filter().reason() == k8s::read_write_once_pod_conflict_reason);
  // The claim's holder runs on another node and is evicted with its pod group: the cluster-wide
  // count drops, as upstream's RemovePod extension does for any node's pod.
  overlay.update_elsewhere(volumes{claim("data")}, -1);
  CHECK(overlay.filter().is_success());
  overlay.update_elsewhere(volumes{claim("data")}, +1);
  CHECK(overlay.filter().reason() == k8s::read_write_once_pod_conflict_reason);
  overlay.update_elsewhere(volumes{claim("data")}, -1);
  // A disk on another node is not this node's conflict: only the evaluated node's pods count.
  overlay.update_elsewhere(volumes{pd}, +1);
  CHECK(overlay.filter().is_success());
  overlay.update(volumes{pd}, +1);
  CHECK(overlay.filter().reason() == k8s::disk_conflict_reason);
}

}  // namespace volume_restrictions_test
