// SPDX-License-Identifier: Apache-2.0
// The NodeVolumeLimits plugin (CSILimits), with the rows of upstream's csi_test.go (TestCSILimits,
// TestVolumeLimitScalingGate), and a node overlay that follows evictions.
#include <doctest/doctest.h>

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "preempt/kubernetes/node_volume_limits.hpp"

namespace node_volume_limits_test {

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

constexpr const char* ebs = "ebs.csi.aws.com";
constexpr const char* gce = "pd.csi.storage.gke.io";
constexpr const char* aws_in_tree = "kubernetes.io/aws-ebs";
constexpr const char* hostpath_in_tree = "kubernetes.io/hostpath";
constexpr const char* node_name = "node-for-max-pd-test-1";

struct test_pod {
  std::string ns, name, uid;
  std::vector<k8s::pod_volume> volumes;

  test_pod& claim(std::string name_) {
    k8s::pod_volume v;
    v.name = name_;
    v.source = k8s::volume_source::claim;
    v.claim_name = std::move(name_);
    volumes.push_back(std::move(v));
    return *this;
  }
  test_pod& ephemeral(std::string volume) {
    k8s::pod_volume v;
    v.name = std::move(volume);
    v.source = k8s::volume_source::ephemeral;
    volumes.push_back(std::move(v));
    return *this;
  }
  test_pod& aws_inline(std::string id) {
    k8s::pod_volume v;
    v.source = k8s::volume_source::aws_ebs;
    v.disk = std::move(id);
    volumes.push_back(std::move(v));
    return *this;
  }
  k8s::volume_pod_identity identity() const { return {ns, name, uid}; }
};

// Upstream's fake listers: for each driver, claims csi-<driver>-0..3 bound to volumes of the same
// name (CSI, or in-tree for aws-ebs, hostPath for hostpath); csi-4 unbound of class csi-sc (whose
// provisioner is the first driver), csi-5 without class, csi-6 naming a missing volume.
struct csi_world {
  std::deque<k8s::persistent_volume_claim> claims;
  std::deque<k8s::persistent_volume> volumes;
  std::deque<k8s::storage_class> classes;
  std::deque<k8s::csi_node> csi_nodes;
  std::deque<k8s::csi_driver> drivers;
  std::deque<k8s::volume_attachment> attachments;
  k8s::storage_catalog catalog;

