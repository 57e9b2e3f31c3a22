// SPDX-License-Identifier: Apache-2.0
// The VolumeBinding plugin and its binder, with the rows of upstream's binder_test.go
// (TestFindPodVolumesWithoutProvisioning, TestFindPodVolumesWithProvisioning,
// TestFindPodVolumesWithCSIMigration, TestCapacity) and volume_binding_test.go (TestVolumeBinding)
// that the PreFilter and Filter's verdicts express.
#include <doctest/doctest.h>

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "preempt/kubernetes/volume_binding.hpp"

namespace volume_binding_test {

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

constexpr std::int64_t G = 1000 * 1000 * 1000;
constexpr std::int64_t Gi = std::int64_t{1} << 30;
constexpr std::int64_t Mi = std::int64_t{1} << 20;
constexpr const char* node_key = "nodeKey";
constexpr const char* provisioner = "test-provisioner";

enum class claim_state { unbound, prebound, bound, selected_node };

k8s::persistent_volume_claim make_claim(std::string name, std::int64_t size, claim_state state,
                                        std::string volume, std::string cls) {
  k8s::persistent_volume_claim c;
  c.ns = "testns";
  c.name = std::move(name);
  c.uid = "pvc-uid";
  c.storage_request = size;
  c.class_name = std::move(cls);
  if (state == claim_state::selected_node) c.selected_node = "node1";
  if (state == claim_state::bound) c.bind_completed = true;
  if (state == claim_state::bound || state == claim_state::prebound) c.volume_name = volume;
  return c;
}

// makeTestPV: Available, a node affinity nodeKey In (node) when a node is given.
k8s::persistent_volume make_volume(std::string name, std::string node, std::int64_t capacity,
                                   const k8s::persistent_volume_claim* bound_to, std::string cls) {
  k8s::persistent_volume v;
  v.name = std::move(name);
  v.capacity = capacity;
  v.class_name = std::move(cls);
  v.phase = "Available";
  if (!node.empty())
    v.node_affinity = k8s::node_selector{{k8s::node_selector_term{{{node_key, "In", {node}}}, {}}}};
  if (bound_to != nullptr)
    v.claim = k8s::persistent_volume::claim_reference{bound_to->ns, bound_to->name, bound_to->uid};
  return v;
}

// The binder's fixtures (binder_test.go's package variables and newTestBinder's classes).
struct binder_world {
  const k8s::persistent_volume_claim unbound =
      make_claim("unbound-pvc", G, claim_state::unbound, "", "waitClass");
  const k8s::persistent_volume_claim unbound2 =
      make_claim("unbound-pvc2", 5 * G, claim_state::unbound, "", "waitClass");
  const k8s::persistent_volume_claim prebound =
      make_claim("prebound-pvc", G, claim_state::prebound, "pv-node1a", "waitClass");
  const k8s::persistent_volume_claim bound =
      make_claim("bound-pvc", G, claim_state::bound, "pv-bound", "waitClass");
  const k8s::persistent_volume_claim immediate_unbound =
      make_claim("immediate-unbound-pvc", G, claim_state::unbound, "", "immediateClass");
  const k8s::persistent_volume_claim immediate_bound = make_claim(
      "immediate-bound-pvc", G, claim_state::bound, "pv-bound-immediate", "immediateClass");
  const k8s::persistent_volume_claim provisioned =
      make_claim("provisioned-pvc", Gi, claim_state::unbound, "", "waitClassWithProvisioner");
  const k8s::persistent_volume_claim no_provisioner =
      make_claim("no-provisioner-pvc", Gi, claim_state::unbound, "", "waitClass");
  const k8s::persistent_volume_claim topo_mismatch =
      make_claim("topo-mismatch-pvc", Gi, claim_state::unbound, "", "topoMismatchClass");
  const k8s::persistent_volume_claim selected_node =
      make_claim("provisioned-pvc", Gi, claim_state::selected_node, "", "waitClassWithProvisioner");
  const k8s::persistent_volume_claim bound_migration =
      make_claim("pvc-migration-bound", G, claim_state::bound, "pv-migration-bound", "waitClass");

