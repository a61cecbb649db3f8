#include "cli/scontrol_admin.h"

#include <ostream>

#include "common/text_util.h"

namespace sluice {

int ScontrolToken(CliEnv& env, const std::vector<std::string>& args) {
  IssueTokenRequest req;
  for (const std::string& a : args) {
    if (StartsWithIgnoreCase(a, "lifespan=")) {
      int64_t n = 0;
      if (!ParseNonNegative(a.substr(9), &n) || n == 0) {
        *env.err << "Invalid option: `" << a << "`\n";
        return 1;
      }
      req.set_lifespan_s(n);
    } else if (StartsWithIgnoreCase(a, "username=")) {
      req.set_username(a.substr(9));
    } else {
      *env.err << "Invalid option: `" << a << "`\n";
      return 1;
    }
  }
  Expected<ClientApiInterface*> api = env.connect();
  Expected<IssueTokenReply> reply =
      api.ok() ? (*api)->IssueToken(req) : Expected<IssueTokenReply>(api.status());
  if (!reply.ok()) {
    *env.err << "scontrol: error: " << reply.status().message() << "\nError fetching token\n";
    return 1;
  }
  *env.out << "SLURM_JWT=" << reply->token() << "\n";
  return 0;
}

int ScontrolSetDebug(CliEnv& env, const std::vector<std::string>& args) {
  if (args.size() != 1) {
    *env.err << "too " << (args.empty() ? "few" : "many") << " arguments for keyword:setdebug\n";
    return 1;
  }
  SetDebugRequest req;
  req.set_level(args[0]);
  Expected<ClientApiInterface*> api = env.connect();
  Expected<SetDebugReply> reply =
      api.ok() ? (*api)->SetDebug(req) : Expected<SetDebugReply>(api.status());
  if (!reply.ok()) {
    *env.err << "slurm_set_debug_level error: " << reply.status().message() << "\n";
    return 1;
  }
  return 0;
}

int ScontrolTakeover(CliEnv& env, const std::vector<std::string>& args) {
  if (!args.empty()) {
    *env.err << "too many arguments for keyword:takeover\n";
    return 1;
  }
  Expected<ClientApiInterface*> api = env.connect();
  Expected<TakeoverReply> reply =
      api.ok() ? (*api)->Takeover({}) : Expected<TakeoverReply>(api.status());
  if (!reply.ok()) {
    *env.err << "slurm_takeover error: " << reply.status().message() << "\n";
    return 1;
  }
  return 0;
}

int ScontrolReconfigure(CliEnv& env, const std::vector<std::string>& args) {
  if (!args.empty()) {
    *env.err << "too many arguments for keyword:reconfigure\n";
    return 1;
  }
  Expected<ClientApiInterface*> api = env.connect();
  Expected<ReconfigureReply> reply =
      api.ok() ? (*api)->Reconfigure({}) : Expected<ReconfigureReply>(api.status());
  if (!reply.ok()) {
    *env.err << "slurm_reconfigure error: " << reply.status().message() << "\n";
    return 1;
  }
  if (reply->changes().empty()) *env.out << "configuration unchanged\n";
  for (const std::string& c : reply->changes()) *env.out << "reconfigured " << c << "\n";
  return 0;
}

}  // namespace sluice
