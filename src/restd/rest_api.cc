#include "restd/rest_api.h"

#include <unistd.h>

#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/process_env.h"
#include "cli/sacct.h"
#include "cli/sacctmgr.h"
#include "cli/sbatch.h"
#include "cli/scancel.h"
#include "cli/scontrol.h"
#include "cli/sdiag.h"
#include "cli/sinfo.h"
#include "cli/squeue.h"
#include "common/text_util.h"
#include "restd/job_desc.h"
#include "restd/rest_json.h"

namespace sluice {
namespace {

using nlohmann::json;

constexpr std::string_view kSlurm = "/slurm/v0.0.38/";
constexpr std::string_view kSlurmdb = "/slurmdb/v0.0.38/";

RestResponse Json(int status, const json& j) { return {status, j.dump(2) + "\n"}; }

// Slurm's text of a failure -> the HTTP status that says what kind it is.
int StatusFor(const std::string& message, int fallback) {
  static const std::pair<const char*, int> kKinds[] = {
      {"Invalid job id specified", 404}, {"not found", 404},
      {"Invalid partition name", 404},   {"reservation is invalid", 404},
      {"Invalid authentication", 401},   {"Invalid JWT", 401},
      {"Access/permission denied", 403}, {"Unable to contact slurm controller", 503},
      {"Socket timed out", 503},
  };
  for (const auto& [text, status] : kKinds)
    if (message.find(text) != std::string::npos) return status;
  return fallback;
}

RestResponse Error(int status, const std::string& message) {
  return Json(status, ErrorsJson({{message, SlurmErrno(message)}}));
}

struct Output {
  int rc = 0;
  std::string out;
  std::string err;
};

// A command's stderr as error entries: "sbatch: error: X" and "slurm_load_jobs error: X"
// become X.
std::vector<RestError> ErrorLines(const std::string& err) {
  std::vector<RestError> errors;
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);) {
    if (Trim(line).empty()) continue;
    if (size_t at = line.find("error: "); at != std::string::npos) line = line.substr(at + 7);
    errors.push_back({line, SlurmErrno(line)});
  }
  if (errors.empty()) errors.push_back({"the command failed without a message", -1});
  return errors;
}

RestResponse Failure(const Output& o, int fallback) {
  std::vector<RestError> errors = ErrorLines(o.err);
  return Json(StatusFor(errors.back().message, fallback), ErrorsJson(errors));
}

// The path's words after the version prefix: "/slurm/v0.0.38/job/12" -> {"job", "12"}.
std::vector<std::string> Words(std::string_view rest) {
  std::vector<std::string> words;
  for (std::string_view w : Split(rest, '/'))
    if (!w.empty()) words.emplace_back(w);
  return words;
}

bool IsJobId(const std::string& s) {  // 12, 12_3, 12+1
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '_' && c != '+') return false;
  return true;
}

}  // namespace

// One request: runs commands as its user against its client.
struct RestApi::Call {
  const RestApi& api;
  ClientApiInterface* client;
  const RestUser& user;

