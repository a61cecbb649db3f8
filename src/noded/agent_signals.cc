// Agent: signal delivery to a job's processes (scancel -s, --signal) and the stale-run
// kill used when a requeued job comes back to a node that still runs its older copy.
//   steps      each step supervisor gets StepRelaySignal() with the signal as its
//              sigqueue value and signals its tasks (stepd/step_supervisor.h,
//              node_common/relay_signal.h);
//   batch      STEPD_SIGNAL batch_only: the batch shell process only;
//   full       STEPD_SIGNAL: the batch shell and everything it started, plus steps.
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <thread>

#include "node_common/relay_signal.h"
#include "noded/agent.h"

namespace sluice {

int Agent::RelayToSteps(int64_t job_id, int sig, int32_t step_id) {
  return ForEachStep(job_id, step_id, [sig](pid_t pid) {
    union sigval v;
    v.sival_int = sig;
    return ::sigqueue(pid, StepRelaySignal(), v) == 0;
  });
}

SignalJobReply Agent::Deliver(const SignalJobRequest& req) {
  SignalJobReply reply;
  const int32_t step_id = req.has_step_id() ? req.step_id() : -1;
  int steps = req.batch_only() ? 0 : RelayToSteps(req.job_id(), req.signal(), step_id);
  reply.set_found(steps > 0);
  if (step_id >= 0 || (!req.batch_only() && !req.full())) return reply;
  auto job = jobs_->Inspect(req.job_id());
  if (!job.ok()) return reply;  // not the batch host
  reply.set_found(true);
  if (job->phase != TrackedJob::Phase::kRunning) return reply;
  StepdRequest sreq;
  sreq.set_op(STEPD_SIGNAL);
  sreq.set_signal(req.signal());
  sreq.set_batch_only(req.batch_only());
  Status st = SendToStepd(req.job_id(), sreq);
  if (!st.ok()) {
    std::fprintf(stderr, "sluiced: signal to job %lld: %s\n", static_cast<long long>(req.job_id()),
                 st.message().c_str());
  }
  return reply;
}

// Called with mu_ held (from Launch).
Status Agent::KillOlderRun(int64_t job_id, int64_t wait_ms) {
  StepdRequest kill;
  kill.set_op(STEPD_KILL);
  Status sent = SendToStepd(job_id, kill);
  jobs_->MarkDone(job_id);  // its end belongs to the older run: never reported
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    auto job = jobs_->Inspect(job_id);
    if (!job.ok()) return Status::Ok();
    if (job->phase != TrackedJob::Phase::kRunning) return jobs_->Remove(job_id);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return FailedPrecondition(fmt::format("job {} is still running on {}{}", job_id,
                                        options_.node_name,
                                        sent.ok() ? "" : ": " + sent.message()));
}

}  // namespace sluice
