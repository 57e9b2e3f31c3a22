// SPDX-License-Identifier: Apache-2.0
// kubernetes::filter_cluster: the pod-dependent filters on a resource cluster, through victim
// selection (RemovePod/AddPod reach the spread and affinity overlays, not the shared counts).
#include <doctest/doctest.h>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "preempt/budget.hpp"
#include "preempt/kubernetes/filter_cluster.hpp"
#include "preempt/kubernetes/volume_filters.hpp"
#include "preempt/model/resource_cluster.hpp"
#include "preempt/victim_selection.hpp"

namespace filter_cluster_test {

namespace k8s = preempt::kubernetes;
namespace model = preempt::model;

namespace {

struct facts_of {
  const std::vector<k8s::pod_filter_facts>* facts;
  const k8s::pod_filter_facts& operator()(const model::resource_pod& p) const {
    return (*facts)[p.uid() - 1];
  }
};
struct nodes_of {
  const std::vector<k8s::node_facts>* facts;
  const k8s::node_facts& operator()(std::size_t i) const { return (*facts)[i]; }
};
using view = k8s::filter_cluster<model::resource_cluster, facts_of, nodes_of>;

model::resource_pod make(model::pod_id uid, int priority, std::int64_t start) {
  return model::resource_pod(
      {.uid = uid, .priority = priority, .requests = {100, 1}, .start_time = start});
}

}  // namespace

TEST_CASE("kubernetes filter_cluster: spread victims, reprieve, and the shared counts untouched") {
  // zone z1: node 0 with two web pods; zone z2: node 1 with none. maxSkew 1 on zone.
  const k8s::label_set z1{{"zone", "z1"}}, z2{{"zone", "z2"}}, web{{"app", "web"}},
      other{{"app", "db"}};
  const std::vector<k8s::node_facts> nodes{{"n0", &z1, {}, false}, {"n1", &z2, {}, false}};
  const std::vector<k8s::pod_filter_facts> pods{{{"default", &web, false, {}}, {}},
                                                {{"default", &web, false, {}}, {}},
                                                {{"default", &other, false, {}}, {}}};
  model::resource_cluster c;
  c.add_node("n0", {10000, 1 << 30, 110});
  c.add_node("n1", {10000, 1 << 30, 110});
  c.add_pod(0, make(1, 0, 1));
  c.add_pod(0, make(2, 0, 2));
  c.add_pod(0, make(3, 0, 3));  // db: not matched, reprieved
  view v(c, facts_of{&pods}, nodes_of{&nodes});
  std::vector<k8s::spread_constraint> spread(1);
  spread[0].topology_key = "zone";
  spread[0].do_not_schedule = true;
  spread[0].selector = k8s::label_selector{{{"app", "web"}}, {}};
  const k8s::pod_placement placement;
  v.prefilter(k8s::placing_pod{{"default", &web, false, {}}, {}, {}, {}, spread, &placement}, {});
  REQUIRE(v.spread().active());

  auto state = v.make_state();
  v.prepare_state(0, state);
  CHECK(state.fits(make(9, 100, 9)).code() == preempt::status_code::unschedulable);
  CHECK(state.fits(make(9, 100, 9)).reasons()[0] == k8s::spread_reason);

  preempt::victim_scratch<model::resource_pod> scratch;
  const model::resource_pod preemptor = make(9, 100, 9);
  const auto r = preempt::select_victims(preemptor, c[0], state, preempt::no_budgets{}, scratch);
  REQUIRE(r.is_candidate());
  REQUIRE(r.victims.size() == 2);  // both web pods; the db pod is reprieved
  CHECK(r.victims[0]->uid() == 1);
  CHECK(r.victims[1]->uid() == 2);

  // Another state on node 1 sees the PreFilter counts as they were: z1 holds 2, z2 0.
  auto fresh = v.make_state();
  v.prepare_state(1, fresh);
  CHECK(fresh.fits(preemptor).is_success());
  v.prepare_state(0, fresh);
  CHECK_FALSE(fresh.fits(preemptor).is_success());
}

TEST_CASE("kubernetes filter_cluster: host ports and existing anti-affinity through victims") {
  const k8s::label_set h0{{"kubernetes.io/hostname", "n0"}}, web{{"app", "web"}}, none;
  const std::vector<k8s::node_facts> nodes{{"n0", &h0, {}, false}};
  std::vector<k8s::affinity_term> hate(1);
  hate[0].selector = k8s::label_selector{{{"app", "web"}}, {}};
  hate[0].topology_key = "kubernetes.io/hostname";
  const std::vector<k8s::host_port> port80{{"", "TCP", 80}};
  const std::vector<k8s::pod_filter_facts> pods{
      {{"default", &none, false, hate}, {}},    // uid 1: anti-affinity against web
      {{"default", &none, false, {}}, port80},  // uid 2: holds port 80
      {{"default", &none, false, {}}, {}}};     // uid 3: neither
  model::resource_cluster c;
  c.add_node("n0", {10000, 1 << 30, 110});
  for (model::pod_id u = 1; u <= 3; ++u) c.add_pod(0, make(u, 0, static_cast<std::int64_t>(u)));
  view v(c, facts_of{&pods}, nodes_of{&nodes});
  v.prefilter(k8s::placing_pod{{"default", &web, false, {}}, port80, {}, {}, {}, nullptr}, {});
  auto state = v.make_state();
  v.prepare_state(0, state);
  const model::resource_pod preemptor = make(9, 100, 9);
  CHECK(state.fits(preemptor).reasons()[0] == k8s::node_ports_reason);  // NodePorts first
  preempt::victim_scratch<model::resource_pod> scratch;
  const auto r = preempt::select_victims(preemptor, c[0], state, preempt::no_budgets{}, scratch);
  REQUIRE(r.is_candidate());
  REQUIRE(r.victims.size() == 2);
  CHECK(r.victims[0]->uid() == 1);
  CHECK(r.victims[1]->uid() == 2);
}

TEST_CASE("kubernetes filter_cluster: can_fit answers as fits, with and without filters to check") {
  const k8s::label_set h0{{"kubernetes.io/hostname", "n0"}}, z1{{"zone", "z1"}},
      web{{"app", "web"}}, none;
  const std::vector<k8s::node_facts> nodes{{"n0", &h0, {}, false}, {"n1", &z1, {}, false}};
  const std::vector<k8s::host_port> port80{{"", "TCP", 80}};
  const std::vector<k8s::pod_filter_facts> pods{
      {{"default", &web, false, {}}, port80},  // uid 1: holds port 80, 6000m
      {{"default", &none, false, {}}, {}}};    // uid 2: 3000m
  model::resource_cluster c;
  c.add_node("n0", {10000, 1 << 30, 110});
  c.add_node("n1", {10000, 1 << 30, 110});
  const auto with_cpu = [](model::pod_id uid, std::int64_t cpu) {
    return model::resource_pod({.uid = uid, .priority = 0, .requests = {cpu, 1}, .start_time = 1});
  };
  c.add_pod(0, with_cpu(1, 6000));
  c.add_pod(0, with_cpu(2, 3000));
  const model::resource_pod preemptor(
      {.uid = 9, .priority = 100, .requests = {2000, 1}, .start_time = 9});
  const auto agree = [&](view::state_type& s) {
    const bool fits = s.fits(preemptor).is_success();
    CHECK(s.can_fit(preemptor) == fits);
    return fits;
  };

  SUBCASE("no host port wanted, no spread, no affinity: resources alone") {
    view v(c, facts_of{&pods}, nodes_of{&nodes});
    v.prefilter(k8s::placing_pod{{"default", &web, false, {}}, {}, {}, {}, {}, nullptr}, {});
    CHECK_FALSE(v.spread().active());
    CHECK_FALSE(v.affinity().active());
    auto s = v.make_state();
    v.prepare_state(0, s);
    CHECK_FALSE(agree(s));  // 9000m of 10000m used
    REQUIRE(s.remove_pod(c[0].pods()[0]).is_success());
    CHECK(agree(s));  // the port-80 holder gone: the ports were never the question
    REQUIRE(s.add_pod(c[0].pods()[0]).is_success());
    REQUIRE(s.remove_pod(c[0].pods()[1]).is_success());
    CHECK(agree(s));  // 6000m used, port 80 held: fits, the pod wants no port
  }
  SUBCASE("port 80 wanted: the ports in use are tracked") {
    view v(c, facts_of{&pods}, nodes_of{&nodes});
    v.prefilter(k8s::placing_pod{{"default", &web, false, {}}, port80, {}, {}, {}, nullptr}, {});
    auto s = v.make_state();
    v.prepare_state(0, s);
    REQUIRE(s.remove_pod(c[0].pods()[1]).is_success());
    CHECK_FALSE(agree(s));  // room for the cpu, not for the port
    CHECK(s.fits(preemptor).reasons()[0] == k8s::node_ports_reason);
    REQUIRE(s.remove_pod(c[0].pods()[0]).is_success());
    CHECK(agree(s));
    REQUIRE(s.add_pod(c[0].pods()[0]).is_success());
    CHECK_FALSE(agree(s));
    v.prepare_state(1, s);  // an empty node
    CHECK(agree(s));
  }
  SUBCASE("a spread constraint: the overlay decides") {
    std::vector<k8s::spread_constraint> spread(1);
    spread[0].topology_key = "kubernetes.io/hostname";
    spread[0].do_not_schedule = true;
    spread[0].selector = k8s::label_selector{{{"app", "web"}}, {}};
    const k8s::label_set h1{{"kubernetes.io/hostname", "n1"}};
    const std::vector<k8s::node_facts> hosts{{"n0", &h0, {}, false}, {"n1", &h1, {}, false}};
    view v(c, facts_of{&pods}, nodes_of{&hosts});
    const k8s::pod_placement placement;
    v.prefilter(k8s::placing_pod{{"default", &web, false, {}}, {}, {}, {}, spread, &placement}, {});
    REQUIRE(v.spread().active());
    auto s = v.make_state();
    v.prepare_state(0, s);
    REQUIRE(s.remove_pod(c[0].pods()[1]).is_success());
    CHECK_FALSE(agree(s));  // room for the cpu; the web pod makes n0 one too many
    REQUIRE(s.remove_pod(c[0].pods()[0]).is_success());
    CHECK(agree(s));
  }
}

TEST_CASE("kubernetes filter_cluster: branch and bound's bound is Base's when no filter checks") {
  static_assert(preempt::bounds_victim_scores<view::state_type, model::resource_pod>);
  const k8s::label_set web{{"app", "web"}}, none;
  const std::vector<k8s::node_facts> nodes{{"n0", &none, {}, false}};
  const std::vector<k8s::host_port> port80{{"", "TCP", 80}};
  const std::vector<k8s::pod_filter_facts> pods{{{"default", &web, false, {}}, port80},
                                                {{"default", &none, false, {}}, {}}};
  model::resource_cluster c;
  c.add_node("n0", {10000, 1 << 30, 110});
  c.add_pod(0,
            model::resource_pod({.uid = 1, .priority = 0, .requests = {6000, 1}, .start_time = 1}));
  c.add_pod(0,
            model::resource_pod({.uid = 2, .priority = 5, .requests = {3000, 1}, .start_time = 2}));
  const model::resource_pod preemptor(
      {.uid = 9, .priority = 100, .requests = {2000, 1}, .start_time = 9});
  auto base = c.make_state();
  c.prepare_state(0, base);
  const auto expected = base.victim_score_bound(preemptor, 10);
  REQUIRE(expected.has_value());
  CHECK((*expected)[1] == 0);  // the lowest-priority pod alone makes room

  SUBCASE("nothing for the pod-dependent filters to check: Base's bound") {
    view v(c, facts_of{&pods}, nodes_of{&nodes});
    v.prefilter(k8s::placing_pod{{"default", &web, false, {}}, {}, {}, {}, {}, nullptr}, {});
    auto s = v.make_state();
    v.prepare_state(0, s);
    CHECK(s.victim_score_bound(preemptor, 10) == expected);
  }
  SUBCASE("a host port wanted: no bound (freeing the port is not Base's question)") {
    view v(c, facts_of{&pods}, nodes_of{&nodes});
    v.prefilter(k8s::placing_pod{{"default", &web, false, {}}, port80, {}, {}, {}, nullptr}, {});
    auto s = v.make_state();
    v.prepare_state(0, s);
    CHECK_FALSE(s.victim_score_bound(preemptor, 10).has_value());
  }
}

// NodeDeclaredFeatures (upstream's nodedeclaredfeatures plugin, appended to the default profile):
// a node that does not declare a feature the pod requires is UnschedulableAndUnresolvable, once
// every earlier filter passes; a pod that requires none skips the plugin.
TEST_CASE("kubernetes filter_cluster: NodeDeclaredFeatures runs last") {
  const k8s::label_set none;
  const std::vector<std::string> restart_all{"RestartAllContainersOnContainerExits"};
  const std::vector<k8s::node_facts> nodes{{"n0", &none, {}, false},
                                           {"n1", &none, {}, false, restart_all}};
  const std::vector<k8s::pod_filter_facts> pods{{{"default", &none, false, {}}, {}},
                                                {{"default", &none, false, {}}, {}}};
  model::resource_cluster c;
  c.add_node("n0", {1000, 1 << 30, 110});
  c.add_node("n1", {1000, 1 << 30, 110});
  c.add_pod(0,
            model::resource_pod({.uid = 1, .priority = 0, .requests = {1000, 1}, .start_time = 1}));
  c.add_pod(1,
            model::resource_pod({.uid = 2, .priority = 0, .requests = {1000, 1}, .start_time = 1}));
  const model::resource_pod preemptor(
      {.uid = 9, .priority = 100, .requests = {1000, 1}, .start_time = 9});
  view v(c, facts_of{&pods}, nodes_of{&nodes});
  v.prefilter(k8s::placing_pod{{"default", &none, false, {}}, {}, {}, {}, {}, nullptr, restart_all},
              {});
  auto state = v.make_state();
  v.prepare_state(0, state);
  // NodeResourcesFit first: Unschedulable, so preemption tries the node ...
  CHECK(state.fits(preemptor).code() == preempt::status_code::unschedulable);
  preempt::victim_scratch<model::resource_pod> scratch;
  const auto r0 = preempt::select_victims(preemptor, c[0], state, preempt::no_budgets{}, scratch);
  // ... and, its pod gone, NodeDeclaredFeatures rules it out.
  CHECK(r0.outcome.code() == preempt::status_code::unschedulable_and_unresolvable);
  CHECK(r0.outcome.reasons()[0] == k8s::node_declared_features_reason);
  v.prepare_state(1, state);
  const auto r1 = preempt::select_victims(preemptor, c[1], state, preempt::no_budgets{}, scratch);
  REQUIRE(r1.is_candidate());
  CHECK(r1.victims.size() == 1);

  // Without required features the plugin is skipped: n0 is a candidate too.
  view w(c, facts_of{&pods}, nodes_of{&nodes});
  w.prefilter(k8s::placing_pod{{"default", &none, false, {}}, {}, {}, {}, {}, nullptr}, {});
  auto plain = w.make_state();
  w.prepare_state(0, plain);
  CHECK(preempt::select_victims(preemptor, c[0], plain, preempt::no_budgets{}, scratch)
            .is_candidate());
}

TEST_CASE("kubernetes filter_cluster: the conditions each victim's presence triggers") {
  // n0 (zone z1): uid 1 holds port 80; uid 2's anti-affinity rejects web pods; uid 3 is a db pod
  // the preemptor's anti-affinity rejects; uid 4 is a web pod the zone spread counts; uid 5 none
  // of these (another namespace's web pod: not counted by the spread).
  const k8s::label_set labels0{{"kubernetes.io/hostname", "n0"}, {"zone", "z1"}},
      web{{"app", "web"}}, db{{"app", "db"}}, none;
  const std::vector<k8s::node_facts> nodes{{"n0", &labels0, {}, false}};
  std::vector<k8s::affinity_term> hate_web(1), hate_db(1);
  hate_web[0].selector = k8s::label_selector{{{"app", "web"}}, {}};
  hate_web[0].topology_key = "kubernetes.io/hostname";
  hate_db[0].selector = k8s::label_selector{{{"app", "db"}}, {}};
  hate_db[0].topology_key = "zone";
  const std::vector<k8s::host_port> port80{{"", "TCP", 80}}, port81{{"", "TCP", 81}};
  const std::vector<k8s::pod_filter_facts> pods{
      {{"default", &none, false, {}}, port80},    // uid 1
      {{"default", &none, false, hate_web}, {}},  // uid 2
      {{"default", &db, false, {}}, port81},      // uid 3 (port 81: not wanted)
      {{"default", &web, false, {}}, {}},         // uid 4
      {{"other", &web, false, {}}, {}}};          // uid 5
  model::resource_cluster c;
  c.add_node("n0", {10000, 1 << 30, 110});
  for (model::pod_id u = 1; u <= 5; ++u) c.add_pod(0, make(u, 0, static_cast<std::int64_t>(u)));
  view v(c, facts_of{&pods}, nodes_of{&nodes});
  std::vector<k8s::spread_constraint> spread(1);
  spread[0].topology_key = "zone";
  spread[0].do_not_schedule = true;
  spread[0].selector = k8s::label_selector{{{"app", "web"}}, {}};
  const k8s::pod_placement placement;
  v.prefilter(
      k8s::placing_pod{{"default", &web, false, {}}, port80, {}, hate_db, spread, &placement}, {});
  auto state = v.make_state();
  v.prepare_state(0, state);
  const auto conditions = [&](model::pod_id uid) {
    std::vector<std::string> out;
    state.for_each_victim_condition(c[0].pods()[uid - 1], [&](const k8s::victim_condition& k) {
      std::string s(k8s::to_string(k.kind));
      if (!k.subject.empty()) s += " " + std::string(k.subject);
      if (k.port != nullptr) s += " " + std::to_string(k.port->port);
      out.push_back(s);
    });
    return out;
  };
  using list = std::vector<std::string>;
  CHECK(conditions(1) == list{"host-port 80"});
  CHECK(conditions(2) == list{"victim-anti-affinity kubernetes.io/hostname"});
  CHECK(conditions(3) == list{"preemptor-anti-affinity zone"});
  CHECK(conditions(4) == list{"topology-spread zone"});
  CHECK(conditions(5).empty());
  // Read from the PreFilter, not the state's counts: the same with every pod removed.
  for (const auto& p : c[0].pods()) REQUIRE(state.remove_pod(p).is_success());
  CHECK(conditions(1) == list{"host-port 80"});
  CHECK(conditions(4) == list{"topology-spread zone"});

  SUBCASE("a preemptor with none of these filters: no condition") {
    view plain(c, facts_of{&pods}, nodes_of{&nodes});
    plain.prefilter(k8s::placing_pod{{"default", &none, false, {}}, {}, {}, {}, {}, nullptr}, {});
    auto s = plain.make_state();
    plain.prepare_state(0, s);
    std::size_t n = 0;
    for (const auto& p : c[0].pods())
      s.for_each_victim_condition(p, [&](const k8s::victim_condition&) { ++n; });
    CHECK(n == 0);
  }
}

TEST_CASE("kubernetes filter_cluster: a victim's disk that conflicts with the pod's") {
  // n0: uid 1 mounts GCE disk disk-1 read-only, uid 2 disk-2, uid 3 no volume. VolumeRestrictions
  // rejects the node while a pod mounts the pod's disk, unless both mount it read-only.
  const k8s::label_set labels0{{"kubernetes.io/hostname", "n0"}}, none;
  const std::vector<k8s::node_facts> nodes{{"n0", &labels0, {}, false}};
  const auto gce = [](std::string disk, bool read_only) {
    k8s::pod_volume v;
    v.name = "data";
    v.source = k8s::volume_source::gce_pd;
    v.disk = std::move(disk);
    v.read_only = read_only;
    return std::vector<k8s::pod_volume>{v};
  };
  const std::vector<k8s::pod_volume> disk1_ro = gce("disk-1", true), disk2 = gce("disk-2", false);
  const std::vector<k8s::pod_filter_facts> pods{
      {{"default", &none, false, {}}, {}, {disk1_ro, {}}},  // uid 1
      {{"default", &none, false, {}}, {}, {disk2, {}}},     // uid 2
      {{"default", &none, false, {}}, {}, {}}};             // uid 3
  model::resource_cluster c;
  c.add_node("n0", {10000, 1 << 30, 110});
  for (model::pod_id u = 1; u <= 3; ++u) c.add_pod(0, make(u, 0, static_cast<std::int64_t>(u)));
  const k8s::storage_catalog catalog;
  const k8s::volume_ids ids;
  const k8s::attachable_names attachable;
  const auto conditions_for = [&](const std::vector<k8s::pod_volume>& wanted) {
    k8s::volume_filters volumes;
    volumes.prepare(
        k8s::volume_pod{{"default", "p", "uid-p"}, wanted, &attachable}, catalog, ids, 1,
        [&](std::size_t i) -> const k8s::node_facts& { return nodes[i]; },
        [](std::size_t) { return std::span<const k8s::attachable_volume>(); },
        [](std::string_view, std::string_view) { return false; });
    view v(c, facts_of{&pods}, nodes_of{&nodes});
    v.prefilter(
        k8s::placing_pod{{"default", &none, false, {}}, {}, {}, {}, {}, nullptr, {}, &volumes}, {});
    auto state = v.make_state();
    v.prepare_state(0, state);
    std::vector<std::string> out;
    for (const auto& p : c[0].pods())
      state.for_each_victim_condition(p, [&](const k8s::victim_condition& k) {
        out.push_back(std::to_string(p.uid()) + " " + std::string(k8s::to_string(k.kind)) + " " +
                      std::string(k.subject));
      });
    return out;
  };
  using list = std::vector<std::string>;
  // The pod mounts disk-1 read-write: uid 1's read-only mount of it conflicts.
  CHECK(conditions_for(gce("disk-1", false)) == list{"1 disk-conflict disk-1"});
  // Read-only on both sides: no conflict. disk-2 read-only against uid 2's read-write: conflict.
  CHECK(conditions_for(gce("disk-1", true)).empty());
  CHECK(conditions_for(gce("disk-2", true)) == list{"2 disk-conflict disk-2"});
}

namespace {

// A resource cluster as a pod group's evaluator changes it before it places the group: pods of a
// node removed, others added, and the node telling so (removed_pods(), added_pods()).
class changed_cluster {
 public:
  class node_type {
   public:
    std::string_view name() const { return base_->name(); }
    std::span<const model::resource_pod* const> pods() const { return pods_; }
    std::span<const model::resource_pod* const> removed_pods() const { return removed_; }
    std::span<const model::resource_pod* const> added_pods() const { return added_; }

