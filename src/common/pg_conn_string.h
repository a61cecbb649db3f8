// A libpq connection string from the *StorageHost/Port/User/Pass/Loc settings (accounting
// and controller state): values quoted, 10 s connect timeout. `host` may be a socket dir.
#pragma once

#include <string>

namespace sluice {

std::string PgConnString(const std::string& host, int port, const std::string& user,
                         const std::string& pass, const std::string& db);

}  // namespace sluice