  Output Run(CommandFn fn, const std::vector<std::string>& args,
             std::map<std::string, std::string> environ = {}, std::string cwd = "/",
             std::string input = "") const {
    std::ostringstream out, err;
    std::istringstream in(input);
    CliEnv env;
    env.out = &out;
    env.err = &err;
    env.in = &in;
    if (!environ.count("SLUICE_CONF")) environ["SLUICE_CONF"] = api.conf_path_;
    env.environ = std::move(environ);
    env.cwd = std::move(cwd);
    char host[256] = {};
    if (gethostname(host, sizeof(host) - 1) == 0) env.hostname = host;
    env.uid = user.uid;
    env.clock = api.clock_;
    env.connect = [this]() -> Expected<ClientApiInterface*> { return client; };
    env.sleep_ms = [](int64_t ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); };
    env.user_name = PasswdUserName;
    env.user_id = PasswdUserId;
    Output o;
    o.rc = fn(args, env);
    o.out = std::move(out).str();  // a listing can be hundreds of MB: not copied
    o.err = std::move(err).str();
    return o;
  }

  // A command that prints JSON: its JSON, or its errors. The commands print what Json()
  // would (dump(2) and a newline), so it is passed on as printed: parsing and printing it
  // again cost more than the command itself on a long listing.
  RestResponse JsonOf(CommandFn fn, const std::vector<std::string>& args) const {
    Output o = Run(fn, args);
    if (o.rc != 0) return Failure(o, 500);
    if (o.out.empty() || o.out.front() != '{') return Error(500, "the command printed no JSON");
    return {200, std::move(o.out)};
  }

  // squeue --json -j ID, each pending job with its "explanation" (sched/explain.h).
  RestResponse Job(const std::string& id) const {
    RestResponse r = JsonOf(RunSqueue, {"--json", "-j", id});
    int64_t job_id = 0;
    if (r.status != 200 || !ParseNonNegative(id, &job_id)) return r;  // 12_3: as squeue prints it
    GetJobsRequest q;
    q.add_job_ids(job_id);
    q.set_explain(true);
    q.mutable_fields()->add_paths("explanation");
    Expected<GetJobsReply> why = client->GetJobs(q);
    if (!why.ok()) return r;
    json j = json::parse(r.body, nullptr, false);
    if (j.is_discarded() || !j.contains("jobs")) return r;
    for (json& job : j["jobs"]) {
      for (const JobInfo& w : why->jobs()) {
        if (!w.explanation().empty() && job.value("job_id", int64_t{0}) == w.job_id())
          job["explanation"] = w.explanation();
      }
    }
    return Json(200, j);
  }

  // POST /job/submit: {"script", "job": {...}}, or {"script", "jobs": [{...}, ...]} for a
  // heterogeneous job (sbatch's `opts0 : opts1 ...`; the components share the first one's
  // environment, working directory and argv, which later ones may repeat or leave out).
  RestResponse Submit(const std::string& body) const {
    json doc = json::parse(body, nullptr, false);
    if (doc.is_discarded() || !doc.is_object())
      return Error(400, "Unable to parse the request body as a JSON object");
    for (const auto& [key, v] : doc.items())
      if (key != "script" && key != "job" && key != "jobs")
        return Error(400, "Unknown field: " + key);
    if (!doc.contains("script") || !doc["script"].is_string())
      return Error(400, "script is required (the batch script's text)");
    if (doc.contains("job") && doc.contains("jobs"))
      return Error(400, "give either job or jobs (a heterogeneous job), not both");
    json components =
        doc.contains("jobs") ? doc["jobs"] : json::array({doc.value("job", json::object())});
    if (!components.is_array() || components.empty())
      return Error(400, "jobs must be a non-empty array of job descriptions");
    std::vector<std::string> args{"--parsable"};
    std::optional<SbatchCall> first;
    for (size_t i = 0; i < components.size(); ++i) {
      json& job = components[i];
      for (const char* shared : {"environment", "current_working_directory"})
        if (i > 0 && job.is_object() && !job.contains(shared) && components[0].contains(shared))
          job[shared] = components[0][shared];
      Expected<SbatchCall> call = SbatchCallFor(job);
      if (!call.ok()) {
        const std::string where = doc.contains("jobs") ? "jobs[" + std::to_string(i) + "]: " : "";
        return Error(400, where + call.status().message());
      }
      if (first) {
        if (call->environ != first->environ || call->cwd != first->cwd ||
            (!call->script_args.empty() && call->script_args != first->script_args))
          return Error(400, "jobs[" + std::to_string(i) +
                                "]: a heterogeneous job has one environment, working directory "
                                "and argv, its first component's");
        args.push_back(":");
      }
      args.insert(args.end(), call->args.begin(), call->args.end());
      if (!first) first = std::move(*call);
    }
    const SbatchCall* call = &*first;
    args.push_back("-");  // the script comes on stdin, its arguments after it
    args.insert(args.end(), call->script_args.begin(), call->script_args.end());
    Output o = Run(RunSbatch, args, call->environ, call->cwd, doc["script"].get<std::string>());
    if (o.rc != 0) return Failure(o, 400);
    int64_t id = 0;
    ParseNonNegative(Trim(o.out.substr(0, o.out.find(';'))), &id);
    json reply = ErrorsJson({});
    reply["job_id"] = id;
    reply["step_id"] = "BATCH";
    reply["job_submit_user_msg"] = "";
    return Json(200, reply);
  }

  RestResponse Update(const std::string& id, const std::string& body) const {
    int64_t job_id = 0;
    if (!ParseNonNegative(id, &job_id)) return Error(400, "Invalid job id specified");
    json doc = json::parse(body, nullptr, false);
    if (doc.is_discarded()) return Error(400, "Unable to parse the request body as JSON");
    auto calls = ScontrolCallsFor(job_id, doc);
    if (!calls.ok()) return Error(400, calls.status().message());
    for (const std::vector<std::string>& words : *calls) {
      Output o = Run(RunScontrol, words);
      if (o.rc != 0) return Failure(o, 400);
    }
    return Json(200, ErrorsJson({}));
  }

  RestResponse Cancel(const std::string& id, const std::map<std::string, std::string>& q) const {
    std::vector<std::string> args;
    if (auto it = q.find("signal"); it != q.end()) args.push_back("--signal=" + it->second);
    args.push_back(id);
    Output o = Run(RunScancel, args);
    if (o.rc != 0 || !o.err.empty()) return Failure(o, 500);  // scancel warns and exits 0
    return Json(200, ErrorsJson({}));
  }

  RestResponse Partitions(const std::string& name) const {
    auto parts = client->GetPartitions(GetPartitionsRequest());
    if (!parts.ok())
      return Error(StatusFor(parts.status().message(), 500), parts.status().message());
    auto nodes = client->GetNodes(GetNodesRequest());
    if (!nodes.ok())
      return Error(StatusFor(nodes.status().message(), 500), nodes.status().message());
    GetPartitionsReply shown;
    for (const PartitionInfo& p : parts->partitions())
      if (name.empty() || p.name() == name) *shown.add_partitions() = p;
    if (!name.empty() && shown.partitions_size() == 0)
      return Error(404, "Invalid partition name specified");
    return Json(200, PartitionsJson(shown, *nodes));
  }

  RestResponse Reservations(const std::string& name) const {
    ReservationRequest req;
    req.set_action(RESV_SHOW);
    req.set_name(name);
    auto reply = client->Reservation(req);
    if (!reply.ok())
      return Error(StatusFor(reply.status().message(), 500), reply.status().message());
    if (!name.empty() && reply->reservations_size() == 0)
      return Error(404, "Requested reservation is invalid");
    return Json(200, ReservationsJson(*reply));
  }

  // slurmdb /diag: the controller's RPC statistics (it is also the accounting daemon).
  RestResponse DbDiag() const {
    Expected<GetStatsReply> stats = client->GetStats(GetStatsRequest());
    if (!stats.ok())
      return Error(StatusFor(stats.status().message(), 500), stats.status().message());
    json rpcs = json::array();
    for (const RpcMethodStats& m : stats->rpcs()) {
      const int64_t average = m.count() ? m.total_us() / m.count() : 0;
      rpcs.push_back({{"rpc", m.method()},
                      {"count", m.count()},
                      {"time", {{"average", average}, {"total", m.total_us()}}}});
    }
    json j = ErrorsJson({});
    j["statistics"] = {{"time_start", stats->data_since()},
                       {"rollups", json::array()},
                       {"RPCs", rpcs},
                       {"users", json::array()}};
    return Json(200, j);
  }

  // slurmdb /config: every entity sacctmgr shows, in one object.
  RestResponse DbConfig() const {
    json merged = ErrorsJson({});
    for (const char* entity : {"account", "association", "user", "qos", "tres", "wckey"}) {
      RestResponse r = JsonOf(RunSacctmgr, {"--json", "show", entity});
      if (r.status != 200) return r;
      json j = json::parse(r.body, nullptr, false);
      for (auto& [key, value] : j.items())
        if (key != "meta" && key != "errors") merged[key] = std::move(value);
    }
    return Json(200, merged);
  }

  // slurmdb /cluster/{name}.
  RestResponse DbCluster(const std::string& name) const {
    RestResponse r = JsonOf(RunSacctmgr, {"--json", "show", "cluster"});
    if (r.status != 200) return r;
    json j = json::parse(r.body, nullptr, false);
    json shown = json::array();
    for (json& c : j["clusters"])
      if (c.value("name", "") == name) shown.push_back(std::move(c));
    if (shown.empty()) return Error(404, "cluster not found: " + name);
    j["clusters"] = std::move(shown);
    return Json(200, j);
  }

  RestResponse Ping() const {
    auto config = client->GetConfig(GetConfigRequest());
    std::string host = "localhost";
    if (config.ok()) {
      for (int i = 0; i < config->keys_size() && i < config->values_size(); ++i)
        if (config->keys(i) == "SlurmctldHost") host = config->values(i);
    }
    return Json(200, PingsJson(host, config.ok()));
  }
};

