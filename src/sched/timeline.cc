// Timeline: per-node step functions of free capacity. See timeline.h.
#include "sched/timeline.h"

#include <algorithm>
#include <bit>

namespace sluice::sched {

namespace {

// Capacity of [a's window] joined with slot b: what is free during both.
template <typename S>
void Combine(S* acc, const S& b) {
  acc->cpus = std::min(acc->cpus, b.cpus);
  acc->mem = std::min(acc->mem, b.mem);
  acc->gpus &= b.gpus;
  acc->jobs = std::max(acc->jobs, b.jobs);
  acc->excl = acc->excl || b.excl;
}

int64_t CeilTo(int64_t t, int64_t res) {
  if (res <= 1) return t;
  int64_t q = t / res;
  if (q * res < t) ++q;
  return q * res;
}

struct Freed {
  int node;
  int64_t time;
  int cpus;
  int64_t mem;
  uint64_t gpus;
  bool excl;
};

// GPU affinity by bit from each GPU's links (by GPU index); left empty without links.
AffinityMatrix BuildAffinity(const Node& node, const std::vector<const Gpu*>* sorted,
                             size_t count) {
  auto at = [&](size_t b) -> const Gpu& { return sorted ? *(*sorted)[b] : node.gpus[b]; };
  bool any = false;
  for (size_t b = 0; b < count; ++b) any = any || !at(b).links.empty();
  if (!any) return {};
  AffinityMatrix affinity(count, std::vector<int>(count, 0));
  for (size_t a = 0; a < count; ++a) {
    const std::vector<int>& links = at(a).links;
    for (size_t b = 0; b < count; ++b) {
      const int j = at(b).index;
      if (a != b && j >= 0 && j < static_cast<int>(links.size()))
        affinity[a][b] = std::max(0, links[j]);
    }
  }
  return affinity;
}

}  // namespace

// Static description and free-now slot of one node.
void Timeline::AddNode(const Node& node) {
  const int i = static_cast<int>(nodes_.size());
  by_name_.emplace(node.name, i);
  nodes_.emplace_back();
  NodeInfo& info = nodes_.back();
  info.available = node.available;
  info.cpus = node.cpus;
  info.mem = node.mem_mb;
  info.type_masks.resize(gpu_types_.size());
  // GPU bits in ascending index order (nodes usually list them sorted already).
  std::vector<const Gpu*> sorted;
  const bool in_order =
      std::is_sorted(node.gpus.begin(), node.gpus.end(),
                     [](const Gpu& a, const Gpu& b) { return a.index < b.index; });
  if (!in_order) {
    for (const Gpu& gpu : node.gpus) sorted.push_back(&gpu);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const Gpu* a, const Gpu* b) { return a->index < b->index; });
  }
  const size_t count = std::min<size_t>(node.gpus.size(), kMaxGpusPerNode);
  info.gpu_index.reserve(count);
  Slot slot;
  slot.start = origin_;
  size_t type = 0;
  for (size_t b = 0; b < count; ++b) {
    const Gpu& gpu = in_order ? node.gpus[b] : *sorted[b];
    const uint64_t bit = uint64_t{1} << b;
    info.gpu_index.push_back(gpu.index);
    info.all_gpus |= bit;
    if (type >= gpu_types_.size() || gpu_types_[type] != gpu.type) {
      type = std::find(gpu_types_.begin(), gpu_types_.end(), gpu.type) - gpu_types_.begin();
      if (type == gpu_types_.size()) gpu_types_.push_back(gpu.type);
      if (info.type_masks.size() <= type) info.type_masks.resize(type + 1);
    }
    info.type_masks[type] |= bit;
    if (!gpu.used) slot.gpus |= bit;
  }
  info.affinity = BuildAffinity(node, in_order ? nullptr : &sorted, count);
  const int flagged = static_cast<int>(std::min<size_t>(node.cpu_used.size(), node.cpus));
  slot.cpus = node.cpus - static_cast<int>(std::count(node.cpu_used.begin(),
                                                      node.cpu_used.begin() + flagged, true));
  slot.mem = node.mem_mb - node.mem_used_mb;
  slot.jobs = node.running_jobs;
  slot.excl = node.exclusive_held;
  lines_.push_back(Line{slot});
}

