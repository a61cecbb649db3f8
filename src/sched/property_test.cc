// Randomised property test of PlaceJob + the FIFO scheduler: thousands of random clusters
// and queues (fixed seeds), each plan checked against invariants computed independently
// of the placement code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "sched/scheduler.h"

namespace sluice::sched {
namespace {

using Features = std::vector<std::string>;

bool Has(const Features& f, const std::string& name) {
  return std::find(f.begin(), f.end(), name) != f.end();
}

// Constraint strings with an independent oracle for each.
struct ConstraintCase {
  std::string text;
  std::function<bool(const Features&)> oracle;
};

const std::vector<ConstraintCase>& Constraints() {
  static const auto* cases = new std::vector<ConstraintCase>{
      {"", [](const Features&) { return true; }},
      {"ib", [](const Features& f) { return Has(f, "ib"); }},
      {"a100&ib", [](const Features& f) { return Has(f, "a100") && Has(f, "ib"); }},
      {"h100|a100", [](const Features& f) { return Has(f, "h100") || Has(f, "a100"); }},
      {"(h100|a100)&ib",
       [](const Features& f) { return (Has(f, "h100") || Has(f, "a100")) && Has(f, "ib"); }},
      {"nvme|ib&h100",
       [](const Features& f) { return Has(f, "nvme") || (Has(f, "ib") && Has(f, "h100")); }},
  };
  return *cases;
}

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}
  int Int(int lo, int hi) { return lo + static_cast<int>(rng_() % (hi - lo + 1)); }
  bool Chance(int percent) { return Int(0, 99) < percent; }

  Node RandomNode(int i) {
    Node node;
    node.name = "n" + std::to_string(i);
    node.cpus = Int(1, 16);
    node.mem_mb = Int(0, 4) * 1000;
    int gpus = Int(0, 6);
    for (int g = 0; g < gpus; ++g)
      node.gpus.push_back({g * 2 + Int(0, 1), Chance(50) ? "a100" : "h100", false, {}});
    for (const char* f : {"ib", "a100", "h100", "nvme"})
      if (Chance(40)) node.features.push_back(f);
    node.available = Chance(90);
    if (Chance(40)) AddUsage(&node);
    return node;
  }

  void AddUsage(Node* node) {
    node->cpu_used.resize(node->cpus);
    for (int c = 0; c < node->cpus; ++c) node->cpu_used[c] = Chance(40);
    node->mem_used_mb = Int(0, static_cast<int>(node->mem_mb));
    for (Gpu& gpu : node->gpus) gpu.used = Chance(40);
    node->running_jobs = Int(1, 3);
    node->exclusive_held = Chance(10);
  }

  std::vector<std::string> Subset(const ClusterSnapshot& s, int percent) {
    std::vector<std::string> names;
    for (const Node& node : s.nodes)
      if (Chance(percent)) names.push_back(node.name);
    return names;
  }

  JobRequest RandomJob(int64_t id, const ClusterSnapshot& s) {
    JobRequest job;
    job.job_id = id;
    job.num_nodes = Int(1, 3);
    job.tasks_per_node = Int(1, 4);
    job.cpus_per_node = Int(1, 8);
    job.mem_per_node_mb = Chance(50) ? 0 : Int(1, 3) * 500;
    job.gpus_per_node = Chance(50) ? 0 : Int(1, 3);
    if (Chance(30)) job.gpu_type = Chance(50) ? "a100" : "h100";
    job.exclusive = Chance(10);
    if (Chance(20)) job.allowed_nodes = Subset(s, 60);
    if (Chance(10)) job.required_nodes = Subset(s, 15);
    if (Chance(15)) job.excluded_nodes = Subset(s, 20);
    job.constraint = Constraints()[Int(0, static_cast<int>(Constraints().size()) - 1)].text;
    return job;
  }

 private:
  std::mt19937 rng_;
};

bool Oracle(const std::string& constraint, const Features& f) {
  for (const auto& c : Constraints())
    if (c.text == constraint) return c.oracle(f);
  ADD_FAILURE() << "unknown constraint " << constraint;
  return false;
}

// Per-node resource ledger built from the snapshot's existing usage.
struct Ledger {
  std::set<int> cpus, gpus;
  int64_t mem = 0;
  int jobs = 0;
  bool exclusive = false;
};

const Node* FindNode(const ClusterSnapshot& s, const std::string& name) {
  for (const Node& node : s.nodes)
    if (node.name == name) return &node;
  return nullptr;
}

