// `sluice state dump -o FILE` and `sluice state restore FILE` (storage/state_dump.h): a
// consistent backup of the controllers' state store while they run, and its restore into
// an empty store (SQLite or PostgreSQL, whichever the config names) with every controller
// stopped. Both print what the dump holds; errors are one "sluice: error: ..." line and
// exit status 1.
#pragma once

#include <string>

namespace sluice {

int StateDumpCommand(const std::string& conf_path, const std::string& out_path);
int StateRestoreCommand(const std::string& conf_path, const std::string& dump_path);

}  // namespace sluice
