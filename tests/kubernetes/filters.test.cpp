// Node filters: taints and tolerations, nodeSelector and node affinity, and their order and
// reasons in filter_node.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "preempt/kubernetes/filters.hpp"

namespace filters_test {

namespace k8s = preempt::kubernetes;
using preempt::status_code;

TEST_CASE("kubernetes taints: ToleratesTaint") {
  const k8s::taint t{"dedicated", "gpu", "NoSchedule"};
  CHECK(k8s::tolerates({"dedicated", "Equal", "gpu", "NoSchedule"}, t));
  CHECK(k8s::tolerates({"dedicated", "", "gpu", "NoSchedule"}, t));  // "" = Equal
  CHECK_FALSE(k8s::tolerates({"dedicated", "Equal", "cpu", "NoSchedule"}, t));
  CHECK(k8s::tolerates({"dedicated", "Exists", "", "NoSchedule"}, t));
  CHECK(k8s::tolerates({"dedicated", "Exists", "", ""}, t));  // every effect
  CHECK_FALSE(k8s::tolerates({"dedicated", "Exists", "", "NoExecute"}, t));
  CHECK(k8s::tolerates({"", "Exists", "", ""}, t));       // every taint
  CHECK_FALSE(k8s::tolerates({"", "Equal", "", ""}, t));  // empty key needs Exists
  CHECK_FALSE(k8s::tolerates({"other", "Exists", "", ""}, t));
  CHECK_FALSE(k8s::tolerates({"dedicated", "Lt", "gpu", ""}, t));  // unknown operator
}

TEST_CASE("kubernetes taints: only NoSchedule and NoExecute taints filter") {
  const std::vector<k8s::taint> taints = {
      {"soft", "x", "PreferNoSchedule"}, {"a", "1", "NoExecute"}, {"b", "2", "NoSchedule"}};
  const k8s::taint* t = k8s::first_untolerated(taints, {});
  REQUIRE(t != nullptr);
  CHECK(t->key == "a");
  const std::vector<k8s::toleration> tol = {{"a", "Exists", "", ""}};
  t = k8s::first_untolerated(taints, tol);
  REQUIRE(t != nullptr);
  CHECK(k8s::untolerated_taint_reason(*t) == "node(s) had untolerated taint {b: 2}");
  const std::vector<k8s::toleration> all = {{"", "Exists", "", ""}};
  CHECK(k8s::first_untolerated(taints, all) == nullptr);
}

TEST_CASE("kubernetes node affinity: nodeSelector terms") {
  const k8s::label_set labels{{"zone", "a"}, {"cores", "16"}, {"gpu", "true"}};
  using term = k8s::node_selector_term;
  const auto sel = [](std::vector<term> terms) { return k8s::node_selector{std::move(terms)}; };
  const term zone_a{{{"zone", "In", {"a", "b"}}}, {}};
  const term zone_c{{{"zone", "In", {"c"}}}, {}};
  CHECK(k8s::matches(sel({zone_a}), labels, "n1"));
  CHECK_FALSE(k8s::matches(sel({zone_c}), labels, "n1"));
  CHECK(k8s::matches(sel({zone_c, zone_a}), labels, "n1"));  // terms are ORed
  CHECK(k8s::matches(sel({term{{{"zone", "NotIn", {"c"}}, {"gpu", "Exists", {}}}, {}}}), labels,
                     "n"));
  CHECK_FALSE(k8s::matches(sel({term{{{"zone", "In", {"a"}}, {"gpu", "DoesNotExist", {}}}, {}}}),
                           labels, "n"));  // requirements are ANDed
  CHECK(k8s::matches(sel({term{{{"cores", "Gt", {"8"}}}, {}}}), labels, "n"));
  CHECK_FALSE(k8s::matches(sel({term{{{"cores", "Lt", {"8"}}}, {}}}), labels, "n"));
  CHECK_FALSE(k8s::matches(sel({term{{{"zone", "Gt", {"8"}}}, {}}}), labels, "n"));  // not a number
  CHECK(k8s::matches(sel({term{{}, {{"metadata.name", "In", {"n1"}}}}}), labels, "n1"));
  CHECK_FALSE(k8s::matches(sel({term{{}, {{"metadata.name", "In", {"n1"}}}}}), labels, "n2"));
  CHECK(k8s::matches(sel({term{{}, {{"metadata.name", "NotIn", {"n1"}}}}}), labels, "n2"));
  // An empty term, an empty list and an invalid term match nothing.
  CHECK_FALSE(k8s::matches(sel({term{}}), labels, "n1"));
  CHECK_FALSE(k8s::matches(sel({}), labels, "n1"));
  const term invalid{{{"zone", "Is", {"a"}}}, {}};
  CHECK_FALSE(k8s::matches(sel({invalid}), labels, "n1"));
  CHECK(k8s::matches(sel({invalid, zone_a}), labels, "n1"));
  CHECK_FALSE(k8s::validate(sel({invalid})).ok());
  CHECK_FALSE(k8s::validate(sel({term{{{"zone", "In", {}}}, {}}})).ok());
  CHECK_FALSE(k8s::validate(sel({term{{{"zone", "Exists", {"a"}}}, {}}})).ok());
  CHECK_FALSE(k8s::validate(sel({term{{{"cores", "Gt", {"8", "9"}}}, {}}})).ok());
  CHECK_FALSE(k8s::validate(sel({term{{}, {{"metadata.labels", "In", {"x"}}}}})).ok());
  CHECK(k8s::validate(sel({zone_a})).message().empty());
  CHECK(k8s::validate(sel({invalid})).message() ==
        "unknown operator (key \"zone\", operator \"Is\")");
}

TEST_CASE("kubernetes filters: order and reasons of filter_node") {
  const k8s::label_set labels{{"zone", "a"}};
  const std::vector<k8s::taint> taints = {{"dedicated", "gpu", "NoSchedule"}};
  k8s::pod_placement pod;
  k8s::node_facts node{"n1", &labels, taints, true};

  auto v = k8s::filter_node(pod, node);
  CHECK(v.code == status_code::unschedulable_and_unresolvable);
  CHECK(v.reason == "node(s) were unschedulable");
  pod.tolerations.push_back({"node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule"});
  pod.node_name = "n2";
  CHECK(k8s::filter_node(pod, node).reason == "node(s) didn't match the requested node name");
  pod.node_name = "n1";
  CHECK(k8s::filter_node(pod, node).reason == "node(s) had untolerated taint(s)");
  pod.tolerations.push_back({"dedicated", "Equal", "gpu", ""});
  pod.node_selector_map = {{"zone", "b"}};
  CHECK(k8s::filter_node(pod, node).reason == "node(s) didn't match Pod's node affinity/selector");
  pod.node_selector_map = {{"zone", "a"}};
  CHECK(k8s::filter_node(pod, node).passed());
  pod.required_node_affinity = k8s::node_selector{{{{{"zone", "In", {"b"}}}, {}}}};
  CHECK(k8s::filter_node(pod, node).reason == "node(s) didn't match Pod's node affinity/selector");
  pod.required_node_affinity->terms.push_back({{{"zone", "Exists", {}}}, {}});
  CHECK(k8s::filter_node(pod, node).passed());
  // A node without labels.
  CHECK_FALSE(k8s::filter_node(pod, k8s::node_facts{"n1", nullptr, {}, false}).passed());
}

TEST_CASE("kubernetes filters: requests beyond the whole node") {
  const preempt::model::resource_vector alloc{1000, 4096, 2};
  CHECK_FALSE(k8s::exceeds_allocatable({1000, 4096, 5}, alloc));  // pod slots do not count
  CHECK(k8s::exceeds_allocatable({1001, 0}, alloc));
  CHECK(k8s::exceeds_allocatable({0, 0, 0, 0, 1}, alloc));  // an extended resource it lacks
  CHECK_FALSE(k8s::exceeds_allocatable({}, alloc));
}

}  // namespace filters_test
