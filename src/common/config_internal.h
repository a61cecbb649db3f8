// Internal to common/: the pieces of ParseConfig (config_parser.cc for global keys,
// config_nodes.cc for NodeName/PartitionName lines, gres_conf.cc for gres lines).
// Value helpers return a Status without location; callers add "<file>:<line>: ".
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.h"
#include "common/config_lexer.h"

namespace sluice {

struct PendingPartition {
  PartitionConfig part;
  int line_no = 0;
};

// State carried across the lines of one file.
struct ParseContext {
  std::string_view path;
  Config* config = nullptr;
  std::vector<ConfigPair> node_defaults;
  std::vector<ConfigPair> part_defaults;
  std::vector<ConfigLine> gres_lines;  // NodeName lines with a Name= key
  std::vector<PendingPartition> partitions;
  std::set<std::string, std::less<>> node_names;
  bool ctld_host_set = false;
  int gres_conf_line = 0;
};

// AccountName= / UserName= lines (config_accounts.cc).
Status ParseAccountLine(const ConfigLine& line, ParseContext* ctx);
Status ParseUserAssocLine(const ConfigLine& line, ParseContext* ctx);
// Priority* and TRESBillingWeights global keys (config_accounts.cc); false if `key` is
// not one of them.
bool IsPriorityKey(std::string_view key);
Status SetPriorityKey(std::string_view key, std::string_view value, PriorityConfig* p);
// MaxBatchRequeue, RequeueExit, RequeueExitHold (config_requeue.cc).
bool IsRequeueKey(std::string_view key);
Status SetRequeueKey(std::string_view key, std::string_view value, RequeueConfig* r);

// AccountingStorage* and StateStorage* Type/Host/Port/User/Pass/Loc (config_storage.cc).
bool IsStorageKey(std::string_view key);
Status SetStorageKey(std::string_view key, std::string_view value, Config* c);

// PreemptType, PreemptMode, PreemptExemptTime (config_preempt.cc).
bool IsPreemptKey(std::string_view key);
Status SetPreemptKey(std::string_view key, std::string_view value, Config* c);
// Partition PreemptMode= / GraceTime=; false if `key` is neither.
bool IsPartitionPreemptKey(std::string_view key);
Status SetPartitionPreemptKey(std::string_view key, std::string_view value, PartitionConfig* p);

Status ParseNodeLine(const ConfigLine& line, ParseContext* ctx);
Status ParsePartitionLine(const ConfigLine& line, ParseContext* ctx);
// Resolves partition node lists (after every node line was read).
Status FinishPartitions(ParseContext* ctx);
Status ApplyGresLines(const std::vector<ConfigLine>& lines, std::string_view path, Config* config);

// Prefixes a non-ok status with "<path>:<line>: ".
Status AtLine(const Status& st, std::string_view path, int line);
// Integer in [min, max]; error "invalid value '<v>' for <Key>: expected a number".
Status ParseIntValue(std::string_view key, std::string_view value, int64_t min, int64_t max,
                     int64_t* out);
Status ParseIntValue(std::string_view key, std::string_view value, int min, int max, int* out);
// A size in the one size grammar (ParseMemoryMb: "64000", "62.5G" refused, "64G", "1TB"),
// in MiB, in [min_mb, 2^40]; error "invalid value '<v>' for <Key>: "<v>" is not a valid
// size ...".
Status ParseSizeValue(std::string_view key, std::string_view value, int64_t min_mb, int64_t* out);
// YES/NO/1/0/TRUE/FALSE.
Status ParseBoolValue(std::string_view key, std::string_view value, bool* out);
// Comma list without empty items; "" and "(null)" give an empty list.
std::vector<std::string> ParseList(std::string_view value);
// Reads a whole file; NotFound/Unavailable status on failure.
Expected<std::string> ReadWholeFile(const std::string& path);

}  // namespace sluice
