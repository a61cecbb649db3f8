// Timeline vs a brute-force reference: free capacity tabulated per node per second over a
// short horizon, with random snapshots (consistent running jobs), random reservations and
// random queries (fixed seeds).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "sched/random_cases.h"
#include "sched/timeline.h"

namespace sluice::sched {
namespace {

using testing::RandomJob;
using testing::RandomSnapshot;
using testing::Rng;
constexpr int64_t kNow = 10;
constexpr int64_t kHorizon = 400;  // nothing changes after ~200; windows are cut here

// Per node, per second: what is free.
struct Cell {
  int cpus = 0;
  int64_t mem = 0;
  std::set<int> gpus;
  int jobs = 0;
  bool excl = false;
};
struct Reference {
  const ClusterSnapshot* snapshot;
  std::vector<std::vector<Cell>> cells;  // [node][t]

  explicit Reference(const ClusterSnapshot& s) : snapshot(&s) {
    for (const Node& node : s.nodes) {
      Cell c;
      for (int i = 0; i < node.cpus; ++i)
        c.cpus += i < static_cast<int>(node.cpu_used.size()) && node.cpu_used[i] ? 0 : 1;
      c.mem = node.mem_mb - node.mem_used_mb;
      for (const Gpu& g : node.gpus)
        if (!g.used) c.gpus.insert(g.index);
      c.jobs = node.running_jobs;
      c.excl = node.exclusive_held;
      cells.emplace_back(kHorizon, c);
    }
    for (const RunningJob& job : s.running) {
      if (job.end_time == 0) continue;
      for (const NodeShare& share : job.alloc) {
        int n = Index(share.node);
        for (int64_t t = std::max(job.end_time, kNow + 1); t < kHorizon; ++t) {
          Cell& c = cells[n][t];
          c.cpus += share.cpu_ids.size();
          c.mem += share.mem_mb;
          c.gpus.insert(share.gpu_ids.begin(), share.gpu_ids.end());
          c.jobs -= 1;
          if (job.exclusive) c.excl = false;
        }
      }
    }
  }
  int Index(const std::string& name) const {
    for (size_t i = 0; i < snapshot->nodes.size(); ++i)
      if (snapshot->nodes[i].name == name) return static_cast<int>(i);
    return -1;
  }
  std::vector<int> Typed(int n, const std::string& type) const {
    std::vector<int> ids;
    for (const Gpu& g : snapshot->nodes[n].gpus)
      if (type.empty() || g.type == type) ids.push_back(g.index);
    return ids;
  }
  // Free GPUs of the job's type on node n throughout [s, e), or nullopt if it does not fit.
  std::optional<std::vector<int>> Fit(int n, const JobRequest& job, int64_t s, int64_t e) const {
    const Node& node = snapshot->nodes[n];
    if (!node.available || node.cpus < job.cpus_per_node || node.mem_mb < job.mem_per_node_mb)
      return std::nullopt;
    std::vector<int> gpus = Typed(n, job.gpu_type);
    if (static_cast<int>(gpus.size()) < job.gpus_per_node) return std::nullopt;
    for (int64_t t = s; t < std::min(e, kHorizon); ++t) {
      const Cell& c = cells[n][t];
      if (c.excl) return std::nullopt;
      if (job.exclusive) {
        if (c.jobs != 0 || c.cpus != node.cpus || c.mem != node.mem_mb ||
            c.gpus.size() != node.gpus.size())
          return std::nullopt;
        continue;
      }
      if (c.cpus < job.cpus_per_node || c.mem < job.mem_per_node_mb) return std::nullopt;
      std::erase_if(gpus, [&](int g) { return !c.gpus.count(g); });
      if (static_cast<int>(gpus.size()) < job.gpus_per_node) return std::nullopt;
    }
    if (job.exclusive) {
      std::vector<int> all;
      for (const Gpu& g : node.gpus) all.push_back(g.index);
      std::sort(all.begin(), all.end());
      return all;
    }
    std::sort(gpus.begin(), gpus.end());
    gpus.resize(job.gpus_per_node);
    return gpus;
  }
  bool Admits(int n, const JobRequest& job) const {
    const std::string& name = snapshot->nodes[n].name;
    auto has = [&](const std::vector<std::string>& v) {
      return std::find(v.begin(), v.end(), name) != v.end();
    };
    return (job.allowed_nodes.empty() || has(job.allowed_nodes)) && !has(job.excluded_nodes);
  }
  // Earliest start, with the chosen (node, gpus) list.
  bool Idle(int n, int64_t t) const {
    const Node& node = snapshot->nodes[n];
    const Cell& c = cells[n][std::min(t, kHorizon - 1)];
    return c.jobs == 0 && c.cpus == node.cpus && c.mem == node.mem_mb &&
           c.gpus.size() == node.gpus.size();
  }
  bool Find(const JobRequest& job, int64_t t0, int64_t d, int64_t res, int64_t latest,
            int64_t* start, std::vector<std::pair<int, std::vector<int>>>* chosen,
            bool pack = false) const {
    std::vector<int> required;
    for (const std::string& r : job.required_nodes) {
      int n = Index(r);
      if (std::find(required.begin(), required.end(), n) == required.end()) required.push_back(n);
    }
    size_t want = std::max<size_t>(job.num_nodes, required.size());
    for (int64_t t = t0; t <= std::min<int64_t>(latest, kHorizon - 1); ++t) {
      if (t != t0 && res > 1 && t % res != 0) continue;
      const int64_t e = AddTime(t, d);
      chosen->clear();
      bool ok = true;
      for (int r : required) {
        auto fit = Admits(r, job) ? Fit(r, job, t, e) : std::nullopt;
        if (!fit)
          ok = false;
        else
          chosen->push_back({r, *fit});
      }
      if (!ok) continue;
      // FitNow (pack) takes partially used nodes before idle ones; FindStart is first fit.
      for (int pass = pack ? 0 : 1; pass < 2; ++pass) {
        for (int n = 0; n < static_cast<int>(cells.size()) && chosen->size() < want; ++n) {
          if (std::find(required.begin(), required.end(), n) != required.end()) continue;
          if (!Admits(n, job) || (pack && (pass == 1) != Idle(n, t))) continue;
          if (auto fit = Fit(n, job, t, e)) chosen->push_back({n, *fit});
        }
      }
      if (chosen->size() < want) continue;
      std::sort(chosen->begin(), chosen->end());
      *start = t;
      return true;
    }
    return false;
  }
  void Reserve(const JobRequest& job, int64_t s, int64_t e,
               const std::vector<std::pair<int, std::vector<int>>>& chosen) {
    for (const auto& [n, gpus] : chosen) {
      const Node& node = snapshot->nodes[n];
      for (int64_t t = s; t < std::min(e, kHorizon); ++t) {
        Cell& c = cells[n][t];
        c.cpus -= job.exclusive ? node.cpus : job.cpus_per_node;
        c.mem -= job.exclusive ? node.mem_mb : job.mem_per_node_mb;
        for (int g : gpus) c.gpus.erase(g);
        c.jobs += 1;
        c.excl = c.excl || job.exclusive;
      }
    }
  }
};

int64_t RandomDuration(Rng& rng) { return rng.Chance(10) ? kForever : rng.Int(1, 30); }

void ExpectSame(const Timeline& tl, const Placement& got,
                const std::vector<std::pair<int, std::vector<int>>>& want) {
  ASSERT_EQ(got.grants.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got.grants[i].node, want[i].first);
    EXPECT_EQ(tl.GpuIds(got.grants[i].node, got.grants[i].gpus), want[i].second);
  }
}

TEST(TimelinePropertyTest, MatchesBruteForce) {
  int found = 0, not_found = 0;
  for (uint32_t seed = 1; seed <= 3000; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Rng rng(seed);
    ClusterSnapshot s = RandomSnapshot(rng);
    Timeline tl = Timeline::Build(s, kNow);
    Reference ref(s);
    for (int q = 0; q < 12; ++q) {
      JobRequest job = RandomJob(rng, s);
      JobFilter filter = JobFilter::Compile(s, job);
      const Need need = tl.MakeNeed(job);
      const int64_t t0 = kNow + (rng.Chance(50) ? 0 : rng.Int(0, 40));
      const int64_t d = RandomDuration(rng);
      const int64_t res = rng.Chance(50) ? 1 : rng.Int(2, 15);
      const int64_t latest = rng.Chance(70) ? kForever : t0 + rng.Int(0, 60);
      Placement got;
      bool ok = tl.FindStart(need, filter, t0, d, res, latest, &got);
      int64_t start = -1;
      std::vector<std::pair<int, std::vector<int>>> want;
      bool ref_ok = filter.ok() && ref.Find(job, t0, d, res, latest, &start, &want);
      ASSERT_EQ(ok, ref_ok) << "query " << q;
      if (ok) {
        EXPECT_EQ(got.start, start);
        EXPECT_EQ(got.end, AddTime(start, d));
        ExpectSame(tl, got, want);
        if (rng.Chance(60)) {  // keep it as a reservation in both
          tl.Reserve(got);
          ref.Reserve(job, got.start, got.end, want);
        }
      }
      (ok ? found : not_found) += 1;
      // The start-now fast path agrees with the reference at now.
      Placement now_got;
      bool now_ok = tl.FitNow(need, filter, d, &now_got);
      bool now_ref = filter.ok() && ref.Find(job, kNow, d, 1, kNow, &start, &want, /*pack=*/true);
      ASSERT_EQ(now_ok, now_ref) << "fit-now query " << q;
      if (now_ok) ExpectSame(tl, now_got, want);
      if (HasFailure()) return;
    }
  }
  EXPECT_GT(found, 6000);
  EXPECT_GT(not_found, 2000);
}

// Reserve then Release restores every answer; a copy is independent of its original.
TEST(TimelinePropertyTest, ReleaseUndoesReserveAndCopiesAreIndependent) {
  for (uint32_t seed = 1; seed <= 500; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Rng rng(seed + 100000);
    ClusterSnapshot s = RandomSnapshot(rng);
    const Timeline base = Timeline::Build(s, kNow);
    Timeline what_if = base;
    std::vector<Placement> held;
    for (int q = 0; q < 6; ++q) {
      JobRequest job = RandomJob(rng, s);
      Placement p;
      if (what_if.FindStart(what_if.MakeNeed(job), JobFilter::Compile(s, job), kNow,
                            RandomDuration(rng), 1, kForever, &p)) {
        what_if.Reserve(p);
        held.push_back(p);
      }
    }
    for (auto it = held.rbegin(); it != held.rend(); ++it) what_if.Release(*it);
    for (int q = 0; q < 10; ++q) {
      JobRequest job = RandomJob(rng, s);
      JobFilter filter = JobFilter::Compile(s, job);
      const int64_t d = RandomDuration(rng);
      Placement a, b;
      bool ok_a = base.FindStart(base.MakeNeed(job), filter, kNow, d, 1, kForever, &a);
      bool ok_b = what_if.FindStart(what_if.MakeNeed(job), filter, kNow, d, 1, kForever, &b);
      ASSERT_EQ(ok_a, ok_b);
      if (ok_a) {
        EXPECT_EQ(a.start, b.start);
        ASSERT_EQ(a.grants.size(), b.grants.size());
        for (size_t i = 0; i < a.grants.size(); ++i) {
          EXPECT_EQ(a.grants[i].node, b.grants[i].node);
          EXPECT_EQ(a.grants[i].gpus, b.grants[i].gpus);
        }
      }
    }
  }
}

}  // namespace
}  // namespace sluice::sched