  // limit_source: "csinode" (every driver with the limit), "csinode-with-no-limit", "" (none).
  csi_world(std::vector<std::string> driver_names, std::string limit_source, int limit,
            int va_count) {
    for (const std::string& d : driver_names)
      for (int j = 0; j < 4; ++j) {
        const std::string n = "csi-" + d + "-" + std::to_string(j);
        k8s::persistent_volume v;
        v.name = n;
        if (d == aws_in_tree) {
          v.source = k8s::volume_source::aws_ebs;
        } else if (d != hostpath_in_tree) {
          v.source = k8s::volume_source::csi;
          v.csi_driver = d;
          v.csi_handle = n;
        }
        volumes.push_back(v);
        claim(n, n, {});
      }
    claim("csi-4", "", "csi-sc");
    claim("csi-5", "", {});
    claim("csi-6", "missing-in-action", "csi-sc");
    k8s::storage_class sc;
    sc.name = "csi-sc";
    sc.provisioner = driver_names.front();
    classes.push_back(sc);
    if (!limit_source.empty()) {
      k8s::csi_node n;
      n.name = node_name;
      for (const std::string& d : driver_names) {
        k8s::csi_node::driver cd{d, {}};
        if (limit_source == "csinode") cd.count = limit;
        n.drivers.push_back(cd);
      }
      n.migrated_plugins = {aws_in_tree};
      csi_nodes.push_back(n);
    }
    for (const std::string& d : driver_names)
      for (int j = 0; j < va_count; ++j) {
        k8s::volume_attachment a;
        a.name = "va-" + d + "-" + std::to_string(j);
        a.attacher = d;
        a.node_name = node_name;
        a.volume_name = "csi-" + d + "-" + std::to_string(j);
        attachments.push_back(a);
      }
  }
  void claim(std::string name, std::string volume, std::optional<std::string> cls,
             std::string ns = "") {
    k8s::persistent_volume_claim c;
    c.ns = std::move(ns);
    c.name = std::move(name);
    c.volume_name = std::move(volume);
    c.class_name = std::move(cls);
    claims.push_back(std::move(c));
  }
  // A generic ephemeral volume's claim: test/abc-<volume> of class csi-sc, controlled by `owner`.
  void ephemeral_claim(const test_pod& pod, const std::string& volume, bool owned) {
    claim(pod.name + "-" + volume, "", "csi-sc", pod.ns);
    if (owned) claims.back().controller_uid = pod.uid;
  }
  void index() {
    for (const auto& o : claims) catalog.add(o);
    for (const auto& o : volumes) catalog.add(o);
    for (const auto& o : classes) catalog.add(o);
    for (const auto& o : csi_nodes) catalog.add(o);
    for (const auto& o : drivers) catalog.add(o);
    for (const auto& o : attachments) catalog.add(o);
    catalog.index();
  }
};

struct outcome {
  bool skipped = false;
  kept_status filter;
};

// PreFilter and Filter of `pod` on the node whose pods are `existing`.
outcome run(csi_world& w, const test_pod& pod, const std::vector<test_pod>& existing) {
  w.index();
  k8s::volume_ids ids;
  std::vector<std::vector<k8s::attachable_volume>> counted;
  for (const test_pod& p : existing)
    counted.push_back(
        k8s::intern(k8s::resolve_attachable(p.identity(), p.volumes, w.catalog, false), ids));
  const std::vector<k8s::attachable_volume> attached =
      k8s::node_attachments(node_name, w.catalog, ids);
  const k8s::attachable_names resolved =
      k8s::resolve_attachable(pod.identity(), pod.volumes, w.catalog, true);
  k8s::node_volume_limits limits;
  limits.prepare(
      pod.volumes, resolved, ids, w.catalog, 1, [](std::size_t) { return node_name; },
      [&](std::size_t) { return std::span<const k8s::attachable_volume>(attached); });
  if (!limits.active()) return {true, {}};
  k8s::node_volume_limits_overlay overlay;
  overlay.reset(&limits, 0);
  for (const auto& c : counted) overlay.update(c, +1);
  return {false, overlay.filter()};
}

bool exceeds(const outcome& o) {
  return !o.skipped && o.filter.code() == status_code::unschedulable &&
         o.filter.reason() == k8s::max_volume_count_reason;
}
bool fits(const outcome& o) { return !o.skipped && o.filter.is_success(); }

test_pod pod() { return test_pod{}; }

}  // namespace

