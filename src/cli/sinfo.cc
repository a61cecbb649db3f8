#include "cli/sinfo.h"

#include <algorithm>
#include <ctime>
#include <iostream>
#include <set>

#include "cli/help_text.h"
#include "cli/list_args.h"
#include "cli/node_view.h"
#include "cli/opt_parser.h"
#include "cli/query_json.h"
#include "cli/sinfo_format.h"
#include "common/hostlist.h"

namespace sluice {
namespace {

enum Opt {
  kDead = 1,
  kNoHeader,
  kLong,
  kNode,
  kNodes,
  kFormat,
  kFormatLong,
  kPartition,
  kResponding,
  kReasons,
  kSummarize,
  kStates,
  kVersion,
  kHelp,
  kIgnored,
  kUnsupported,
  kJson,
  kUsage
};

const std::vector<OptionDef>& Defs() {
  static const auto* d = new std::vector<OptionDef>{
      {"all", 'a', ArgKind::kNone, kIgnored},
      {"dead", 'd', ArgKind::kNone, kDead},
      {"exact", 'e', ArgKind::kNone, kIgnored},
      {"noheader", 'h', ArgKind::kNone, kNoHeader},
      {"long", 'l', ArgKind::kNone, kLong},
      {"Node", 'N', ArgKind::kNone, kNode},
      {"nodes", 'n', ArgKind::kRequired, kNodes},
      {"format", 'o', ArgKind::kRequired, kFormat},
      {"Format", 'O', ArgKind::kRequired, kFormatLong},
      {"partition", 'p', ArgKind::kRequired, kPartition},
      {"responding", 'r', ArgKind::kNone, kResponding},
      {"list-reasons", 'R', ArgKind::kNone, kReasons},
      {"summarize", 's', ArgKind::kNone, kSummarize},
      {"sort", 'S', ArgKind::kRequired, kIgnored},
      {"states", 't', ArgKind::kRequired, kStates},
      {"verbose", 'v', ArgKind::kNone, kIgnored},
      {"version", 'V', ArgKind::kNone, kVersion},
      {"help", 0, ArgKind::kNone, kHelp},
      {"usage", 0, ArgKind::kNone, kUsage},
      {"clusters", 'M', ArgKind::kRequired, kIgnored},
      {"noconvert", 0, ArgKind::kNone, kIgnored},
      {"local", 0, ArgKind::kNone, kIgnored},
      {"federation", 0, ArgKind::kNone, kIgnored},
      {"future", 0, ArgKind::kNone, kIgnored},
      {"hide", 0, ArgKind::kNone, kIgnored},
      {"iterate", 'i', ArgKind::kRequired, kUnsupported},
      {"reservation", 'T', ArgKind::kNone, kUnsupported},
      {"json", 0, ArgKind::kNone, kJson},
      {"yaml", 0, ArgKind::kNone, kUnsupported},
  };
  return *d;
}

struct SinfoOptions {
  bool header = true, long_fmt = false, node_mode = false, summarize = false, reasons = false,
       dead = false, responding = false, help = false, usage = false, version = false, json = false;
  std::string format, format_long;
  std::set<std::string> partitions, nodes, states;
};

constexpr const char* kStateWords[] = {
    "idle",    "mix",        "mixed",      "alloc",        "allocated", "down",       "drain",
    "drained", "draining",   "drng",       "unk",          "unknown",   "resv",       "reserved",
    "comp",    "completing", "fail",       "failing",      "maint",     "no_respond", "npc",
    "plnd",    "planned",    "power_down", "powered_down", "power_up",  "future",     "futr",
    "inval",   "boot",       "blocked",    "cloud",        "reboot"};

Status ApplyOption(const ParsedOption& o, SinfoOptions* s) {
  switch (o.id) {
    case kDead:
      s->dead = true;
      break;
    case kNoHeader:
      s->header = false;
      break;
    case kLong:
      s->long_fmt = true;
      break;
    case kNode:
      s->node_mode = true;
      break;
    case kResponding:
      s->responding = true;
      break;
    case kReasons:
      s->reasons = true;
      break;
    case kSummarize:
      s->summarize = true;
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
    case kJson:
      s->json = true;
      break;
    case kFormat:
      s->format = o.value;
      break;
    case kFormatLong:
      s->format_long = o.value;
      break;
    case kPartition:
      for (auto& p : SplitList(o.value)) s->partitions.insert(p);
      break;
    case kNodes: {
      Expected<std::vector<std::string>> h = ExpandHostlist(o.value);
      if (!h.ok()) return InvalidArgument("Invalid node name specified: " + o.value);
      s->nodes.insert(h->begin(), h->end());
      break;
    }
    case kStates:
      for (std::string w : SplitList(o.value)) {
        std::transform(w.begin(), w.end(), w.begin(), ::tolower);
        if (std::find(std::begin(kStateWords), std::end(kStateWords), w) == std::end(kStateWords))
          return InvalidArgument("Invalid node state specified: " + w);
        s->states.insert(w);
      }
      break;
    case kUnsupported:
      return FailedPrecondition(o.spelled + " is not supported yet");
  }
  return Status::Ok();
}

bool StateMatches(const NodeInfo& n, const std::set<std::string>& states) {
  if (states.empty()) return true;
  std::string c = NodeStateCompact(n), l = NodeStateLong(n);
  if (!c.empty() && c.back() == '*') c.pop_back();
  if (!l.empty() && l.back() == '*') l.pop_back();
  if (states.count(c) || states.count(l)) return true;
  if (states.count("drain") && n.drain()) return true;
  return states.count("no_respond") && !n.responding();
}

bool NodeWanted(const NodeInfo& n, const SinfoOptions& s) {
  if (!s.nodes.empty() && !s.nodes.count(n.name())) return false;
  if (!s.partitions.empty() &&
      std::none_of(n.partitions().begin(), n.partitions().end(),
                   [&](const std::string& p) { return s.partitions.count(p) > 0; })) {
    return false;
  }
  if (s.dead && n.responding() && n.state() != NODE_DOWN) return false;
  if (s.responding && !n.responding()) return false;
  if (s.reasons && n.reason().empty() && !n.drain() && n.state() != NODE_DOWN) return false;
  return StateMatches(n, s.states);
}

Expected<std::vector<FormatField>> ChooseFormat(const SinfoOptions& s) {
  Expected<std::vector<FormatField>> f = Status(Code::kInternal, "unset");
  if (!s.format_long.empty()) {
    f = ParseNamedFormat(s.format_long);
  } else if (!s.format.empty()) {
    f = ParsePercentFormat(s.format);
  } else if (s.reasons) {
    f = ParsePercentFormat(s.long_fmt ? kSinfoReasonLongFormat : kSinfoReasonFormat);
  } else if (s.summarize) {
    f = ParsePercentFormat(kSinfoSummaryFormat);
  } else if (s.node_mode) {
    f = ParsePercentFormat(s.long_fmt ? kSinfoNodeLongFormat : kSinfoNodeFormat);
  } else {
    f = ParsePercentFormat(s.long_fmt ? kSinfoLongFormat : kSinfoDefaultFormat);
  }
  if (!f.ok()) return f;
  RETURN_IF_ERROR(ValidateSinfoFields(&*f));
  return f;
}

bool HasPartitionField(const std::vector<FormatField>& fields) {
  for (const FormatField& f : fields)
    if (f.key.size() == 1 && std::string("aghlLpPrRs").find(f.key[0]) != std::string::npos)
      return true;
  return false;
}

// The controller sends only the nodes of the partitions asked (-p); the other filters
// are applied here.
GetNodesRequest NodeQuery(const SinfoOptions& s) {
  GetNodesRequest req;
  for (const std::string& p : s.partitions) req.add_partitions(p);
  return req;
}

int Show(const SinfoOptions& s, const std::vector<FormatField>& fields, CliEnv& env) {
  Expected<ClientApiInterface*> api = env.connect();
  Expected<GetPartitionsReply> parts =
      api.ok() ? (*api)->GetPartitions({}) : Expected<GetPartitionsReply>(api.status());
  Expected<GetNodesReply> nodes =
      parts.ok() ? (*api)->GetNodes(NodeQuery(s)) : Expected<GetNodesReply>(parts.status());
  if (!nodes.ok()) {
    *env.err << "slurm_load_partitions: " << nodes.status().message() << "\n";
    return 1;
  }
  std::vector<const NodeInfo*> node_list;
  for (const NodeInfo& n : nodes->nodes())
    if (NodeWanted(n, s)) node_list.push_back(&n);
  std::vector<const PartitionInfo*> part_list;
  for (const PartitionInfo& p : parts->partitions())
    if (s.partitions.empty() || s.partitions.count(p.name())) part_list.push_back(&p);
  PartitionInfo all;  // formats without partition fields list each node once
  if (!HasPartitionField(fields)) {
    for (const NodeInfo* n : node_list) all.add_nodes(n->name());
    part_list = {&all};
  }
  std::vector<SinfoRow> rows =
      BuildSinfoRows(fields, part_list, node_list, s.node_mode, env.user_name);
  int64_t now = nodes->now() > 0 ? nodes->now() : env.clock->Now();
  if (s.long_fmt) *env.out << LongDateLine(now) << "\n";
  *env.out << SinfoFormat(fields, rows, s.header, env.user_name);
  return 0;
}

// --json: every wanted node once, as Slurm's sinfo --json.
int ShowJson(const SinfoOptions& s, CliEnv& env) {
  Expected<ClientApiInterface*> api = env.connect();
  Expected<GetNodesReply> nodes =
      api.ok() ? (*api)->GetNodes(NodeQuery(s)) : Expected<GetNodesReply>(api.status());
  if (!nodes.ok()) {
    *env.err << "slurm_load_node: " << nodes.status().message() << "\n";
    return 1;
  }
  std::vector<NodeInfo> wanted;
  for (const NodeInfo& n : nodes->nodes())
    if (NodeWanted(n, s)) wanted.push_back(n);
  *env.out << FormatSinfoJson(wanted, env.user_name);
  return 0;
}

}  // namespace

std::string LongDateLine(int64_t now) {
  time_t t = now;
  struct tm tm;
  localtime_r(&t, &tm);
  char buf[64];
  strftime(buf, sizeof(buf), "%a %b %d %H:%M:%S %Y", &tm);
  return buf;
}

int RunSinfo(const std::vector<std::string>& args, CliEnv& env) {
  Expected<ParsedArgs> parsed = ParseCommandLine("sinfo", args, Defs());
  if (!parsed.ok()) {
    *env.err << parsed.status().message() << "\nTry \"sinfo --help\" for more information\n";
    return 1;
  }
  SinfoOptions s;
  for (const ParsedOption& o : parsed->options) {
    Status st = ApplyOption(o, &s);
    if (!st.ok()) {
      *env.err << "sinfo: error: " << st.message() << "\n";
      return 1;
    }
  }
  if (!parsed->positionals.empty()) {
    *env.err << "sinfo: error: Unrecognized option: " << parsed->positionals[0] << "\n"
             << "Try \"sinfo --help\" for more information\n";
    return 1;
  }
  if (s.version) {
    *env.out << "slurm " << kSlurmVersion << "\n";
    return 0;
  }
  if (s.help || s.usage) {
    *env.out << HelpText("sinfo", s.usage ? HelpKind::kUsage : HelpKind::kHelp);
    return 0;
  }
  if (s.json) return ShowJson(s, env);
  Expected<std::vector<FormatField>> fields = ChooseFormat(s);
  if (!fields.ok()) {
    *env.err << "sinfo: error: " << fields.status().message() << "\n";
    return 1;
  }
  return Show(s, *fields, env);
}

}  // namespace sluice