Timeline Timeline::Build(const ClusterSnapshot& snapshot, int64_t now) {
  Timeline t;
  t.origin_ = now;
  const size_t n = snapshot.nodes.size();
  t.nodes_.reserve(n);
  t.lines_.reserve(n);
  t.by_name_.reserve(n);
  for (const Node& node : snapshot.nodes) t.AddNode(node);
  for (NodeInfo& info : t.nodes_) info.type_masks.resize(t.gpu_types_.size());

  std::vector<Freed> releases;
  for (const RunningJob& job : snapshot.running) {
    const int64_t end = job.planned_end > 0 ? job.planned_end : job.end_time;
    if (end == 0) continue;
    const int64_t at = std::max(end, now + 1);
    for (const NodeShare& share : job.alloc) {
      const int i = t.FindNode(share.node);
      if (i < 0) continue;
      Freed r{i, at, 0, share.mem_mb, 0, job.exclusive};
      for (int c : share.cpu_ids) r.cpus += c >= 0 && c < t.nodes_[i].cpus ? 1 : 0;
      const std::vector<int>& ids = t.nodes_[i].gpu_index;
      for (int g : share.gpu_ids) {
        auto it = std::find(ids.begin(), ids.end(), g);
        if (it != ids.end()) r.gpus |= uint64_t{1} << (it - ids.begin());
      }
      releases.push_back(r);
    }
  }
  // Group by node (counting sort), then order each node's few releases by time.
  std::vector<size_t> first(n + 1, 0);
  for (const Freed& r : releases) ++first[r.node + 1];
  for (size_t i = 0; i < n; ++i) first[i + 1] += first[i];
  std::vector<Freed> grouped(releases.size());
  std::vector<size_t> next(first.begin(), first.end() - 1);
  for (const Freed& r : releases) grouped[next[r.node]++] = r;
  for (size_t i = 0; i < n; ++i) {
    std::sort(grouped.begin() + first[i], grouped.begin() + first[i + 1],
              [](const Freed& a, const Freed& b) { return a.time < b.time; });
  }
  for (const Freed& r : grouped) {
    Line& line = t.lines_[r.node];
    const NodeInfo& info = t.nodes_[r.node];
    if (line.back().start != r.time) {
      line.push_back(line.back());
      line.back().start = r.time;
    }
    Slot& s = line.back();
    s.cpus = std::min(s.cpus + r.cpus, info.cpus);
    s.mem = std::min(s.mem + r.mem, info.mem);
    s.gpus |= r.gpus;
    s.jobs = std::max(0, s.jobs - 1);
    if (r.excl) s.excl = false;
  }
  std::vector<FreeIndex::Value> idle(n), partial(n);
  for (size_t i = 0; i < n; ++i) {
    const FreeIndex::Value v = t.IndexValue(static_cast<int>(i));
    (v.idle ? idle : partial)[i] = v;
  }
  t.idle_.Reset(idle);
  t.partial_.Reset(partial);
  t.tree_ = SwitchTree::Build(snapshot);
  std::vector<EarliestIndex::Bounds> bounds(n);
  for (size_t i = 0; i < n; ++i) bounds[i] = t.EarliestBounds(static_cast<int>(i));
  t.earliest_.Reset(bounds);
  return t;
}

int Timeline::FindNode(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? -1 : it->second;
}

std::vector<int> Timeline::GpuIds(int node, uint64_t gpus) const {
  std::vector<int> ids;
  const std::vector<int>& index = nodes_[node].gpu_index;
  for (size_t b = 0; b < index.size(); ++b)
    if (gpus & (uint64_t{1} << b)) ids.push_back(index[b]);
  return ids;
}

Need Timeline::MakeNeed(const JobRequest& job) const {
  Need need;
  need.num_nodes = job.num_nodes;
  need.cpus = job.cpus_per_node;
  need.mem_mb = job.mem_per_node_mb;
  need.gpus = job.gpus_per_node;
  need.exclusive = job.exclusive;
  if (job.max_switches > 0 && origin_ < AddTime(job.submit_time, job.switches_wait_s))
    need.max_leaves = job.max_switches;
  if (!job.gpu_type.empty()) {
    auto it = std::find(gpu_types_.begin(), gpu_types_.end(), job.gpu_type);
    need.gpu_type = it == gpu_types_.end() ? -2 : static_cast<int>(it - gpu_types_.begin());
  }
  return need;
}

Timeline::Slot Timeline::Window(const Line& line, int64_t start, int64_t end) const {
  auto it = std::upper_bound(line.begin(), line.end(), std::max(start, origin_),
                             [](int64_t t, const Slot& s) { return t < s.start; });
  --it;  // the slot containing start (line[0].start == origin_)
  Slot acc = *it;
  for (++it; it != line.end() && it->start < end; ++it) Combine(&acc, *it);
  return acc;
}