TEST_CASE("kubernetes node volume limits: TestCSILimits") {
  const test_pod running = pod().claim("csi-ebs.csi.aws.com-3");
  const test_pod pending_volume = pod().claim("csi-4");
  const test_pod unbound_pvc_pod2 = pod().claim("csi-4");
  const test_pod missing_pv = pod().claim("csi-6");
  const test_pod no_sc_pvc = pod().claim("csi-5");
  const test_pod gce_two =
      pod().claim("csi-pd.csi.storage.gke.io-1").claim("csi-pd.csi.storage.gke.io-2");
  const test_pod in_tree_one = pod().claim("csi-kubernetes.io/aws-ebs-0");
  const test_pod in_tree_two =
      pod().claim("csi-kubernetes.io/aws-ebs-1").claim("csi-kubernetes.io/aws-ebs-2");
  const test_pod ebs_one = pod().claim("csi-ebs.csi.aws.com-0");
  const test_pod ebs_two = pod().claim("csi-ebs.csi.aws.com-1").claim("csi-ebs.csi.aws.com-2");
  const test_pod non_migratable = pod().claim("csi-kubernetes.io/hostpath-0");
  test_pod ephemeral_pod{"test", "abc", "12345", {}};
  ephemeral_pod.ephemeral("xyz");
  test_pod ephemeral_two{"test", "abc", "12345II", {}};
  ephemeral_two.ephemeral("x").ephemeral("y");
  const test_pod in_tree_inline = pod().aws_inline("aws-inline1");
  const test_pod in_tree_inline_same_id = pod().aws_inline("csi-ebs.csi.aws.com-1");

  SUBCASE("should count VolumeAttachments towards volume limit when no pods exist") {
    csi_world w({ebs}, "csinode", 2, 2);
    CHECK(exceeds(run(w, ebs_one, {})));
  }
  SUBCASE("should schedule pod when VolumeAttachments count does not exceed limit") {
    csi_world w({ebs}, "csinode", 2, 1);
    CHECK(fits(run(w, ebs_one, {})));
  }
  SUBCASE("fits when node volume limit >= new pods CSI volume") {
    csi_world w({ebs}, "csinode", 4, 0);
    CHECK(fits(run(w, ebs_one, {running, ebs_two})));
  }
  SUBCASE("doesn't when node volume limit <= pods CSI volume") {
    csi_world w({ebs}, "csinode", 2, 0);
    CHECK(exceeds(run(w, ebs_one, {running, ebs_two})));
  }
  // Only drivers with volumes left to attach are checked: the pod's one volume is mounted by a
  // pod of the node already, so the full node still fits.
  SUBCASE("a volume mounted on the node already is not checked, however full") {
    csi_world w({ebs}, "csinode", 1, 2);
    CHECK(fits(run(w, ebs_one, {ebs_one, ebs_two})));
  }
  // Two claims of the pod bound to one volume no pod of the cluster mounts: one new volume.
  SUBCASE("the pod's two claims of one volume count once") {
    csi_world w({ebs}, "csinode", 1, 0);
    w.claim("again", "csi-ebs.csi.aws.com-0", {});
    CHECK(fits(run(w, pod().claim("csi-ebs.csi.aws.com-0").claim("again"), {})));
  }
  SUBCASE("should when driver does not support volume limits") {
    csi_world w({ebs}, "csinode-with-no-limit", 2, 0);
    CHECK(fits(run(w, ebs_one, {running, ebs_two})));
  }
  SUBCASE("count pending PVCs towards volume limit <= pods CSI volume") {
    csi_world w({ebs}, "csinode", 2, 0);
    CHECK(exceeds(run(w, ebs_one, {pending_volume, ebs_two})));
  }
  SUBCASE("count multiple pending pvcs towards volume limit >= pods CSI volume") {
    csi_world w({ebs}, "csinode", 4, 0);
    CHECK(fits(run(w, ebs_one, {pending_volume, unbound_pvc_pod2, ebs_two})));
  }
  SUBCASE("should count PVCs with invalid PV name but valid SC") {
    csi_world w({ebs}, "csinode", 2, 0);
    CHECK(exceeds(run(w, ebs_one, {missing_pv, ebs_two})));
  }
  SUBCASE("don't count pvcs with missing SC towards volume limit") {
    csi_world w({ebs}, "csinode", 2, 0);
    CHECK(fits(run(w, ebs_one, {running, no_sc_pvc})));
  }
  SUBCASE("count pvcs with the same type towards volume limit") {
    csi_world w({ebs, gce}, "csinode", 2, 0);
    CHECK(exceeds(run(w, ebs_one, {gce_two, ebs_two})));
  }
  SUBCASE("don't count pvcs with different type towards volume limit") {
    csi_world w({ebs, gce}, "csinode", 2, 0);
    CHECK(fits(run(w, gce_two, {ebs_two, running})));
  }
  // In-tree volumes count as their CSI driver where the node has a CSINode. (preempt-whatif
  // refuses a decision that depends on their translated handles; the counts are upstream's here
  // because the rows' handles equal the volumes' names and ids.)
  SUBCASE("should count in-tree volumes if migration is enabled") {
    csi_world w({aws_in_tree, ebs}, "csinode", 2, 0);
    CHECK(exceeds(run(w, in_tree_one, {in_tree_two})));
  }
  SUBCASE("nil csi node") {
    csi_world w({aws_in_tree, ebs}, "", 0, 0);
    CHECK(fits(run(w, in_tree_inline, {in_tree_two})));
  }
  SUBCASE("should count unbound in-tree volumes if migration is enabled") {
    csi_world w({aws_in_tree, ebs}, "csinode", 2, 0);
    CHECK(exceeds(run(w, pending_volume, {in_tree_two})));
  }
  SUBCASE("should not limit pod if volume used does not report limits") {
    csi_world w({aws_in_tree, ebs}, "csinode-with-no-limit", 2, 0);
    CHECK(fits(run(w, in_tree_one, {in_tree_two})));
  }
  SUBCASE("should not count non-migratable in-tree volumes") {
    csi_world w({hostpath_in_tree, ebs}, "csinode", 2, 0);
    CHECK(fits(run(w, non_migratable, {ebs_two})));
  }
  SUBCASE("should count in-tree inline volumes if migration is enabled") {
    csi_world w({aws_in_tree, ebs}, "csinode", 2, 0);
    CHECK(exceeds(run(w, in_tree_inline, {in_tree_two})));
  }
  SUBCASE(
      "should count in-tree and csi volumes if migration is enabled (when scheduling in-tree "
      "volumes)") {
    csi_world w({aws_in_tree, ebs}, "csinode", 2, 0);
    CHECK(exceeds(run(w, in_tree_one, {ebs_two})));
  }
  SUBCASE(
      "should count in-tree, inline and csi volumes if migration is enabled (when scheduling "
      "in-tree volumes)") {
    csi_world w({aws_in_tree, ebs}, "csinode", 3, 0);
    CHECK(exceeds(run(w, in_tree_inline, {ebs_two, in_tree_one})));
  }
  SUBCASE(
      "should not count in-tree, inline and csi volumes if migration is enabled (when "
      "scheduling in-tree volumes)") {
    csi_world w({aws_in_tree, ebs}, "csinode", 3, 0);
    CHECK(fits(run(w, in_tree_inline_same_id, {ebs_two, in_tree_one})));
  }
  SUBCASE(
      "should count in-tree and csi volumes if migration is enabled (when scheduling csi "
      "volumes)") {
    csi_world w({aws_in_tree, ebs}, "csinode", 2, 0);
    CHECK(exceeds(run(w, ebs_one, {in_tree_two})));
  }
  // The informer's lister names the resource "persistentvolumeclaim" (upstream's fake lister:
  // "persistentvolumeclaims").
  SUBCASE("ephemeral volume missing") {
    csi_world w({ebs}, "csinode-with-no-limit", 0, 0);
    const auto o = run(w, ephemeral_pod, {});
    CHECK(o.filter.code() == status_code::unschedulable_and_unresolvable);
    CHECK(o.filter.reason() ==
          "looking up PVC test/abc-xyz: persistentvolumeclaim \"abc-xyz\" not found");
  }
  SUBCASE("ephemeral volume not owned") {
    csi_world w({ebs}, "csinode-with-no-limit", 0, 0);
    w.ephemeral_claim(ephemeral_pod, "xyz", false);
    const auto o = run(w, ephemeral_pod, {});
    CHECK(o.filter.code() == status_code::error);
    CHECK(o.filter.reason() ==
          "PVC test/abc-xyz was not created for pod test/abc (pod is not owner)");
  }
  SUBCASE("ephemeral volume unbound") {
    csi_world w({ebs}, "csinode-with-no-limit", 0, 0);
    w.ephemeral_claim(ephemeral_pod, "xyz", true);
    CHECK(fits(run(w, ephemeral_pod, {})));
  }
  SUBCASE("ephemeral doesn't when node volume limit <= pods CSI volume") {
    csi_world w({ebs}, "csinode", 2, 0);
    w.ephemeral_claim(ephemeral_pod, "xyz", true);
    CHECK(exceeds(run(w, ephemeral_pod, {running, ebs_two})));
  }
  SUBCASE("ephemeral doesn't when node volume limit <= pods ephemeral CSI volume") {
    csi_world w({ebs}, "csinode", 2, 0);
    w.ephemeral_claim(ephemeral_two, "x", true);
    w.ephemeral_claim(ephemeral_two, "y", true);
    CHECK(exceeds(run(w, ebs_one, {running, ephemeral_two})));
  }
  SUBCASE(
      "persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent "
      "volume") {
    csi_world w({ebs}, "csinode", 3, 0);
    w.ephemeral_claim(ephemeral_pod, "xyz", true);
    CHECK(exceeds(run(w, ebs_one, {running, ephemeral_pod, ebs_two})));
  }
  SUBCASE(
      "persistent okay when node volume limit > pods ephemeral CSI volume + persistent "
      "volume") {
    csi_world w({ebs}, "csinode", 5, 0);
    w.ephemeral_claim(ephemeral_pod, "xyz", true);
    CHECK(fits(run(w, ebs_one, {running, ephemeral_pod, ebs_two})));
  }
  SUBCASE("skip Filter when the pod only uses secrets and configmaps") {
    csi_world w({ebs}, "csinode", 2, 0);
    test_pod only_config = pod();
    only_config.volumes.resize(2);  // configMap and secret: sources no plugin reads
    CHECK(run(w, only_config, {}).skipped);
  }
  SUBCASE("don't skip Filter when the pod has pvcs") {
    csi_world w({ebs}, "csinode", 2, 0);
    CHECK(fits(run(w, pod().claim("csi-ebs.csi.aws.com-0"), {})));
  }
  SUBCASE("don't skip Filter when the pod has ephemeral volumes") {
    csi_world w({ebs}, "csinode-with-no-limit", 0, 0);
    const auto o = run(w, ephemeral_pod, {});
    CHECK_FALSE(o.skipped);
    CHECK(o.filter.code() == status_code::unschedulable_and_unresolvable);
  }
  SUBCASE("don't skip Filter when the pod has inline migratable volumes") {
    csi_world w({aws_in_tree, ebs}, "csinode", 2, 0);
    CHECK(exceeds(run(w, in_tree_inline, {in_tree_two})));
  }
}

