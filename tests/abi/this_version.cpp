// Two copies of preempt of different minor versions link into one binary (the ABI namespace of
// preempt/config.hpp, preempt::v<major>_<minor>). This file uses the repository's copy;
// other_minor_version.cpp compiles the same headers as a later minor version. Both run the same
// small preemption, each with its own copy of the header-only code.
//
// Were both copies in one namespace, their inline functions and template instances would be the
// same entities, and the linker would keep one definition for both: one library would silently run
// the other's code. The test checks that each copy has its own namespace and its own definition of
// the same inline functions (distinct addresses), and that each works.
//
// Standalone: its own main; exit status 0 on success, 1 with a message per failed check.
#include <cstdio>
#include <string>

#include "abi/describe_copy.hpp"

abi_test::copy_report abi_test::this_copy() { return describe_this_copy(); }

namespace {

int failures = 0;

void check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "FAILED: %s\n", what);
  ++failures;
}

}  // namespace

int main() {
  const abi_test::copy_report mine = abi_test::this_copy();
  const abi_test::copy_report other = abi_test::other_copy();

  const std::string expected =
      "v" + std::to_string(PREEMPT_VERSION_MAJOR) + "_" + std::to_string(PREEMPT_VERSION_MINOR);
  check(mine.abi_namespace == expected, "this copy lives in preempt::v<major>_<minor>");
  check(other.abi_namespace == "v" + std::to_string(PREEMPT_VERSION_MAJOR) + "_99",
        "the other copy lives in preempt::v<major>_99");
  check(mine.to_string != other.to_string,
        "preempt::to_string(decision_kind) is defined once per copy");
  check(mine.kept_before != other.kept_before,
        "preempt::model::kept_before is defined once per copy");
  check(mine.nominated_node == "node-b" && other.nominated_node == "node-b",
        "each copy nominates node-b");
  check(mine.victims == 1 && other.victims == 1, "each copy evicts one pod");

  if (failures == 0)
    std::printf("preempt::%s and preempt::%s linked into one binary, each with its own code\n",
                mine.abi_namespace.c_str(), other.abi_namespace.c_str());
  return failures == 0 ? 0 : 1;
}
