// Label sets and selectors: Kubernetes' LabelSelectorAsSelector / Requirement.Matches semantics,
// and the PodDisruptionBudget reading of selectors used by preemption.
#include <doctest/doctest.h>

#include <string>

#include "preempt/kubernetes/labels.hpp"

namespace labels_test {

namespace k8s = preempt::kubernetes;
using k8s::label_requirement;
using k8s::label_selector;
using k8s::label_set;
using k8s::selector_operator;

namespace {
label_selector match_labels(std::initializer_list<std::pair<std::string, std::string>> l) {
  label_selector s;
  s.match_labels.assign(l.begin(), l.end());
  return s;
}
label_selector expr(std::string key, selector_operator op, std::vector<std::string> values = {}) {
  label_selector s;
  s.match_expressions.push_back({std::move(key), op, std::move(values)});
  return s;
}
}  // namespace

TEST_CASE("kubernetes labels: label_set keeps one value per key, sorted") {
  label_set l;
  l.set("b", "2");
  l.set("a", "1");
  l.set("b", "3");
  CHECK(l.size() == 2);
  REQUIRE(l.find("b") != nullptr);
  CHECK(*l.find("b") == "3");
  CHECK(l.find("c") == nullptr);
  CHECK(l.begin()->first == "a");
}

TEST_CASE("kubernetes labels: operators") {
  const label_set pod{{"app", "web"}, {"tier", "frontend"}};
  CHECK(k8s::matches(match_labels({{"app", "web"}}), pod));
  CHECK_FALSE(k8s::matches(match_labels({{"app", "db"}}), pod));
  CHECK_FALSE(k8s::matches(match_labels({{"app", "web"}, {"env", "prod"}}), pod));
  CHECK(k8s::matches(expr("app", selector_operator::in, {"db", "web"}), pod));
  CHECK_FALSE(k8s::matches(expr("app", selector_operator::in, {"db"}), pod));
  CHECK_FALSE(k8s::matches(expr("env", selector_operator::in, {"prod"}), pod));
  CHECK(k8s::matches(expr("app", selector_operator::not_in, {"db"}), pod));
  CHECK_FALSE(k8s::matches(expr("app", selector_operator::not_in, {"web"}), pod));
  CHECK(k8s::matches(expr("env", selector_operator::not_in, {"prod"}), pod));  // key absent
  CHECK(k8s::matches(expr("tier", selector_operator::exists), pod));
  CHECK_FALSE(k8s::matches(expr("env", selector_operator::exists), pod));
  CHECK(k8s::matches(expr("env", selector_operator::does_not_exist), pod));
  CHECK_FALSE(k8s::matches(expr("app", selector_operator::does_not_exist), pod));
  // All requirements must hold.
  label_selector both = match_labels({{"app", "web"}});
  both.match_expressions.push_back({"tier", selector_operator::in, {"backend"}});
  CHECK_FALSE(k8s::matches(both, pod));
  // An empty selector matches everything (labels.Everything()).
  CHECK(k8s::matches(label_selector{}, pod));
  CHECK(k8s::matches(label_selector{}, label_set{}));
}

TEST_CASE("kubernetes labels: operator names") {
  CHECK(k8s::parse_selector_operator("In") == selector_operator::in);
  CHECK(k8s::parse_selector_operator("NotIn") == selector_operator::not_in);
  CHECK(k8s::parse_selector_operator("Exists") == selector_operator::exists);
  CHECK(k8s::parse_selector_operator("DoesNotExist") == selector_operator::does_not_exist);
  CHECK(k8s::parse_selector_operator("in") == selector_operator::invalid);
  CHECK(k8s::parse_selector_operator("Gt") == selector_operator::invalid);
}

TEST_CASE("kubernetes labels: validation as LabelSelectorAsSelector") {
  CHECK(k8s::validate(match_labels({{"app", "web"}})).ok());
  CHECK(k8s::validate(match_labels({{"example.com/app", "web-1.a_b"}})).ok());
  CHECK(k8s::validate(match_labels({{"app", ""}})).ok());  // empty values are valid
  CHECK_FALSE(k8s::validate(match_labels({{"bad key", "x"}})).ok());
  CHECK_FALSE(k8s::validate(match_labels({{"-app", "x"}})).ok());
  CHECK_FALSE(k8s::validate(match_labels({{"Example.com/app", "x"}})).ok());  // prefix: lowercase
  CHECK_FALSE(k8s::validate(match_labels({{"a/b/c", "x"}})).ok());
  CHECK_FALSE(k8s::validate(match_labels({{std::string(64, 'a'), "x"}})).ok());
  CHECK(k8s::validate(match_labels({{std::string(63, 'a'), "x"}})).ok());
  CHECK_FALSE(k8s::validate(match_labels({{"app", "has space"}})).ok());
  CHECK_FALSE(k8s::validate(match_labels({{"app", std::string(64, 'v')}})).ok());
  CHECK_FALSE(k8s::validate(expr("app", selector_operator::in)).ok());
  CHECK_FALSE(k8s::validate(expr("app", selector_operator::not_in)).ok());
  CHECK_FALSE(k8s::validate(expr("app", selector_operator::exists, {"x"})).ok());
  CHECK_FALSE(k8s::validate(expr("app", selector_operator::does_not_exist, {"x"})).ok());
  const auto bad_op = k8s::validate(expr("app", selector_operator::invalid));
  CHECK_FALSE(bad_op.ok());
  CHECK(bad_op.message() == "operator must be In, NotIn, Exists or DoesNotExist for key \"app\"");
  CHECK(k8s::validate(match_labels({{"bad key", "x"}})).message() ==
        "invalid label key \"bad key\"");
}

TEST_CASE("kubernetes labels: budgets read selectors as preemption does") {
  const label_set pod{{"app", "web"}};
  CHECK(k8s::budget_selects(match_labels({{"app", "web"}}), pod));
  CHECK_FALSE(k8s::budget_selects(match_labels({{"app", "db"}}), pod));
  // An empty selector matches nothing (not everything).
  CHECK_FALSE(k8s::budget_selects(label_selector{}, pod));
  // An invalid selector matches nothing.
  CHECK_FALSE(k8s::budget_selects(expr("app", selector_operator::in), pod));
  CHECK_FALSE(k8s::budget_selects(expr("app", selector_operator::invalid, {"web"}), pod));
  // A pod without labels matches no budget, even one that would select it.
  CHECK(k8s::matches(expr("app", selector_operator::does_not_exist), label_set{}));
  CHECK_FALSE(k8s::budget_selects(expr("app", selector_operator::does_not_exist), label_set{}));
}

}  // namespace labels_test