bool Timeline::StaticFit(int node, const Need& need) const {
  return nodes_[node].available && Capable(node, need);
}

bool Timeline::Capable(int node, const Need& need) const {
  const NodeInfo& n = nodes_[node];
  if (n.cpus < need.cpus || n.mem < need.mem_mb) return false;
  if (need.gpus == 0) return true;
  if (need.gpu_type == -2) return false;
  uint64_t typed = need.gpu_type < 0 ? n.all_gpus : n.type_masks[need.gpu_type];
  return std::popcount(typed) >= need.gpus;
}

bool Timeline::FitsAsConfigured(const Need& need, const JobFilter& filter) const {
  if (!filter.ok() || need.num_nodes < 1) return false;
  for (int r : filter.required())
    if (!Capable(r, need)) return false;
  const size_t want = std::max<size_t>(need.num_nodes, filter.required().size());
  size_t found = filter.required().size();
  for (int i = 0; i < node_count() && found < want; ++i)
    if (filter.Admits(i) && !filter.IsRequired(i) && Capable(i, need)) ++found;
  return found >= want;
}

bool Timeline::Fits(int node, const Need& need, const Slot& a) const {
  const NodeInfo& n = nodes_[node];
  if (!n.available || a.excl) return false;
  if (need.exclusive) {
    return a.jobs == 0 && a.cpus >= n.cpus && a.mem >= n.mem && a.gpus == n.all_gpus &&
           StaticFit(node, need);
  }
  if (a.cpus < need.cpus || a.mem < need.mem_mb) return false;
  if (need.gpus == 0) return true;
  if (need.gpu_type == -2) return false;
  uint64_t typed = need.gpu_type < 0 ? n.all_gpus : n.type_masks[need.gpu_type];
  return std::popcount(a.gpus & typed) >= need.gpus;
}

bool Timeline::NodeFits(int node, const Need& need, int64_t start, int64_t end) const {
  return Fits(node, need, Window(lines_[node], start, end));
}

// With [T, slots before `from`) fitting as `acc`, the first T' at which the window
// [T', T' + duration) would reach a slot that breaks the fit.
int64_t Timeline::IntervalEnd(int node, const Need& need, size_t from, const Slot& acc,
                              int64_t duration) const {
  const Line& line = lines_[node];
  Slot run = acc;
  for (size_t k = from; k < line.size(); ++k) {
    Combine(&run, line[k]);
    if (!Fits(node, need, run)) return line[k].start - duration + 1;
  }
  return kForever;
}

// The starts T in [t0, min(latest, bound - 1)] (t0 or rounded slot boundaries) at which the
// node fits for [T, T + duration), as merged half-open intervals [start, end).
void Timeline::NodeIntervals(int node, const Need& need, int64_t t0, int64_t duration, int64_t res,
                             int64_t latest, int64_t bound, bool first_only,
                             std::vector<std::pair<int64_t, int64_t>>* out) const {
  const Line& line = lines_[node];
  size_t j = 0;
  int64_t t = t0;
  while (t <= latest && t < bound) {
    while (j + 1 < line.size() && line[j + 1].start <= t) ++j;
    Slot acc = line[j];
    const int64_t end = AddTime(t, duration);
    size_t k = j + 1;
    for (; k < line.size() && line[k].start < end; ++k) Combine(&acc, line[k]);
    if (Fits(node, need, acc)) {
      const int64_t e = IntervalEnd(node, need, k, acc, duration);
      if (!out->empty() && out->back().second >= t) {
        out->back().second = std::max(out->back().second, e);
      } else {
        out->emplace_back(t, e);
      }
      if (first_only) return;
    }
    if (j + 1 >= line.size()) return;
    t = CeilTo(line[j + 1].start, res);
  }
}

NodeGrant Timeline::Grant(int node, const Need& need, int64_t start, int64_t end) const {
  const NodeInfo& n = nodes_[node];
  NodeGrant grant;
  grant.node = node;
  grant.exclusive = need.exclusive;
  if (need.exclusive) {
    grant.cpus = n.cpus;
    grant.mem_mb = n.mem;
    grant.gpus = n.all_gpus;
    return grant;
  }
  grant.cpus = need.cpus;
  grant.mem_mb = need.mem_mb;
  if (need.gpus > 0) {
    const Slot avail = Window(lines_[node], start, end);
    uint64_t typed = need.gpu_type < 0 ? n.all_gpus : n.type_masks[need.gpu_type];
    grant.gpus = ChooseGpus(avail.gpus & typed, need.gpus, n.affinity);
  }
  return grant;
}

