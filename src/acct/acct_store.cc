#include "acct/acct_store.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <utility>

namespace sluice::acct {
namespace {

struct Column {
  const char* name;
  char kind;  // 'i' integer, 't' text
};

// The schema: identical for SQLite and PostgreSQL (BIGINT/TEXT, composite keys).
constexpr Column kJobCols[] = {
    {"job_id", 'i'},        {"attempt", 'i'},     {"array_job_id", 'i'},   {"array_task_id", 'i'},
    {"name", 't'},          {"uid", 'i'},         {"user_name", 't'},      {"gid", 'i'},
    {"group_name", 't'},    {"account", 't'},     {"partition_name", 't'}, {"qos", 't'},
    {"state", 'i'},         {"exit_code", 'i'},   {"term_signal", 'i'},    {"submit_time", 'i'},
    {"eligible_time", 'i'}, {"start_time", 'i'},  {"end_time", 'i'},       {"time_limit_min", 'i'},
    {"nodes", 't'},         {"nnodes", 'i'},      {"alloc_cpus", 'i'},     {"req_cpus", 'i'},
    {"req_mem_mb", 'i'},    {"alloc_gpus", 'i'},  {"req_tres", 't'},       {"alloc_tres", 't'},
    {"work_dir", 't'},      {"cancelled_by", 'i'}};
// Job columns added after the first schema: CreateSchema adds them to an older
// database (ALTER TABLE ... ADD COLUMN), existing rows getting `fill`.
struct AddedColumn {
  const char* name;
  const char* fill;
};
constexpr AddedColumn kAddedJobCols[] = {{"cancelled_by", "-1"}};
constexpr Column kStepCols[] = {{"job_id", 'i'},
                                {"attempt", 'i'},
                                {"step_id", 'i'},
                                {"name", 't'},
                                {"nodes", 't'},
                                {"nnodes", 'i'},
                                {"ntasks", 'i'},
                                {"alloc_cpus", 'i'},
                                {"state", 'i'},
                                {"exit_code", 'i'},
                                {"term_signal", 'i'},
                                {"start_time", 'i'},
                                {"end_time", 'i'},
                                {"max_rss_kb", 'i'},
                                {"total_cpu_us", 'i'},
                                {"alloc_tres", 't'},
                                {"tres_usage_in_ave", 't'},
                                {"tres_usage_in_max", 't'}};
constexpr const char* kAddedStepTextCols[] = {"tres_usage_in_ave", "tres_usage_in_max"};

template <size_t N>
std::string Names(const Column (&cols)[N]) {
  std::string s;
  for (const auto& c : cols) s += (s.empty() ? "" : ", ") + std::string(c.name);
  return s;
}

template <size_t N>
std::string Kinds(const Column (&cols)[N]) {
  std::string s;
  for (const auto& c : cols) s += c.kind;
  return s;
}

template <size_t N>
std::string CreateSql(const char* table, const Column (&cols)[N], const char* key) {
  std::string s = fmt::format("CREATE TABLE IF NOT EXISTS {} (", table);
  for (const auto& c : cols) {
    s += fmt::format("{} {} NOT NULL, ", c.name, c.kind == 'i' ? "BIGINT" : "TEXT");
  }
  return s + fmt::format("PRIMARY KEY ({}))", key);
}

template <size_t N>
std::string UpsertSql(const char* table, const Column (&cols)[N], const char* key, size_t nkey) {
  std::string vals, sets;
  for (size_t i = 0; i < N; ++i) {
    vals += fmt::format("{}${}", i ? ", " : "", i + 1);
    if (i >= nkey)
      sets +=
          fmt::format("{}{} = excluded.{}", sets.empty() ? "" : ", ", cols[i].name, cols[i].name);
  }
  return fmt::format("INSERT INTO {} ({}) VALUES ({}) ON CONFLICT ({}) DO UPDATE SET {}", table,
                     Names(cols), vals, key, sets);
}

int64_t I(const std::vector<std::variant<int64_t, std::string>>& r, size_t i) {
  return std::get<int64_t>(r[i]);
}
const std::string& T(const std::vector<std::variant<int64_t, std::string>>& r, size_t i) {
  return std::get<std::string>(r[i]);
}

}  // namespace

// Row conversions in kJobCols / kStepCols order.
static std::vector<std::variant<int64_t, std::string>> JobRow(const AcctJobRecord& j) {
  return {j.job_id,
          int64_t{j.attempt},
          j.array_job_id,
          j.array_task_id,
          j.name,
          int64_t{j.uid},
          j.user,
          int64_t{j.gid},
          j.group,
          j.account,
          j.partition,
          j.qos,
          int64_t{j.state},
          int64_t{j.exit_code},
          int64_t{j.term_signal},
          j.submit_time,
          j.eligible_time,
          j.start_time,
          j.end_time,
          j.time_limit_min,
          j.nodes,
          int64_t{j.nnodes},
          int64_t{j.alloc_cpus},
          int64_t{j.req_cpus},
          j.req_mem_mb,
          j.alloc_gpus,
          j.req_tres,
          j.alloc_tres,
          j.work_dir,
          j.cancelled_by};
}

static AcctJobRecord JobFrom(const std::vector<std::variant<int64_t, std::string>>& r) {
  AcctJobRecord j;
  size_t i = 0;
  j.job_id = I(r, i++);
  j.attempt = I(r, i++);
  j.array_job_id = I(r, i++);
  j.array_task_id = I(r, i++);
  j.name = T(r, i++);
  j.uid = I(r, i++);
  j.user = T(r, i++);
  j.gid = I(r, i++);
  j.group = T(r, i++);
  j.account = T(r, i++);
  j.partition = T(r, i++);
  j.qos = T(r, i++);
  j.state = I(r, i++);
  j.exit_code = I(r, i++);
  j.term_signal = I(r, i++);
  j.submit_time = I(r, i++);
  j.eligible_time = I(r, i++);
  j.start_time = I(r, i++);
  j.end_time = I(r, i++);
  j.time_limit_min = I(r, i++);
  j.nodes = T(r, i++);
  j.nnodes = I(r, i++);
  j.alloc_cpus = I(r, i++);
  j.req_cpus = I(r, i++);
  j.req_mem_mb = I(r, i++);
  j.alloc_gpus = I(r, i++);
  j.req_tres = T(r, i++);
  j.alloc_tres = T(r, i++);
  j.work_dir = T(r, i++);
  j.cancelled_by = I(r, i++);
  return j;
}

static std::vector<std::variant<int64_t, std::string>> StepRow(const AcctStepRecord& s) {
  return {s.job_id,
          int64_t{s.attempt},
          int64_t{s.step_id},
          s.name,
          s.nodes,
          int64_t{s.nnodes},
          int64_t{s.ntasks},
          int64_t{s.alloc_cpus},
          int64_t{s.state},
          int64_t{s.exit_code},
          int64_t{s.term_signal},
          s.start_time,
          s.end_time,
          s.max_rss_kb,
          s.total_cpu_us,
          s.alloc_tres,
          s.tres_usage_in_ave,
          s.tres_usage_in_max};
}

static AcctStepRecord StepFrom(const std::vector<std::variant<int64_t, std::string>>& r) {
  AcctStepRecord s;
  size_t i = 0;
  s.job_id = I(r, i++);
  s.attempt = I(r, i++);
  s.step_id = I(r, i++);
  s.name = T(r, i++);
  s.nodes = T(r, i++);
  s.nnodes = I(r, i++);
  s.ntasks = I(r, i++);
  s.alloc_cpus = I(r, i++);
  s.state = I(r, i++);
  s.exit_code = I(r, i++);
  s.term_signal = I(r, i++);
  s.start_time = I(r, i++);
  s.end_time = I(r, i++);
  s.max_rss_kb = I(r, i++);
  s.total_cpu_us = I(r, i++);
  s.alloc_tres = T(r, i++);
  s.tres_usage_in_ave = T(r, i++);
  s.tres_usage_in_max = T(r, i++);
  return s;
}

Status AcctStore::CreateSchema() {
  RETURN_IF_ERROR(Exec(CreateSql("acct_jobs", kJobCols, "job_id, attempt"), {}));
  RETURN_IF_ERROR(Exec(CreateSql("acct_steps", kStepCols, "job_id, attempt, step_id"), {}));
  for (const auto& c : kAddedJobCols) {
    ASSIGN_OR_RETURN(bool has, HasColumn("acct_jobs", c.name));
    if (has) continue;
    RETURN_IF_ERROR(
        Exec(fmt::format("ALTER TABLE acct_jobs ADD COLUMN {} BIGINT NOT NULL DEFAULT {}", c.name,
                         c.fill),
             {}));
  }
  for (const char* name : kAddedStepTextCols) {
    ASSIGN_OR_RETURN(bool has, HasColumn("acct_steps", name));
    if (has) continue;
    RETURN_IF_ERROR(Exec(
        fmt::format("ALTER TABLE acct_steps ADD COLUMN {} TEXT NOT NULL DEFAULT ''", name), {}));
  }
  RETURN_IF_ERROR(Exec("CREATE INDEX IF NOT EXISTS acct_jobs_end ON acct_jobs (end_time)", {}));
  RETURN_IF_ERROR(
      Exec("CREATE INDEX IF NOT EXISTS acct_jobs_submit ON acct_jobs (submit_time)", {}));
  RETURN_IF_ERROR(  // sacct's default: the caller's own jobs
      Exec("CREATE INDEX IF NOT EXISTS acct_jobs_uid ON acct_jobs (uid, end_time)", {}));
  return CreateNodeEventSchema();
}

Status AcctStore::ApplyOne(const AcctOp& op) {
  if (const auto* j = std::get_if<AcctJobRecord>(&op)) {
    static const std::string sql = UpsertSql("acct_jobs", kJobCols, "job_id, attempt", 2);
    return Exec(sql, JobRow(*j));
  }
  if (const auto* s = std::get_if<AcctStepRecord>(&op)) {
    static const std::string sql =
        UpsertSql("acct_steps", kStepCols, "job_id, attempt, step_id", 3);
    return Exec(sql, StepRow(*s));
  }
  if (const auto* e = std::get_if<NodeEventSet>(&op)) return ApplyNodeEvent(*e);
  const auto& c = std::get<AcctCloseAttempts>(op);
  RETURN_IF_ERROR(
      Exec("UPDATE acct_jobs SET state = $1, end_time = $2 "
           "WHERE job_id = $3 AND attempt < $4 AND (end_time = 0 OR state <> $5)",
           {int64_t{kStateRequeued}, c.end_time, c.job_id, int64_t{c.attempt},
            int64_t{kStateRequeued}}));
  // Open steps of closed attempts were killed by the requeue (Slurm: CANCELLED 0:15).
  return Exec(
      "UPDATE acct_steps SET state = $1, term_signal = 15, end_time = $2 "
      "WHERE job_id = $3 AND attempt < $4 AND end_time = 0",
      {int64_t{6 /*JOB_CANCELLED*/}, c.end_time, c.job_id, int64_t{c.attempt}});
}

Status AcctStore::Apply(const std::vector<AcctOp>& ops) {
  if (ops.empty()) return Status::Ok();
  RETURN_IF_ERROR(Exec("BEGIN", {}));
  for (const auto& op : ops) {
    Status st = ApplyOne(op);
    if (!st.ok()) {
      (void)Exec("ROLLBACK", {});
      return st;
    }
  }
  return Exec("COMMIT", {});
}

Expected<AcctData> AcctStore::Query(const AcctWindow& w) {
  std::string where = "1 = 1";
  if (!w.job_ids.empty()) {
    std::string ids;
    for (int64_t id : w.job_ids) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
    where += fmt::format(" AND (job_id IN ({0}) OR array_job_id IN ({0}))", ids);
  }
  if (w.end > 0) where += fmt::format(" AND submit_time <= {}", w.end);
  if (w.start > 0) where += fmt::format(" AND (end_time = 0 OR end_time >= {})", w.start);
  if (!w.uids.empty()) where += fmt::format(" AND uid IN ({})", fmt::join(w.uids, ", "));
  Row params;  // the accounts, bound as $1..$N
  if (!w.accounts.empty()) {
    std::string marks;
    for (const std::string& a : w.accounts) {
      params.emplace_back(a);
      marks += fmt::format("{}${}", marks.empty() ? "" : ", ", params.size());
    }
    where += fmt::format(
        " AND job_id IN (SELECT job_id FROM acct_jobs AS a WHERE a.account IN ({}))", marks);
  }
  if (!w.states.empty()) {
    where += fmt::format(" AND job_id IN (SELECT job_id FROM acct_jobs AS s WHERE s.state IN ({}))",
                         fmt::join(w.states, ", "));
  }
  AcctData out;
  ASSIGN_OR_RETURN(auto jrows,
                   Select(fmt::format("SELECT {} FROM acct_jobs WHERE {} ORDER BY job_id, attempt",
                                      Names(kJobCols), where),
                          Kinds(kJobCols), params));
  if (jrows.empty()) return out;
  std::string ids;
  for (const auto& r : jrows) {
    out.jobs.push_back(JobFrom(r));
    ids += (ids.empty() ? "" : ", ") + std::to_string(out.jobs.back().job_id);
  }
  ASSIGN_OR_RETURN(auto srows, Select(fmt::format("SELECT {} FROM acct_steps WHERE job_id IN ({}) "
                                                  "ORDER BY job_id, attempt, step_id",
                                                  Names(kStepCols), ids),
                                      Kinds(kStepCols)));
  for (const auto& r : srows) out.steps.push_back(StepFrom(r));
  return out;
}

Expected<std::unique_ptr<AcctStore>> OpenAcctStore(const AcctConfig& config) {
  if (config.type.empty() || config.type == "accounting_storage/sqlite") {
    return OpenSqliteAcctStore(config.sqlite_path);
  }
  if (config.type == "accounting_storage/pgsql") return OpenPgsqlAcctStore(config);
  return InvalidArgument("AccountingStorageType=" + config.type +
                         " is not supported (use accounting_storage/sqlite or "
                         "accounting_storage/pgsql)");
}

}  // namespace sluice::acct
