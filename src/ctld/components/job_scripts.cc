#include "ctld/components/job_scripts.h"

#include <algorithm>
#include <unordered_set>

namespace sluice::ctld {

void JobScripts::Take(int64_t key, JobSpec* spec, int refs) {
  JobScript& s = unwritten_[key];  // only the parts the spec has: Adopt may have filled it
  if (!spec->script().empty()) s.mutable_script()->swap(*spec->mutable_script());
  if (spec->env_size() > 0) s.mutable_env()->Swap(spec->mutable_env());
  if (spec->rlimits_size() > 0) s.mutable_rlimits()->Swap(spec->mutable_rlimits());
  refs_[key] += refs;
  deleted_.erase(std::remove(deleted_.begin(), deleted_.end(), key), deleted_.end());
}

Expected<bool> JobScripts::Adopt(JobInfo* job) {
  const int64_t key = ScriptKey(*job);
  JobSpec* spec = job->mutable_spec();
  bool holds = !spec->script().empty() || spec->env_size() > 0 || spec->rlimits_size() > 0;
  if (holds && !unwritten_.count(key)) {
    // What the record holds joins what the store may already keep under the key (a
    // version that stored scripts and environments kept the limits in the record).
    if (store_) {
      ASSIGN_OR_RETURN(std::optional<JobScript> stored, store_->LoadScript(key));
      if (stored) unwritten_[key] = std::move(*stored);
    }
    Take(key, spec, 1);  // the first of an array's tasks brings the array's script
    return true;
  }
  spec->clear_script();
  spec->clear_env();
  spec->clear_rlimits();
  ++refs_[key];
  return holds;
}

void JobScripts::Release(const JobInfo& job) {
  const int64_t key = ScriptKey(job);
  auto it = refs_.find(key);
  if (it == refs_.end() || --it->second > 0) return;
  refs_.erase(it);
  unwritten_.erase(key);
  deleted_.push_back(key);
}

Expected<JobScript> JobScripts::Get(const JobInfo& job) const {
  const int64_t key = ScriptKey(job);
  if (auto it = unwritten_.find(key); it != unwritten_.end()) return it->second;
  if (!store_) return JobScript();
  ASSIGN_OR_RETURN(std::optional<JobScript> s, store_->LoadScript(key));
  return s ? std::move(*s) : JobScript();
}

JobScripts::Written JobScripts::AddTo(storage::WriteBatch* batch) const {
  Written written;
  for (const auto& [key, script] : unwritten_) {
    if (!script.script().empty() || script.env_size() > 0 || script.rlimits_size() > 0) {
      batch->PutScript(key, script);
    }
    written.put.push_back(key);
  }
  for (int64_t key : deleted_) batch->DeleteScript(key);
  written.deleted = deleted_;
  return written;
}

void JobScripts::Committed(const Written& written) {
  if (!store_) return;  // nowhere else to keep them
  for (int64_t key : written.put) unwritten_.erase(key);
  const std::unordered_set<int64_t> gone(written.deleted.begin(), written.deleted.end());
  std::erase_if(deleted_, [&](int64_t key) { return gone.count(key) > 0; });
}

}  // namespace sluice::ctld
