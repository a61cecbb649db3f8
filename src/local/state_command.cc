#include "local/state_command.h"

#include <cstdio>

#include "common/config.h"
#include "local/proc_scan.h"
#include "storage/pg_lease.h"
#include "storage/state_dump.h"

namespace sluice {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "sluice: error: %s\n", message.c_str());
  return 1;
}

// A controller that runs on the store would not see the restored records, and would
// overwrite them: refuse while one runs here or leads anywhere (PostgreSQL's lease).
Status NoControllerRuns(const Config& config, const std::string& conf_path) {
  if (auto ctlds = FindDaemons("sluicectld", conf_path); !ctlds.empty()) {
    return FailedPrecondition("sluicectld (pid " + std::to_string(ctlds.front().pid) +
                              ") runs with this config: stop every controller first");
  }
  if (config.state_storage.type != "state/pgsql") return Status::Ok();
  ASSIGN_OR_RETURN(auto lease, storage::PgLease::Open(storage::StateConnString(config)));
  ASSIGN_OR_RETURN(storage::LeaseState now, lease->Current());
  if (now.live) {
    return FailedPrecondition("controller " + now.holder + " (" + now.address +
                              ") leads on this database: stop every controller first");
  }
  return Status::Ok();
}

}  // namespace

int StateDumpCommand(const std::string& conf_path, const std::string& out_path) {
  auto config = LoadConfigFile(conf_path);
  if (!config.ok()) return Fail(config.status().message());
  auto store = storage::OpenStateStore(*config, /*create=*/false);
  if (!store.ok()) return Fail(store.status().message());
  StateDump dump;
  if (Status st = (*store)->Dump(&dump); !st.ok()) return Fail(st.message());
  if (Status st = storage::WriteDumpFile(dump, out_path); !st.ok()) return Fail(st.message());
  std::printf("dumped %s (%s) to %s\n", dump.source().c_str(), storage::DumpSummary(dump).c_str(),
              out_path.c_str());
  return 0;
}

int StateRestoreCommand(const std::string& conf_path, const std::string& dump_path) {
  auto config = LoadConfigFile(conf_path);
  if (!config.ok()) return Fail(config.status().message());
  auto dump = storage::ReadDumpFile(dump_path);
  if (!dump.ok()) return Fail(dump.status().message());
  if (Status st = NoControllerRuns(*config, conf_path); !st.ok()) return Fail(st.message());
  auto store = storage::OpenStateStore(*config, /*create=*/true);
  if (!store.ok()) return Fail(store.status().message());
  if (Status st = storage::RestoreState(*dump, store->get()); !st.ok()) return Fail(st.message());
  std::printf("restored %s from %s (dumped from %s)\n", storage::DumpSummary(*dump).c_str(),
              dump_path.c_str(), dump->source().c_str());
  return 0;
}

}  // namespace sluice
