#include "ctld/components/step_table.h"

#include <algorithm>

namespace sluice::ctld {

const StepTable::Steps* StepTable::Of(int64_t job_id) const {
  auto it = steps_.find(job_id);
  return it == steps_.end() ? nullptr : &it->second;
}

std::vector<ActiveStep> StepTable::Running(int64_t job_id) const {
  std::vector<ActiveStep> out;
  if (const Steps* steps = Of(job_id)) {
    for (const auto& [id, s] : *steps) out.push_back(s);
  }
  return out;
}

const ActiveStep* StepTable::Find(int64_t job_id, int step_id) const {
  const Steps* steps = Of(job_id);
  if (steps == nullptr) return nullptr;
  auto it = steps->find(step_id);
  return it == steps->end() ? nullptr : &it->second;
}

const ActiveStep& StepTable::Add(int64_t job_id, ActiveStep step) {
  int id = step.step_id;
  return steps_[job_id][id] = std::move(step);
}

void StepTable::Touch(int64_t job_id, const std::vector<int>& step_ids, int64_t now_ms) {
  auto it = steps_.find(job_id);
  if (it == steps_.end()) return;
  for (int id : step_ids) {
    auto s = it->second.find(id);
    if (s != it->second.end()) s->second.last_seen_ms = now_ms;
  }
}

bool StepTable::End(int64_t job_id, int step_id) {
  auto it = steps_.find(job_id);
  if (it == steps_.end()) return false;
  bool erased = it->second.erase(step_id) > 0;
  if (it->second.empty()) steps_.erase(it);
  return erased;
}

void StepTable::Restore(const RunningStep& r, const std::string& node, int64_t now_ms) {
  auto [it, fresh] = steps_[r.job_id()].try_emplace(r.step_id());
  ActiveStep& s = it->second;
  if (fresh) {
    s.step_id = r.step_id();
    s.name = r.name();
    s.start_time = r.start_time();
    s.last_seen_ms = now_ms;
    s.overlap = r.overlap();
    s.ntasks = r.ntasks();
  }
  bool known =
      std::any_of(s.use.begin(), s.use.end(), [&](const StepNodeUse& u) { return u.node == node; });
  if (known) return;
  s.use.push_back(StepNodeUse{node,
                              {r.cpu_ids().begin(), r.cpu_ids().end()},
                              {r.gpu_ids().begin(), r.gpu_ids().end()},
                              r.mem_mb()});
}

void StepTable::Expire(int64_t now_ms, int64_t lease_ms,
                       const std::function<bool(int64_t job_id)>& running) {
  for (auto it = steps_.begin(); it != steps_.end();) {
    bool live = running(it->first);
    if (live) {
      std::erase_if(it->second,
                    [&](const auto& kv) { return now_ms - kv.second.last_seen_ms > lease_ms; });
    }
    if (!live || it->second.empty()) {
      it = steps_.erase(it);
    } else {
      ++it;
    }
  }
}

bool StepTable::AllocationSilent(int64_t job_id, int64_t now_ms, int64_t lease_ms) {
  auto [seen, inserted] = alloc_seen_ms_.emplace(job_id, now_ms);
  return !inserted && now_ms - seen->second > lease_ms;
}

}  // namespace sluice::ctld
