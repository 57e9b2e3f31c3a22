// SPDX-License-Identifier: Apache-2.0
// Device selectors (kubernetes/dra/cel.hpp): the rows of upstream's TestCEL
// (k8s.io/dynamic-resource-allocation/cel/compile_test.go, v0.37) the modelled subset covers, and
// the rows it refuses; then the semantics selectors rely on (error absorption, heterogeneous
// equality, quantities, semantic versions, regular expressions).
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "preempt/kubernetes/dra/cel.hpp"

namespace dra_cel_test {

namespace dra = preempt::kubernetes::dra;
namespace cel = preempt::kubernetes::dra::cel;
using cel::outcome_kind;

namespace {

dra::attribute attr(std::string name, bool v) {
  dra::attribute a{std::move(name), {}};
  a.value.kind = dra::attribute_value::kind_type::boolean;
  a.value.boolean = v;
  return a;
}
dra::attribute attr(std::string name, std::int64_t v) {
  dra::attribute a{std::move(name), {}};
  a.value.kind = dra::attribute_value::kind_type::integer;
  a.value.integer = v;
  return a;
}
dra::attribute attr(std::string name, const char* v) {
  dra::attribute a{std::move(name), {}};
  a.value.kind = dra::attribute_value::kind_type::string;
  a.value.text = v;
  return a;
}
dra::attribute version_attr(std::string name, const char* v) {
  dra::attribute a = attr(std::move(name), v);
  a.value.kind = dra::attribute_value::kind_type::version;
  return a;
}
dra::attribute list_attr(std::string name) {
  dra::attribute a{std::move(name), {}};
  a.value.list_present = true;
  return a;
}
dra::capacity cap(std::string name, std::string_view q) {
  return dra::capacity{std::move(name), *dra::parse_amount(q), std::nullopt};
}

// Compiles and evaluates; a compile failure answers `error` (invalid) or `not_modelled`.
cel::outcome run(std::string_view expression, const dra::device& d = {},
                 std::string_view driver = "") {
  const cel::program p = cel::program::compile(expression);
  if (!p.ok())
    return {p.state() == cel::syntax_tree::status::not_modelled ? outcome_kind::not_modelled
                                                                : outcome_kind::error,
            p.message()};
  return p.evaluate(d, driver);
}

dra::device with(std::vector<dra::attribute> attributes,
                 std::vector<dra::capacity> capacities = {}) {
  dra::device d;
  d.name = "device-1";
  d.attributes = std::move(attributes);
  d.capacities = std::move(capacities);
  return d;
}

constexpr std::string_view driver = "dra.example.com";

}  // namespace

TEST_CASE("TestCEL: literals, syntax and type errors") {
  CHECK(run("true").kind == outcome_kind::match);                   // "true"
  CHECK(run("false").kind == outcome_kind::no_match);               // "false"
  CHECK(run("?!").kind == outcome_kind::error);                     // "syntax-error"
  CHECK(run("1").kind == outcome_kind::error);                      // "type-error"
  CHECK(run("device.driver == \"\"").kind == outcome_kind::match);  // "empty-driver-name"
  CHECK(run("device.driver == \"dra.example.com\"", {}, driver).kind ==
        outcome_kind::match);  // "real-driver-name"
}

TEST_CASE("TestCEL: lookups of attributes and domains") {
  const auto e =
      run(R"(device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0")))");
  CHECK(e.kind == outcome_kind::error);  // "runtime-error-lookup-identifier"
  CHECK(e.message.find("no such key: noSuchAttr") != std::string::npos);
  CHECK(run(R"(device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0")))")
            .kind == outcome_kind::error);  // "runtime-error-lookup-map"
  CHECK(run(R"("no-such-domain" in device.attributes)").kind ==
        outcome_kind::no_match);  // "domain-check-negative"
  CHECK(run(R"("dra.example.com" in device.attributes)",
            with({attr("dra.example.com/something", true)}))
            .kind == outcome_kind::match);  // "domain-check-positive"
  const dra::device named = with({attr("name", true)});
  CHECK(run(R"(device.attributes["dra.example.com"].name)", named, driver).kind ==
        outcome_kind::match);  // "driver-name-qualifier"
  CHECK(run(R"(device.attributes["dra.example.com"]["name"])", named, driver).kind ==
        outcome_kind::match);  // "driver-name-qualifier-map-lookup"
  CHECK(
      run(R"(cel.bind(dra, device.attributes["dra.example.com"], dra.name))", named, driver).kind ==
      outcome_kind::match);  // "bind"
  CHECK(run(R"(device.attributes["other.example.com"].name)",
            with({attr("other.example.com/name", true)}), driver)
            .kind == outcome_kind::match);  // "qualified-attribute-name"
}

