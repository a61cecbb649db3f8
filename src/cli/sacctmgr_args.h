// sacctmgr command line -> SacctmgrCommand. Options: -i/--immediate, -n/--noheader,
// -p/--parsable, -P/--parsable2, -s/--associations, -Q/--quiet, -V, -h. Words:
// VERB ENTITY [names] [where] [k=v ...] [set k=v ...] [withassoc] [format=a,b%20].
// Verbs add|create, modify|update, delete|remove, show|list; entities cluster, account,
// user, qos, association (show only). For add, k=v words are settings (name= adds
// names); for modify, they are conditions until `set`; for show/delete, conditions.
// Without -i, add/modify/delete ask before committing (sacctmgr.cc, commit_prompt.h).
#pragma once

#include <string>
#include <vector>

#include "client.pb.h"
#include "common/status.h"

namespace sluice {

struct SacctmgrField {
  std::string name;  // as written (lower-cased for lookup by the formatter)
  int width = 0;     // 0 = the field's default; negative = left-justified
  bool has_width = false;
};

struct SacctmgrCommand {
  SacctmgrRequest request;  // verb/entity normalised to lower case
  bool noheader = false;
  int parsable = 0;           // 1: -p, 2: -P
  bool associations = false;  // -s or withassoc
  bool quiet = false;
  bool help = false;
  bool version = false;
  std::vector<SacctmgrField> format;
  bool immediate = false;  // -i: commit without asking
  bool json = false;       // --json (show): cli/sacctmgr_json.h
};

Expected<SacctmgrCommand> ParseSacctmgrArgs(const std::vector<std::string>& args);
// "account%20,user" -> fields.
Expected<std::vector<SacctmgrField>> ParseSacctmgrFormat(const std::string& spec);

}  // namespace sluice
