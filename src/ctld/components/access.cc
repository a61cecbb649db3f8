#include "ctld/components/access.h"

#include <algorithm>

#include "common/text_util.h"
#include "ctld/components/private_data.h"

namespace sluice::ctld {

AdminLevel Access::LevelOf(const Caller& c) const {
  if (c.uid == 0 || c.uid == admin_uid_) return AdminLevel::kAdministrator;
  if (!assoc_->AnyPrivileged()) return AdminLevel::kNone;
  return assoc_->LevelOf((*user_name_)(c.uid));
}

bool Access::HidesAnything(const Caller& c) const {
  return !IsAdmin(c) && PrivateDataOf(*config_).Any();
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

Status Access::HidePrivate(const Caller& c, bool by_id, GetJobsReply* r) const {
  if (IsAdmin(c) || !PrivateDataOf(*config_).jobs) return Status::Ok();
  KeepIf(r->mutable_jobs(), [&](const JobInfo& j) { return j.uid() == c.uid; });
  if (by_id && r->jobs().empty()) return NotFound(kMsgInvalidJobId);
  return Status::Ok();
}

bool Access::HidesOthersJobs(const Caller& c) const {
  return !IsAdmin(c) && PrivateDataOf(*config_).jobs;
}

void Access::HidePrivate(const Caller& c, GetStepsReply* r) const {
  if (IsAdmin(c) || !PrivateDataOf(*config_).jobs) return;
  KeepIf(r->mutable_steps(), [&](const StepInfo& s) { return s.uid() == c.uid; });
}

void Access::HidePrivate(const Caller& c, GetPrioritiesReply* r) const {
  if (IsAdmin(c) || !PrivateDataOf(*config_).jobs) return;
  KeepIf(r->mutable_jobs(), [&](const JobPriority& p) { return p.uid() == c.uid; });
}

void Access::HidePrivate(const Caller& c, GetSharesReply* r) const {
  if (IsAdmin(c) || !PrivateDataOf(*config_).usage) return;
  const std::string me = (*user_name_)(c.uid);
  KeepIf(r->mutable_rows(), [&](const ShareInfo& s) { return s.user().empty() || s.user() == me; });
}

void Access::HidePrivate(const Caller& c, ReservationReply* r) const {
  if (IsAdmin(c) || !PrivateDataOf(*config_).reservations) return;
  const std::string me = (*user_name_)(c.uid);
  KeepIf(r->mutable_reservations(), [&](const ReservationInfo& v) {
    bool listed = std::find(v.users().begin(), v.users().end(), me) != v.users().end();
    return v.users_denied() ? !listed : listed;
  });
}

void Access::HidePrivate(const Caller& c, const std::string& entity, SacctmgrReply* r) const {
  PrivateData p = PrivateDataOf(*config_);
  if (IsAdmin(c) || (!p.users && !p.accounts)) return;
  const std::string me = (*user_name_)(c.uid);
  if (p.users) {
    KeepIf(r->mutable_users(), [&](const AssocUser& u) { return u.user() == me; });
  }
  bool assoc_listing = ToLower(entity).rfind("assoc", 0) == 0;
  if (p.accounts || (p.users && assoc_listing)) {
    KeepIf(r->mutable_accounts(), [&](const AssocAccount& a) {
      return assoc_->User(me, a.name()) != nullptr;  // accounts the caller belongs to
    });
  }
}

}  // namespace sluice::ctld
