// ClientKeepalive: srun's and salloc's heartbeat to the controller. A background thread
// calls ClientApi Keepalive every `period_ms`, first one period in, for the job (an
// interactive allocation stays alive only while its client does) and the steps this
// process runs (a step's resources are freed when its srun goes silent). EndStep() reports a
// finished step synchronously, so the next srun of a batch script finds its resources free.
//   ClientKeepalive ka(api, job_id);   // starts beating
//   ka.AddStep(3); ... ka.EndStep(3);  // stops on destruction
// The api object must be safe to call from two threads (ClusterClient is).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <set>
#include <thread>

#include "client/api.h"

namespace sluice {

class ClientKeepalive {
 public:
  ClientKeepalive(ClientApiInterface* api, int64_t job_id, int period_ms = 1000);
  ~ClientKeepalive();
  ClientKeepalive(const ClientKeepalive&) = delete;
  ClientKeepalive& operator=(const ClientKeepalive&) = delete;

  void AddStep(int step_id);
  void EndStep(int step_id);  // best effort
  // Same, telling the controller how the step ended (accounting).
  void EndStep(int step_id, const AcctStepEnd& how);

 private:
  void Loop();
  ClientApiInterface* api_;
  int64_t job_id_;
  int period_ms_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::set<int> steps_;
  std::thread thread_;
};

}  // namespace sluice