// Checks one node share of a started job and books it in `ledger`.
void CheckShare(const Node& node, const JobRequest& job, const NodeShare& share, Ledger* ledger) {
  SCOPED_TRACE("job " + std::to_string(job.job_id) + " on " + node.name);
  EXPECT_TRUE(node.available);
  EXPECT_TRUE(job.allowed_nodes.empty() || Has(job.allowed_nodes, node.name));
  EXPECT_FALSE(Has(job.excluded_nodes, node.name));
  EXPECT_TRUE(Oracle(job.constraint, node.features));
  EXPECT_FALSE(ledger->exclusive) << "node held exclusively by another job";
  if (job.exclusive) {
    EXPECT_EQ(ledger->jobs, 0) << "exclusive job on a busy node";
  }
  EXPECT_EQ(share.ntasks, job.tasks_per_node);
  size_t want_cpus = job.exclusive ? node.cpus : job.cpus_per_node;
  EXPECT_EQ(share.cpu_ids.size(), want_cpus);
  for (int c : share.cpu_ids) {
    EXPECT_TRUE(c >= 0 && c < node.cpus);
    EXPECT_TRUE(ledger->cpus.insert(c).second) << "CPU " << c << " over-allocated";
  }
  EXPECT_EQ(share.mem_mb, job.exclusive ? node.mem_mb : job.mem_per_node_mb);
  ledger->mem += share.mem_mb;
  EXPECT_LE(ledger->mem, node.mem_mb) << "memory over-allocated";
  EXPECT_EQ(share.gpu_ids.size(), job.exclusive ? node.gpus.size() : job.gpus_per_node);
  for (int g : share.gpu_ids) {
    auto it = std::find_if(node.gpus.begin(), node.gpus.end(),
                           [&](const Gpu& x) { return x.index == g; });
    ASSERT_NE(it, node.gpus.end()) << "no GPU " << g;
    if (!job.gpu_type.empty() && !job.exclusive) {
      EXPECT_EQ(it->type, job.gpu_type);
    }
    EXPECT_TRUE(ledger->gpus.insert(g).second) << "GPU " << g << " over-allocated";
  }
  if (job.exclusive) {
    int typed = std::count_if(node.gpus.begin(), node.gpus.end(), [&](const Gpu& x) {
      return job.gpu_type.empty() || x.type == job.gpu_type;
    });
    EXPECT_GE(typed, job.gpus_per_node);
    EXPECT_GE(node.cpus, job.cpus_per_node);
    EXPECT_GE(node.mem_mb, job.mem_per_node_mb);
  }
  ledger->jobs += 1;
  ledger->exclusive = job.exclusive;
}

void CheckStarted(const ClusterSnapshot& s, const JobRequest& job, const Decision& d,
                  std::map<std::string, Ledger>* ledgers) {
  std::set<std::string> required(job.required_nodes.begin(), job.required_nodes.end());
  EXPECT_EQ(d.alloc.size(), std::max<size_t>(job.num_nodes, required.size()));
  std::set<std::string> used;
  for (const NodeShare& share : d.alloc) {
    EXPECT_TRUE(used.insert(share.node).second) << "node used twice: " << share.node;
    const Node* node = FindNode(s, share.node);
    ASSERT_NE(node, nullptr) << share.node;
    CheckShare(*node, job, share, &(*ledgers)[share.node]);
  }
  for (const std::string& r : required) EXPECT_TRUE(used.count(r)) << "missing required " << r;
}

std::map<std::string, Ledger> InitialLedgers(const ClusterSnapshot& s) {
  std::map<std::string, Ledger> ledgers;
  for (const Node& node : s.nodes) {
    Ledger& l = ledgers[node.name];
    for (int c = 0; c < static_cast<int>(node.cpu_used.size()); ++c)
      if (node.cpu_used[c]) l.cpus.insert(c);
    for (const Gpu& g : node.gpus)
      if (g.used) l.gpus.insert(g.index);
    l.mem = node.mem_used_mb;
    l.jobs = node.running_jobs;
    l.exclusive = node.exclusive_held;
  }
  return ledgers;
}

