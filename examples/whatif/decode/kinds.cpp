// examples/whatif/decode/kinds.cpp - see kinds.hpp. One field table per JSON object of each kind,
// from the innermost up.
//
// SPDX-License-Identifier: Apache-2.0
#include "decode/kinds.hpp"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "decode/decoder.hpp"
#include "decode/dra_kinds.hpp"
#include "decode/shared_fields.hpp"
#include "decode/storage_kinds.hpp"
#include "output/one_line.hpp"

namespace whatif::kinds {

namespace {

namespace dom = simdjson::dom;
using decode::context;
using decode::field;
using decode::required;

// ---- Readers particular to Kubernetes values --------------------------------------------------

// A preemptionPolicy (std::optional<preempt::preemption_policy>).
template <auto... Path>
struct policy : decode::detail::member_reader<Path...> {
  static bool read(context& x, dom::element e, decode::detail::owner_of<Path...>& t) {
    std::string_view s;
    if (!x.read_string(e, s)) return false;
    auto p = k8s::parse_preemption_policy(s);
    if (!p) return x.fail(replace_value(p.message(), s));
    decode::detail::at<Path...>(t) = *p;
    return true;
  }
};

// ---- Shared pieces (the selectors and read_named: decode/shared_fields.hpp) -------------------

// metadata.name and metadata.namespace. Namespaced kinds default to "default".
// Not `required`: a repeated metadata merges, so a later one may leave the name out; the name is
// checked once every member is read (read_named).
template <class T>
constexpr field<T> name_field = {"name", decode::text<&T::name>{}};
template <class T>
constexpr field<T> namespace_field = {"namespace", decode::text<&T::ns>{}};

// Names the object in messages before its members are read (so that an error in a member
// listed before metadata.name still names the object): the last string metadata.name and
// metadata.namespace, if any.
void identify_early(context& x, dom::object obj, bool namespaced) {
  std::string_view ns = namespaced ? "default" : "", name;
  for (dom::key_value_pair kv : obj) {
    if (kv.key != "metadata") continue;
    dom::object meta;
    if (kv.value.get_object().get(meta) != simdjson::SUCCESS) continue;
    for (dom::key_value_pair m : meta) {
      std::string_view v;
      if (m.value.get_string().get(v) != simdjson::SUCCESS) continue;
      if (m.key == "name") name = v;
      if (m.key == "namespace" && namespaced && !v.empty()) ns = v;
    }
  }
  x.identify(ns, name);
}

// ---- Node --------------------------------------------------------------------------------------

struct node_decoding : node_object {
  // Kubernetes schedules against status.allocatable; a hand-written node may give capacity only.
  std::optional<k8s::resource_list> allocatable_given, capacity_given;
};

constexpr field<k8s::taint> taint_fields[] = {
    {"key", decode::text<&k8s::taint::key>{}},
    {"value", decode::text<&k8s::taint::value>{}},
    {"effect", decode::text<&k8s::taint::effect>{}},
};
constexpr field<node_object> node_metadata_fields[] = {
    name_field<node_object>,
    {"labels", decode::string_map<&node_object::labels>{}},
};
constexpr field<node_object> node_spec_fields[] = {
    {"unschedulable", decode::boolean<&node_object::unschedulable>{}},
    {"taints", decode::list<taint_fields, &node_object::taints>{}},
};
constexpr field<node_decoding> node_status_fields[] = {
    {"declaredFeatures", decode::strings<&node_object::declared_features>{}},
    {"allocatable", decode::resource_map<&node_decoding::allocatable_given>{}},
    {"capacity", decode::resource_map<&node_decoding::capacity_given>{}},
};
constexpr field<node_decoding> node_fields[] = {
    {"metadata", decode::flatten<node_metadata_fields>{}, required},
    {"spec", decode::flatten<node_spec_fields>{}},
    {"status", decode::flatten<node_status_fields>{}},
};

bool read_node(context& x, dom::element obj, node_decoding& n) {
  if (!read_named(x, obj, node_fields, n)) return false;
  if (n.allocatable_given)
    n.allocatable = std::move(*n.allocatable_given);
  else if (n.capacity_given)
    n.allocatable = std::move(*n.capacity_given);
  return true;
}

// ---- Pod ---------------------------------------------------------------------------------------

struct pod_decoding : pod_object {
  k8s::pod_resources resources;
  bool host_network = false;               // spec.hostNetwork
  std::vector<dom::element> specs;         // every spec object, for the placement pass
  std::optional<dom::element> conditions;  // the last status.conditions
};

constexpr field<k8s::container_resources> resources_fields[] = {
    {"requests", decode::resource_map<&k8s::container_resources::requests>{}},
    {"limits", decode::resource_map<&k8s::container_resources::limits>{}},
};
constexpr field<k8s::container_resources> container_fields[] = {
    {"name", decode::text<&k8s::container_resources::name>{}},
    {"resources", decode::flatten<resources_fields>{}},
    {"restartPolicy",
     [](context& x, dom::element e, k8s::container_resources& c) {
       std::string_view policy;
       if (!x.read_string(e, policy)) return false;
       c.restart_always = policy == "Always";
       return true;
     },
     [](k8s::container_resources& c) { c.restart_always = false; }},
};

constexpr field<k8s::pod_placement> node_affinity_fields[] = {
    {"requiredDuringSchedulingIgnoredDuringExecution",
     decode::object<node_selector_fields, &k8s::pod_placement::required_node_affinity>{}},
};
constexpr field<pod_object> affinity_fields[] = {
    {"nodeAffinity", decode::object<node_affinity_fields, &pod_object::placement>{},
     [](pod_object& p) { p.placement.required_node_affinity.reset(); }},
};

// Required pod (anti-)affinity, read for every pod (preferred terms do not filter).
constexpr field<k8s::affinity_term> affinity_term_fields[] = {
    {"labelSelector", decode::object<label_selector_fields, &k8s::affinity_term::selector>{}},
    {"namespaces", decode::strings<&k8s::affinity_term::namespaces>{}},
    {"namespaceSelector",
     decode::object<label_selector_fields, &k8s::affinity_term::namespace_selector>{}},
    {"topologyKey", decode::text<&k8s::affinity_term::topology_key>{}},
    {"matchLabelKeys", decode::strings<&k8s::affinity_term::match_label_keys>{}},
    {"mismatchLabelKeys", decode::strings<&k8s::affinity_term::mismatch_label_keys>{}},
};
constexpr field<pod_object> pod_affinity_fields[] = {
    {"requiredDuringSchedulingIgnoredDuringExecution",
     decode::list<affinity_term_fields, &pod_object::affinity_terms>{}},
};
constexpr field<pod_object> pod_anti_affinity_fields[] = {
    {"requiredDuringSchedulingIgnoredDuringExecution",
     decode::list<affinity_term_fields, &pod_object::anti_affinity_terms>{}},
};
constexpr field<pod_object> inter_pod_affinity_fields[] = {
    {"podAffinity", decode::flatten<pod_affinity_fields>{},
     [](pod_object& p) { p.affinity_terms.clear(); }},
    {"podAntiAffinity", decode::flatten<pod_anti_affinity_fields>{},
     [](pod_object& p) { p.anti_affinity_terms.clear(); }},
};

// whenUnsatisfiable, nodeAffinityPolicy, nodeTaintsPolicy.
bool read_when_unsatisfiable(context& x, dom::element e, k8s::spread_constraint& c) {
  std::string_view s;
  if (!x.read_string(e, s)) return false;
  if (s != "DoNotSchedule" && s != "ScheduleAnyway")
    return x.fail("must be DoNotSchedule or ScheduleAnyway, not \"" + clip(s) + "\"");
  c.do_not_schedule = s == "DoNotSchedule";
  return true;
}
template <std::optional<k8s::node_inclusion_policy> k8s::spread_constraint::*Member>
bool read_inclusion_policy(context& x, dom::element e, k8s::spread_constraint& c) {
  std::string_view s;
  if (!x.read_string(e, s)) return false;
  if (s != "Honor" && s != "Ignore")
    return x.fail("must be Honor or Ignore, not \"" + clip(s) + "\"");
  c.*Member = s == "Honor" ? k8s::node_inclusion_policy::honor : k8s::node_inclusion_policy::ignore;
  return true;
}
constexpr field<k8s::spread_constraint> spread_fields[] = {
    {"maxSkew", decode::int32<&k8s::spread_constraint::max_skew>{}},
    {"topologyKey", decode::text<&k8s::spread_constraint::topology_key>{}},
    {"whenUnsatisfiable", read_when_unsatisfiable},
    {"labelSelector", decode::object<label_selector_fields, &k8s::spread_constraint::selector>{}},
    {"minDomains", decode::int32<&k8s::spread_constraint::min_domains>{}},
    {"nodeAffinityPolicy", read_inclusion_policy<&k8s::spread_constraint::node_affinity_policy>,
     [](k8s::spread_constraint& c) { c.node_affinity_policy.reset(); }},
    {"nodeTaintsPolicy", read_inclusion_policy<&k8s::spread_constraint::node_taints_policy>,
     [](k8s::spread_constraint& c) { c.node_taints_policy.reset(); }},
    {"matchLabelKeys", decode::strings<&k8s::spread_constraint::match_label_keys>{}},
};

// Host ports: containers[*].ports and those of sidecars (initContainers with restartPolicy
// Always), as upstream's GetHostPorts.
// A container port: its host side, and containerPort, which a hostNetwork pod's hostPort
// defaults to (SetDefaults_Pod, defaultHostNetworkPorts).
struct container_port : k8s::host_port {
  std::int32_t number = 0;  // containerPort
};
struct port_container {
  std::vector<container_port> ports;
  bool restart_always = false;
};
constexpr field<container_port> port_fields[] = {
    {"containerPort", decode::int32<&container_port::number>{}},
    {"hostPort", decode::int32<&k8s::host_port::port>{}},
    {"hostIP", decode::text<&k8s::host_port::host_ip>{}},
    {"protocol", decode::text<&k8s::host_port::protocol>{}},
};
constexpr field<port_container> port_container_fields[] = {
    {"ports", decode::list<port_fields, &port_container::ports>{}},
    {"restartPolicy",
     [](context& x, dom::element e, port_container& c) {
       std::string_view policy;
       if (!x.read_string(e, policy)) return false;
       c.restart_always = policy == "Always";
       return true;
     },
     [](port_container& c) { c.restart_always = false; }},
};
struct pod_ports {
  std::vector<port_container> containers, init_containers;
};
constexpr field<pod_ports> pod_ports_fields[] = {
    {"containers", decode::list<port_container_fields, &pod_ports::containers>{}},
    {"initContainers", decode::list<port_container_fields, &pod_ports::init_containers>{}},
};
constexpr field<k8s::toleration> toleration_fields[] = {
    {"key", decode::text<&k8s::toleration::key>{}},
    {"operator", decode::text<&k8s::toleration::op>{}},
    {"value", decode::text<&k8s::toleration::value>{}},
    {"effect", decode::text<&k8s::toleration::effect>{}},
};
// Read in a second pass over spec, for pending pods and the preemptor only.
constexpr field<pod_object> pod_placement_fields[] = {
    {"nodeSelector",
     decode::string_map<&pod_object::placement, &k8s::pod_placement::node_selector_map>{}},
    {"affinity", decode::flatten<affinity_fields>{},
     [](pod_object& p) { p.placement.required_node_affinity.reset(); }},
    {"tolerations",
     decode::list<toleration_fields, &pod_object::placement, &k8s::pod_placement::tolerations>{}},
    {"topologySpreadConstraints", decode::list<spread_fields, &pod_object::spread>{}},
};

// NodeDeclaredFeatures (component-helpers nodedeclaredfeatures, v0.37): what its features infer
// from a pod's spec for scheduling. RestartAllContainersOnContainerExits: a container's or init
// container's restartPolicyRules[].action RestartAllContainers; UserNamespacesHostNetworkSupport:
// hostNetwork with hostUsers false; VolumeBindMountOptions: a volumeMounts[].bindMountOptions
// not empty (containers, init and ephemeral containers). The others infer nothing.
struct feature_facts {
  bool restart_all = false;
  bool host_network = false;
  std::optional<bool> host_users;
  bool bind_mount_options = false;
};
constexpr field<feature_facts> restart_rule_fields[] = {
    {"action",
     [](context& x, dom::element e, feature_facts& f) {
       std::string_view action;
       if (!x.read_string(e, action)) return false;
       f.restart_all = f.restart_all || action == "RestartAllContainers";
       return true;
     }},
};
constexpr field<feature_facts> volume_mount_fields[] = {
    {"bindMountOptions",
     [](context& x, dom::element e, feature_facts& f) {
       dom::array a;
       if (!x.read_array(e, a)) return false;
       f.bind_mount_options = f.bind_mount_options || a.size() > 0;
       return true;
     }},
};
// Reads every element of an array with `table` into the same target.
template <const auto& Table>
bool read_each_into(context& x, dom::element e, feature_facts& f) {
  dom::array a;
  if (!x.read_array(e, a)) return false;
  std::size_t i = 0;
  for (dom::element item : a) {
    auto s = x.index(i++);
    if (!decode::read_fields(x, item, Table, f)) return false;
  }
  return true;
}
constexpr field<feature_facts> feature_container_fields[] = {
    {"restartPolicyRules", read_each_into<restart_rule_fields>},
    {"volumeMounts", read_each_into<volume_mount_fields>},
};
constexpr field<feature_facts> feature_spec_fields[] = {
    {"containers", read_each_into<feature_container_fields>},
    {"initContainers", read_each_into<feature_container_fields>},
    {"ephemeralContainers", read_each_into<feature_container_fields>},
    {"hostNetwork", decode::boolean<&feature_facts::host_network>{}},
    {"hostUsers", decode::boolean<&feature_facts::host_users>{}},
};

extra_fields& wanted_extras() {
  static extra_fields wanted;
  return wanted;
}

constexpr field<pod_object> pod_metadata_fields[] = {
    name_field<pod_object>,
    namespace_field<pod_object>,
    {"uid", decode::text<&pod_object::uid>{}},
    {"labels", decode::string_map<&pod_object::labels>{}},
    {"annotations",
     [](context& x, dom::element e, pod_object& p) {
       const std::string& key = wanted_extras().cost_annotation;
       if (key.empty()) return true;  // not read
       dom::object o;
       if (!x.read_object(e, o)) return false;
       for (dom::key_value_pair kv : o) {
         if (kv.key != key) continue;
         auto s = x.field(kv.key);
         std::string value;
         if (!x.read_string(kv.value, value)) return false;
         p.annotations.set(std::string(kv.key), std::move(value));
       }
       return true;
     }},
    {"creationTimestamp", decode::instant<&pod_object::created>{}},
    {"deletionTimestamp",
     [](context& x, dom::element e, pod_object& p) {
       preempt::timestamp unused = 0;
       p.deleting = true;
       return x.read_time(e, unused);
     },
     [](pod_object& p) { p.deleting = false; }},
};
constexpr field<pod_object> scheduling_group_fields[] = {
    {"podGroupName",
     [](context& x, dom::element e, pod_object& p) {
       std::string name;
       if (!x.read_string(e, name)) return false;
       p.pod_group = std::move(name);
       return true;
     },
     [](pod_object& p) { p.pod_group.reset(); }},
};
constexpr field<pod_decoding> pod_spec_fields[] = {
    {"containers",
     decode::list<container_fields, &pod_decoding::resources, &k8s::pod_resources::containers>{}},
    {"initContainers", decode::list<container_fields, &pod_decoding::resources,
                                    &k8s::pod_resources::init_containers>{}},
    {"overhead", decode::resource_map<&pod_decoding::resources, &k8s::pod_resources::overhead>{}},
    // Pod-level resources (Kubernetes 1.34+), see kubernetes/requests.hpp.
    {"resources",
     decode::object<resources_fields, &pod_decoding::resources, &k8s::pod_resources::pod_level>{}},
    {"nodeName", decode::text<&pod_object::node_name>{}},
    {"schedulerName", decode::text<&pod_object::scheduler_name>{}},
    {"priority", decode::int32<&pod_object::priority, &k8s::pod_priority_spec::priority>{}},
    {"priorityClassName",
     decode::text<&pod_object::priority, &k8s::pod_priority_spec::priority_class_name>{}},
    {"preemptionPolicy", policy<&pod_object::priority, &k8s::pod_priority_spec::policy>{}},
    {"affinity", decode::flatten<inter_pod_affinity_fields>{},
     [](pod_decoding& p) {
       p.affinity_terms.clear();
       p.anti_affinity_terms.clear();
     }},
    {"schedulingGroup", decode::flatten<scheduling_group_fields>{},
     [](pod_decoding& p) { p.pod_group.reset(); }},
    {"schedulingGates",
     [](context& x, dom::element e, pod_decoding& p) {
       return decode::detail::read_each(x, e, p.scheduling_gates,
                                        [&](dom::element g, std::string& name) {
                                          dom::object o;
                                          if (!x.read_object(g, o)) return false;
                                          for (dom::key_value_pair kv : o) {
                                            if (kv.key != "name" || kv.value.is_null()) continue;
                                            auto f = x.field("name");
                                            if (!x.read_string(kv.value, name)) return false;
                                          }
                                          return true;
                                        });
     },
     [](pod_decoding& p) { p.scheduling_gates.clear(); }},
    {"runtimeClassName",
     [](context& x, dom::element e, pod_decoding& p) {
       std::string name;
       if (!x.read_string(e, name)) return false;
       p.runtime_class = std::move(name);
       return true;
     },
     [](pod_decoding& p) { p.runtime_class.reset(); }},
    {"hostNetwork", decode::boolean<&pod_decoding::host_network>{}},
    {"resourceClaims", dra::pod_claims_field{}},
    {"volumes",
     [](context& x, dom::element e, pod_decoding& p) { return read_pod_volumes(x, e, p.volumes); },
     [](pod_decoding& p) { p.volumes.clear(); }},
};
// In-place resize: what a container status, and the pod's status, say is allocated and actuated.
constexpr field<k8s::actuated_resources> actuated_fields[] = {
    {"requests", decode::resource_map<&k8s::actuated_resources::requests>{}},
};
constexpr field<k8s::container_status> container_status_fields[] = {
    {"name", decode::text<&k8s::container_status::name>{}},
    {"allocatedResources", decode::resource_map<&k8s::container_status::allocated>{}},
    {"resources", decode::object<actuated_fields, &k8s::container_status::resources>{}},
};
constexpr field<pod_decoding> pod_status_fields[] = {
    {"phase", decode::text<&pod_object::phase>{}},
    {"containerStatuses", decode::list<container_status_fields, &pod_decoding::resources,
                                       &k8s::pod_resources::container_statuses>{}},
    {"initContainerStatuses", decode::list<container_status_fields, &pod_decoding::resources,
                                           &k8s::pod_resources::init_container_statuses>{}},
    {"allocatedResources",
     decode::resource_map<&pod_decoding::resources, &k8s::pod_resources::allocated>{}},
    {"resources",
     decode::object<actuated_fields, &pod_decoding::resources, &k8s::pod_resources::resources>{}},
    {"nominatedNodeName", decode::text<&pod_object::nominated_node_name>{}},
    {"startTime", decode::instant<&pod_object::start_time>{}},
    {"resourceClaimStatuses", dra::pod_claim_statuses_field{}},
    {"conditions",
     [](context&, dom::element e, pod_decoding& p) {
       p.conditions = e;
       return true;
     },
     [](pod_decoding& p) { p.conditions.reset(); }},
};
constexpr field<pod_decoding> pod_fields[] = {
    {"metadata", decode::flatten<pod_metadata_fields>{}, required},
    {"spec",
     [](context& x, dom::element e, pod_decoding& p) {
       p.specs.push_back(e);
       return decode::read_fields(x, e, pod_spec_fields, p);
     },
     required},
    {"status", decode::flatten<pod_status_fields>{}},
};

constexpr field<k8s::pod_condition> condition_fields[] = {
    {"type", decode::text<&k8s::pod_condition::type>{}},
    {"status", decode::text<&k8s::pod_condition::status>{}},
    {"reason", decode::text<&k8s::pod_condition::reason>{}},
};
struct condition_list {
  std::vector<k8s::pod_condition> conditions;
};

// The reason of the first PodResizePending condition (IsPodResizeInfeasible/Deferred), read
// without decoding the other conditions.
bool read_resize_state(context& x, dom::element conditions, k8s::resize_state& out) {
  auto s = x.field("status");
  auto c = x.field("conditions");
  dom::array list;
  if (!x.read_array(conditions, list)) return false;
  std::size_t i = 0;
  for (dom::element e : list) {
    auto at = x.index(i++);
    dom::object o;
    if (e.get_object().get(o) != simdjson::SUCCESS) continue;
    std::string_view type;
    dom::element reason;
    bool has_reason = false;
    for (dom::key_value_pair kv : o) {
      if (kv.key == "type" && kv.value.get_string().get(type) != simdjson::SUCCESS) type = {};
      if (kv.key == "reason") {
        reason = kv.value;
        has_reason = !kv.value.is_null();
      }
    }
    if (type != "PodResizePending") continue;
    std::string_view why;
    if (has_reason) {
      auto r = x.field("reason");
      if (!x.read_string(reason, why)) return false;
    }
    out = why == "Infeasible" ? k8s::resize_state::infeasible
          : why == "Deferred" ? k8s::resize_state::deferred
                              : k8s::resize_state::none;
    return true;
  }
  return true;
}

bool read_pod(context& x, dom::element obj, pod_decoding& p, bool full_placement) {
  if (!read_named(x, obj, pod_fields, p)) return false;
  if (full_placement || p.node_name.empty() || wanted_extras().bound_pods_placement) {
    auto s = x.field("spec");
    feature_facts features;
    for (dom::element spec : p.specs) {
      if (!decode::read_fields(x, spec, pod_placement_fields, p)) return false;
      if (!decode::read_fields(x, spec, feature_spec_fields, features)) return false;
    }
    if (features.restart_all)
      p.required_features.emplace_back("RestartAllContainersOnContainerExits");
    if (features.host_network && features.host_users == false)
      p.required_features.emplace_back("UserNamespacesHostNetworkSupport");
    if (features.bind_mount_options) p.required_features.emplace_back("VolumeBindMountOptions");
  }
  p.placement.node_name = p.node_name;
  if (p.conditions && !read_resize_state(x, *p.conditions, p.resources.resize)) return false;
  p.requests = k8s::effective_requests(p.resources);
  if (k8s::resource_list counted = k8s::node_requests(p.resources); !(counted == p.requests))
    p.node_requests = std::move(counted);
  {
    auto s = x.field("spec");
    pod_ports ports;
    for (dom::element spec : p.specs)
      if (!decode::read_fields(x, spec, pod_ports_fields, ports)) return false;
    // hostNetwork: a hostPort left out is the containerPort (the API server's defaulting;
    // a stored pod already carries it).
    const auto host_side = [&](const container_port& cp) {
      k8s::host_port hp = cp;
      if (p.host_network && hp.port == 0) hp.port = cp.number;
      return hp;
    };
    for (const port_container& c : ports.init_containers)
      if (c.restart_always)
        for (const container_port& cp : c.ports)
          if (const k8s::host_port hp = host_side(cp); hp.port > 0) p.host_ports.push_back(hp);
    for (const port_container& c : ports.containers)
      for (const container_port& cp : c.ports)
        if (const k8s::host_port hp = host_side(cp); hp.port > 0) p.host_ports.push_back(hp);
  }
  // Conditions matter only for pods being deleted: they tell whether it is a preemption.
  if (p.deleting && p.conditions) {
    auto s = x.field("status");
    auto c = x.field("conditions");
    condition_list list;
    if (!decode::list<condition_fields, &condition_list::conditions>::read(x, *p.conditions, list))
      return false;
    p.terminating_by_preemption = k8s::terminating_by_preemption(true, list.conditions);
  }
  return true;
}

// ---- PodDisruptionBudget -----------------------------------------------------------------------

constexpr field<pdb_object> pdb_metadata_fields[] = {name_field<pdb_object>,
                                                     namespace_field<pdb_object>};
constexpr field<pdb_object> pdb_spec_fields[] = {
    {"selector", decode::object<label_selector_fields, &pdb_object::selector>{}},
};
constexpr field<pdb_object> pdb_status_fields[] = {
    {"disruptionsAllowed", decode::int32<&pdb_object::disruptions_allowed>{}},
    // A map of pod name to the time of the eviction request: the names are what counts.
    {"disruptedPods",
     [](context& x, dom::element e, pdb_object& b) {
       dom::object o;
       if (!x.read_object(e, o)) return false;
       for (dom::key_value_pair kv : o)
         if (std::find(b.disrupted_pods.begin(), b.disrupted_pods.end(), kv.key) ==
             b.disrupted_pods.end())
           b.disrupted_pods.emplace_back(kv.key);
       return true;
     },
     [](pdb_object& b) { b.disrupted_pods.clear(); }},
};
constexpr field<pdb_object> pdb_fields[] = {
    {"metadata", decode::flatten<pdb_metadata_fields>{}, required},
    {"spec", decode::flatten<pdb_spec_fields>{}},
    {"status", decode::flatten<pdb_status_fields>{}},
};

// ---- Namespace ---------------------------------------------------------------------------------

constexpr field<namespace_object> namespace_metadata_fields[] = {
    name_field<namespace_object>,
    {"labels", decode::string_map<&namespace_object::labels>{}},
};
constexpr field<namespace_object> namespace_fields[] = {
    {"metadata", decode::flatten<namespace_metadata_fields>{}, required},
};

// ---- PriorityClass -----------------------------------------------------------------------------

constexpr field<k8s::priority_class> class_metadata_fields[] = {name_field<k8s::priority_class>};
constexpr field<k8s::priority_class> class_fields[] = {
    {"metadata", decode::flatten<class_metadata_fields>{}, required},
    {"value", decode::int32<&k8s::priority_class::value>{}, required},
    {"globalDefault", decode::boolean<&k8s::priority_class::global_default>{}},
    {"preemptionPolicy", policy<&k8s::priority_class::policy>{}},
};

// ---- PodGroup, CompositePodGroup (scheduling.k8s.io v1beta1 / v1alpha3), Workload ---------------

// spec.disruptionMode: {all: {}} or {single: {}}.
bool read_disruption_mode(context& x, dom::element e, group_object& g) {
  dom::object o;
  if (!x.read_object(e, o)) return false;
  for (dom::key_value_pair kv : o) {
    if (kv.value.is_null()) continue;
    if (kv.key == "all")
      g.disrupt_all = true;
    else if (kv.key == "single")
      g.disrupt_all = false;
  }
  return true;
}
constexpr field<group_object> gang_fields[] = {
    {"minCount", decode::int32<&group_object::min_count>{}},
    {"minGroupCount", decode::int32<&group_object::min_count>{}},
};
constexpr field<group_object> scheduling_policy_fields[] = {
    {"gang",
     [](context& x, dom::element e, group_object& g) {
       g.gang = true;
       return decode::read_fields(x, e, gang_fields, g);
     },
     [](group_object& g) { g.gang = false; }},
};
constexpr field<group_object> scheduling_constraints_fields[] = {
    {"topology",
     [](context& x, dom::element e, group_object& g) {
       dom::array a;
       if (!x.read_array(e, a)) return false;
       g.topology = a.size() > 0;
       return true;
     },
     [](group_object& g) { g.topology = false; }},
};
constexpr field<group_object> group_metadata_fields[] = {name_field<group_object>,
                                                         namespace_field<group_object>};
constexpr field<group_object> group_spec_fields[] = {
    {"parentCompositePodGroupName", decode::text<&group_object::parent>{},
     [](group_object& g) { g.parent.clear(); }},
    {"disruptionMode", read_disruption_mode, [](group_object& g) { g.disrupt_all = false; }},
    {"priority", decode::int32<&group_object::priority, &k8s::pod_priority_spec::priority>{}},
    {"priorityClassName",
     decode::text<&group_object::priority, &k8s::pod_priority_spec::priority_class_name>{}},
    {"preemptionPolicy", policy<&group_object::priority, &k8s::pod_priority_spec::policy>{}},
    {"schedulingPolicy", decode::flatten<scheduling_policy_fields>{}},
    {"schedulingConstraints", decode::flatten<scheduling_constraints_fields>{},
     [](group_object& g) { g.topology = false; }},
};
constexpr field<group_object> group_fields[] = {
    {"metadata", decode::flatten<group_metadata_fields>{}, required},
    {"spec", decode::flatten<group_spec_fields>{}},
};

bool add_group(context& x, dom::element obj, const origin& where, cluster_dump& dump,
               group_object::kind_type kind) {
  group_object g;
  g.kind = kind;
  g.file = where.file;
  if (!read_named(x, obj, group_fields, g)) return false;
  dump.groups.push_back(std::move(g));
  return true;
}

struct workload_object {
  std::string ns, name;
};
constexpr field<workload_object> workload_metadata_fields[] = {name_field<workload_object>,
                                                               namespace_field<workload_object>};
constexpr field<workload_object> workload_fields[] = {
    {"metadata", decode::flatten<workload_metadata_fields>{}, required},
};

// ---- RuntimeClass (node.k8s.io/v1), LimitRange -------------------------------------------------

constexpr field<runtime_class_object> runtime_class_metadata_fields[] = {
    name_field<runtime_class_object>};
constexpr field<runtime_class_object> runtime_class_overhead_fields[] = {
    {"podFixed", decode::resource_map<&runtime_class_object::overhead>{}},
};
constexpr field<runtime_class_object> runtime_class_scheduling_fields[] = {
    {"nodeSelector", decode::string_map<&runtime_class_object::node_selector>{}},
    {"tolerations", decode::list<toleration_fields, &runtime_class_object::tolerations>{}},
};
constexpr field<runtime_class_object> runtime_class_fields[] = {
    {"metadata", decode::flatten<runtime_class_metadata_fields>{}, required},
    {"overhead", decode::flatten<runtime_class_overhead_fields>{}},
    {"scheduling", decode::flatten<runtime_class_scheduling_fields>{}},
};

constexpr field<limit_range_object::item> limit_range_item_fields[] = {
    {"type", decode::text<&limit_range_object::item::type>{}},
    {"defaultRequest", decode::resource_map<&limit_range_object::item::default_request>{}},
    {"default", decode::resource_map<&limit_range_object::item::default_limit>{}},
    {"min", decode::resource_map<&limit_range_object::item::min>{}},
    {"max", decode::resource_map<&limit_range_object::item::max>{}},
    {"maxLimitRequestRatio",
     decode::resource_map<&limit_range_object::item::max_limit_request_ratio>{}},
};
constexpr field<limit_range_object> limit_range_metadata_fields[] = {
    name_field<limit_range_object>, namespace_field<limit_range_object>};
constexpr field<limit_range_object> limit_range_spec_fields[] = {
    {"limits", decode::list<limit_range_item_fields, &limit_range_object::limits>{}},
};
constexpr field<limit_range_object> limit_range_fields[] = {
    {"metadata", decode::flatten<limit_range_metadata_fields>{}, required},
    {"spec", decode::flatten<limit_range_spec_fields>{}},
};

// ---- Dispatch ----------------------------------------------------------------------------------

using adder = bool (*)(context&, dom::element, const origin&, cluster_dump&);

struct kind_entry {
  std::string_view kind;
  bool namespaced;
  adder add;
};

constexpr kind_entry kind_table[] = {
    {"Pod", true,
     [](context& x, dom::element obj, const origin& where, cluster_dump& dump) {
       pod_decoding p;
       p.file = where.file;
       p.item = where.item;
       if (!read_pod(x, obj, p, false)) return false;
       dump.pods.push_back(std::move(static_cast<pod_object&>(p)));
       return true;
     }},
    {"Node", false,
     [](context& x, dom::element obj, const origin& where, cluster_dump& dump) {
       node_decoding n;
       n.file = where.file;
       if (!read_node(x, obj, n)) return false;
       dump.nodes.push_back(std::move(static_cast<node_object&>(n)));
       return true;
     }},
    {"PodDisruptionBudget", true,
     [](context& x, dom::element obj, const origin& where, cluster_dump& dump) {
       pdb_object b;
       b.file = where.file;
       if (!read_named(x, obj, pdb_fields, b)) return false;
       dump.pdbs.push_back(std::move(b));
       return true;
     }},
    {"PodGroup", true,
     [](context& x, dom::element obj, const origin& where, cluster_dump& dump) {
       return add_group(x, obj, where, dump, group_object::kind_type::pod_group);
     }},
    {"CompositePodGroup", true,
     [](context& x, dom::element obj, const origin& where, cluster_dump& dump) {
       return add_group(x, obj, where, dump, group_object::kind_type::composite_pod_group);
     }},
    // Read (and named in messages) but not used: preemption does not consult Workloads.
    {"Workload", true,
     [](context& x, dom::element obj, const origin&, cluster_dump& dump) {
       workload_object w;
       if (!read_named(x, obj, workload_fields, w)) return false;
       ++dump.workloads;
       return true;
     }},
    {"Namespace", false,
     [](context& x, dom::element obj, const origin& where, cluster_dump& dump) {
       namespace_object n;
       n.file = where.file;
       if (!read_named(x, obj, namespace_fields, n)) return false;
       dump.namespaces.push_back(std::move(n));
       return true;
     }},
    {"RuntimeClass", false,
     [](context& x, dom::element obj, const origin& where, cluster_dump& dump) {
       runtime_class_object r;
       r.file = where.file;
       if (!read_named(x, obj, runtime_class_fields, r)) return false;
       dump.runtime_classes.push_back(std::move(r));
       return true;
     }},
    {"LimitRange", true,
     [](context& x, dom::element obj, const origin& where, cluster_dump& dump) {
       limit_range_object l;
       l.file = where.file;
       if (!read_named(x, obj, limit_range_fields, l)) return false;
       dump.limit_ranges.push_back(std::move(l));
       return true;
     }},
    // Dynamic resource allocation (resource.k8s.io/v1), dra_kinds.cpp.
    {"ResourceClaim", true,
     [](context& x, dom::element obj, const origin& where, cluster_dump& dump) {
       return dra::add_resource_claim(x, obj, where.file, dump);
     }},
    {"ResourceClaimTemplate", true,
     [](context& x, dom::element obj, const origin&, cluster_dump& dump) {
       return dra::add_claim_template(x, obj, dump);
     }},
    {"DeviceClass", false,
     [](context& x, dom::element obj, const origin&, cluster_dump& dump) {
       return dra::add_device_class(x, obj, dump);
     }},
    {"ResourceSlice", false,
     [](context& x, dom::element obj, const origin&, cluster_dump& dump) {
       return dra::add_resource_slice(x, obj, dump);
     }},
    {"DeviceTaintRule", false,
     [](context& x, dom::element obj, const origin&, cluster_dump& dump) {
       return dra::add_taint_rule(x, obj, dump);
     }},
    {"PriorityClass", false,
     [](context& x, dom::element obj, const origin& where, cluster_dump& dump) {
       k8s::priority_class c;
       if (!read_named(x, obj, class_fields, c)) return false;
       dump.classes.push_back(std::move(c));
       dump.class_files.push_back(where.file);
       return true;
     }},
};

const kind_entry* find_kind(std::string_view kind) noexcept {
  for (const kind_entry& k : kind_table)
    if (k.kind == kind) return &k;
  return nullptr;
}

}  // namespace

bool is_read(std::string_view kind) noexcept {
  return find_kind(kind) != nullptr || is_storage_kind(kind);
}

void read_extra_fields(extra_fields wanted) { wanted_extras() = std::move(wanted); }

std::optional<load_error> add_object(std::string_view kind, dom::element obj, const origin& where,
                                     cluster_dump& dump) {
  const kind_entry* k = find_kind(kind);
  if (k == nullptr && is_storage_kind(kind)) {
    context x(where.file_name, kind, where.position);
    dom::object o;
    if (obj.get_object().get(o) == simdjson::SUCCESS)
      identify_early(x, o, is_namespaced_storage_kind(kind));
    if (!add_storage_object(x, kind, obj, where.file, dump)) return x.take_error();
    return std::nullopt;
  }
  if (k == nullptr) return load_error{std::string(where.file_name) + ": unknown kind"};
  context x(where.file_name, kind, where.position);
  dom::object o;
  if (obj.get_object().get(o) == simdjson::SUCCESS) identify_early(x, o, k->namespaced);
  if (!k->add(x, obj, where, dump)) return x.take_error();
  return std::nullopt;
}

std::optional<load_error> read_preemptor(dom::element obj, const origin& where, pod_object& out) {
  context x(where.file_name, "Pod", where.position);
  dom::object o;
  if (obj.get_object().get(o) == simdjson::SUCCESS) identify_early(x, o, true);
  pod_decoding p;
  if (!read_pod(x, obj, p, true)) return x.take_error();
  p.manifest = std::make_shared<const k8s::pod_resources>(p.resources);
  out = std::move(static_cast<pod_object&>(p));
  out.source = std::string(where.file_name);
  return std::nullopt;
}

}  // namespace whatif::kinds
