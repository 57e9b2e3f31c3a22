// The parent project's own header: it includes preempt's, so its users need preempt's headers.
#pragma once

#include <preempt/version.hpp>

#define SCHEDULER_STRINGIFY(x) #x
#define SCHEDULER_VERSION_TEXT(major, minor, patch)                                             \
  "preempt " SCHEDULER_STRINGIFY(major) "." SCHEDULER_STRINGIFY(minor) "." SCHEDULER_STRINGIFY( \
      patch)
// "preempt <major>.<minor>.<patch>" of the preempt headers the includer sees.
#define SCHEDULER_PREEMPT_VERSION \
  SCHEDULER_VERSION_TEXT(PREEMPT_VERSION_MAJOR, PREEMPT_VERSION_MINOR, PREEMPT_VERSION_PATCH)

namespace scheduler {

// "preempt <major>.<minor>.<patch>" of the preempt headers the library was built with.
const char* preempt_version();

}  // namespace scheduler
