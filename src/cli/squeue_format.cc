#include "cli/squeue_format.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "cli/array_view.h"
#include "cli/job_states.h"
#include "cli/job_view.h"
#include "common/slurm_format.h"
#include "common/text_util.h"

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
  const char* paths;  // the JobInfo fields its value reads (GetJobsRequest.fields)
};

constexpr FieldName kFields[] = {
    {"a", "account", "ACCOUNT", "spec.account"},
    {"A", "jobid", "JOBID", "job_id"},
    {"b", "tres-per-node", "TRES_PER_NODE", "spec.gres_per_node gpus_per_node gpu_type"},
    {"B", "batchhost", "EXEC_HOST", "alloc"},
    {"c", "mincpus", "MIN_CPUS", "spec.cpus_per_task"},
    {"C", "numcpus", "CPUS", "num_cpus"},
    {"d", "mintmpdisk", "MIN_TMP_DISK", ""},
    {"D", "numnodes", "NODES", "num_nodes"},
    {"e", "endtime", "END_TIME", "end_time start_time time_limit_min state planned_start"},
    {"E", "dependency", "DEPENDENCY", "dependency dependency_any"},
    {"f", "feature", "FEATURES", "spec.constraint"},
    {"F", "arrayjobid", "ARRAY_JOB_ID", "array_job_id job_id"},
    {"g", "groupname", "GROUP", "group gid"},
    {"G", "groupid", "GROUP", "gid"},
    {"h", "oversubscribe", "OVER_SUBSCRIBE", "spec.exclusive"},
    {"i", "jobarrayid", "JOBID",
     "job_id het_job_id het_job_offset array_job_id array_task_id array_task_str"},
    {"j", "name", "NAME", "spec.name"},
    {"k", "comment", "COMMENT", "spec.comment"},
    {"K", "arraytaskid", "ARRAY_TASK_ID", "array_job_id array_task_id array_task_str"},
    {"l", "timelimit", "TIME_LIMIT", "time_limit_min"},
    {"L", "timeleft", "TIME_LEFT", "time_limit_min start_time end_time state"},
    {"m", "minmemory", "MIN_MEMORY", "spec.mem_per_cpu_mb mem_per_node_mb"},
    {"M", "timeused", "TIME", "start_time end_time state"},
    {"n", "reqnodes", "REQ_NODES", "spec.nodelist"},
    {"N", "nodelist", "NODELIST", "alloc"},
    {"o", "command", "COMMAND", "spec.command"},
    {"O", "contiguous", "CONTIGUOUS", ""},
    {"p", "priority", "PRIORITY", "priority"},
    {"P", "partition", "PARTITION", "spec.partition"},
    {"q", "qos", "QOS", "spec.qos"},
    {"Q", "prioritylong", "PRIORITY", "priority"},
    {"r", "reason", "REASON", "reason"},
    {"R", "reasonlist", "NODELIST(REASON)", "state reason alloc"},
    {"S", "starttime", "START_TIME", "state planned_start start_time"},
    {"t", "statecompact", "ST", "state stopped"},
    {"T", "state", "STATE", "state stopped"},
    {"u", "username", "USER", "user uid"},
    {"U", "userid", "UID", "uid"},
    {"v", "reservation", "RESERVATION", ""},
    {"V", "submittime", "SUBMIT_TIME", "submit_time"},
    {"w", "wckey", "WCKEY", ""},
    {"W", "licenses", "LICENSES", ""},
    {"x", "excnodes", "EXC_NODES", "spec.exclude"},
    {"X", "corespec", "CORE_SPEC", ""},
    {"y", "nice", "NICE", ""},
    {"Y", "schednodes", "SCHEDNODES", ""},
    {"z", "sct", "S:C:T", ""},
    {"Z", "workdir", "WORK_DIR", "spec.work_dir"},
    {"tres-alloc", "tres-alloc", "TRES_ALLOC",
     "num_cpus num_nodes alloc mem_per_node_mb spec.mem_per_cpu_mb gpus_per_node spec.gpus_total"},
    {"stdout", "stdout", "STDOUT", "stdout_path"},
    {"stderr", "stderr", "STDERR", "stderr_path"},
    {"stdin", "stdin", "STDIN", "spec.stdin_path"},
    {"exitcode", "exitcode", "EXIT_CODE", "exit_code term_signal"},
    {"restartcnt", "restartcnt", "RESTARTCNT", "restarts"},
    {"cpus-per-task", "cpus-per-task", "CPUS_PER_TASK", "spec.cpus_per_task"},
    {"A", "id", "JOBID", "job_id"},
    {"u", "user", "USER", "user uid"},
    {"j", "jobname", "NAME", "spec.name"},
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

std::vector<std::string> SqueueFieldPaths(const std::vector<FormatField>& fields) {
  // The sorts, the array compression and the job selectors read these.
  std::set<std::string> paths = {"job_id",         "uid",
                                 "state",          "stopped",
                                 "priority",       "spec.partition",
                                 "planned_start",  "start_time",
                                 "array_job_id",   "array_task_id",
                                 "array_task_str", "array_throttle",
                                 "het_job_id",     "het_job_offset"};
  for (const FormatField& f : fields) {
    const FieldName* n = f.key.empty() ? nullptr : Find(f.key);
    if (!n) continue;
    for (std::string_view p : Split(n->paths, ' '))
      if (!p.empty()) paths.emplace(p);
  }
  return {paths.begin(), paths.end()};
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

void SortJobsDefault(std::vector<JobInfo*>* jobs) {
  std::stable_sort(jobs->begin(), jobs->end(), [](const JobInfo* a, const JobInfo* b) {
    if (const int c = a->spec().partition().compare(b->spec().partition()); c != 0) return c < 0;
    if (a->state() != b->state()) return a->state() < b->state();
    return a->priority() > b->priority();
  });
}

void SortJobsByStart(std::vector<JobInfo*>* jobs) {
  auto key = [](const JobInfo* j) {
    int64_t t = JobStartOrPlanned(*j);
    return t > 0 ? t : INT64_MAX;
  };
  std::stable_sort(jobs->begin(), jobs->end(), [&](const JobInfo* a, const JobInfo* b) {
    if (key(a) != key(b)) return key(a) < key(b);
    return a->job_id() < b->job_id();
  });
}

std::string SqueueFormat(const std::vector<FormatField>& fields, const std::vector<JobInfo*>& jobs,
                         int64_t now, bool header) {
  std::string out;
  if (header)
    out += RenderLine(fields, [](const FormatField& f) { return SqueueHeader(f.key); }) + "\n";
  for (const JobInfo* j : jobs) {
    out += RenderLine(fields, [&](const FormatField& f) { return SqueueValue(f.key, *j, now); });
    out += '\n';
  }
  return out;
}

}  // namespace sluice