  const k8s::persistent_volume pv_node1a =
      make_volume("pv-node1a", "node1", 5 * G, nullptr, "waitClass");
  const k8s::persistent_volume pv_node1b =
      make_volume("pv-node1b", "node1", 10 * G, nullptr, "waitClass");
  const k8s::persistent_volume pv_node2 = make_volume("pv-node2", "node2", G, nullptr, "waitClass");
  const k8s::persistent_volume pv_bound = make_volume("pv-bound", "node1", G, &bound, "waitClass");
  const k8s::persistent_volume pv_node1a_bound =
      make_volume("pv-node1a", "node1", 5 * G, &unbound, "waitClass");
  const k8s::persistent_volume pv_bound_immediate =
      make_volume("pv-bound-immediate", "node1", G, &immediate_bound, "immediateClass");
  const k8s::persistent_volume pv_bound_immediate_node2 =
      make_volume("pv-bound-immediate", "node2", G, &immediate_bound, "immediateClass");

  std::deque<k8s::storage_class> classes;
  std::deque<k8s::persistent_volume_claim> claims;
  std::deque<k8s::persistent_volume> volumes;
  std::deque<k8s::csi_driver> drivers;
  std::deque<k8s::storage_capacity> capacities;
  std::deque<k8s::csi_node> csi_nodes;
  k8s::storage_catalog catalog;

  binder_world() {
    const auto cls = [&](std::string name, bool wait, std::string prov,
                         std::vector<std::string> values) {
      k8s::storage_class c;
      c.name = std::move(name);
      c.wait_for_first_consumer = wait;
      c.provisioner = std::move(prov);
      if (!values.empty()) c.allowed_topologies = {k8s::topology_term{{{node_key, values}}}};
      classes.push_back(std::move(c));
    };
    cls("waitClassWithProvisioner", true, provisioner, {"node1", "reference-value"});
    cls("immediateClass", false, "", {});
    cls("waitClass", true, "kubernetes.io/no-provisioner", {});
    cls("topoMismatchClass", true, provisioner, {"reference-value"});
  }
  void capacity_check(bool opt_in) {
    drivers.push_back(k8s::csi_driver{provisioner, opt_in, false});
  }
  // makeCapacity: nodeTopology {} (every node) or nodeKey = node.
  void capacity(std::string cls, std::string node, std::optional<std::int64_t> cap,
                std::optional<std::int64_t> max) {
    k8s::storage_capacity c;
    c.name = "net";
    c.class_name = std::move(cls);
    c.node_topology = k8s::label_selector{};
    if (!node.empty()) c.node_topology->match_labels = {{node_key, node}};
    c.capacity = cap;
    c.maximum_volume_size = max;
    capacities.push_back(std::move(c));
  }
  void index() {
    for (const auto& o : classes) catalog.add(o);
    for (const auto& o : claims) catalog.add(o);
    for (const auto& o : volumes) catalog.add(o);
    for (const auto& o : drivers) catalog.add(o);
    for (const auto& o : capacities) catalog.add(o);
    for (const auto& o : csi_nodes) catalog.add(o);
    catalog.index();
  }
};

struct outcome {
  bool failed = false;  // the PreFilter rejected the pod (upstream's shouldFail)
  bool skipped = false;
  kept_status filter;

