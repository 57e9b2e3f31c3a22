// The second copy of preempt for tests/abi/this_version.cpp: the same headers, compiled as if they
// were a later minor version (0.99 while the repository is 0.1), as a second vendored copy of
// another release would be. preempt/version.hpp is read first, then its minor version replaced;
// config.hpp, which includes version.hpp again (a no-op: include guard), derives the ABI namespace
// from the replaced value.
#include "preempt/version.hpp"

#if PREEMPT_VERSION_MINOR == 99
#error "the repository's own minor version is 99: pick another fake minor version here"
#endif
#undef PREEMPT_VERSION_MINOR
#define PREEMPT_VERSION_MINOR 99

#include "abi/describe_copy.hpp"

abi_test::copy_report abi_test::other_copy() { return describe_this_copy(); }
