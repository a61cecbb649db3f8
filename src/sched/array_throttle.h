// Array task throttles (sbatch --array=0-99%4): a scheduling pass offers the scheduler at
// most `throttle` minus the running tasks of an array; the other pending tasks wait with
// reason JobArrayTaskLimit. The controller and the simulator admit tasks in their pending
// order through one ArrayThrottle per pass. Pure.
#pragma once

#include <cstdint>
#include <map>

namespace sluice::sched {

inline constexpr char kReasonArrayTaskLimit[] = "JobArrayTaskLimit";

class ArrayThrottle {
 public:
  // Whether one more pending task of array `array_job_id` may be offered this pass (always
  // for a job outside an array or an array without a throttle). `running()` counts the
  // array's tasks that hold resources; it is asked once per array and pass.
  template <typename RunningTasks>
  bool Admit(int64_t array_job_id, int64_t throttle, RunningTasks running) {
    if (array_job_id == 0 || throttle <= 0) return true;
    auto it = slots_.find(array_job_id);
    if (it == slots_.end()) it = slots_.emplace(array_job_id, throttle - running()).first;
    if (it->second <= 0) return false;
    --it->second;
    return true;
  }

 private:
  std::map<int64_t, int64_t> slots_;  // array job id -> tasks it may still offer
};

}  // namespace sluice::sched
