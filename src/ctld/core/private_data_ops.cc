// PrivateData parsing and the Controller's filters of listings (see private_data.h).
#include <fmt/format.h>
#include <strings.h>

#include <algorithm>
#include <string>

#include "common/text_util.h"
#include "ctld/components/private_data.h"
#include "ctld/core/controller.h"

namespace sluice::ctld {

Expected<PrivateData> ParsePrivateData(std::string_view value) {
  PrivateData p;
  size_t pos = 0;
  while (pos <= value.size()) {
    size_t comma = value.find(',', pos);
    if (comma == std::string_view::npos) comma = value.size();
    std::string item(value.substr(pos, comma - pos));
    pos = comma + 1;
    auto is = [&](const char* name) { return strcasecmp(item.c_str(), name) == 0; };
    if (item.empty()) continue;
    if (is("jobs"))
      p.jobs = true;
    else if (is("usage"))
      p.usage = true;
    else if (is("users"))
      p.users = true;
    else if (is("accounts"))
      p.accounts = true;
    else if (is("reservations"))
      p.reservations = true;
    else if (is("cloud") || is("events") || is("nodes") || is("partitions"))
      continue;
    else
      return InvalidArgument(fmt::format("PrivateData: unknown item '{}'", item));
  }
  return p;
}

PrivateData PrivateDataOf(const Config& config) {
  auto it = config.raw.find("PrivateData");
  if (it == config.raw.end()) return {};
  auto p = ParsePrivateData(it->second);
  return p.ok() ? *p : PrivateData{true, true, true, true, true};
}

namespace {

template <typename List, typename Keep>
void KeepIf(List* list, Keep keep) {
  int out = 0;
  for (int i = 0; i < list->size(); ++i) {
    if (keep(list->Get(i))) {
      if (out != i) list->SwapElements(out, i);
      ++out;
    }
  }
  while (list->size() > out) list->RemoveLast();
}

}  // namespace

Status Controller::HidePrivate(const Caller& c, bool by_id, GetJobsReply* r) const {
  if (IsAdmin(c) || !PrivateDataOf(config_).jobs) return Status::Ok();
  KeepIf(r->mutable_jobs(), [&](const JobInfo& j) { return j.uid() == c.uid; });
  if (by_id && r->jobs().empty()) return NotFound(kMsgInvalidJobId);
  return Status::Ok();
}

bool Controller::HidesOthersJobs(const Caller& c) const {
  return !IsAdmin(c) && PrivateDataOf(config_).jobs;
}

void Controller::HidePrivate(const Caller& c, GetStepsReply* r) const {
  if (IsAdmin(c) || !PrivateDataOf(config_).jobs) return;
  KeepIf(r->mutable_steps(), [&](const StepInfo& s) { return s.uid() == c.uid; });
}

void Controller::HidePrivate(const Caller& c, GetPrioritiesReply* r) const {
  if (IsAdmin(c) || !PrivateDataOf(config_).jobs) return;
  KeepIf(r->mutable_jobs(), [&](const JobPriority& p) { return p.uid() == c.uid; });
}

void Controller::HidePrivate(const Caller& c, GetSharesReply* r) const {
  if (IsAdmin(c) || !PrivateDataOf(config_).usage) return;
  const std::string me = options_.user_name(c.uid);
  KeepIf(r->mutable_rows(), [&](const ShareInfo& s) { return s.user().empty() || s.user() == me; });
}

void Controller::HidePrivate(const Caller& c, ReservationReply* r) const {
  if (IsAdmin(c) || !PrivateDataOf(config_).reservations) return;
  const std::string me = options_.user_name(c.uid);
  KeepIf(r->mutable_reservations(), [&](const ReservationInfo& v) {
    bool listed = std::find(v.users().begin(), v.users().end(), me) != v.users().end();
    return v.users_denied() ? !listed : listed;
  });
}

void Controller::HidePrivate(const Caller& c, const std::string& entity, SacctmgrReply* r) const {
  PrivateData p = PrivateDataOf(config_);
  if (IsAdmin(c) || (!p.users && !p.accounts)) return;
  const std::string me = options_.user_name(c.uid);
  if (p.users) {
    KeepIf(r->mutable_users(), [&](const AssocUser& u) { return u.user() == me; });
  }
  bool assoc_listing = ToLower(entity).rfind("assoc", 0) == 0;
  if (p.accounts || (p.users && assoc_listing)) {
    KeepIf(r->mutable_accounts(), [&](const AssocAccount& a) {
      return assoc_db_.User(me, a.name()) != nullptr;  // accounts the caller belongs to
    });
  }
}

}  // namespace sluice::ctld
