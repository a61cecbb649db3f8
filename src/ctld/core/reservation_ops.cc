// Advance reservations and partition access of the Controller (see controller.h).
//
// Reservations live in the ReservationBook (reservation_book.h: memory and the store,
// each change written before it is acknowledged); this file checks requests against jobs,
// nodes and partitions.
// Only admins (root, the controller's uid) may change them; anyone may list them.
// Every scheduling pass first rolls reservations forward (DAILY/WEEKLY repeat after they
// end, others are purged), then hands their windows to the scheduler (sched/reservations.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "common/hostlist.h"
#include "ctld/components/reservation_spec.h"
#include "ctld/components/step_resources.h"
#include "ctld/components/validate.h"
#include "ctld/core/controller.h"

namespace sluice::ctld {
namespace {

constexpr char kMsgResvInvalid[] = "Requested reservation is invalid";
constexpr char kMsgResvAccess[] = "Access denied to requested reservation";
constexpr char kMsgResvOverlap[] = "Requested reservation overlaps with another reservation";
constexpr char kMsgBadTime[] = "Invalid time specified";
constexpr char kMsgResvBusy[] = "Reservation is in use";
constexpr char kMsgResvDup[] = "Duplicate reservation name";
constexpr char kMsgResvNoUsers[] = "Reservation request lacks users or accounts";
constexpr char kMsgBadGroup[] = "User's group not permitted to use this partition";

bool Has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}
// Slurm's words for a partition's AllowAccounts/DenyAccounts/AllowQos refusal, then its
// error line: "job's account not permitted to use this partition (gpu allows a,b not c)".
std::string PartitionRefusal(const PartitionConfig& part, const char* what,
                             const std::vector<std::string>& allow, const std::string& value,
                             const char* slurm_error) {
  const std::string shown = value.empty() ? "(null)" : value;
  const std::string why =
      !allow.empty() ? fmt::format("{} allows {} not {}", part.name, fmt::join(allow, ","), shown)
                     : fmt::format("{} denies {}", part.name, shown);
  return fmt::format("job's {} not permitted to use this partition ({})\n{}", what, why,
                     slurm_error);
}

std::vector<std::string> List(const google::protobuf::RepeatedPtrField<std::string>& f) {
  return {f.begin(), f.end()};
}
void SetList(google::protobuf::RepeatedPtrField<std::string>* f,
             const std::vector<std::string>& v) {
  f->Clear();
  for (const std::string& s : v) *f->Add() = s;
}

// Whether `who` passes a Users=/Accounts= list (empty list: it says nothing).
bool ListAdmits(const google::protobuf::RepeatedPtrField<std::string>& list, bool denied,
                const std::string& who) {
  const bool in = std::find(list.begin(), list.end(), who) != list.end();
  return denied ? !in : in;
}

}  // namespace