// First-fit choice of nodes at `start`: required nodes, then the first others that fit.
bool Timeline::Choose(const Need& need, const JobFilter& filter, int64_t start, int64_t duration,
                      Placement* out) const {
  const int64_t end = AddTime(start, duration);
  const size_t want = std::max<size_t>(need.num_nodes, filter.required().size());
  std::vector<int> chosen;
  for (int r : filter.required()) {
    if (!NodeFits(r, need, start, end)) return false;
    chosen.push_back(r);
  }
  for (int i = 0; i < node_count() && chosen.size() < want; ++i) {
    if (!filter.Admits(i) || filter.IsRequired(i) || !StaticFit(i, need)) continue;
    if (NodeFits(i, need, start, end)) chosen.push_back(i);
  }
  if (chosen.size() < want) return false;
  std::sort(chosen.begin(), chosen.end());
  out->start = start;
  out->end = end;
  out->grants.clear();
  for (int i : chosen) out->grants.push_back(Grant(i, need, start, end));
  return true;
}

size_t Timeline::Split(Line* line, int64_t at) {
  auto it = std::lower_bound(line->begin(), line->end(), at,
                             [](const Slot& s, int64_t t) { return s.start < t; });
  if (it != line->end() && it->start == at) return it - line->begin();
  Slot copy = *(it - 1);
  copy.start = at;
  const size_t at_index = it - line->begin();
  line->insert(it, copy);
  return at_index;
}

void Timeline::Apply(const Placement& placement, int sign) {
  const int64_t start = std::max(placement.start, origin_);
  if (start >= placement.end) return;
  for (const NodeGrant& g : placement.grants) {
    Line& line = lines_[g.node];
    const size_t from = Split(&line, start);
    const size_t to = placement.end >= kForever ? line.size() : Split(&line, placement.end);
    for (size_t k = from; k < to; ++k) {
      Slot& s = line[k];
      s.cpus -= sign * g.cpus;
      s.mem -= sign * g.mem_mb;
      s.gpus = sign > 0 ? (s.gpus & ~g.gpus) : (s.gpus | g.gpus);
      s.jobs += sign;
      if (g.exclusive) s.excl = sign > 0;
    }
    if (from == 0) SetIndexes(g.node);
    earliest_.Set(g.node, EarliestBounds(g.node));
  }
}

void Timeline::Reserve(const Placement& placement) { Apply(placement, +1); }

void Timeline::Block(int node, int64_t start, int64_t end) {
  Placement p;
  p.start = start;
  p.end = end;
  NodeGrant g;
  g.node = node;
  g.cpus = nodes_[node].cpus;
  g.mem_mb = nodes_[node].mem;
  g.gpus = nodes_[node].all_gpus;
  g.exclusive = true;
  p.grants.push_back(g);
  Apply(p, +1);
}
void Timeline::Release(const Placement& placement) { Apply(placement, -1); }

EarliestIndex::Bounds Timeline::EarliestBounds(int node) const {
  EarliestIndex::Bounds bounds;
  bounds.fill(EarliestIndex::kNoTime);
  if (!nodes_[node].available) return bounds;
  int reached = -1;  // bounds[0..reached] are set
  for (const Slot& slot : lines_[node]) {
    if (slot.excl) continue;
    const int free = std::min(std::popcount(slot.gpus), EarliestIndex::kLevels - 1);
    for (; reached < free; ++reached) bounds[reached + 1] = slot.start;
    if (reached == EarliestIndex::kLevels - 1) break;
  }
  return bounds;
}

FreeIndex::Value Timeline::IndexValue(int node) const {
  const NodeInfo& n = nodes_[node];
  const Slot& s = lines_[node][0];
  FreeIndex::Value v;
  if (!n.available || s.excl) return v;
  v.cpus = s.cpus;
  v.gpus = std::popcount(s.gpus);
  v.mem = s.mem;
  v.idle = s.jobs == 0 && s.cpus >= n.cpus && s.mem >= n.mem && s.gpus == n.all_gpus;
  return v;
}

namespace {
FreeIndex::Value IndexNeed(const Need& need) {
  FreeIndex::Value v;
  v.cpus = need.cpus;
  v.gpus = need.gpus;
  v.mem = need.mem_mb;
  v.idle = need.exclusive;
  return v;
}
}  // namespace

bool Timeline::MayFitNow(const Need& need) const {
  const FreeIndex::Value want = IndexNeed(need);
  return FreeIndex::Covers(idle_.Max(), want) || FreeIndex::Covers(partial_.Max(), want);
}