   private:
    friend class changed_cluster;
    const model::resource_node* base_ = nullptr;
    std::vector<const model::resource_pod*> pods_, removed_, added_;
  };
  using state_type = model::resource_cluster::state_type;

  explicit changed_cluster(const model::resource_cluster& base)
      : base_(&base), nodes_(base.size()) {
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      nodes_[i].base_ = &base[i];
      for (const model::resource_pod& p : base[i].pods()) nodes_[i].pods_.push_back(&p);
    }
  }
  void remove(std::size_t i, const model::resource_pod& p) {
    std::erase(nodes_[i].pods_, &p);
    nodes_[i].removed_.push_back(&p);
  }
  void add(std::size_t i, const model::resource_pod& p) {
    nodes_[i].pods_.push_back(&p);
    nodes_[i].added_.push_back(&p);
  }

  std::size_t size() const noexcept { return nodes_.size(); }
  const node_type& operator[](std::size_t i) const noexcept { return nodes_[i]; }
  state_type make_state() const { return base_->make_state(); }
  void prepare_state(std::size_t i, state_type& s) const {
    base_->prepare_state(i, s);
    for (const model::resource_pod* p : nodes_[i].removed_) (void)s.remove_pod(*p);
    for (const model::resource_pod* p : nodes_[i].added_) (void)s.add_pod(*p);
  }

