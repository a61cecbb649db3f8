// How the agent hands a signal to a step's supervisor for its tasks: this real-time
// signal, queued (sigqueue) with the signal number as its value.
#pragma once

#include <signal.h>

namespace sluice {

inline int StepRelaySignal() { return SIGRTMIN + 1; }

}  // namespace sluice
