// AssocDb: the association database sacctmgr edits (clusters, accounts, user
// associations, QOS), held by the Controller. Pure: no I/O. Persisted by the Controller
// as StateStore assoc_records (kind cluster|account|user|qos; user rows are named
// "user<US>account"); the config's AccountName=/UserName= lines seed what the store
// lacks. The root account and the QOS "normal" always exist.
//
// Execute() runs one sacctmgr request (assoc_edit.cc): add|modify|delete|show of
// cluster|account|user|qos with Slurm's keys and messages; the records to write/erase
// are returned for the caller to commit before replying.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "client.pb.h"
#include "common/config.h"
#include "common/status.h"
#include "storage/state_store.h"

namespace sluice::ctld {

enum class AdminLevel { kNone = 0, kOperator = 1, kAdministrator = 2 };

struct AssocWrites {
  std::vector<storage::AssocRecord> puts;
  std::vector<storage::AssocRecord> erase;
};

class AssocDb {
 public:
  AssocDb();
  // Adds the config's cluster, accounts and user associations that are not there yet.
  void Seed(const Config& config);
  Status Load(const std::vector<storage::AssocRecord>& records);

  // `level` is the caller's: changes need kOperator (AdminLevel changes kAdministrator).
  Expected<SacctmgrReply> Execute(const SacctmgrRequest& req, AdminLevel level, AssocWrites* out);

  const AssocAccount* Account(const std::string& name) const;
  const AssocUser* User(const std::string& user, const std::string& account) const;
  bool HasUser(const std::string& user) const;
  std::string DefaultAccount(const std::string& user) const;  // "" if none
  AdminLevel LevelOf(const std::string& user) const;
  bool AnyPrivileged() const { return !levels_.empty(); }  // a user above None exists
  const QosInfo* Qos(const std::string& name) const;
  // account, its parent, ..., root (empty if unknown).
  std::vector<std::string> Lineage(const std::string& account) const;
  // QOS the association may use: the first non-empty list up the tree, else {"normal"}.
  std::vector<std::string> AllowedQos(const std::string& user, const std::string& account) const;
  // The job's QOS: its own, else its association's default, else "normal".
  std::string JobQos(const JobInfo& job) const;
  // The per-user limits that apply to (user, account): each limit from the user's
  // association, else the nearest account up the tree that sets it.
  AssocLimits EffectiveLimits(const std::string& user, const std::string& account) const;

  using UserKey = std::pair<std::string, std::string>;  // (user, account)
  const std::map<std::string, AssocAccount>& accounts() const { return accounts_; }
  const std::map<UserKey, AssocUser>& users() const { return users_; }
  const std::map<std::string, QosInfo>& qos() const { return qos_; }
  const std::map<std::string, AssocCluster>& clusters() const { return clusters_; }

  static std::string UserRecordName(const std::string& user, const std::string& account);

 private:
  friend class AssocEdit;
  std::map<std::string, AssocCluster> clusters_;
  std::map<std::string, AssocAccount> accounts_;
  std::map<UserKey, AssocUser> users_;
  std::map<std::string, QosInfo> qos_;
  std::map<std::string, AdminLevel> levels_;  // users above None
  void Reindex();
};

AdminLevel ParseAdminLevel(const std::string& s, bool* ok);
const char* AdminLevelName(AdminLevel l);

}  // namespace sluice::ctld
