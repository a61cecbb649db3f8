// The planner: free capacity of every node as step functions of time, built from a
// cluster snapshot (free now, plus each running job's release at its planned_end, else its
// end_time; 0 never releases). Per node it tracks free CPU count, free memory, the set of free GPUs
// (as a bitmask in ascending GPU-index order, typed), the number of jobs holding the node
// and whether one holds it exclusively.
//
// Queries find the earliest start >= t0 at which a request fits for a whole interval,
// with PlaceJob's rules (partition, --nodelist, --exclude, --constraint, GPU type,
// --exclusive; first fit in node order, lowest free GPU indices). Reserve/Release
// subtract/add a placement over [start, end). A Timeline is a value: copying it makes an
// independent what-if plan (O(nodes + slots)).
//
// Limits: at most kMaxGpusPerNode GPUs per node are tracked (higher indices are ignored);
// unavailable nodes never fit. Times are seconds; kForever means "never ends".
// Pure: no I/O, no clock.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sched/free_index.h"
#include "sched/gpu_affinity.h"
#include "sched/job_filter.h"
#include "sched/switch_tree.h"
#include "sched/types.h"

namespace sluice::sched {

inline constexpr int64_t kForever = INT64_MAX / 4;
inline constexpr int kMaxGpusPerNode = 64;

// Saturating a + b for non-negative durations (kForever stays kForever).
inline int64_t AddTime(int64_t a, int64_t b) { return b >= kForever - a ? kForever : a + b; }

// What one job holds on one node.
struct NodeGrant {
  int node = 0;  // index into the snapshot's nodes
  int cpus = 0;  // CPU count (ids are chosen when the job starts)
  int64_t mem_mb = 0;
  uint64_t gpus = 0;  // bit i = the node's i-th GPU in ascending index order
  bool exclusive = false;
};

struct Placement {
  int64_t start = 0;
  int64_t end = 0;                // exclusive; kForever = never released
  std::vector<NodeGrant> grants;  // ascending node index
};

// The per-node shape of a request, resolved against the timeline's GPU types.
struct Need {
  int num_nodes = 1;
  int cpus = 1;
  int64_t mem_mb = 0;
  int gpus = 0;
  int gpu_type = -1;  // -1 = any type; -2 = a type no node has
  bool exclusive = false;
  int max_leaves = 0;  // --switches limit still in force (0 = none)
};

class Timeline {
 public:
  // Free capacity from `now` on. Running jobs whose end (planned_end, else end_time) is <= now are
  // treated as releasing at now + 1 (they are overdue but still hold their resources).
  static Timeline Build(const ClusterSnapshot& snapshot, int64_t now);

  int64_t origin() const { return origin_; }
  int node_count() const { return static_cast<int>(nodes_.size()); }
  int FindNode(const std::string& name) const;
  // The GPU indices of `gpus` (a grant's mask) on node `node`, ascending.
  std::vector<int> GpuIds(int node, uint64_t gpus) const;
  // A request's per-node shape in this timeline's terms.
  Need MakeNeed(const JobRequest& job) const;

  // Earliest start T >= t0, T <= latest_start, at which `need` fits on nodes admitted by
  // `filter` for all of [T, T + duration). Candidate starts other than t0 are rounded up
  // to multiples of `resolution` (<= 1: no rounding). Fills `out` (start, end, grants).
  bool FindStart(const Need& need, const JobFilter& filter, int64_t t0, int64_t duration,
                 int64_t resolution, int64_t latest_start, Placement* out) const;

  // FindStart with t0 = origin() and no later start: the "can it start now" fast path
  // (an index over free-now capacity skips full nodes). Unlike FindStart's first fit it
  // packs: partially used nodes are preferred to idle ones (keeping whole nodes free for
  // big jobs), and with a switch tree a multi-node job goes under the lowest common
  // switch (need.max_leaves bounds the leaf switches it may span).
  bool FitNow(const Need& need, const JobFilter& filter, int64_t duration, Placement* out) const;

  // Whether `need` could run with every node available and empty (CheckFeasible's rule).
  bool FitsAsConfigured(const Need& need, const JobFilter& filter) const;

  // Whether node `node` can hold `need` for all of [start, end).
  bool NodeFits(int node, const Need& need, int64_t start, int64_t end) const;

  // Subtracts / adds back `placement` over [start, end) (clamped to start >= origin).
  void Reserve(const Placement& placement);
  void Release(const Placement& placement);

  // An upper bound on what any single node has free now (the "max free shape"): when a
  // need exceeds it, nothing can start now.
  bool MayFitNow(const Need& need) const;

  // Takes all of node `node` (exclusively) over [start, end): an advance reservation's
  // hold. Never released within a pass.
  void Block(int node, int64_t start, int64_t end);

 private:
  struct Slot {  // capacity during [start, next slot's start)
    int64_t start = 0;
    int64_t mem = 0;
    uint64_t gpus = 0;
    int32_t cpus = 0;
    int32_t jobs = 0;
    bool excl = false;
  };
  struct NodeInfo {
    bool available = true;
    int cpus = 0;
    int64_t mem = 0;
    uint64_t all_gpus = 0;
    std::vector<uint64_t> type_masks;  // by GPU type id
    std::vector<int> gpu_index;        // bit -> GPU index
    AffinityMatrix affinity;           // bit x bit; empty = no GPU topology
  };
  using Line = std::vector<Slot>;

  Slot Window(const Line& line, int64_t start, int64_t end) const;
  bool Fits(int node, const Need& need, const Slot& avail) const;
  bool StaticFit(int node, const Need& need) const;  // Capable and available
  bool Capable(int node, const Need& need) const;    // big enough when empty
  void AddNode(const Node& node);
  int64_t IntervalEnd(int node, const Need& need, size_t from, const Slot& acc,
                      int64_t duration) const;
  void NodeIntervals(int node, const Need& need, int64_t t0, int64_t duration, int64_t res,
                     int64_t latest, int64_t bound, bool first_only,
                     std::vector<std::pair<int64_t, int64_t>>* out) const;
  bool Choose(const Need& need, const JobFilter& filter, int64_t start, int64_t duration,
              Placement* out) const;
  NodeGrant Grant(int node, const Need& need, int64_t start, int64_t end) const;
  void Apply(const Placement& placement, int sign);
  static size_t Split(Line* line, int64_t at);
  void Reindex(int node);
  FreeIndex::Value IndexValue(int node) const;
  void SetIndexes(int node);
  // Nodes that fit now for [origin, end), partially used ones first; stops at `enough`.
  std::vector<int> NowCandidates(const Need& need, const JobFilter& filter, int64_t end,
                                 size_t enough) const;
  EarliestIndex::Bounds EarliestBounds(int node) const;

  int64_t origin_ = 0;
  std::vector<NodeInfo> nodes_;
  std::vector<Line> lines_;
  std::unordered_map<std::string, int> by_name_;
  std::vector<std::string> gpu_types_;
  // What each node has free now, split: idle nodes in idle_, partly used ones in
  // partial_ (each index shows the other kind as taking nothing). Packing scans partial_
  // first.
  FreeIndex idle_;
  FreeIndex partial_;
  EarliestIndex earliest_;
  SwitchTree tree_;
};

}  // namespace sluice::sched
