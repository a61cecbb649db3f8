#include "sched/shape_table.h"

#include <functional>

#include "sched/constraint.h"
#include "sched/placement.h"

namespace sluice::sched {

namespace {

void Mix(uint64_t* h, uint64_t v) { *h ^= v + 0x9e3779b97f4a7c15ULL + (*h << 6) + (*h >> 2); }

void MixStrings(uint64_t* h, const std::vector<std::string>& v) {
  Mix(h, v.size());
  for (const std::string& s : v) Mix(h, std::hash<std::string>{}(s));
}

uint64_t HashShape(const JobRequest& j) {
  uint64_t h = 0;
  Mix(&h, j.num_nodes);
  Mix(&h, j.cpus_per_node);
  Mix(&h, static_cast<uint64_t>(j.mem_per_node_mb));
  Mix(&h, j.gpus_per_node);
  Mix(&h, j.exclusive);
  if (!j.gpu_type.empty()) Mix(&h, std::hash<std::string>{}(j.gpu_type));
  if (!j.constraint.empty()) Mix(&h, std::hash<std::string>{}(j.constraint));
  if (!j.allowed_nodes.empty()) MixStrings(&h, j.allowed_nodes);
  if (!j.required_nodes.empty()) MixStrings(&h, j.required_nodes);
  if (!j.excluded_nodes.empty()) MixStrings(&h, j.excluded_nodes);
  Mix(&h, j.max_switches);
  return h;
}

bool SameShape(const JobRequest& a, const JobRequest& b) {
  return a.num_nodes == b.num_nodes && a.cpus_per_node == b.cpus_per_node &&
         a.mem_per_node_mb == b.mem_per_node_mb && a.gpus_per_node == b.gpus_per_node &&
         a.exclusive == b.exclusive && a.gpu_type == b.gpu_type && a.constraint == b.constraint &&
         a.allowed_nodes == b.allowed_nodes && a.required_nodes == b.required_nodes &&
         a.excluded_nodes == b.excluded_nodes && a.max_switches == b.max_switches &&
         (a.max_switches == 0 ||  // the same --switches deadline
          a.submit_time + a.switches_wait_s == b.submit_time + b.switches_wait_s);
}

}  // namespace

int64_t Shape::StartBound(int64_t duration, int64_t floor) const {
  for (const auto& [d, start] : earliest)
    if (d <= duration && start > floor) floor = start;
  return floor;
}

void Shape::NoteStart(int64_t duration, int64_t start) {
  constexpr size_t kKeep = 8;
  if (earliest.size() == kKeep) earliest.erase(earliest.begin());
  earliest.emplace_back(duration, start);
}

Shape& ShapeTable::Get(const JobRequest& job) {
  std::vector<size_t>& bucket = buckets_[HashShape(job)];
  for (size_t i : bucket)
    if (SameShape(*shapes_[i].example, job)) return shapes_[i];
  bucket.push_back(shapes_.size());
  shapes_.emplace_back();
  Shape& shape = shapes_.back();
  shape.example = &job;
  Fill(&shape);
  return shape;
}

// Feasibility exactly as CheckFeasible decides it.
void ShapeTable::Fill(Shape* shape) {
  const JobRequest& job = *shape->example;
  shape->need = timeline_.MakeNeed(job);
  if (!FeatureExpr::Parse(job.constraint).ok()) {
    shape->never = true;
    shape->never_reason = kReasonBadConstraints;
    return;
  }
  shape->filter = JobFilter::Compile(snapshot_, job);
  if (!ValidRequest(job) || !timeline_.FitsAsConfigured(shape->need, shape->filter)) {
    shape->never = true;
    shape->never_reason = kReasonNodeConfig;
  }
}

}  // namespace sluice::sched
