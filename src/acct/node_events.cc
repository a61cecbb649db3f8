// Node events of AcctStore (see NodeEventRecord / NodeEventSet in acct_record.h): the
// table acct_node_events, identical on SQLite and PostgreSQL. A NodeEventSet is two
// statements that are harmless to replay: close the node's open event unless it already
// has the wanted state and reason, then open the wanted one unless an open one remains.
#include <fmt/format.h>

#include "acct/acct_store.h"

namespace sluice::acct {

Status AcctStore::CreateNodeEventSchema() {
  RETURN_IF_ERROR(
      Exec("CREATE TABLE IF NOT EXISTS acct_node_events (node_name TEXT NOT NULL, "
           "start_time BIGINT NOT NULL, end_time BIGINT NOT NULL, state TEXT NOT NULL, "
           "reason TEXT NOT NULL, cpus BIGINT NOT NULL, gpus BIGINT NOT NULL, "
           "PRIMARY KEY (node_name, start_time))",
           {}));
  return Exec("CREATE INDEX IF NOT EXISTS acct_node_events_end ON acct_node_events (end_time)", {});
}

Status AcctStore::ApplyNodeEvent(const NodeEventSet& e) {
  // $1 node, $2 at, $3 state, $4 reason, $5 cpus, $6 gpus.
  Row params = {e.node, e.at, e.state, e.reason, e.cpus, e.gpus};
  RETURN_IF_ERROR(
      Exec("UPDATE acct_node_events SET end_time = CASE WHEN start_time > $2 THEN start_time "
           "ELSE $2 END WHERE node_name = $1 AND end_time = 0 AND NOT (state = $3 AND reason = $4)",
           params));
  if (e.state.empty()) return Status::Ok();
  // A zero-length event that started (and just ended) at `at` is replaced.
  return Exec(
      "INSERT INTO acct_node_events (node_name, start_time, end_time, state, reason, cpus, "
      "gpus) SELECT $1, $2, 0, $3, $4, $5, $6 WHERE NOT EXISTS (SELECT 1 FROM "
      "acct_node_events WHERE node_name = $1 AND end_time = 0) ON CONFLICT (node_name, "
      "start_time) DO UPDATE SET end_time = 0, state = excluded.state, reason = "
      "excluded.reason, cpus = excluded.cpus, gpus = excluded.gpus",
      params);
}

Expected<std::vector<NodeEventRecord>> AcctStore::QueryNodeEvents(int64_t start, int64_t end) {
  std::string where = "1 = 1";
  if (end > 0) where += fmt::format(" AND start_time < {}", end);
  if (start > 0) where += fmt::format(" AND (end_time = 0 OR end_time > {})", start);
  ASSIGN_OR_RETURN(
      auto rows,
      Select(fmt::format("SELECT node_name, start_time, end_time, state, reason, cpus, gpus "
                         "FROM acct_node_events WHERE {} ORDER BY start_time, node_name",
                         where),
             "tiittii"));
  std::vector<NodeEventRecord> out;
  for (const Row& r : rows) {
    NodeEventRecord e;
    e.node = std::get<std::string>(r[0]);
    e.start_time = std::get<int64_t>(r[1]);
    e.end_time = std::get<int64_t>(r[2]);
    e.state = std::get<std::string>(r[3]);
    e.reason = std::get<std::string>(r[4]);
    e.cpus = std::get<int64_t>(r[5]);
    e.gpus = std::get<int64_t>(r[6]);
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace sluice::acct