TEST_CASE("kubernetes node volume limits: TestVolumeLimitScalingGate (enabled, as in v1.37)") {
  const test_pod ebs_one = pod().claim("csi-ebs.csi.aws.com-0");
  const auto not_installed = [](const outcome& o) {
    return o.filter.code() == status_code::unschedulable &&
           o.filter.reason() == "ebs.csi.aws.com CSI driver is not installed on the node";
  };
  SUBCASE("driver that prevents scheduling if missing, no CSINode: not installed") {
    csi_world w({ebs}, "", 0, 0);
    w.drivers.push_back(k8s::csi_driver{ebs, false, true});
    CHECK(not_installed(run(w, ebs_one, {})));
  }
  SUBCASE("driver that prevents scheduling if missing, in the CSINode: limits apply") {
    csi_world w({ebs}, "csinode", 1, 1);
    w.drivers.push_back(k8s::csi_driver{ebs, false, true});
    CHECK(exceeds(run(w, ebs_one, {})));
  }
  SUBCASE("driver without the opt-in, no CSINode: no limit") {
    csi_world w({ebs}, "", 0, 0);
    w.drivers.push_back(k8s::csi_driver{ebs, false, false});
    CHECK(fits(run(w, ebs_one, {})));
  }
  SUBCASE("unknown driver: assumed installed") {
    csi_world w({ebs}, "", 0, 0);
    CHECK(fits(run(w, ebs_one, {})));
  }
}