  const std::vector<std::string>& reasons() const { return filter.reasons_; }
};

// The pod test-pod (testns) with `claims` as volumes (or `pod_volumes`), on node1 (nodeKey=node1).
outcome run(binder_world& w, const std::vector<const k8s::persistent_volume_claim*>& pod_claims,
            const std::vector<const k8s::persistent_volume*>& pvs,
            const std::vector<const k8s::persistent_volume_claim*>& cache_claims = {},
            std::vector<k8s::pod_volume> pod_volumes = {},
            k8s::label_set node_labels = {{node_key, "node1"}}) {
  for (const auto* c : cache_claims.empty() ? pod_claims : cache_claims) w.claims.push_back(*c);
  for (const auto* v : pvs) w.volumes.push_back(*v);
  w.index();
  if (pod_volumes.empty())
    for (const auto* c : pod_claims) {
      k8s::pod_volume v;
      v.name = c->name;
      v.source = k8s::volume_source::claim;
      v.claim_name = c->name;
      pod_volumes.push_back(std::move(v));
    }
  k8s::volume_binding_prefilter pre;
  pre.prefilter({"testns", "test-pod", "test-pod-uid"}, pod_volumes, w.catalog);
  if (!pre.outcome()) return {true, false, pre.outcome()};
  return {false, !pre.active(),
          pre.find_pod_volumes("node1", node_labels, w.catalog.csi_node_named("node1"))};
}

bool ok(const outcome& o) { return !o.failed && o.filter.is_success(); }
bool only(const outcome& o, std::string_view reason) {
  return !o.failed && o.filter.code() == status_code::unschedulable_and_unresolvable &&
         o.reasons() == std::vector<std::string>{std::string(reason)};
}

k8s::pod_volume ephemeral(std::string name) {
  k8s::pod_volume v;
  v.name = std::move(name);
  v.source = k8s::volume_source::ephemeral;
  return v;
}

// makeGenericEphemeralPVC: test-pod-<volume>, bound to pv-bound, immediateClass.
k8s::persistent_volume_claim generic_claim(bool owned) {
  k8s::persistent_volume_claim c =
      make_claim("test-pod-test-volume", G, claim_state::bound, "pv-bound", "immediateClass");
  if (owned) c.controller_uid = "test-pod-uid";
  return c;
}

// TestFindPodVolumesWithoutProvisioning's rows, run with a given CSIDriver setup.
void rows_without_provisioning(void (*setup)(binder_world&)) {
  binder_world w;
  setup(w);
  SUBCASE("no-volumes") { CHECK(run(w, {}, {}).skipped); }
  SUBCASE("no-pvcs") {
    k8s::pod_volume empty_dir;  // a source the plugin does not read
    empty_dir.name = "empty";
    CHECK(run(w, {}, {}, {}, {empty_dir}).skipped);
  }
  SUBCASE("pvc-not-found") { CHECK(run(w, {&w.bound}, {}, {&w.unbound}).failed); }
  SUBCASE("bound-pvc") { CHECK(ok(run(w, {&w.bound}, {&w.pv_bound}))); }
  SUBCASE("bound-pvc,pv-not-exists") {
    CHECK(only(run(w, {&w.bound}, {}), k8s::pv_not_exist_reason));
  }
  SUBCASE("prebound-pvc") { CHECK(run(w, {&w.prebound}, {&w.pv_node1a_bound}).failed); }
  SUBCASE("unbound-pvc,pv-same-node") {
    CHECK(ok(run(w, {&w.unbound}, {&w.pv_node2, &w.pv_node1a, &w.pv_node1b})));
  }
  SUBCASE("unbound-pvc,pv-different-node") {
    CHECK(only(run(w, {&w.unbound}, {&w.pv_node2}), k8s::bind_conflict_reason));
  }
  SUBCASE("two-unbound-pvcs") {
    CHECK(ok(run(w, {&w.unbound, &w.unbound2}, {&w.pv_node1a, &w.pv_node1b})));
  }
  SUBCASE("two-unbound-pvcs,order-by-size") {
    CHECK(ok(run(w, {&w.unbound2, &w.unbound}, {&w.pv_node1a, &w.pv_node1b})));
  }
  SUBCASE("two-unbound-pvcs,partial-match") {
    CHECK(only(run(w, {&w.unbound, &w.unbound2}, {&w.pv_node1a}), k8s::bind_conflict_reason));
  }
  SUBCASE("one-bound,one-unbound") {
    CHECK(ok(run(w, {&w.unbound, &w.bound}, {&w.pv_bound, &w.pv_node1a})));
  }
  SUBCASE("one-bound,one-unbound,no-match") {
    CHECK(only(run(w, {&w.unbound, &w.bound}, {&w.pv_bound, &w.pv_node2}),
               k8s::bind_conflict_reason));
  }
  SUBCASE("one-prebound,one-unbound") {
    CHECK(run(w, {&w.unbound, &w.prebound}, {&w.pv_node1a, &w.pv_node1b}).failed);
  }
  SUBCASE("immediate-bound-pvc") {
    CHECK(ok(run(w, {&w.immediate_bound}, {&w.pv_bound_immediate})));
  }
  SUBCASE("immediate-bound-pvc-wrong-node") {
    CHECK(only(run(w, {&w.immediate_bound}, {&w.pv_bound_immediate_node2}),
               k8s::node_conflict_reason));
  }
  SUBCASE("immediate-unbound-pvc") {
    const auto o = run(w, {&w.immediate_unbound}, {});
    CHECK(o.failed);
    CHECK(o.filter.reason() == k8s::unbound_immediate_reason);
  }
  SUBCASE("immediate-unbound-pvc,delayed-mode-bound") {
    CHECK(run(w, {&w.immediate_unbound, &w.bound}, {&w.pv_bound}).failed);
  }
  SUBCASE("immediate-unbound-pvc,delayed-mode-unbound") {
    CHECK(run(w, {&w.immediate_unbound, &w.unbound}, {}).failed);
  }
  const k8s::persistent_volume pv_bound_generic = [] {
    const auto owned = generic_claim(true);
    return make_volume("pv-bound", "node1", G, &owned, "waitClass");
  }();
  SUBCASE("generic-ephemeral,no-pvc") {
    const auto o = run(w, {}, {}, {}, {ephemeral("no-such-pvc")});
    CHECK(o.failed);
    CHECK(o.filter.reason() ==
          "waiting for ephemeral volume controller to create the persistentvolumeclaim "
          "\"test-pod-no-such-pvc\"");
  }
  SUBCASE("generic-ephemeral,with-pvc") {
    const auto owned = generic_claim(true);
    CHECK(ok(run(w, {}, {&pv_bound_generic}, {&owned}, {ephemeral("test-volume")})));
  }
  SUBCASE("generic-ephemeral,wrong-pvc") {
    const auto conflicting = generic_claim(false);
    const auto o = run(w, {}, {&pv_bound_generic}, {&conflicting}, {ephemeral("test-volume")});
    CHECK(o.failed);
    CHECK(o.filter.reason() ==
          "PVC testns/test-pod-test-volume was not created for pod testns/test-pod (pod is not "
          "owner)");
  }
}

// TestFindPodVolumesWithProvisioning's rows; without CSIStorageCapacity objects a driver that
// tracks capacity blocks every provisioning (NotEnoughSpace).
void rows_with_provisioning(void (*setup)(binder_world&), bool tracks_capacity) {
  binder_world w;
  setup(w);
  const auto provisions = [&](const outcome& o) {
    return tracks_capacity ? only(o, k8s::not_enough_space_reason) : ok(o);
  };
  SUBCASE("one-provisioned") { CHECK(provisions(run(w, {&w.provisioned}, {}))); }
  SUBCASE("two-unbound-pvcs,one-matched,one-provisioned") {
    CHECK(provisions(run(w, {&w.unbound, &w.provisioned}, {&w.pv_node1a})));
  }
  SUBCASE("one-bound,one-provisioned") {
    CHECK(provisions(run(w, {&w.bound, &w.provisioned}, {&w.pv_bound})));
  }
  SUBCASE("one-binding,one-selected-node") {
    CHECK(provisions(run(w, {&w.bound, &w.selected_node}, {&w.pv_bound})));
  }
  SUBCASE("immediate-unbound-pvc") { CHECK(run(w, {&w.immediate_unbound}, {}).failed); }
  SUBCASE("one-immediate-bound,one-provisioned") {
    CHECK(provisions(run(w, {&w.immediate_bound, &w.provisioned}, {&w.pv_bound_immediate})));
  }
  SUBCASE("invalid-provisioner") {
    CHECK(only(run(w, {&w.no_provisioner}, {}), k8s::bind_conflict_reason));
  }
  SUBCASE("volume-topology-unsatisfied") {
    CHECK(only(run(w, {&w.topo_mismatch}, {}), k8s::bind_conflict_reason));
  }
}

}  // namespace

