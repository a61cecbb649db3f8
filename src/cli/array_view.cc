#include "cli/array_view.h"

#include <algorithm>
#include <charconv>
#include <map>

#include "common/array_spec.h"

namespace sluice {
namespace {

bool ParseNum(const std::string& s, int64_t* v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size() && *v >= 0;
}

// Splits on `sep` outside brackets.
std::vector<std::string> SplitOutside(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    if (c == sep && depth == 0) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

Expected<JobSelector> ParseOne(const std::string& word) {
  Status bad = InvalidArgument("Invalid job id: " + word);
  JobSelector sel;
  sel.text = word;
  size_t us = word.find('_');
  if (!ParseNum(word.substr(0, us), &sel.id) || sel.id == 0) return bad;
  if (us == std::string::npos) return sel;
  std::string tasks = word.substr(us + 1);
  if (tasks.size() >= 2 && tasks.front() == '[' && tasks.back() == ']') {
    tasks = tasks.substr(1, tasks.size() - 2);
  } else if (tasks.find_first_of(",-[]") != std::string::npos) {
    return bad;
  }
  auto spec = ParseArraySpec(tasks, kMaxArraySizeCeiling);  // no task id is above it
  if (!spec.ok() || spec->throttle != 0 || tasks.find('%') != std::string::npos) return bad;
  sel.tasks = spec->task_ids;
  return sel;
}

}  // namespace

Expected<std::vector<JobSelector>> ParseJobSelectors(const std::string& s) {
  std::vector<JobSelector> out;
  for (const std::string& part : SplitOutside(s, ',')) {
    for (const std::string& word : SplitOutside(part, ' ')) {
      ASSIGN_OR_RETURN(JobSelector sel, ParseOne(word));
      out.push_back(std::move(sel));
    }
  }
  return out;
}

bool SelectorMatches(const JobSelector& sel, const JobInfo& job) {
  if (sel.tasks.empty()) return job.job_id() == sel.id || job.array_job_id() == sel.id;
  if (job.array_job_id() != sel.id) return false;
  return std::find(sel.tasks.begin(), sel.tasks.end(), job.array_task_id()) != sel.tasks.end();
}

bool AnySelectorMatches(const std::vector<JobSelector>& sels, const JobInfo& job) {
  return std::any_of(sels.begin(), sels.end(),
                     [&](const JobSelector& s) { return SelectorMatches(s, job); });
}

void AddSelectors(const std::vector<JobSelector>& sels, GetJobsRequest* req) {
  for (const JobSelector& sel : sels) {
    if (sel.tasks.empty()) {
      req->add_job_ids(sel.id);
      continue;
    }
    ArrayTaskSelector* a = req->add_array_tasks();
    a->set_array_job_id(sel.id);
    a->mutable_task_ids()->Add(sel.tasks.begin(), sel.tasks.end());
  }
}

ResolvedIds ResolveSelectors(const std::vector<JobSelector>& sels, ClientApiInterface* api,
                             std::vector<std::string>* missing) {
  ResolvedIds out;
  std::vector<JobSelector> task_sels;
  for (const JobSelector& sel : sels) {
    if (sel.tasks.empty()) {
      out.whole.push_back(sel.id);
    } else {
      task_sels.push_back(sel);
    }
  }
  if (task_sels.empty()) return out;
  GetJobsRequest req;
  AddSelectors(task_sels, &req);
  Expected<GetJobsReply> rep = api->GetJobs(req);
  std::map<std::pair<int64_t, int64_t>, int64_t> found;  // (array, task) -> job id
  if (rep.ok()) {
    for (const JobInfo& j : rep->jobs()) found[{j.array_job_id(), j.array_task_id()}] = j.job_id();
  }
  for (const JobSelector& sel : task_sels) {
    for (int64_t task : sel.tasks) {
      auto it = found.find({sel.id, task});
      if (it != found.end()) {
        out.exact.push_back(it->second);
      } else if (missing) {
        missing->push_back(std::to_string(sel.id) + "_" + std::to_string(task));
      }
    }
  }
  return out;
}

std::string DisplayJobId(const JobInfo& job) {
  if (job.het_job_id() != 0)
    return std::to_string(job.het_job_id()) + "+" + std::to_string(job.het_job_offset());
  if (job.array_job_id() == 0) return std::to_string(job.job_id());
  std::string task =
      job.array_task_str().empty() ? std::to_string(job.array_task_id()) : job.array_task_str();
  return std::to_string(job.array_job_id()) + "_" + task;
}

std::string HetJobIdSet(const JobInfo& job) {
  if (job.het_job_id() == 0) return "";
  std::string set = std::to_string(job.het_job_id());
  if (job.het_size() > 1) set += "-" + std::to_string(job.het_job_id() + job.het_size() - 1);
  return set;
}

void CompressPendingTasks(std::vector<JobInfo*>* jobs) {
  std::map<int64_t, std::vector<int64_t>> pending;  // array id -> pending task ids
  for (const JobInfo* j : *jobs) {
    if (j->array_job_id() != 0 && j->state() == JOB_PENDING) {
      pending[j->array_job_id()].push_back(j->array_task_id());
    }
  }
  size_t out = 0;
  for (JobInfo* j : *jobs) {
    auto it = j->array_job_id() != 0 && j->state() == JOB_PENDING ? pending.find(j->array_job_id())
                                                                  : pending.end();
    if (it != pending.end()) {
      if (it->second.empty()) continue;  // already stood for by an earlier record
      if (it->second.size() > 1) {
        j->set_array_task_str(PendingTasksString(it->second, j->array_throttle()));
      }
      it->second.clear();
    }
    (*jobs)[out++] = j;
  }
  jobs->resize(out);
}

std::string DependencyString(const JobInfo& job) {
  std::string out;
  for (const DependencyTerm& t : job.dependency()) {
    if (t.state() == 1) continue;
    std::string term = t.type();
    if (t.type() != "singleton") {
      term += ":" + std::to_string(t.job_id());
      if (t.task_id() >= 0) term += "_" + std::to_string(t.task_id());
      if (t.delay_min() > 0) term += "+" + std::to_string(t.delay_min());
    }
    term += t.state() == 2 ? "(failed)" : "(unfulfilled)";
    if (!out.empty()) out += job.dependency_any() ? "?" : ",";
    out += term;
  }
  return out.empty() ? "(null)" : out;
}

}  // namespace sluice
