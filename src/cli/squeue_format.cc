#include "cli/squeue_format.h"

#include <algorithm>
#include <cstdio>

#include "cli/array_view.h"
#include "cli/job_states.h"
#include "cli/job_view.h"
#include "common/slurm_format.h"

namespace sluice {
namespace {

// %K: the task id, the compressed pending tasks ("2-7%2"), or N/A.
std::string ArrayTaskValue(const JobInfo& job) {
  if (job.array_job_id() == 0) return "N/A";
  const std::string& s = job.array_task_str();
  if (s.size() >= 2 && s.front() == '[') return s.substr(1, s.size() - 2);
  return std::to_string(job.array_task_id());
}

struct FieldName {
  const char* key;   // letter, or the -O name for -O-only fields
  const char* name;  // -O name (lower case)
  const char* header;
};

constexpr FieldName kFields[] = {
    {"a", "account", "ACCOUNT"},
    {"A", "jobid", "JOBID"},
    {"b", "tres-per-node", "TRES_PER_NODE"},
    {"B", "batchhost", "EXEC_HOST"},
    {"c", "mincpus", "MIN_CPUS"},
    {"C", "numcpus", "CPUS"},
    {"d", "mintmpdisk", "MIN_TMP_DISK"},
    {"D", "numnodes", "NODES"},
    {"e", "endtime", "END_TIME"},
    {"E", "dependency", "DEPENDENCY"},
    {"f", "feature", "FEATURES"},
    {"F", "arrayjobid", "ARRAY_JOB_ID"},
    {"g", "groupname", "GROUP"},
    {"G", "groupid", "GROUP"},
    {"h", "oversubscribe", "OVER_SUBSCRIBE"},
    {"i", "jobarrayid", "JOBID"},
    {"j", "name", "NAME"},
    {"k", "comment", "COMMENT"},
    {"K", "arraytaskid", "ARRAY_TASK_ID"},
    {"l", "timelimit", "TIME_LIMIT"},
    {"L", "timeleft", "TIME_LEFT"},
    {"m", "minmemory", "MIN_MEMORY"},
    {"M", "timeused", "TIME"},
    {"n", "reqnodes", "REQ_NODES"},
    {"N", "nodelist", "NODELIST"},
    {"o", "command", "COMMAND"},
    {"O", "contiguous", "CONTIGUOUS"},
    {"p", "priority", "PRIORITY"},
    {"P", "partition", "PARTITION"},
    {"q", "qos", "QOS"},
    {"Q", "prioritylong", "PRIORITY"},
    {"r", "reason", "REASON"},
    {"R", "reasonlist", "NODELIST(REASON)"},
    {"S", "starttime", "START_TIME"},
    {"t", "statecompact", "ST"},
    {"T", "state", "STATE"},
    {"u", "username", "USER"},
    {"U", "userid", "UID"},
    {"v", "reservation", "RESERVATION"},
    {"V", "submittime", "SUBMIT_TIME"},
    {"w", "wckey", "WCKEY"},
    {"W", "licenses", "LICENSES"},
    {"x", "excnodes", "EXC_NODES"},
    {"X", "corespec", "CORE_SPEC"},
    {"y", "nice", "NICE"},
    {"Y", "schednodes", "SCHEDNODES"},
    {"z", "sct", "S:C:T"},
    {"Z", "workdir", "WORK_DIR"},
    {"tres-alloc", "tres-alloc", "TRES_ALLOC"},
    {"stdout", "stdout", "STDOUT"},
    {"stderr", "stderr", "STDERR"},
    {"stdin", "stdin", "STDIN"},
    {"exitcode", "exitcode", "EXIT_CODE"},
    {"restartcnt", "restartcnt", "RESTARTCNT"},
    {"cpus-per-task", "cpus-per-task", "CPUS_PER_TASK"},
    {"A", "id", "JOBID"},
    {"u", "user", "USER"},
    {"j", "jobname", "NAME"},
};

const FieldName* Find(const std::string& key) {
  for (const FieldName& f : kFields)
    if (key == f.key) return &f;
  return nullptr;
}

std::string OrNull(const std::string& s) { return s.empty() ? "(null)" : s; }
std::string Ts(int64_t t) { return t > 0 ? FormatTimestamp(t) : "N/A"; }

std::string ReasonList(const JobInfo& job) {
  if (JobShowsReason(job)) return "(" + (job.reason().empty() ? "None" : job.reason()) + ")";
  return JobNodeList(job);
}

std::string EndTimeValue(const JobInfo& job) {
  int64_t end = JobEndTime(job);
  if (end > 0) return FormatTimestamp(end);
  if (JobStartOrPlanned(job) > 0 && job.time_limit_min() < 0) return "NONE";
  return "N/A";
}

std::string TimeLeft(const JobInfo& job, int64_t now) {
  if (job.time_limit_min() < 0) return "UNLIMITED";
  int64_t left = job.time_limit_min() * 60 - JobRunSeconds(job, now);
  return FormatDuration(std::max<int64_t>(0, left));
}

std::string MinMemory(const JobInfo& job) {
  int64_t mb =
      job.spec().mem_per_cpu_mb() > 0 ? job.spec().mem_per_cpu_mb() : job.mem_per_node_mb();
  return FormatMemoryMb(mb);
}

std::string PriorityFloat(const JobInfo& job) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.10f", static_cast<double>(job.priority()) / 4294967295.0);
  return buf;
}

std::string ValueA(char c, const JobInfo& job, int64_t now) {
  switch (c) {
    case 'a':
      return OrNull(job.spec().account());
    case 'A':
      return std::to_string(job.job_id());
    case 'F':
      return std::to_string(job.array_job_id() ? job.array_job_id() : job.job_id());
    case 'i':
      return DisplayJobId(job);
    case 'b': {
      std::string t = JobTresPerNode(job);
      return t.empty() ? "N/A" : t;
    }
    case 'B': {
      std::string h = JobBatchHost(job);
      return h.empty() ? "n/a" : h;
    }
    case 'c':
      return std::to_string(std::max(1, job.spec().cpus_per_task()));
    case 'C':
      return std::to_string(job.num_cpus());
    case 'd':
      return "0";
    case 'D':
      return std::to_string(job.num_nodes());
    case 'e':
      return EndTimeValue(job);
    case 'E':
      return DependencyString(job);
    case 'f':
      return OrNull(job.spec().constraint());
    case 'g':
      return job.group().empty() ? std::to_string(job.gid()) : job.group();
    case 'G':
      return std::to_string(job.gid());
    case 'h':
      return job.spec().exclusive() ? "NO" : "OK";
    case 'j':
      return job.spec().name();
    case 'k':
      return OrNull(job.spec().comment());
    case 'K':
      return ArrayTaskValue(job);
    case 'l':
      return FormatLimitMinutes(job.time_limit_min());
    case 'L':
      return TimeLeft(job, now);
    case 'm':
      return MinMemory(job);
    case 'M':
      return FormatDuration(JobRunSeconds(job, now));
  }
  return "";
}

std::string ValueB(char c, const JobInfo& job, int64_t now) {
  switch (c) {
    case 'n':
      return job.spec().nodelist();
    case 'N':
      return JobNodeList(job);
    case 'o':
      return OrNull(job.spec().command());
    case 'O':
      return "0";
    case 'p':
      return PriorityFloat(job);
    case 'P':
      return job.spec().partition();
    case 'q':
      return job.spec().qos().empty() ? "normal" : job.spec().qos();
    case 'Q':
      return std::to_string(job.priority());
    case 'r':
      return job.reason().empty() ? "None" : job.reason();
    case 'R':
      return ReasonList(job);
    case 'S':
      return Ts(JobStartOrPlanned(job));
    case 't':
      return JobStateCompact(job);
    case 'T':
      return JobStateName(job);
    case 'u':
      return job.user().empty() ? std::to_string(job.uid()) : job.user();
    case 'U':
      return std::to_string(job.uid());
    case 'v':
    case 'w':
    case 'W':
    case 'Y':
      return "(null)";
    case 'V':
      return Ts(job.submit_time());
    case 'x':
      return job.spec().exclude();
    case 'X':
      return "N/A";
    case 'y':
      return "0";
    case 'z':
      return "*:*:*";
    case 'Z':
      return job.spec().work_dir();
  }
  return ValueA(c, job, now);
}

}  // namespace

