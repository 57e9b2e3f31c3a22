// Kubernetes quantities: upstream's own examples (apimachinery resource/quantity_test.go,
// TestQuantityParse and its invalid list), then the conversions the scheduler uses.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "preempt/kubernetes/quantity.hpp"

namespace quantity_test {

namespace k8s = preempt::kubernetes;
using k8s::quantity_format;

namespace {

constexpr std::int64_t max64 = std::numeric_limits<std::int64_t>::max();

struct parse_case {
  const char* input;
  std::int64_t value;  // the quantity is value × 10^exponent (rounded up to nano, as upstream)
  int exponent;
  quantity_format format;
  bool exact;  // value × 10^exponent is the exact amount (not a rounding)
};

constexpr auto dsi = quantity_format::decimal_si;
constexpr auto bsi = quantity_format::binary_si;
constexpr auto dex = quantity_format::decimal_exponent;

// TestQuantityParse, expected values written as value × 10^exponent.
const parse_case upstream_cases[] = {
    {"0", 0, 0, dsi, true},
    {"0n", 0, 0, dsi, true},
    {"0u", 0, 0, dsi, true},
    {"0m", 0, 0, dsi, true},
    {"0Ki", 0, 0, bsi, true},
    {"0k", 0, 0, dsi, true},
    {"0Mi", 0, 0, bsi, true},
    {"0M", 0, 0, dsi, true},
    {"0Gi", 0, 0, bsi, true},
    {"0G", 0, 0, dsi, true},
    {"0Ti", 0, 0, bsi, true},
    {"0T", 0, 0, dsi, true},
    // Quantity less numbers are allowed
    {"1", 1, 0, dsi, true},
    // Binary suffixes
    {"1Ki", 1024, 0, bsi, true},
    {"8Ki", 8 * 1024, 0, bsi, true},
    {"7Mi", 7 * 1024 * 1024, 0, bsi, true},
    {"6Gi", 6LL * 1024 * 1024 * 1024, 0, bsi, true},
    {"5Ti", 5LL << 40, 0, bsi, true},
    {"4Pi", 4LL << 50, 0, bsi, true},
    {"3Ei", 3LL << 60, 0, bsi, true},
    {"10Ti", 10LL << 40, 0, bsi, true},
    {"100Ti", 100LL << 40, 0, bsi, true},
    // Decimal suffixes
    {"5n", 5, -9, dsi, true},
    {"4u", 4, -6, dsi, true},
    {"3m", 3, -3, dsi, true},
    {"9", 9, 0, dsi, true},
    {"8k", 8, 3, dsi, true},
    {"50k", 5, 4, dsi, true},
    {"7M", 7, 6, dsi, true},
    {"6G", 6, 9, dsi, true},
    {"5T", 5, 12, dsi, true},
    {"40T", 4, 13, dsi, true},
    {"300T", 3, 14, dsi, true},
    {"2P", 2, 15, dsi, true},
    {"1E", 1, 18, dsi, true},
    // Decimal exponents
    {"1E-3", 1, -3, dex, true},
    {"1e3", 1, 3, dex, true},
    {"1E6", 1, 6, dex, true},
    {"1e9", 1, 9, dex, true},
    {"1E12", 1, 12, dex, true},
    {"1e15", 1, 15, dex, true},
    {"1E18", 1, 18, dex, true},
    // Nonstandard but still parsable
    {"1e14", 1, 14, dex, true},
    {"1e13", 1, 13, dex, true},
    {"100.035k", 100035, 0, dsi, true},
    // Things that look like floating point
    {"0.001", 1, -3, dsi, true},
    {"0.0005k", 5, -1, dsi, true},
    {"0.005", 5, -3, dsi, true},
    {"0.05", 5, -2, dsi, true},
    {"0.5", 5, -1, dsi, true},
    {"0.00050k", 5, -1, dsi, true},
    {"0.00500", 5, -3, dsi, true},
    {"0.05000", 5, -2, dsi, true},
    {"0.50000", 5, -1, dsi, true},
    {"0.5e0", 5, -1, dex, true},
    {"0.5e-1", 5, -2, dex, true},
    {"0.5e-2", 5, -3, dex, true},
    {"10.035M", 10035, 3, dsi, true},
    {"1.2e3", 12, 2, dex, true},
    {"1.3E+6", 13, 5, dex, true},
    {"1.40e9", 14, 8, dex, true},
    {"1.53E12", 153, 10, dex, true},
    {"1.6e15", 16, 14, dex, true},
    {"1.7E18", 17, 17, dex, true},
    {"9.01", 901, -2, dsi, true},
    {"8.1k", 81, 2, dsi, true},
    {"7.123456M", 7123456, 0, dsi, true},
    {"6.987654321G", 6987654321, 0, dsi, true},
    {"5.444T", 5444, 9, dsi, true},
    {"40.1T", 401, 11, dsi, true},
    {"300.2T", 3002, 11, dsi, true},
    {"2.5P", 25, 14, dsi, true},
    {"1.01E", 101, 16, dsi, true},
    // Things that saturate/round
    {"3.001n", 4, -9, dsi, false},
    {"1.1E-9", 2, -9, dex, false},
    {"0.0000000001", 1, -9, dsi, false},
    {"0.0000000005", 1, -9, dsi, false},
    {"0.00000000050", 1, -9, dsi, false},
    {"0.5e-9", 1, -9, dex, false},
    {"0.9n", 1, -9, dsi, false},
    {"0.00000012345", 124, -9, dsi, false},
    {"0.00000012354", 124, -9, dsi, false},
    {"9Ei", max64, 0, bsi, true},
    {"9223372036854775807Ki", max64, 0, bsi, true},
    {"12E", 12, 18, dsi, true},
    // We'll accept fractional binary stuff, too.
    {"100.035Ki", 10243584, -2, bsi, true},
    {"0.5Mi", 524288, 0, bsi, true},
    {"0.05Gi", 536870912, -1, bsi, true},
    {"0.025Ti", 274877906944, -1, bsi, true},
    // Things written by trolls
    {"0.000000000001Ki", 2, -9, dsi, false},  // rounds up, changes format
    {".001", 1, -3, dsi, true},
    {".0001k", 100, -3, dsi, true},
    {"1.", 1, 0, dsi, true},
    {"1.G", 1, 9, dsi, true},
};

// The value of q in units of 10^exponent, rounded up (away from zero).
std::int64_t in_units(const k8s::quantity& q, int exponent) {
  auto v = k8s::scaled_value(q, exponent);
  REQUIRE(v.ok());
  return *v;
}

}  // namespace

TEST_CASE("kubernetes quantity: upstream TestQuantityParse values") {
  for (const parse_case& c : upstream_cases) {
    CAPTURE(c.input);
    auto q = k8s::parse_quantity(c.input);
    REQUIRE(q.ok());
    CHECK(in_units(*q, c.exponent) == c.value);
    // Exactness: one decimal place finer gives ten times the value (when it fits).
    if (c.exact && c.value != 0 && c.value <= max64 / 10 && c.exponent > -18)
      CHECK(in_units(*q, c.exponent - 1) == c.value * 10);
    if (c.value != 0) CHECK(q->format == c.format);
    // The negative version of everything, and an explicit plus.
    auto neg = k8s::parse_quantity(std::string("-") + c.input);
    REQUIRE(neg.ok());
    CHECK(in_units(*neg, c.exponent) == -c.value);
    auto pos = k8s::parse_quantity(std::string("+") + c.input);
    REQUIRE(pos.ok());
    CHECK(in_units(*pos, c.exponent) == c.value);
  }
}

TEST_CASE("kubernetes quantity: upstream invalid list and more") {
  const char* invalid[] = {"1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i",
                           "-3.01e-",
                           // trailing whitespace is forbidden
                           " 1", "1 ",
                           // not in upstream's list, rejected all the same
                           "", "1K", "1KiB", "1e", "e", "1ee3", "1e3e3", "1k3", "1e+", "1.5e3.5",
                           "1e99999999999999999999", "++1", "1 Gi", "1,5"};
  for (const char* text : invalid) {
    CAPTURE(text);
    auto q = k8s::parse_quantity(text);
    CHECK_FALSE(q.ok());
    CHECK(q.message().find(std::string("\"") + text + "\"") != std::string::npos);
  }
  CHECK(k8s::parse_quantity("12x").message() ==
        "invalid quantity \"12x\": unexpected character 'x'");
  CHECK(k8s::parse_quantity("1KiB").message() ==
        "invalid quantity \"1KiB\": unexpected character 'B'");
  CHECK(k8s::parse_quantity("1K").message() == "invalid quantity \"1K\": unknown suffix \"K\"");
}

TEST_CASE("kubernetes quantity: upstream's lenient corners are zero") {
  // parseQuantityString accepts a lone sign, a lone dot and a suffix without digits.
  for (const char* text : {".", "-", "+", "-.", "Ki", "m", "00", "0.000"}) {
    CAPTURE(text);
    auto q = k8s::parse_quantity(text);
    REQUIRE(q.ok());
    CHECK(q->is_zero());
    CHECK(in_units(*q, 0) == 0);
  }
}

TEST_CASE("kubernetes quantity: millicores and units as the scheduler counts them") {
  CHECK(*k8s::parse_milli("100m") == 100);
  CHECK(*k8s::parse_milli("0.5") == 500);
  CHECK(*k8s::parse_milli("2") == 2000);
  CHECK(*k8s::parse_milli("1.5") == 1500);
  CHECK(*k8s::parse_milli("1n") == 1);     // rounded up
  CHECK(*k8s::parse_milli("1500u") == 2);  // 1.5m → 2m
  CHECK(*k8s::parse_milli("-1n") == -1);   // away from zero
  CHECK(*k8s::parse_milli("1e-3") == 1);
  CHECK(*k8s::parse_value("1.5") == 2);
  CHECK(*k8s::parse_value("-1.5") == -2);
  CHECK(*k8s::parse_value("1Ki") == 1024);
  CHECK(*k8s::parse_value("1e3") == 1000);
  CHECK(*k8s::parse_value("100m") == 1);
  CHECK(*k8s::parse_value("64Mi") == 64 << 20);
  CHECK(*k8s::parse_value("0.5Gi") == 512 << 20);
  CHECK(*k8s::parse_value("1.5Gi") == (3LL << 29));
  CHECK(*k8s::parse_value("63872156Ki") == 63872156LL * 1024);
  CHECK(*k8s::parse_value("96625420948") == 96625420948);
  CHECK(*k8s::parse_value("9223372036854775807") == max64);
  CHECK(*k8s::parse_value("8Ei") == max64);  // binary quantities are capped, silently
  CHECK(*k8s::parse_value("-8Ei") == -max64);
  CHECK(*k8s::parse_value("0.000000000000000000000000001") == 1);
  CHECK(*k8s::parse_value("123456789012345678901234567890e-20") == 1234567891);
  // Decimal quantities are not capped: beyond 64 bits is an error naming the value.
  CHECK_FALSE(k8s::parse_value("9223372036854775808").ok());
  CHECK_FALSE(k8s::parse_value("12E").ok());
  CHECK(k8s::parse_value("12E").message() ==
        "invalid quantity \"12E\": out of range for a 64-bit integer");
  CHECK_FALSE(k8s::parse_milli("8Ei").ok());
  CHECK(k8s::parse_milli("9223372036854775807").message() ==
        "invalid quantity \"9223372036854775807\": out of range for millis");
  CHECK(*k8s::parse_milli("9223372036854775.807") == max64);
  CHECK(*k8s::parse_milli("1e-9999999") == 1);
  CHECK_FALSE(k8s::parse_milli("1e9999999").ok());
}

TEST_CASE("kubernetes quantity: resource_amount picks the unit by resource") {
  CHECK(*k8s::resource_amount("cpu", "2") == 2000);
  CHECK(*k8s::resource_amount("cpu", "250m") == 250);
  CHECK(*k8s::resource_amount("memory", "1Gi") == 1073741824);
  CHECK(*k8s::resource_amount("ephemeral-storage", "10G") == 10000000000);
  CHECK(*k8s::resource_amount("pods", "110") == 110);
  CHECK(*k8s::resource_amount("nvidia.com/gpu", "1") == 1);
  CHECK(*k8s::resource_amount("hugepages-2Mi", "100Mi") == 100 << 20);
}

}  // namespace quantity_test
