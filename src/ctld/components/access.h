// Access: who may see and do what. A caller's admin level (root and the controller's own
// uid are administrators; everyone else has the AdminLevel of their user in the
// association database, when anyone has one) and PrivateData's filters of what a
// non-admin is shown (components/private_data.h lists them). No state of its own: it reads
// the configuration and the association database it is handed, as they are now.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "client.pb.h"
#include "common/config.h"
#include "common/status.h"
#include "ctld/components/assoc_db.h"

namespace sluice::ctld {

inline constexpr char kMsgInvalidJobId[] = "Invalid job id specified";

struct Caller {
  uint32_t uid = 0;
  uint32_t gid = 0;
};

class Access {
 public:
  // `user_name`: the owner's uid -> name lookup, read at each call.
  Access(const Config* config, const AssocDb* assoc, uint32_t admin_uid,
         const std::function<std::string(uint32_t)>* user_name)
      : config_(config), assoc_(assoc), admin_uid_(admin_uid), user_name_(user_name) {}

  AdminLevel LevelOf(const Caller& c) const;
  bool IsAdmin(const Caller& c) const { return LevelOf(c) == AdminLevel::kAdministrator; }
  // Operator or above: may act on others' jobs.
  bool IsOperator(const Caller& c) const { return LevelOf(c) != AdminLevel::kNone; }
  // PrivateData=jobs and not an admin.
  bool HidesOthersJobs(const Caller& c) const;
  // Is any of PrivateData's items hiding something from `c`?
  bool HidesAnything(const Caller& c) const;

  // Remove from a listing what PrivateData hides from a non-admin `c`. A job listing
  // asked `by_id` that ends up empty is NotFound ("Invalid job id specified").
  Status HidePrivate(const Caller& c, bool by_id, GetJobsReply* r) const;
  void HidePrivate(const Caller& c, GetStepsReply* r) const;
  void HidePrivate(const Caller& c, GetPrioritiesReply* r) const;
  void HidePrivate(const Caller& c, GetSharesReply* r) const;
  void HidePrivate(const Caller& c, ReservationReply* r) const;
  void HidePrivate(const Caller& c, const std::string& entity, SacctmgrReply* r) const;

 private:
  const Config* config_;
  const AssocDb* assoc_;
  uint32_t admin_uid_;
  const std::function<std::string(uint32_t)>* user_name_;
};

}  // namespace sluice::ctld
