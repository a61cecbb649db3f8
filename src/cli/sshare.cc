#include "cli/sshare.h"

#include <fmt/format.h>

#include <cmath>
#include <ostream>
#include <set>

#include "cli/format_engine.h"
#include "cli/help_text.h"
#include "cli/list_args.h"
#include "cli/opt_parser.h"

namespace sluice {
namespace {

enum Opt {
  kAll = 1,
  kAccounts,
  kUsers,
  kLong,
  kNoHeader,
  kParsable,
  kParsable2,
  kVersion,
  kHelp,
  kIgnored,
  kUsage
};

const std::vector<OptionDef>& Defs() {
  static const auto* d = new std::vector<OptionDef>{
      {"all", 'a', ArgKind::kNone, kAll},
      {"accounts", 'A', ArgKind::kRequired, kAccounts},
      {"users", 'u', ArgKind::kRequired, kUsers},
      {"long", 'l', ArgKind::kNone, kLong},
      {"noheader", 'n', ArgKind::kNone, kNoHeader},
      {"parsable", 'p', ArgKind::kNone, kParsable},
      {"parsable2", 'P', ArgKind::kNone, kParsable2},
      {"version", 'V', ArgKind::kNone, kVersion},
      {"help", 'h', ArgKind::kNone, kHelp},
      {"usage", 0, ArgKind::kNone, kUsage},
      {"verbose", 'v', ArgKind::kNone, kIgnored},
      {"clusters", 'M', ArgKind::kRequired, kIgnored},
  };
  return *d;
}

struct SshareOptions {
  bool all = false, long_fmt = false, header = true, help = false, usage = false, version = false;
  int parsable = 0;  // 1: -p ("a|b|"), 2: -P ("a|b")
  std::set<std::string> accounts, users;
};

struct Column {
  const char* name;
  int width;
  bool right;
};

std::vector<Column> Columns(bool long_fmt) {
  std::vector<Column> c = {{"Account", 20, false},
                           {"User", 10, true},
                           {"RawShares", 10, true},
                           {"NormShares", 11, true},
                           {"RawUsage", 11, true}};
  if (long_fmt) c.push_back({"NormUsage", 11, true});
  c.push_back({"EffectvUsage", 13, true});
  c.push_back({"FairShare", 10, true});
  if (long_fmt) {
    c.push_back({"LevelFS", 10, true});
    c.push_back({"GrpTRESMins", 30, true});
    c.push_back({"TRESRunMins", 30, true});
  }
  return c;
}

std::string Fixed(double v) {
  if (std::isinf(v)) return "inf";
  return fmt::format("{:.6f}", v);
}

std::string Value(const std::string& name, const ShareInfo& r, bool parsable) {
  bool root = r.depth() == 0;
  if (name == "Account") return (parsable ? "" : std::string(r.depth(), ' ')) + r.account();
  if (name == "User") return r.user();
  if (name == "RawShares") return root ? "" : std::to_string(r.raw_shares());
  if (name == "NormShares") return Fixed(r.norm_shares());
  if (name == "RawUsage") return fmt::format("{}", std::llround(r.raw_usage()));
  if (name == "NormUsage") return Fixed(r.norm_usage());
  if (name == "EffectvUsage") return Fixed(r.effective_usage());
  if (name == "FairShare") return r.user().empty() ? "" : Fixed(r.fairshare());
  if (name == "LevelFS") return root ? "" : Fixed(r.level_fs());
  return "";
}

std::string Line(const std::vector<Column>& cols, const SshareOptions& s,
                 const std::function<std::string(const Column&)>& cell) {
  std::string out;
  for (size_t i = 0; i < cols.size(); ++i) {
    if (s.parsable) {
      out += cell(cols[i]);
      if (s.parsable == 1 || i + 1 < cols.size()) out += "|";
    } else {
      out += Justify(cell(cols[i]), cols[i].width, cols[i].right) + " ";
    }
  }
  return out;
}

bool Wanted(const ShareInfo& r, const SshareOptions& s, const std::string& me) {
  if (!s.accounts.empty() && !s.accounts.count(r.account())) return false;
  if (r.user().empty()) return true;
  if (!s.users.empty()) return s.users.count(r.user()) > 0;
  return s.all || r.user() == me;
}

int Show(const SshareOptions& s, CliEnv& env) {
  Expected<ClientApiInterface*> api = env.connect();
  Expected<GetSharesReply> reply =
      api.ok() ? (*api)->GetShares({}) : Expected<GetSharesReply>(api.status());
  if (!reply.ok()) {
    *env.err << "sshare: error: " << reply.status().message() << "\n";
    return 1;
  }
  std::vector<Column> cols = Columns(s.long_fmt);
  if (s.header) {
    *env.out << Line(cols, s, [](const Column& c) { return std::string(c.name); }) << "\n";
    if (!s.parsable) {
      *env.out << Line(cols, s, [](const Column& c) { return std::string(c.width, '-'); }) << "\n";
    }
  }
  std::string me = env.user_name ? env.user_name(env.uid) : std::to_string(env.uid);
  for (const ShareInfo& r : reply->rows()) {
    if (!Wanted(r, s, me)) continue;
    *env.out << Line(cols, s, [&](const Column& c) { return Value(c.name, r, s.parsable != 0); })
             << "\n";
  }
  return 0;
}

Status ApplyOption(const ParsedOption& o, SshareOptions* s) {
  switch (o.id) {
    case kAll:
      s->all = true;
      break;
    case kLong:
      s->long_fmt = true;
      break;
    case kNoHeader:
      s->header = false;
      break;
    case kParsable:
      s->parsable = 1;
      break;
    case kParsable2:
      s->parsable = 2;
      break;
    case kVersion:
      s->version = true;
      break;
    case kHelp:
      s->help = true;
      break;
    case kUsage:
      s->usage = true;
      break;
    case kAccounts:
      for (auto& a : SplitList(o.value)) s->accounts.insert(a);
      break;
    case kUsers:
      for (auto& u : SplitList(o.value)) s->users.insert(u);
      break;
  }
  return Status::Ok();
}

}  // namespace

int RunSshare(const std::vector<std::string>& args, CliEnv& env) {
  Expected<ParsedArgs> parsed = ParseCommandLine("sshare", args, Defs());
  if (!parsed.ok()) {
    *env.err << parsed.status().message() << "\nTry \"sshare --help\" for more information\n";
    return 1;
  }
  SshareOptions s;
  for (const ParsedOption& o : parsed->options) (void)ApplyOption(o, &s);
  if (!parsed->positionals.empty()) {
    *env.err << "sshare: error: Unrecognized option: " << parsed->positionals[0] << "\n";
    return 1;
  }
  if (s.version) {
    *env.out << "slurm " << kSlurmVersion << "\n";
    return 0;
  }
  if (s.help || s.usage) {
    *env.out << HelpText("sshare", s.usage ? HelpKind::kUsage : HelpKind::kHelp);
    return 0;
  }
  return Show(s, env);
}

}  // namespace sluice
