// Compile-fail test: a node whose name accessor returns a std::string by value, the natural
// `std::string name() const { return hostname; }`. The library reads names as std::string_view,
// so every name read was a view into a temporary gone at the end of the call (garbage in the
// decision's node names). Such a type is now not a node, and the evaluator says why in one error.
// Without PREEMPT_COMPILE_FAIL the accessor returns a std::string_view and everything compiles.
#include <string>
#include <string_view>
#include <vector>

#include "compile_fail/machine_fleet.hpp"

template <>
struct preempt::node_traits<theirs::machine> {
#if defined(PREEMPT_COMPILE_FAIL)
  static std::string name(const theirs::machine& m) { return m.hostname; }
#else
  static std::string_view name(const theirs::machine& m) { return m.hostname; }
#endif
  static const std::vector<theirs::pod_row>& pods(const theirs::machine& m) { return m.running; }
};

// A name returned as a C string or a reference is fine.
struct c_string_machine {
  std::string hostname;
  std::vector<theirs::pod_row> running;
  const char* name() const { return hostname.c_str(); }
  const std::vector<theirs::pod_row>& pods() const { return running; }
};
static_assert(preempt::node<c_string_machine>);
struct reference_machine {
  std::string hostname;
  std::vector<theirs::pod_row> running;
  const std::string& name() const { return hostname; }
  const std::vector<theirs::pod_row>& pods() const { return running; }
};
static_assert(preempt::node<reference_machine>);

int compile_fail_node_name_by_value() { return theirs::evaluate_once(theirs::fleet{}); }
