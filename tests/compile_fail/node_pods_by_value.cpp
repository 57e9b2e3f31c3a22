// Compile-fail test: a node whose pods accessor returns its container by value (a copy of the
// node's std::vector), the natural slip of writing `std::vector<pod> pods(...)` for
// `const std::vector<pod>& pods(...)`. The decision keeps pointers to the pods, so every one of
// them pointed into a temporary gone at the end of the call (a use after free inside the very
// first evaluation). Such a type is now not a node, and the evaluator says why in one error.
// Without PREEMPT_COMPILE_FAIL the accessor returns a reference and everything compiles.
#include <string>
#include <string_view>
#include <vector>

#include "compile_fail/machine_fleet.hpp"

template <>
struct preempt::node_traits<theirs::machine> {
  static std::string_view name(const theirs::machine& m) { return m.hostname; }
#if defined(PREEMPT_COMPILE_FAIL)
  static std::vector<theirs::pod_row> pods(const theirs::machine& m) { return m.running; }
#else
  static const std::vector<theirs::pod_row>& pods(const theirs::machine& m) { return m.running; }
#endif
};

// A container of pointers by value is fine: the pods it points to outlive it.
struct pointer_machine {
  std::string hostname;
  std::vector<theirs::pod_row> running;
  std::string_view name() const { return hostname; }
  std::vector<const theirs::pod_row*> pods() const {
    std::vector<const theirs::pod_row*> out;
    for (const theirs::pod_row& p : running) out.push_back(&p);
    return out;
  }
};
static_assert(preempt::node<pointer_machine>);

int compile_fail_node_pods_by_value() { return theirs::evaluate_once(theirs::fleet{}); }
