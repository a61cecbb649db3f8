#include "ctld/components/job_query.h"

#include <algorithm>
#include <charconv>
#include <string>

namespace sluice::ctld {
namespace {

// An empty filter lets every value pass.
template <typename List, typename Value>
bool Passes(const List& allowed, const Value& v) {
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), v) != allowed.end();
}

bool UserPasses(const GetJobsRequest& q, const JobInfo& job) {
  if (q.users().empty()) return true;
  const std::string uid = std::to_string(job.uid());
  return std::any_of(q.users().begin(), q.users().end(),
                     [&](const std::string& u) { return u == job.user() || u == uid; });
}

bool NodePasses(const GetJobsRequest& q, const JobInfo& job) {
  if (q.nodes().empty()) return true;
  return std::any_of(job.alloc().begin(), job.alloc().end(),
                     [&](const NodeAlloc& a) { return Passes(q.nodes(), a.node()); });
}

std::optional<uint32_t> ParseUid(const std::string& s) {
  uint32_t uid = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), uid);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return uid;
}

// The jobs of every user named in q.users (by name or uid), ascending.
std::vector<int64_t> JobsOfUsers(const JobTable& jobs, const GetJobsRequest& q) {
  std::vector<int64_t> ids;
  auto add_uid = [&](uint32_t uid) {
    const std::set<int64_t>& of = jobs.OfUid(uid);
    ids.insert(ids.end(), of.begin(), of.end());
  };
  for (const std::string& u : q.users()) {
    if (std::optional<uint32_t> uid = ParseUid(u)) add_uid(*uid);
    for (uint32_t uid : jobs.UidsNamed(u)) add_uid(uid);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace

bool MatchesJobQuery(const JobInfo& job, const GetJobsRequest& q) {
  const JobSpec& spec = job.spec();
  return Passes(q.states(), job.state()) && UserPasses(q, job) &&
         Passes(q.accounts(), spec.account()) && Passes(q.partitions(), spec.partition()) &&
         Passes(q.names(), spec.name()) &&
         (q.qos().empty() || Passes(q.qos(), spec.qos().empty() ? "normal" : spec.qos())) &&
         Passes(q.reservations(), spec.reservation()) && NodePasses(q, job);
}

std::optional<std::vector<int64_t>> JobQueryCandidates(const JobTable& jobs,
                                                       const GetJobsRequest& q) {
  // Only jobs that are not pending can pass: the states asked exclude PENDING, or a node
  // is asked (a pending job holds no allocation: requeueing clears it).
  bool not_pending =
      !q.nodes().empty() || (!q.states().empty() && std::find(q.states().begin(), q.states().end(),
                                                              JOB_PENDING) == q.states().end());
  std::optional<std::vector<int64_t>> best;
  if (!q.users().empty()) best = JobsOfUsers(jobs, q);
  if (not_pending && (!best || jobs.NotPending().size() < best->size())) {
    best.emplace(jobs.NotPending().begin(), jobs.NotPending().end());
  }
  return best;
}

}  // namespace sluice::ctld
