// The parent project's library, built with preempt's headers through FetchContent.
#include "scheduler/scheduler.hpp"

const char* scheduler::preempt_version() { return SCHEDULER_PREEMPT_VERSION; }
