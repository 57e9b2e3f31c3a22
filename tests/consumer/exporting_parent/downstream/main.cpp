// Prints the preempt version the parent's library was built with, and fails when the preempt
// headers this program sees through the parent's package are another version.
#include <cstdio>
#include <cstring>
#include <scheduler/scheduler.hpp>

int main() {
  if (std::strcmp(scheduler::preempt_version(), SCHEDULER_PREEMPT_VERSION) != 0) {
    std::printf("built with %s, used with %s\n", scheduler::preempt_version(),
                SCHEDULER_PREEMPT_VERSION);
    return 1;
  }
  std::printf("%s\n", scheduler::preempt_version());
  return 0;
}