void Timeline::SetIndexes(int node) {
  const FreeIndex::Value v = IndexValue(node);
  idle_.Set(node, v.idle ? v : FreeIndex::Value{});
  partial_.Set(node, v.idle ? FreeIndex::Value{} : v);
}

std::vector<int> Timeline::NowCandidates(const Need& need, const JobFilter& filter, int64_t end,
                                         size_t enough) const {
  std::vector<int> found;
  auto visit = [&](int i) {
    if (filter.Admits(i) && !filter.IsRequired(i) && NodeFits(i, need, origin_, end))
      found.push_back(i);
    return found.size() < enough;
  };
  const FreeIndex::Value want = IndexNeed(need);
  if (!need.exclusive) partial_.Scan(want, visit);  // exclusive jobs need idle nodes
  if (found.size() < enough) idle_.Scan(want, visit);
  return found;
}

bool Timeline::FitNow(const Need& need, const JobFilter& filter, int64_t duration,
                      Placement* out) const {
  if (!filter.ok()) return false;
  const int64_t end = AddTime(origin_, duration);
  const size_t want = std::max<size_t>(need.num_nodes, filter.required().size());
  std::vector<int> chosen;
  for (int r : filter.required()) {
    if (!NodeFits(r, need, origin_, end)) return false;
    chosen.push_back(r);
  }
  if (chosen.size() < want) {
    const bool by_switch = !tree_.empty() && chosen.empty() && want > 1;
    std::vector<int> found =
        NowCandidates(need, filter, end, by_switch ? SIZE_MAX : want - chosen.size());
    if (by_switch) {
      if (!tree_.Pick(found, want, need.max_leaves, &chosen)) return false;
    } else {
      chosen.insert(chosen.end(), found.begin(), found.end());
    }
  }
  if (chosen.size() < want) return false;
  std::sort(chosen.begin(), chosen.end());
  out->start = origin_;
  out->end = end;
  out->grants.clear();
  for (int i : chosen) out->grants.push_back(Grant(i, need, origin_, end));
  return true;
}

bool Timeline::FindStart(const Need& need, const JobFilter& filter, int64_t t0, int64_t duration,
                         int64_t resolution, int64_t latest_start, Placement* out) const {
  if (!filter.ok() || need.num_nodes < 1) return false;
  t0 = std::max(t0, origin_);
  const size_t want = std::max<size_t>(need.num_nodes, filter.required().size());
  if (want > nodes_.size()) return false;
  std::vector<std::pair<int64_t, int64_t>> spans;
  if (want == 1 && filter.required().empty()) {
    // Nodes in order, skipping those that cannot have the GPUs before the best start yet.
    int64_t best = kForever;
    int best_node = -1;
    const int level = std::min(need.exclusive ? 0 : need.gpus, EarliestIndex::kLevels - 1);
    earliest_.Scan(
        level, [&] { return best; },
        [&](int i) {
          if (!filter.Admits(i) || !StaticFit(i, need)) return;
          spans.clear();
          NodeIntervals(i, need, t0, duration, resolution, latest_start, best, true, &spans);
          if (!spans.empty()) best = spans[0].first, best_node = i;
        });
    if (best_node < 0) return false;
    out->start = best;
    out->end = AddTime(best, duration);
    out->grants = {Grant(best_node, need, best, out->end)};
    return true;
  }
  // Sweep the per-node feasible intervals for the first time enough nodes overlap.
  struct Event {
    int64_t time;
    int delta;
    bool required;
  };
  std::vector<Event> events;
  for (int i = 0; i < node_count(); ++i) {
    if (!filter.Admits(i) || !StaticFit(i, need)) continue;
    spans.clear();
    NodeIntervals(i, need, t0, duration, resolution, latest_start, kForever, false, &spans);
    const bool required = filter.IsRequired(i);
    for (const auto& [s, e] : spans) {
      events.push_back({s, +1, required});
      if (e < kForever) events.push_back({e, -1, required});
    }
  }
  std::sort(events.begin(), events.end(),
            [](const Event& a, const Event& b) { return a.time < b.time; });
  const int64_t need_required = static_cast<int64_t>(filter.required().size());
  int64_t total = 0, required = 0;
  for (size_t k = 0; k < events.size();) {
    const int64_t time = events[k].time;
    for (; k < events.size() && events[k].time == time; ++k) {
      total += events[k].delta;
      if (events[k].required) required += events[k].delta;
    }
    if (required == need_required && total >= static_cast<int64_t>(want))
      return Choose(need, filter, time, duration, out);
  }
  return false;
}

}  // namespace sluice::sched