TEST_CASE("TestCEL: attribute types, quantities and versions") {
  CHECK(run(R"(device.attributes["dra.example.com"].name)", with({attr("name", true)}), driver)
            .kind == outcome_kind::match);  // "bool"
  CHECK(run(R"(device.attributes["dra.example.com"].name > 0)",
            with({attr("name", std::int64_t{1})}),
            driver)
            .kind == outcome_kind::match);  // "int"
  CHECK(run(R"(device.attributes["dra.example.com"].name == "fish")", with({attr("name", "fish")}),
            driver)
            .kind == outcome_kind::match);  // "string"
  const dra::device v = with({version_attr("name", "1.0.0")});
  CHECK(
      run(R"(device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1")))", v, driver)
          .kind == outcome_kind::match);  // "version"
  CHECK(
      run(R"(device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true))",
          v, driver)
          .kind == outcome_kind::match);  // "version_v"
  const dra::device q = with({}, {cap("name", "1Mi")});
  CHECK(run(R"(device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))", q, driver)
            .kind == outcome_kind::match);  // "quantity"
  CHECK(
      run(R"("name" in device.capacity["dra.example.com"] && device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
          q, driver)
          .kind == outcome_kind::match);  // "check-positive"
  CHECK(
      run(R"(!("name" in device.capacity["dra.example.com"]) || device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))")
          .kind == outcome_kind::match);  // "check-negative"
}

TEST_CASE("TestCEL: \"all\" and \"many\"") {
  const dra::device d = with({attr("bool", true), attr("int", std::int64_t{1}),
                              attr("string", "fish"), version_attr("version", "1.0.0")},
                             {cap("quantity", "1Mi")});
  CHECK(run(R"(
device.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"].bool &&
device.attributes["dra.example.com"].int > 0 &&
device.attributes["dra.example.com"].string == "fish" &&
device.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")) &&
device.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"]["bool"] &&
device.attributes["dra.example.com"]["int"] > 0 &&
device.attributes["dra.example.com"]["string"] == "fish" &&
device.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))
)",
            d, driver)
            .kind == outcome_kind::match);
  CHECK(
      run(R"(device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b && device.attributes["dra.example.com"].c)",
          with({attr("a", true), attr("b", true), attr("c", true)}), driver)
          .kind == outcome_kind::match);
}

TEST_CASE("TestCEL: \"regexp_attribute\" and allowMultipleAllocations") {
  CHECK(run(R"(device.attributes["dra.example.com"].services.matches("[^a]?sym"))",
            with({attr("services", "asymetric")}), driver)
            .kind == outcome_kind::match);
  dra::device shared;
  shared.allow_multiple_allocations = true;
  CHECK(run("device.allowMultipleAllocations == true", shared, driver).kind ==
        outcome_kind::match);  // "allow_multiple_allocations"
  CHECK(run("device.allowMultipleAllocations == false", {}, driver).kind ==
        outcome_kind::match);  // "allow_multiple_allocations_default"
}

TEST_CASE("TestCEL: rows outside the modelled subset are refused, never guessed") {
  const dra::device names = with({list_attr("names")});
  // "list-result-type-causes-match-error", "list-of-string": list-typed attributes.
  CHECK(run(R"(device.attributes["dra.example.com"].names)", names, driver).kind ==
        outcome_kind::not_modelled);
  CHECK(run(R"(device.attributes["dra.example.com"].names.size() == 2)", names, driver).kind ==
        outcome_kind::not_modelled);
  // "check_attribute_domains", "check_attribute_ids", "macro-on-list-of-int": macros.
  CHECK(run(R"(device.attributes.exists_one(x, x == "dra.example.com"))").kind ==
        outcome_kind::not_modelled);
  CHECK(run(R"(device.attributes["dra.example.com"].exists_one(x, x == "services"))").kind ==
        outcome_kind::not_modelled);
  // "split_attribute": a function outside the subset.
  CHECK(run(R"(device.attributes["dra.example.com"].services.split("example").size() >= 2)").kind ==
        outcome_kind::not_modelled);
  // "includes-function-can-evaluate" (DRAListTypeAttributes).
  CHECK(run(R"(device.attributes["dra.example.com"].name.includes("fish"))").kind ==
        outcome_kind::not_modelled);
  // "expensive": comprehensions.
  CHECK(run("[1, 2].all(x, x > 0)").kind == outcome_kind::not_modelled);
  CHECK(run(R"({"a": 1}["a"] == 1)").kind == outcome_kind::not_modelled);
  CHECK(run(R"(b"abc" == b"abc")").kind == outcome_kind::not_modelled);
  CHECK(run(R"(device.attributes["d"].?x == 1)").kind == outcome_kind::not_modelled);
  CHECK(run(R"(device.driver.matches("(?i)GPU"))").kind == outcome_kind::not_modelled);
}

TEST_CASE("CEL: && and || absorb an error when the other side decides") {
  const dra::device d = with({attr("model", "a100")});
  // driver differs: `false && error` is false.
  CHECK(run(R"(device.driver == "other" && device.attributes["dra.example.com"].missing == 1)", d,
            driver)
            .kind == outcome_kind::no_match);
  // and commutes: `error && false` is false too.
  CHECK(run(R"(device.attributes["dra.example.com"].missing == 1 && device.driver == "other")", d,
            driver)
            .kind == outcome_kind::no_match);
  CHECK(run(R"(device.attributes["dra.example.com"].missing == 1 || true)", d, driver).kind ==
        outcome_kind::match);
  // `true && error` is the error.
  CHECK(
      run(R"(device.driver == "dra.example.com" && device.attributes["dra.example.com"].missing == 1)",
          d, driver)
          .kind == outcome_kind::error);
  CHECK(run(R"(has(device.attributes["dra.example.com"].missing))", d, driver).kind ==
        outcome_kind::no_match);
  CHECK(run(R"(!has(device.attributes["dra.example.com"].model))", d, driver).kind ==
        outcome_kind::no_match);
}