namespace {

// The pod csi-ebs-2 to place on a node whose only pod mounts csi-ebs-1, before and after that pod
// is evicted (the dry run's RemovePod), with `va_count` VolumeAttachments (csi-ebs-0, -1, ...).
std::pair<kept_status, kept_status> evict_holder(int limit, int va_count) {
  const test_pod placed = pod().claim("csi-ebs.csi.aws.com-2");
  const test_pod holder = pod().claim("csi-ebs.csi.aws.com-1");
  csi_world w({ebs}, "csinode", limit, va_count);
  w.index();
  k8s::volume_ids ids;
  const auto counted = k8s::intern(
      k8s::resolve_attachable(holder.identity(), holder.volumes, w.catalog, false), ids);
  const auto attached = k8s::node_attachments(node_name, w.catalog, ids);
  const k8s::attachable_names resolved =
      k8s::resolve_attachable(placed.identity(), placed.volumes, w.catalog, true);
  k8s::node_volume_limits limits;
  limits.prepare(
      placed.volumes, resolved, ids, w.catalog, 1, [](std::size_t) { return node_name; },
      [&](std::size_t) { return std::span<const k8s::attachable_volume>(attached); });
  k8s::node_volume_limits_overlay overlay;
  overlay.reset(&limits, 0);
  overlay.update(counted, +1);
  const kept_status before = overlay.filter();
  overlay.update(counted, -1);
  return {before, overlay.filter()};
}

}  // namespace

TEST_CASE("kubernetes node volume limits: evicting a pod frees its volume, not its attachment") {
  SUBCASE("no VolumeAttachment: the eviction makes room") {
    const auto [before, after] = evict_holder(1, 0);
    CHECK(before.code() == status_code::unschedulable);
    CHECK(after.is_success());
  }
  SUBCASE("the evicted pod's volume has a VolumeAttachment: it keeps counting") {
    const auto [before, after] = evict_holder(2, 2);
    CHECK(before.code() == status_code::unschedulable);
    CHECK(after.code() == status_code::unschedulable);
    CHECK(after.reason() == k8s::max_volume_count_reason);
  }
}

}  // namespace node_volume_limits_test
