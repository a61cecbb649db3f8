#include "cli/sacctmgr_args.h"

#include <fmt/format.h>

#include "cli/opt_parser.h"
#include "common/text_util.h"

namespace sluice {
namespace {

enum Opt {
  kImmediate = 1,
  kNoHeader,
  kParsable,
  kParsable2,
  kAssoc,
  kQuiet,
  kVersion,
  kHelp,
  kJson,
  kIgnored
};

const std::vector<OptionDef>& Defs() {
  static const auto* d = new std::vector<OptionDef>{
      {"immediate", 'i', ArgKind::kNone, kImmediate},
      {"noheader", 'n', ArgKind::kNone, kNoHeader},
      {"parsable", 'p', ArgKind::kNone, kParsable},
      {"parsable2", 'P', ArgKind::kNone, kParsable2},
      {"associations", 's', ArgKind::kNone, kAssoc},
      {"quiet", 'Q', ArgKind::kNone, kQuiet},
      {"version", 'V', ArgKind::kNone, kVersion},
      {"help", 'h', ArgKind::kNone, kHelp},
      {"usage", 0, ArgKind::kNone, kHelp},
      {"verbose", 'v', ArgKind::kNone, kIgnored},
      {"readonly", 'r', ArgKind::kNone, kIgnored},
      {"cluster", 'M', ArgKind::kRequired, kIgnored},
      {"json", 0, ArgKind::kNone, kJson},
  };
  return *d;
}

std::string Verb(const std::string& w) {
  std::string v = ToLower(w);
  if (v == "create") return "add";
  if (v == "update") return "modify";
  if (v == "remove") return "delete";
  if (v == "list") return "show";
  return v;
}

Expected<std::string> Entity(const std::string& w) {
  std::string e = ToLower(w);
  if (e == "cluster" || e == "clusters") return std::string("cluster");
  if (e == "account" || e == "accounts") return std::string("account");
  if (e == "user" || e == "users") return std::string("user");
  if (e == "qos") return std::string("qos");
  if (e == "association" || e == "associations" || e == "assoc") return std::string("association");
  if (e == "tres") return std::string("tres");
  if (e == "wckey" || e == "wckeys") return std::string("wckey");
  return InvalidArgument(
      fmt::format("No valid entity in {} command\nInput line must include \"Account\", "
                  "\"Cluster\", \"QOS\", \"User\" or \"Association\"",
                  w));
}

}  // namespace

Expected<std::vector<SacctmgrField>> ParseSacctmgrFormat(const std::string& spec) {
  std::vector<SacctmgrField> out;
  for (auto part : Split(spec, ',')) {
    std::string p(Trim(part));
    if (p.empty()) continue;
    SacctmgrField f;
    size_t pct = p.find('%');
    f.name = ToLower(p.substr(0, pct));
    if (pct != std::string::npos) {
      std::string w = p.substr(pct + 1);
      bool left = !w.empty() && w[0] == '-';
      int64_t n = 0;
      if (!ParseNonNegative(left ? w.substr(1) : w, &n) || n > 1000)
        return InvalidArgument(fmt::format("Invalid format width '{}'", p));
      f.width = left ? -static_cast<int>(n) : static_cast<int>(n);
      f.has_width = true;
    }
    out.push_back(f);
  }
  return out;
}

Expected<SacctmgrCommand> ParseSacctmgrArgs(const std::vector<std::string>& args) {
  ASSIGN_OR_RETURN(ParsedArgs parsed, ParseCommandLine("sacctmgr", args, Defs()));
  SacctmgrCommand c;
  for (const auto& o : parsed.options) {
    switch (o.id) {
      case kImmediate:
        c.immediate = true;
        break;
      case kNoHeader:
        c.noheader = true;
        break;
      case kParsable:
        c.parsable = 1;
        break;
      case kParsable2:
        c.parsable = 2;
        break;
      case kAssoc:
        c.associations = true;
        break;
      case kQuiet:
        c.quiet = true;
        break;
      case kVersion:
        c.version = true;
        break;
      case kHelp:
        c.help = true;
        break;
      case kJson:
        c.json = true;
        break;
      default:
        break;
    }
  }
  const auto& w = parsed.positionals;
  if (c.help || c.version) return c;
  if (w.empty()) return InvalidArgument("No command given");
  std::string verb = Verb(w[0]);
  if (verb != "add" && verb != "modify" && verb != "delete" && verb != "show")
    return InvalidArgument(fmt::format("invalid keyword: {}", w[0]));
  if (w.size() < 2) return InvalidArgument(fmt::format("No entity given to {}", w[0]));
  ASSIGN_OR_RETURN(std::string entity, Entity(w[1]));
  if (entity == "association" && verb != "show")
    return InvalidArgument("Associations are changed through their account or user");
  if (entity == "tres" && verb != "show")
    return InvalidArgument("TRES come from the cluster's configuration");
  if (entity == "wckey" && verb != "show")
    return InvalidArgument("WCKeys are not tracked (TrackWCKey=no)");
  c.request.set_verb(verb);
  c.request.set_entity(entity);
  bool in_set = false;
  for (size_t i = 2; i < w.size(); ++i) {
    const std::string lw = ToLower(w[i]);
    if (lw == "where") {
      in_set = false;
      continue;
    }
    if (lw == "set") {
      if (verb != "modify") return InvalidArgument(fmt::format("'set' is only valid with modify"));
      in_set = true;
      continue;
    }
    if (lw == "withassoc" || lw == "withassocs") {
      c.associations = true;
      continue;
    }
    if (lw == "withcoord" || lw == "withdeleted" || lw == "withsubaccounts") continue;
    size_t eq = w[i].find('=');
    if (eq == std::string::npos) {
      for (auto n : Split(w[i], ','))
        if (!n.empty()) c.request.add_names(std::string(n));
      continue;
    }
    std::string key = ToLower(w[i].substr(0, eq));
    if (key == "format") {
      ASSIGN_OR_RETURN(c.format, ParseSacctmgrFormat(w[i].substr(eq + 1)));
      continue;
    }
    if (verb == "add" && (key == "name" || key == "names")) {
      for (auto n : Split(w[i].substr(eq + 1), ','))
        if (!n.empty()) c.request.add_names(std::string(n));
      continue;
    }
    if (verb == "add" || in_set)
      c.request.add_set(w[i]);
    else
      c.request.add_where(w[i]);
  }
  if (verb == "modify" && c.request.set().empty())
    return InvalidArgument(" You didn't give me anything to set");
  c.request.set_with_assoc(c.associations);
  return c;
}

}  // namespace sluice
