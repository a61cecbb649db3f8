// Job arrays and dependencies in the Controller (see controller.h).
//
// Arrays: one submission creates every task as its own job, with consecutive job ids
// allocated at submit; the first task's id is the array job id (what sbatch prints).
// (Slurm instead keeps one meta record and gives tasks new ids as they start; Sluice's
// ids are fixed at submit, so `scancel 123_4` and `squeue -j 125` always name the same
// task.) A client id naming an array job expands to all its tasks (ExpandJobIds).
// Throttle (%N): a pass hands at most N - running tasks of the array to the scheduler;
// the others wait with reason JobArrayTaskLimit.
//
// Dependencies are evaluated here, before the scheduler: only jobs whose dependency is
// satisfied are passed on. Each term's resolution (fulfilled / failed) is stored in the
// job (durable), so a dependency on a job later purged from memory keeps its answer; a
// term naming a job the controller does not know (never existed or purged before it
// resolved) counts as fulfilled, as Slurm lifts dependencies on vanished jobs.
#include <fmt/format.h>

#include <algorithm>

#include "common/array_spec.h"
#include "common/dependency_spec.h"
#include "ctld/core/controller.h"

namespace sluice::ctld {
namespace {

constexpr int kUnfulfilled = 0;
constexpr int kFulfilled = 1;
constexpr int kFailed = 2;

// The state one target job gives a term of `type`.
int TargetState(const std::string& type, const JobInfo& t, int64_t delay_min, int64_t now) {
  bool done = IsTerminal(t.state());
  if (type == "after") {
    if (t.start_time() > 0)
      return now >= t.start_time() + delay_min * 60 ? kFulfilled : kUnfulfilled;
    return done ? kFulfilled : kUnfulfilled;  // cancelled before it started
  }
  if (!done) return kUnfulfilled;
  bool ok = t.state() == JOB_COMPLETED;
  if (type == "afterany") return kFulfilled;
  if (type == "afternotok") return ok ? kFailed : kFulfilled;
  return ok ? kFulfilled : kFailed;  // afterok, aftercorr
}

std::string StateWord(JobState s) {
  std::string name = JobState_Name(s);
  return name.rfind("JOB_", 0) == 0 ? name.substr(4) : name;
}

}  // namespace

Expected<std::vector<int64_t>> Controller::ParseArrayAndDeps(JobInfo* job) const {
  std::vector<int64_t> tasks;
  const JobSpec& spec = job->spec();
  if (!spec.array_spec().empty()) {
    ASSIGN_OR_RETURN(ArraySpec a, ParseArraySpec(spec.array_spec(), config_.max_array_size));
    tasks = a.task_ids;
    job->set_array_throttle(a.throttle);
  }
  if (!spec.dependency().empty()) {
    ASSIGN_OR_RETURN(DependencySpec d, ParseDependency(spec.dependency()));
    job->set_dependency_any(d.any);
    for (const DepTerm& t : d.terms) {
      DependencyTerm* p = job->add_dependency();
      p->set_type(t.type);
      p->set_job_id(t.job_id);
      p->set_task_id(t.task_id);
      p->set_delay_min(t.delay_min);
    }
  }
  return tasks;
}

void Controller::InsertSubmitted(JobInfo job, sched::JobRequest request,
                                 const std::vector<int64_t>& tasks) {
  int64_t first = next_job_id_;
  size_t n = tasks.empty() ? 1 : tasks.size();
  if (job.dependency_size() > 0 && job.priority() > 0) {
    job.set_reason("Dependency");
    job.set_eligible_time(0);
  }
  scripts_.Take(first, job.mutable_spec(), static_cast<int>(n));  // stored once for all tasks
  for (size_t i = 0; i < n; ++i) {
    JobInfo t = job;
    t.set_job_id(first + static_cast<int64_t>(i));
    if (!tasks.empty()) {
      t.set_array_job_id(first);
      t.set_array_task_id(tasks[i]);
      t.set_array_task_count(static_cast<int32_t>(tasks.size()));
      t.set_array_task_min(tasks.front());
      t.set_array_task_max(tasks.back());
      t.set_array_task_step(UniformStep(tasks));
    }
    request.job_id = t.job_id();
    jobs_.SetRequest(t.job_id(), request);
    MarkJob(t.job_id());
    jobs_.Insert(std::move(t));
  }
  next_job_id_ += static_cast<int64_t>(n);
  next_id_dirty_ = true;
}

std::vector<int64_t> Controller::ArrayTaskIds(int64_t array_job_id) const {
  std::vector<int64_t> out;
  const JobInfo* head = jobs_.Find(array_job_id);
  if (head && head->array_job_id() == array_job_id) {
    for (int64_t id = array_job_id; id < array_job_id + head->array_task_count(); ++id) {
      const JobInfo* t = jobs_.Find(id);
      if (t && t->array_job_id() == array_job_id) out.push_back(id);
    }
    return out;
  }
  if (head) return out;  // a plain job
  // The first task was purged: look for the others.
  for (const auto& [id, j] : jobs_.jobs()) {
    if (j.array_job_id() == array_job_id) out.push_back(id);
  }
  return out;
}

std::vector<int64_t> Controller::ExpandJobIds(const std::vector<int64_t>& ids,
                                              bool skip_finished) const {
  std::vector<int64_t> out;
  for (int64_t id : ids) {
    std::vector<int64_t> tasks = ArrayTaskIds(id);
    if (tasks.empty()) {
      out.push_back(id);
      continue;
    }
    for (int64_t t : tasks) {
      if (!skip_finished || !IsTerminal(jobs_.Find(t)->state())) out.push_back(t);
    }
    if (skip_finished && std::find(out.begin(), out.end(), id) == out.end() &&
        std::none_of(tasks.begin(), tasks.end(),
                     [&](int64_t t) { return !IsTerminal(jobs_.Find(t)->state()); })) {
      out.push_back(id);  // every task done: report on the array id as Slurm does
    }
  }
  return out;
}

std::vector<const JobInfo*> Controller::DependencyTargets(const JobInfo& job,
                                                          const DependencyTerm& term) const {
  std::vector<const JobInfo*> out;
  int64_t task = term.task_id();
  if (term.type() == "aftercorr" && job.array_job_id() != 0) task = job.array_task_id();
  std::vector<int64_t> ids = ArrayTaskIds(term.job_id());
  if (ids.empty()) ids.push_back(term.job_id());
  for (int64_t id : ids) {
    const JobInfo* t = jobs_.Find(id);
    if (!t) continue;
    if (task >= 0 && (t->array_job_id() == 0 || t->array_task_id() != task)) continue;
    out.push_back(t);
  }
  return out;
}

bool Controller::SingletonBlocked(const JobInfo& job) const {
  for (const auto& [id, other] : jobs_.jobs()) {
    if (id == job.job_id() || other.uid() != job.uid() ||
        other.spec().name() != job.spec().name()) {
      continue;
    }
    if (HoldsResources(other)) return true;
    if (other.state() != JOB_PENDING || id > job.job_id()) continue;
    for (const DependencyTerm& t : other.dependency()) {
      if (t.type() == "singleton") return true;  // an earlier singleton goes first
    }
  }
  return false;
}

int Controller::EvaluateTerm(const JobInfo& job, const DependencyTerm& term) const {
  if (term.type() == "singleton") return SingletonBlocked(job) ? kUnfulfilled : kFulfilled;
  if (term.state() != kUnfulfilled) return term.state();
  int state = kFulfilled;
  for (const JobInfo* t : DependencyTargets(job, term)) {
    int s = TargetState(term.type(), *t, term.delay_min(), Now());
    if (s == kFailed) return kFailed;
    if (s == kUnfulfilled) state = kUnfulfilled;
  }
  return state;
}

Controller::DepResult Controller::EvaluateDependency(JobInfo* job) {
  int fulfilled = 0, failed = 0, n = job->dependency_size();
  bool singleton = false;
  for (DependencyTerm& term : *job->mutable_dependency()) {
    int s = EvaluateTerm(*job, term);
    singleton = singleton || term.type() == "singleton";
    if (term.type() != "singleton" && s != term.state()) {
      term.set_state(s);
      MarkJob(job->job_id());
    }
    fulfilled += s == kFulfilled;
    failed += s == kFailed;
  }
  if (job->dependency_any()) {
    if (fulfilled > 0) return DepResult::kReady;
    return failed == n ? DepResult::kNever : DepResult::kWait;
  }
  if (failed > 0) return DepResult::kNever;
  return fulfilled == n ? DepResult::kReady : DepResult::kWait;
}

void Controller::SetReason(JobInfo* job, const char* reason) {
  if (job->reason() == reason) return;
  job->set_reason(reason);
  MarkJob(job->job_id());
}

bool Controller::DependencyGate(JobInfo* job) {
  if (job->dependency_size() == 0) return true;
  switch (EvaluateDependency(job)) {
    case DepResult::kReady:
      if (job->reason() == "Dependency" || job->reason() == "DependencyNeverSatisfied") {
        SetReason(job, "None");
      }
      if (job->eligible_time() == 0) job->set_eligible_time(Now());
      // Satisfied for good (a singleton is checked again until the job starts).
      if (std::none_of(job->dependency().begin(), job->dependency().end(),
                       [](const DependencyTerm& t) { return t.type() == "singleton"; })) {
        job->clear_dependency();
      }
      MarkJob(job->job_id());
      return true;
    case DepResult::kWait:
      SetReason(job, "Dependency");
      return false;
    case DepResult::kNever:
      SetReason(job, "DependencyNeverSatisfied");
      if (job->spec().kill_on_invalid_dep() == 1) {
        jobs_.SetState(job, JOB_CANCELLED);
        job->set_end_time(Now());
        WantSchedule();  // jobs depending on this one may resolve now
      }
      return false;
  }
  return false;
}

bool Controller::ThrottleGate(JobInfo* job, sched::ArrayThrottle* throttle) {
  const bool admitted = throttle->Admit(job->array_job_id(), job->array_throttle(), [&] {
    int running = 0;
    for (int64_t id : ArrayTaskIds(job->array_job_id())) {
      running += HoldsResources(*jobs_.Find(id)) ? 1 : 0;
    }
    return running;
  });
  if (!admitted) {
    SetReason(job, sched::kReasonArrayTaskLimit);
  } else if (job->reason() == sched::kReasonArrayTaskLimit) {
    SetReason(job, "None");
  }
  return admitted;
}

std::vector<std::string> Controller::DependencyWords(const JobInfo& job) const {
  std::vector<std::string> out;
  for (const DependencyTerm& t : job.dependency()) {
    if (EvaluateTerm(job, t) == kFulfilled) continue;
    if (t.type() == "singleton") {
      out.push_back("singleton (a job of the same name and user runs or waits before it)");
      continue;
    }
    std::vector<std::string> targets;
    for (const JobInfo* d : DependencyTargets(job, t))
      targets.push_back(fmt::format("{} {}", d->job_id(), StateWord(d->state())));
    std::string term = fmt::format("{}:{}", t.type(), t.job_id());
    if (t.delay_min() > 0) term += fmt::format("+{}", t.delay_min());
    out.push_back(targets.empty() ? term + " (job gone)"
                                  : fmt::format("{} ({})", term, fmt::join(targets, ", ")));
  }
  return out;
}

}  // namespace sluice::ctld