Expected<ReservationReply> Controller::Reservation(const Caller& caller,
                                                   const ReservationRequest& req) {
  ReservationReply reply;
  reply.set_now(Now());
  if (req.action() == RESV_SHOW) {
    resvs_.Roll(Now());
    for (const auto& [name, r] : resvs_.all())
      if (req.name().empty() || req.name() == name) *reply.add_reservations() = r;
    if (!req.name().empty() && reply.reservations().empty())
      return NotFound(fmt::format("Reservation {} not found", req.name()));
    return reply;
  }
  if (!access_.IsAdmin(caller)) return PermissionDenied(kMsgAccessDenied);
  if (req.action() == RESV_DELETE) {
    if (!resvs_.Find(req.name())) return NotFound(kMsgResvInvalid);
    for (const auto& [id, job] : jobs_.jobs())
      if (HoldsResources(job) && job.spec().reservation() == req.name())
        return FailedPrecondition(kMsgResvBusy);
    RETURN_IF_ERROR(resvs_.Erase(req.name()));
    WantSchedule();
    return reply;
  }
  if (req.action() != RESV_CREATE && req.action() != RESV_UPDATE)
    return InvalidArgument("Invalid reservation request");
  ASSIGN_OR_RETURN(ResvEdit e, ParseReservationArgs({req.args().begin(), req.args().end()}, Now()));
  ReservationInfo r;
  const bool create = req.action() == RESV_CREATE;
  if (create) {
    if (e.name && resvs_.Find(*e.name)) return InvalidArgument(kMsgResvDup);
    if (!e.start) return InvalidArgument(kMsgBadTime);
    if (!e.end && !e.duration_s) return InvalidArgument(kMsgBadTime);
    if (!e.users && !e.accounts) return InvalidArgument(kMsgResvNoUsers);
    std::string name = e.name.value_or("");
    for (int n = 1; name.empty() || resvs_.Find(name); ++n) {
      const std::string owner = e.users && !e.users->empty()         ? (*e.users)[0]
                                : e.accounts && !e.accounts->empty() ? (*e.accounts)[0]
                                                                     : "resv";
      name = fmt::format("{}_{}", owner, n);
    }
    r.set_name(name);
  } else {
    if (!e.name) return InvalidArgument(kMsgResvInvalid);
    const ReservationInfo* old = resvs_.Find(*e.name);
    if (!old) return NotFound(kMsgResvInvalid);
    r = *old;
  }
  // Times: a new start keeps the duration unless an end or duration is given too.
  const int64_t old_duration = r.end_time() - r.start_time();
  if (e.start) r.set_start_time(create ? std::max(*e.start, Now()) : *e.start);
  if (e.end) {
    r.set_end_time(*e.end);
  } else if (e.duration_s) {
    r.set_end_time(r.start_time() + *e.duration_s);
  } else if (e.start) {
    r.set_end_time(r.start_time() + old_duration);
  }
  if (r.end_time() <= r.start_time() || (e.end && *e.end <= Now()))
    return InvalidArgument(kMsgBadTime);
  if (e.users) {
    SetList(r.mutable_users(), *e.users);
    r.set_users_denied(e.users_denied);
  }
  if (e.accounts) {
    SetList(r.mutable_accounts(), *e.accounts);
    r.set_accounts_denied(e.accounts_denied);
  }
  if (r.users().empty() && r.accounts().empty()) return InvalidArgument(kMsgResvNoUsers);
  if (e.partition) {
    if (!LookupPartition(config_, *e.partition)) return InvalidArgument(kMsgInvalidPartition);
    r.set_partition(*e.partition);
  }
  std::vector<std::string> flags = List(r.flags());
  if (e.flags) {
    std::vector<std::string> keep;
    for (const std::string& f : flags)
      if (f == "SPEC_NODES" || f == "ALL_NODES") keep.push_back(f);
    flags = keep;
    flags.insert(flags.end(), e.flags->begin(), e.flags->end());
  }
  flags.insert(flags.end(), e.flags_add.begin(), e.flags_add.end());
  for (const std::string& f : e.flags_remove)
    flags.erase(std::remove(flags.begin(), flags.end(), f), flags.end());
  SetList(r.mutable_flags(), SortResvFlags(flags));
  const bool nodes_change = e.nodes || e.node_cnt || e.tres_cpus || e.tres_gpus;
  if (create && !nodes_change) return InvalidArgument(kMsgNodeConfig);
  if (nodes_change) RETURN_IF_ERROR(PickReservationNodes(e, &r));
  // Conflicts: other reservations on the same nodes at the same time; running jobs.
  if (resvs_.Conflicts(r)) return InvalidArgument(kMsgResvOverlap);
  if ((nodes_change || e.start) && !HasFlag(r, "IGNORE_JOBS") && !HasFlag(r, "MAINT")) {
    for (const std::string& n : r.nodes()) {
      const NodeRuntime* node = nodes_.Find(n);
      if (!node) continue;
      for (int64_t id : node->jobs) {
        const JobInfo* job = jobs_.Find(id);
        if (!job || job->spec().reservation() == r.name()) continue;
        const int64_t end =
            job->time_limit_min() > 0 ? job->start_time() + job->time_limit_min() * 60 : INT64_MAX;
        if (end > r.start_time()) return InvalidArgument(kMsgNodesBusy);
      }
    }
  }
  RETURN_IF_ERROR(resvs_.Put(r));
  reply.set_name(r.name());
  WantSchedule();
  return reply;
}