RestApi::RestApi(std::string conf_path, const Clock* clock, std::string openapi)
    : conf_path_(std::move(conf_path)), clock_(clock), openapi_(std::move(openapi)) {}

bool RestApi::IsPublic(const std::string& path) {
  return path == "/openapi" || path == "/openapi.json" || path == "/openapi/v3";
}

RestResponse RestApi::Handle(const RestRequest& req, ClientApiInterface* client,
                             const RestUser& user) const {
  if (IsPublic(req.path)) {
    if (req.method != "GET") return Error(405, "Method not allowed: " + req.method);
    return {200, openapi_};
  }
  const bool db = req.path.rfind(kSlurmdb, 0) == 0;
  if (!db && req.path.rfind(kSlurm, 0) != 0)
    return Error(404, "Unable to find requested URL: " + req.path);
  const std::vector<std::string> w =
      Words(std::string_view(req.path).substr(db ? kSlurmdb.size() : kSlurm.size()));
  if (w.empty() || w.size() > 2) return Error(404, "Unable to find requested URL: " + req.path);
  const std::string& what = w[0];
  const std::string name = w.size() == 2 ? w[1] : "";
  Call call{*this, client, user};

  // The query parameters each kind of request takes.
  std::set<std::string> allowed{"update_time"};
  if (req.method == "DELETE") allowed = {"signal"};
  if (db && (what == "jobs" || what == "job")) allowed = {"users", "start_time", "end_time"};
  for (const auto& [key, value] : req.query)
    if (!allowed.count(key)) return Error(400, "Unknown query parameter: " + key);
  const auto wrong_method = [&]() { return Error(405, "Method not allowed: " + req.method); };

  if (!db) {
    if (what == "job" && name == "submit") {
      return req.method == "POST" ? call.Submit(req.body) : wrong_method();
    }
    if (what == "job" && !name.empty()) {
      if (!IsJobId(name)) return Error(400, "Invalid job id specified");
      if (req.method == "GET") return call.Job(name);
      if (req.method == "POST") return call.Update(name, req.body);
      if (req.method == "DELETE") return call.Cancel(name, req.query);
      return wrong_method();
    }
    if (req.method != "GET") return wrong_method();
    if (what == "jobs" && name.empty()) return call.JsonOf(RunSqueue, {"--json"});
    if (what == "nodes" && name.empty()) return call.JsonOf(RunSinfo, {"--json"});
    if (what == "node" && !name.empty())
      return call.JsonOf(RunScontrol, {"show", "node", name, "--json"});
    if (what == "partitions" && name.empty()) return call.Partitions("");
    if (what == "partition" && !name.empty()) return call.Partitions(name);
    if (what == "reservations" && name.empty()) return call.Reservations("");
    if (what == "reservation" && !name.empty()) return call.Reservations(name);
    if (what == "diag" && name.empty()) return call.JsonOf(RunSdiag, {"--json"});
    if (what == "ping" && name.empty()) return call.Ping();
    if (what == "licenses" && name.empty()) {
      json j = ErrorsJson({});
      j["licenses"] = json::array();
      return Json(200, j);
    }
    return Error(404, "Unable to find requested URL: " + req.path);
  }

  if (req.method != "GET") return wrong_method();
  if ((what == "jobs" && name.empty()) || (what == "job" && !name.empty())) {
    std::vector<std::string> args{"--json", "--allusers", "--starttime=1970-01-01T00:00:00"};
    if (!name.empty()) {
      if (!IsJobId(name)) return Error(400, "Invalid job id specified");
      args.push_back("--jobs=" + name);
    }
    if (auto it = req.query.find("users"); it != req.query.end())
      args.push_back("--user=" + it->second);
    if (auto it = req.query.find("start_time"); it != req.query.end())
      args.push_back("--starttime=" + it->second);
    if (auto it = req.query.find("end_time"); it != req.query.end())
      args.push_back("--endtime=" + it->second);
    return call.JsonOf(RunSacct, args);
  }
  if (what == "diag" && name.empty()) return call.DbDiag();
  if (what == "config" && name.empty()) return call.DbConfig();
  if (what == "wckey" && !name.empty()) return Error(404, "wckey not found: " + name);
  static const std::map<std::string, std::string> kEntities{
      {"accounts", "account"}, {"account", "account"}, {"associations", "association"},
      {"qos", "qos"},          {"users", "user"},      {"user", "user"},
      {"tres", "tres"},        {"wckeys", "wckey"},    {"clusters", "cluster"},
      {"cluster", "cluster"}};
  auto it = kEntities.find(what);
  const bool single =
      what == "account" || what == "user" || what == "cluster" || (what == "qos" && !name.empty());
  if (it == kEntities.end() || single != !name.empty() || (what == "associations" && !name.empty()))
    return Error(404, "Unable to find requested URL: " + req.path);
  if (what == "cluster") return call.DbCluster(name);
  std::vector<std::string> args{"--json", "show", it->second};
  if (!name.empty()) args.push_back(name);
  return call.JsonOf(RunSacctmgr, args);
}

}  // namespace sluice