 private:
  const model::resource_cluster* base_;
  std::vector<node_type> nodes_;
};

}  // namespace

TEST_CASE("kubernetes filter_cluster: a node's removed pods drop their host ports as a set does") {
  // n0: uids 1 and 2 both hold port 9090 (NodeInfo.UsedPorts holds it once). Removing uid 2 from
  // the node's NodeInfo (the dry run's RemovePod, or a pod group's evaluator before it places the
  // group) drops 9090 although uid 1 still holds it: HostPortInfo is a set.
  const k8s::label_set none;
  const std::vector<k8s::node_facts> nodes{{"n0", &none, {}, false}};
  const std::vector<k8s::host_port> port9090{{"", "TCP", 9090}};
  const std::vector<k8s::pod_filter_facts> pods{{{"default", &none, false, {}}, port9090},   // 1
                                                {{"default", &none, false, {}}, port9090},   // 2
                                                {{"default", &none, false, {}}, port9090}};  // 3
  model::resource_cluster c;
  c.add_node("n0", {10000, 1 << 30, 110});
  c.add_pod(0, make(1, 1000, 1));
  c.add_pod(0, make(2, 0, 2));
  const model::resource_pod member = make(3, 100, 3);  // placed elsewhere, then added here
  const model::resource_pod& removed = c[0].pods()[1];
  REQUIRE(removed.uid() == 2);
  const model::resource_pod preemptor = make(9, 100, 9);
  const k8s::placing_pod wants9090{{"default", &none, false, {}}, port9090, {}, {}, {}, nullptr};
  using changed_view = k8s::filter_cluster<changed_cluster, facts_of, nodes_of>;
  const auto port_held = [&](auto& state) {
    const preempt::status st = state.fits(preemptor);
    return !st.reasons().empty() && st.reasons()[0] == k8s::node_ports_reason;
  };

  SUBCASE("the dry run's state: removing uid 2 frees the port") {
    view plain(c, facts_of{&pods}, nodes_of{&nodes});
    plain.prefilter(wants9090, {});
    auto s = plain.make_state();
    plain.prepare_state(0, s);
    CHECK(port_held(s));
    REQUIRE(s.remove_pod(removed).is_success());
    CHECK(s.fits(preemptor).is_success());
  }
  SUBCASE("a node listing the pods left, and what was removed: the port is free as well") {
    changed_cluster now(c);
    now.remove(0, removed);
    REQUIRE(now[0].pods().size() == 1);  // uid 1, which holds 9090
    changed_view v(now, facts_of{&pods}, nodes_of{&nodes});
    v.prefilter(wants9090, {});
    auto t = v.make_state();
    v.prepare_state(0, t);
    CHECK(t.fits(preemptor).is_success());
    // Adding the removed pod back holds the port again; removing it drops it again (it counts
    // as one of the node's: set semantics, not a nominated pod's temporary ports).
    REQUIRE(t.add_pod(removed).is_success());
    CHECK(port_held(t));
    REQUIRE(t.remove_pod(removed).is_success());
    CHECK(t.fits(preemptor).is_success());
  }
  SUBCASE("a pod added after the removal holds the port") {
    changed_cluster now(c);
    now.remove(0, removed);
    now.add(0, member);
    changed_view v(now, facts_of{&pods}, nodes_of{&nodes});
    v.prefilter(wants9090, {});
    auto t = v.make_state();
    v.prepare_state(0, t);
    CHECK(port_held(t));
  }
  SUBCASE("nothing removed: the ports of the node's pods") {
    changed_cluster now(c);
    changed_view v(now, facts_of{&pods}, nodes_of{&nodes});
    v.prefilter(wants9090, {});
    auto t = v.make_state();
    v.prepare_state(0, t);
    CHECK(port_held(t));
  }
}

}  // namespace filter_cluster_test