Status Controller::PickReservationNodes(const ResvEdit& e, ReservationInfo* r) {
  std::vector<std::string> candidates;
  const PartitionConfig* part =
      r->partition().empty() ? nullptr : LookupPartition(config_, r->partition());
  if (part) {
    candidates = part->nodes;
  } else {
    for (const NodeConfig& n : config_.nodes) candidates.push_back(n.name);
  }
  std::vector<std::string> flags = List(r->flags());
  flags.erase(
      std::remove_if(flags.begin(), flags.end(),
                     [](const std::string& f) { return f == "SPEC_NODES" || f == "ALL_NODES"; }),
      flags.end());
  std::vector<std::string> chosen;
  int64_t cpus = 0, gpus = 0;
  if (e.nodes) {
    if (*e.nodes == "ALL") {
      chosen = candidates;
      flags.push_back("ALL_NODES");
    } else {
      // No more names than configured nodes (counted before expanding); dedup by set.
      Expected<std::vector<std::string>> names =
          ExpandHostlist(*e.nodes, std::max<size_t>(config_.nodes.size(), 1));
      if (!names.ok() || names->empty()) return InvalidArgument(kMsgBadNodeName);
      std::set<std::string> seen;
      for (const std::string& n : *names) {
        if (!config_.FindNode(n)) return InvalidArgument(kMsgBadNodeName);
        if (seen.insert(n).second) chosen.push_back(n);
      }
    }
    flags.push_back("SPEC_NODES");
  } else {
    // NodeCnt / TRES: the first nodes (configuration order) that are usable, hold no jobs
    // (unless IGNORE_JOBS/MAINT) and are in no overlapping reservation.
    const bool ignore_jobs = HasFlag(*r, "IGNORE_JOBS") || HasFlag(*r, "MAINT");
    for (const std::string& n : candidates) {
      const bool enough = (e.node_cnt && static_cast<int>(chosen.size()) >= *e.node_cnt) ||
                          (!e.node_cnt && (!e.tres_cpus || cpus >= *e.tres_cpus) &&
                           (!e.tres_gpus || gpus >= *e.tres_gpus));
      if (enough) break;
      const NodeRuntime* node = nodes_.Find(n);
      if (!node || node->admin.down || node->admin.drain) continue;
      if (!ignore_jobs && !node->jobs.empty()) continue;
      if (e.tres_gpus && !e.tres_cpus && !e.node_cnt && node->cfg.gpus.empty()) continue;
      if (resvs_.NodeReserved(n, r->name(), r->start_time(), r->end_time())) continue;
      chosen.push_back(n);
      cpus += node->cfg.cpus;
      gpus += static_cast<int64_t>(node->cfg.gpus.size());
    }
    const bool enough = (e.node_cnt && static_cast<int>(chosen.size()) >= *e.node_cnt) ||
                        (!e.node_cnt && (!e.tres_cpus || cpus >= *e.tres_cpus) &&
                         (!e.tres_gpus || gpus >= *e.tres_gpus));
    if (!enough) return InvalidArgument(kMsgNodesBusy);
  }
  std::sort(chosen.begin(), chosen.end(),
            [](const std::string& a, const std::string& b) { return NaturalCompare(a, b) < 0; });
  SetList(r->mutable_nodes(), chosen);
  SetList(r->mutable_flags(), SortResvFlags(flags));
  int64_t core_cnt = 0, gpu_cnt = 0;
  for (const std::string& n : chosen) {
    if (const NodeConfig* c = config_.FindNode(n)) {
      core_cnt += c->cpus;
      gpu_cnt += static_cast<int64_t>(c->gpus.size());
    }
  }
  r->set_core_cnt(static_cast<int32_t>(core_cnt));
  std::string tres = fmt::format("cpu={}", core_cnt);
  if (e.tres_gpus && gpu_cnt > 0) tres += fmt::format(",gres/gpu={}", gpu_cnt);
  r->set_tres(tres);
  return Status::Ok();
}

Status Controller::CheckSubmitAccess(JobInfo* job) const {
  JobSpec* spec = job->mutable_spec();
  if (const PartitionConfig* part = LookupPartition(config_, spec->partition())) {
    const std::string& account = spec->account();
    if (!part->allow_accounts.empty() ? !Has(part->allow_accounts, account)
                                      : Has(part->deny_accounts, account))
      return InvalidArgument(
          PartitionRefusal(*part, "account", part->allow_accounts, account, kMsgInvalidAccount));
    const std::string qos = spec->qos().empty() ? "normal" : spec->qos();
    if (!part->allow_qos.empty() && !Has(part->allow_qos, qos))
      return InvalidArgument(PartitionRefusal(*part, "QOS", part->allow_qos, qos, kMsgInvalidQos));
    if (!part->allow_groups.empty() && !Has(part->allow_groups, job->group()) && job->uid() != 0)
      return PermissionDenied(kMsgBadGroup);
    if (part->exclusive) spec->set_exclusive(true);
  }
  if (spec->reservation().empty()) return Status::Ok();
  const ReservationInfo* found = resvs_.Find(spec->reservation());
  if (!found || found->end_time() <= Now()) {
    return InvalidArgument(fmt::format("invalid reservation specified: {}{}\n{}",
                                       spec->reservation(), found ? " (it has ended)" : "",
                                       kMsgResvInvalid));
  }
  const ReservationInfo& r = *found;
  const bool user_ok = !r.users().empty() && ListAdmits(r.users(), r.users_denied(), job->user());
  const bool account_ok =
      !r.accounts().empty() && ListAdmits(r.accounts(), r.accounts_denied(), spec->account());
  if (!user_ok && !account_ok) {
    return PermissionDenied(fmt::format(
        "user {} (account {}) may not use reservation {}\n{}", job->user(),
        spec->account().empty() ? "none" : spec->account(), spec->reservation(), kMsgResvAccess));
  }
  return Status::Ok();
}

}  // namespace sluice::ctld