TEST_CASE("CEL: equality, ordering and membership") {
  // Attribute values are dynamically typed: CEL's heterogeneous equality applies to them.
  const dra::device d = with({attr("int", std::int64_t{1}), attr("string", "1")});
  CHECK(run(R"(device.attributes["dra.example.com"].int == 1.0)", d, driver).kind ==
        outcome_kind::match);  // numbers by value
  CHECK(run(R"(device.attributes["dra.example.com"].int < 2u)", d, driver).kind ==
        outcome_kind::match);  // cross-type numeric comparison
  CHECK(run(R"(device.attributes["dra.example.com"].string == 1)", d, driver).kind ==
        outcome_kind::no_match);  // other types: false
  CHECK(run(R"(device.attributes["dra.example.com"].string < 1)", d, driver).kind ==
        outcome_kind::error);                                      // no ordering across them
  CHECK(run("quantity(\"1\") == 1").kind == outcome_kind::error);  // a Quantity errs against them
  CHECK(run("quantity(\"1\") < quantity(\"2\")").kind == outcome_kind::error);  // no ordering
  CHECK(run("quantity(\"1Gi\") == quantity(\"1073741824\")").kind == outcome_kind::match);
  CHECK(run("\"a\" in [\"b\", \"a\"]").kind == outcome_kind::match);
  CHECK(run("\"abc\" < \"abd\"").kind == outcome_kind::match);
  CHECK(run("9223372036854775807 + 1 > 0").kind == outcome_kind::error);  // overflow
  CHECK(run("-9223372036854775808 < 0").kind == outcome_kind::match);
  CHECK(run("size(\"é\") == 1").kind == outcome_kind::match);  // code points
}

TEST_CASE("CEL: the quantity library") {
  CHECK(run(R"(quantity("1.5").isInteger())").kind == outcome_kind::no_match);
  CHECK(run(R"(quantity("2k").asInteger() == 2000)").kind == outcome_kind::match);
  CHECK(run(R"(quantity("1.5").asInteger() == 1)").kind == outcome_kind::error);
  CHECK(run(R"(sign(quantity("-1m")) == -1)").kind == outcome_kind::match);
  CHECK(run(R"(quantity("1Gi").add(quantity("1Gi")).compareTo(quantity("2Gi")) == 0)").kind ==
        outcome_kind::match);
  CHECK(run(R"(quantity("1").sub(2).isLessThan(quantity("0")))").kind == outcome_kind::match);
  CHECK(run(R"(isQuantity("12x"))").kind == outcome_kind::no_match);
  CHECK(run(R"(quantity("12x") == quantity("1"))").kind == outcome_kind::error);
}

TEST_CASE("CEL: semantic versions") {
  CHECK(dra::compare(*dra::parse_semver("1.0.0-alpha"), *dra::parse_semver("1.0.0")) < 0);
  CHECK(dra::compare(*dra::parse_semver("1.0.0-alpha.1"), *dra::parse_semver("1.0.0-alpha.beta")) <
        0);
  CHECK(dra::compare(*dra::parse_semver("1.0.0+build.1"), *dra::parse_semver("1.0.0")) == 0);
  CHECK_FALSE(dra::parse_semver("01.0.0"));
  CHECK_FALSE(dra::parse_semver("1.0"));
  CHECK(dra::parse_semver("v01.2", true));
  CHECK(
      run(R"(semver("1.2.3").major() == 1 && semver("1.2.3").minor() == 2 && semver("1.2.3").patch() == 3)")
          .kind == outcome_kind::match);
  CHECK(run(R"(semver("1.2") == semver("1.2.0"))").kind == outcome_kind::error);
}

TEST_CASE("CEL: regular expressions (RE2 partial match)") {
  const auto m = [](const char* p, const char* t) {
    return dra::regex::compile(p).search(t) == dra::regex::match_result::match;
  };
  CHECK(m("^a100", "a100-80gb"));
  CHECK(m("80gb$", "a100-80gb"));
  CHECK_FALSE(m("^h", "a100"));
  CHECK(m("^(foo|bar)baz$", "barbaz"));
  CHECK(m("^[a-z]+-[0-9]{2}gb$", "a-80gb"));
  CHECK(m("^.$", "é"));        // one character, two bytes
  CHECK(m("a{,3}", "a{,3}"));  // not a repetition: literal, as RE2 reads it
  CHECK(dra::regex::compile("a**").state() == dra::regex::status::invalid);
  CHECK(dra::regex::compile("\\bword").state() == dra::regex::status::not_modelled);
}

}  // namespace dra_cel_test
