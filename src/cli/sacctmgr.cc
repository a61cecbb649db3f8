#include "cli/sacctmgr.h"

#include <ostream>

#include "cli/commit_prompt.h"
#include "cli/help_text.h"
#include "cli/sacctmgr_args.h"
#include "cli/sacctmgr_format.h"
#include "cli/sacctmgr_json.h"
#include "common/text_util.h"

namespace sluice {
namespace {

void PrintError(const std::string& msg, CliEnv& env) {
  if (!msg.empty() && msg[0] == ' ')
    *env.err << msg << "\n";  // Slurm's indented messages
  else
    *env.err << "sacctmgr: error: " << msg << "\n";
}

// Without -i: shows what the change would do (a check_only request), asks, and commits
// only on 'y'; otherwise " Changes Discarded." and nothing is written (exit 0).
int ConfirmAndCommit(const SacctmgrCommand& cmd, ClientApiInterface& api, CliEnv& env) {
  SacctmgrRequest check = cmd.request;
  check.set_check_only(true);
  Expected<SacctmgrReply> preview = api.Sacctmgr(check);
  if (!preview.ok()) {
    PrintError(preview.status().message(), env);
    return 1;
  }
  if (!cmd.quiet)
    for (const auto& l : preview->lines()) *env.out << l << "\n";
  if (!preview->changes()) return 0;
  if (!AskCommit(env)) {
    *env.out << " Changes Discarded.\n";
    return 0;
  }
  Expected<SacctmgrReply> done = api.Sacctmgr(cmd.request);
  if (!done.ok()) {
    PrintError(done.status().message(), env);
    return 1;
  }
  return 0;
}

// The cluster's TRES (`show tres`): the fixed ones and one per GresTypes entry.
std::vector<TresRow> TresOf(ClientApiInterface& api) {
  std::vector<std::string> gres;
  if (Expected<GetConfigReply> conf = api.GetConfig(GetConfigRequest()); conf.ok()) {
    for (int i = 0; i < conf->keys_size() && i < conf->values_size(); ++i) {
      if (conf->keys(i) != "GresTypes" || conf->values(i) == "(null)") continue;
      for (std::string_view g : Split(conf->values(i), ','))
        if (!g.empty()) gres.emplace_back(g);
    }
  }
  return ClusterTres(gres);
}

}  // namespace

int RunSacctmgr(const std::vector<std::string>& args, CliEnv& env) {
  Expected<SacctmgrCommand> cmd = ParseSacctmgrArgs(args);
  if (!cmd.ok()) {
    PrintError(cmd.status().message(), env);
    return 1;
  }
  if (cmd->version) {
    *env.out << "slurm " << kSlurmVersion << "\n";
    return 0;
  }
  if (cmd->help) {
    *env.out << HelpText("sacctmgr", HelpKind::kHelp);
    return 0;
  }
  auto api = env.connect();
  if (!api.ok()) {
    PrintError(api.status().message(), env);
    return 1;
  }
  const bool change = cmd->request.verb() != "show";
  if (change && !cmd->immediate) return ConfirmAndCommit(*cmd, **api, env);
  const std::string& entity = cmd->request.entity();
  const bool local = entity == "tres" || entity == "wckey";  // not association data
  Expected<SacctmgrReply> reply = local ? SacctmgrReply() : (*api)->Sacctmgr(cmd->request);
  if (!reply.ok()) {
    PrintError(reply.status().message(), env);
    return 1;
  }
  if (change) {
    if (!cmd->quiet)
      for (const auto& l : reply->lines()) *env.out << l << "\n";
    return 0;
  }
  const std::vector<TresRow> tres =
      entity == "tres" || entity == "cluster" ? TresOf(**api) : std::vector<TresRow>{};
  if (cmd->json) {
    *env.out << FormatSacctmgrJson(*cmd, *reply, tres);
    return 0;
  }
  const std::string cluster = reply->clusters().empty() ? "" : reply->clusters(0).name();
  Expected<std::string> table = FormatSacctmgrShow(*cmd, *reply, cluster, tres);
  if (!table.ok()) {
    PrintError(table.status().message(), env);
    return 1;
  }
  *env.out << *table;
  return 0;
}

}  // namespace sluice