TEST_CASE("kubernetes volume binding: TestFindPodVolumesWithoutProvisioning") {
  SUBCASE("no CSIDriver") {
    rows_without_provisioning([](binder_world&) {});
  }
  SUBCASE("CSIDriver with capacity tracking") {
    rows_without_provisioning([](binder_world& w) { w.capacity_check(true); });
  }
  SUBCASE("CSIDriver without capacity tracking") {
    rows_without_provisioning([](binder_world& w) { w.capacity_check(false); });
  }
}

TEST_CASE("kubernetes volume binding: TestFindPodVolumesWithProvisioning") {
  SUBCASE("no CSIDriver") {
    rows_with_provisioning([](binder_world&) {}, false);
  }
  SUBCASE("CSIDriver with capacity tracking") {
    rows_with_provisioning([](binder_world& w) { w.capacity_check(true); }, true);
  }
  SUBCASE("CSIDriver without capacity tracking") {
    rows_with_provisioning([](binder_world& w) { w.capacity_check(false); }, false);
  }
}

namespace {

// TestCapacity's rows for one CSIDriver.StorageCapacity setting (without it, every row provisions).
void capacity_rows(bool opt_in) {
  const auto expect = [&](bool enough, auto&& add_capacities) {
    binder_world w;
    w.capacity_check(opt_in);
    add_capacities(w);
    const outcome o = run(w, {&w.provisioned}, {});
    if (enough || !opt_in)
      CHECK(ok(o));
    else
      CHECK(only(o, k8s::not_enough_space_reason));
  };
  const std::string cls = "waitClassWithProvisioner";
  SUBCASE("network-attached") {
    expect(true, [&](binder_world& w) { w.capacity(cls, "", Gi, {}); });
  }
  SUBCASE("local-storage") {
    expect(true, [&](binder_world& w) { w.capacity(cls, "node1", Gi, {}); });
  }
  SUBCASE("multiple") {
    expect(true, [&](binder_world& w) {
      w.capacity(cls, "", Gi, {});
      w.capacity(cls, "node2", Gi, {});
      w.capacity(cls, "node1", Gi, {});
    });
  }
  SUBCASE("no-storage") {
    expect(false, [](binder_world&) {});
  }
  SUBCASE("wrong-node") {
    expect(false, [&](binder_world& w) { w.capacity(cls, "node2", Gi, {}); });
  }
  SUBCASE("wrong-storage-class") {
    expect(false, [&](binder_world& w) { w.capacity("waitClass", "node1", Gi, {}); });
  }
  SUBCASE("insufficient-storage") {
    expect(false, [&](binder_world& w) { w.capacity(cls, "node1", Mi, {}); });
  }
  SUBCASE("insufficient-volume-size") {
    expect(false, [&](binder_world& w) { w.capacity(cls, "node1", Gi, Mi); });
  }
  SUBCASE("zero-storage") {
    expect(false, [&](binder_world& w) { w.capacity(cls, "node1", 0, {}); });
  }
  SUBCASE("zero-volume-size") {
    expect(false, [&](binder_world& w) { w.capacity(cls, "node1", {}, 0); });
  }
  SUBCASE("nil-storage") {
    expect(false, [&](binder_world& w) { w.capacity(cls, "node1", {}, {}); });
  }
}

}  // namespace