void CheckPlan(const ClusterSnapshot& s, const std::vector<JobRequest>& pending, const Plan& plan) {
  ASSERT_EQ(plan.decisions.size(), pending.size());
  auto ledgers = InitialLedgers(s);
  bool blocked = false;
  for (size_t i = 0; i < pending.size(); ++i) {
    const JobRequest& job = pending[i];
    const Decision& d = plan.decisions[i];
    EXPECT_EQ(d.job_id, job.job_id);
    bool never = CheckFeasible(s, job).outcome == Outcome::kNever;
    if (never) {
      EXPECT_EQ(d.outcome, Outcome::kNever);
      continue;
    }
    if (d.outcome == Outcome::kStartNow) {
      EXPECT_FALSE(blocked) << "job " << job.job_id << " jumped the blocked head";
      EXPECT_TRUE(d.reason.empty());
      CheckStarted(s, job, d, &ledgers);
      continue;
    }
    ASSERT_EQ(d.outcome, Outcome::kPending);
    EXPECT_TRUE(d.alloc.empty());
    EXPECT_EQ(d.reason, blocked ? "Priority" : "Resources");
    blocked = true;
  }
}

bool SameDecision(const Decision& a, const Decision& b) {
  return a.job_id == b.job_id && a.outcome == b.outcome && a.alloc == b.alloc &&
         a.reason == b.reason;
}

TEST(SchedulerPropertyTest, RandomClustersAndQueues) {
  int started = 0, pending = 0, never = 0;
  for (uint32_t seed = 1; seed <= 4000; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Gen gen(seed);
    ClusterSnapshot s;
    int nodes = gen.Int(1, 8);
    for (int i = 0; i < nodes; ++i) s.nodes.push_back(gen.RandomNode(i));
    std::vector<JobRequest> queue;
    int jobs = gen.Int(1, 12);
    for (int j = 0; j < jobs; ++j) queue.push_back(gen.RandomJob(100 + j, s));
    Plan plan = MakeFifoScheduler()->Schedule(s, queue, 0);
    CheckPlan(s, queue, plan);
    Plan again = MakeFifoScheduler()->Schedule(s, queue, 0);
    ASSERT_EQ(again.decisions.size(), plan.decisions.size());
    for (size_t i = 0; i < plan.decisions.size(); ++i) {
      EXPECT_TRUE(SameDecision(plan.decisions[i], again.decisions[i])) << "nondeterministic";
      Outcome o = plan.decisions[i].outcome;
      (o == Outcome::kStartNow ? started : o == Outcome::kPending ? pending : never) += 1;
    }
    if (HasFailure()) break;
  }
  // The generator must exercise every outcome substantially.
  EXPECT_GT(started, 3000);
  EXPECT_GT(pending, 3000);
  EXPECT_GT(never, 1000);
}

// Placing one job on a random snapshot: a fit is valid, and a reported non-fit is real
// (checked by brute force against an independent per-node fit test when unconstrained).
TEST(SchedulerPropertyTest, SingleJobFitMatchesBruteForce) {
  for (uint32_t seed = 1; seed <= 4000; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Gen gen(seed * 7919);
    ClusterSnapshot s;
    int nodes = gen.Int(1, 6);
    for (int i = 0; i < nodes; ++i) s.nodes.push_back(gen.RandomNode(i));
    JobRequest job = gen.RandomJob(1, s);
    job.required_nodes.clear();
    int fitting = 0;
    for (const Node& node : s.nodes) {
      Ledger l = InitialLedgers(s)[node.name];
      int free_gpus = 0;
      for (const Gpu& g : node.gpus)
        free_gpus += !g.used && (job.gpu_type.empty() || g.type == job.gpu_type);
      bool idle = l.jobs == 0 && l.cpus.empty() && l.gpus.empty() && l.mem == 0 && !l.exclusive;
      bool ok = node.available && !l.exclusive && (!job.exclusive || idle) &&
                node.cpus - static_cast<int>(l.cpus.size()) >= job.cpus_per_node &&
                node.mem_mb - l.mem >= job.mem_per_node_mb && free_gpus >= job.gpus_per_node &&
                (job.allowed_nodes.empty() || Has(job.allowed_nodes, node.name)) &&
                !Has(job.excluded_nodes, node.name) && Oracle(job.constraint, node.features);
      fitting += ok;
    }
    std::vector<NodeShare> alloc;
    bool placed = PlaceJob(s, job, &alloc);
    EXPECT_EQ(placed, fitting >= job.num_nodes);
    if (placed) {
      auto ledgers = InitialLedgers(s);
      Decision d{job.job_id, Outcome::kStartNow, alloc, ""};
      CheckStarted(s, job, d, &ledgers);
    }
    if (HasFailure()) break;
  }
}

}  // namespace
}  // namespace sluice::sched