Status ValidateSqueueFields(std::vector<FormatField>* fields) {
  for (FormatField& f : *fields) {
    if (f.key.empty()) continue;
    if (f.key.size() > 1) {
      const FieldName* byname = nullptr;
      for (const FieldName& n : kFields)
        if (f.key == n.name) byname = &n;
      if (!byname) return InvalidArgument("Invalid job format specification: " + f.key);
      f.key = byname->key;
    } else if (!Find(f.key)) {
      return InvalidArgument("Invalid job format specification: " + f.key);
    }
  }
  return Status::Ok();
}

std::string SqueueHeader(const std::string& key) {
  const FieldName* f = Find(key);
  return f ? f->header : key;
}

std::string SqueueValue(const std::string& key, const JobInfo& job, int64_t now) {
  if (key == "tres-alloc") return JobTresString(job);
  if (key == "stdout") return job.stdout_path();
  if (key == "stderr") return job.stderr_path();
  if (key == "stdin")
    return job.spec().stdin_path().empty() ? "/dev/null" : job.spec().stdin_path();
  if (key == "exitcode") return JobExitCode(job);
  if (key == "restartcnt") return std::to_string(job.restarts());
  if (key == "cpus-per-task") return std::to_string(std::max(1, job.spec().cpus_per_task()));
  if (key.size() != 1) return "";
  return ValueB(key[0], job, now);
}

void SortJobsDefault(std::vector<JobInfo>* jobs) {
  std::stable_sort(jobs->begin(), jobs->end(), [](const JobInfo& a, const JobInfo& b) {
    if (a.spec().partition() != b.spec().partition())
      return a.spec().partition() < b.spec().partition();
    if (a.state() != b.state()) return a.state() < b.state();
    return a.priority() > b.priority();
  });
}

void SortJobsByStart(std::vector<JobInfo>* jobs) {
  auto key = [](const JobInfo& j) {
    int64_t t = JobStartOrPlanned(j);
    return t > 0 ? t : INT64_MAX;
  };
  std::stable_sort(jobs->begin(), jobs->end(), [&](const JobInfo& a, const JobInfo& b) {
    if (key(a) != key(b)) return key(a) < key(b);
    return a.job_id() < b.job_id();
  });
}

std::string SqueueFormat(const std::vector<FormatField>& fields, const std::vector<JobInfo>& jobs,
                         int64_t now, bool header) {
  std::string out;
  if (header)
    out += RenderLine(fields, [](const FormatField& f) { return SqueueHeader(f.key); }) + "\n";
  for (const JobInfo& j : jobs)
    out +=
        RenderLine(fields, [&](const FormatField& f) { return SqueueValue(f.key, j, now); }) + "\n";
  return out;
}

}  // namespace sluice