TEST_CASE("kubernetes volume binding: TestCapacity") {
  SUBCASE("CSIDriver.StorageCapacity=true") { capacity_rows(true); }
  SUBCASE("CSIDriver.StorageCapacity=false") { capacity_rows(false); }
}

// The migrated rows ("pvc-bound", "pvc-bound,node-different-zone") need csi-translation-lib's
// node affinity: the binder reports them as not modelled. Without migration on the node, the
// in-tree volume's own (empty) node affinity decides.
TEST_CASE("kubernetes volume binding: TestFindPodVolumesWithCSIMigration") {
  const auto run_migration = [](bool csi_node, std::string migrated, std::string zone) {
    binder_world w;
    k8s::persistent_volume pv =
        make_volume("pv-migration-bound", "", G, &w.bound_migration, "waitClass");
    pv.source = k8s::volume_source::gce_pd;
    pv.labels = {{"topology.gke.io/zone", "us-east-1"}};
    if (csi_node) {
      k8s::csi_node n;
      n.name = "node1";
      if (!migrated.empty()) n.migrated_plugins = {migrated};
      w.csi_nodes.push_back(n);
    }
    return run(w, {&w.bound_migration}, {&pv}, {}, {},
               k8s::label_set{{"topology.gke.io/zone", zone}});
  };
  const auto not_modelled = [](const outcome& o) {
    return o.filter.code() == status_code::error &&
           o.filter.reason().substr(0, 14) == "not modelled: ";
  };
  SUBCASE("pvc-bound") {
    CHECK(not_modelled(run_migration(true, "kubernetes.io/gce-pd", "us-east-1")));
  }
  SUBCASE("pvc-bound,csinode-not-migrated") { CHECK(ok(run_migration(true, "", "us-east-1"))); }
  SUBCASE("pvc-bound,missing-csinode") { CHECK(ok(run_migration(false, "", "us-east-1"))); }
  SUBCASE("pvc-bound,node-different-zone") {
    CHECK(not_modelled(run_migration(true, "kubernetes.io/gce-pd", "us-east-2")));
  }
}

TEST_CASE("kubernetes volume binding: a volume's node affinity against a node without a name") {
  k8s::persistent_volume pv;
  pv.node_affinity =
      k8s::node_selector{{k8s::node_selector_term{{}, {{"metadata.name", "In", {"node2"}}}}}};
  // matchFields are not checked: the term matches every node.
  CHECK(k8s::volume_node_affinity_matches(pv, {{"kubernetes.io/hostname", "node1"}}));
  pv.node_affinity->terms.front().match_expressions = {{"zone", "In", {"a"}}};
  CHECK_FALSE(k8s::volume_node_affinity_matches(pv, {{"zone", "b"}}));
  CHECK(k8s::volume_node_affinity_matches(pv, {{"zone", "a"}}));
  pv.node_affinity->terms = {k8s::node_selector_term{}};  // an empty term matches nothing
  CHECK_FALSE(k8s::volume_node_affinity_matches(pv, {{"zone", "a"}}));
}

}  // namespace volume_binding_test
