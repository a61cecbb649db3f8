// RestApi against the commands' fake controller (cli/cli_test_util.h): each path runs the
// command that prints or does the same, and every failure is Slurm's error list.
#include "restd/rest_api.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli_test_util.h"
#include "restd/openapi_doc.h"

namespace sluice {
namespace {

using nlohmann::json;

class RestApiTest : public ::testing::Test {
 protected:
  RestResponse Do(const std::string& method, const std::string& path, const std::string& body = "",
                  std::map<std::string, std::string> query = {}) {
    return api_.Handle({method, path, std::move(query), body}, &t.api, RestUser{1000, "alice"});
  }
  static json Body(const RestResponse& r) { return json::parse(r.body); }
  static std::string FirstError(const RestResponse& r) {
    return Body(r)["errors"][0]["error"].get<std::string>();
  }

  TestCli t;
  RestApi api_{"/nonexistent/sluice.conf", &t.clock, OpenApiDocument()};
};

JobInfo PendingJob(int64_t id) {
  JobInfo j;
  j.set_job_id(id);
  j.set_state(JOB_PENDING);
  j.set_uid(1000);
  j.set_user("alice");
  j.mutable_spec()->set_name("train");
  j.mutable_spec()->set_partition("gpu");
  return j;
}

TEST_F(RestApiTest, JobsAreSqueueJson) {
  *t.api.jobs.add_jobs() = PendingJob(7);
  *t.api.jobs.add_jobs() = PendingJob(8);
  RestResponse all = Do("GET", "/slurm/v0.0.38/jobs", "", {{"update_time", "0"}});
  ASSERT_EQ(all.status, 200) << all.body;
  json j = Body(all);
  EXPECT_TRUE(j["errors"].empty());
  EXPECT_EQ(j["meta"]["Slurm"]["release"], "22.05.8");
  ASSERT_EQ(j["jobs"].size(), 2u);
  EXPECT_EQ(j["jobs"][0]["job_id"], 7);
  EXPECT_EQ(j["jobs"][0]["name"], "train");
  EXPECT_EQ(j["jobs"][0]["job_state"], "PENDING");

  RestResponse one = Do("GET", "/slurm/v0.0.38/job/8");
  ASSERT_EQ(one.status, 200);
  ASSERT_EQ(Body(one)["jobs"].size(), 1u);
  EXPECT_EQ(Body(one)["jobs"][0]["job_id"], 8);

  RestResponse missing = Do("GET", "/slurm/v0.0.38/job/99");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(FirstError(missing), "Invalid job id specified");
  EXPECT_EQ(Body(missing)["errors"][0]["error_number"], 2017);
  EXPECT_EQ(Do("GET", "/slurm/v0.0.38/job/abc").status, 400);
}

TEST_F(RestApiTest, SubmitRunsSbatchWithTheJobsOptions) {
  t.api.submit_reply.set_job_id(42);
  json body = {{"script", "#!/bin/bash\nsrun hostname\n"},
               {"job",
                {{"name", "ddp"},
                 {"nodes", json::array({2, 4})},
                 {"tasks_per_node", 8},
                 {"gres", "gpu:8"},
                 {"time_limit", 90},
                 {"partition", "gpu"},
                 {"requeue", false},
                 {"current_working_directory", "/home/alice"},
                 {"argv", json::array({"--lr", "0.1"})},
                 {"environment", {{"PATH", "/usr/bin:/bin"}, {"RUN", "7"}}}}}};
  RestResponse r = Do("POST", "/slurm/v0.0.38/job/submit", body.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["job_id"], 42);
  EXPECT_EQ(Body(r)["step_id"], "BATCH");
  ASSERT_EQ(t.api.submits.size(), 1u);
  const JobSpec& spec = t.api.submits[0].spec();
  EXPECT_EQ(spec.name(), "ddp");
  EXPECT_EQ(spec.min_nodes(), 2);
  EXPECT_EQ(spec.max_nodes(), 4);
  EXPECT_EQ(spec.ntasks_per_node(), 8);
  EXPECT_EQ(spec.time_limit_min(), 90);
  EXPECT_EQ(spec.partition(), "gpu");
  EXPECT_EQ(spec.work_dir(), "/home/alice");
  EXPECT_EQ(spec.script(), "#!/bin/bash\nsrun hostname\n");
  ASSERT_EQ(spec.gres_per_node_size(), 1);
  EXPECT_EQ(spec.gres_per_node(0).count(), 8);
  EXPECT_NE(std::find(spec.env().begin(), spec.env().end(), "RUN=7"), spec.env().end());
  EXPECT_EQ(std::vector<std::string>(spec.argv().begin(), spec.argv().end()),
            (std::vector<std::string>{"--lr", "0.1"}));
  EXPECT_EQ(t.api.submits[0].het_components_size(), 0);
}

TEST_F(RestApiTest, JobsSubmitsOneHeterogeneousJob) {
  t.api.submit_reply.set_job_id(50);
  const json env = {{"PATH", "/bin"}};
  json body = {{"script", "#!/bin/bash\nsrun --het-group=0,1 hostname\n"},
               {"jobs",
                {{{"name", "het"},
                  {"nodes", 1},
                  {"argv", json::array({"x"})},
                  {"current_working_directory", "/work"},
                  {"environment", env}},
                 {{"nodes", 2}, {"gres", "gpu:4"}, {"environment", env}},
                 {{"tasks", 3}}}}};
  RestResponse r = Do("POST", "/slurm/v0.0.38/job/submit", body.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["job_id"], 50);
  ASSERT_EQ(t.api.submits.size(), 1u);
  const SubmitRequest& req = t.api.submits[0];
  EXPECT_EQ(req.spec().name(), "het");
  EXPECT_EQ(req.spec().min_nodes(), 1);
  ASSERT_EQ(req.het_components_size(), 2);
  EXPECT_EQ(req.het_components(0).min_nodes(), 2);
  ASSERT_EQ(req.het_components(0).gres_per_node_size(), 1);
  EXPECT_EQ(req.het_components(0).gres_per_node(0).count(), 4);
  EXPECT_EQ(req.het_components(1).ntasks(), 3);
  for (const JobSpec& c : {req.spec(), req.het_components(0), req.het_components(1)}) {
    EXPECT_EQ(c.work_dir(), "/work");
    ASSERT_EQ(c.argv_size(), 1);
    EXPECT_EQ(c.argv(0), "x");
  }

  const std::string path = "/slurm/v0.0.38/job/submit";
  const json script = "#!/bin/sh\n";
  struct Case {
    json body;
    std::string error;
  } cases[] = {
      {{{"script", script}, {"jobs", json::array()}},
       "jobs must be a non-empty array of job descriptions"},
      {{{"script", script}, {"jobs", {{"environment", env}}}},
       "jobs must be a non-empty array of job descriptions"},
      {{{"script", script}, {"job", {{"environment", env}}}, {"jobs", {{{"environment", env}}}}},
       "give either job or jobs (a heterogeneous job), not both"},
      {{{"script", script}, {"jobs", {{{"environment", env}}, {{"tasks", "two"}}}}},
       "jobs[1]: job.tasks must be an integer"},
      {{{"script", script},
        {"jobs", {{{"environment", env}}, {{"environment", {{"PATH", "/usr/bin"}}}}}}},
       "jobs[1]: a heterogeneous job has one environment, working directory and argv, its "
       "first component's"},
  };
  for (const Case& c : cases) {
    RestResponse bad = Do("POST", path, c.body.dump());
    EXPECT_EQ(bad.status, 400) << c.body.dump();
    EXPECT_EQ(FirstError(bad), c.error) << c.body.dump();
  }
  EXPECT_EQ(t.api.submits.size(), 1u);
}

TEST_F(RestApiTest, BadSubmissionsAre400WithTheFieldNamed) {
  const std::string path = "/slurm/v0.0.38/job/submit";
  const json env = {{"PATH", "/bin"}};
  struct Case {
    std::string body;
    std::string error;
  } cases[] = {
      {"{not json", "Unable to parse the request body as a JSON object"},
      {"[1,2]", "Unable to parse the request body as a JSON object"},
      {json{{"job", {{"environment", env}}}}.dump(),
       "script is required (the batch script's text)"},
      {json{{"script", "#!/bin/sh\n"}, {"job", {{"environment", env}, {"colour", "red"}}}}.dump(),
       "job.colour is not a field Sluice knows"},
      {json{{"script", "#!/bin/sh\n"}, {"job", {{"environment", env}, {"tasks", "four"}}}}.dump(),
       "job.tasks must be an integer"},
      {json{{"script", "#!/bin/sh\n"}, {"job", {{"name", "x"}}}}.dump(),
       "job.environment is required (an object of variables, e.g. PATH)"},
      {json{{"script", "#!/bin/sh\n"}, {"job", {{"environment", env}}}, {"extra", 1}}.dump(),
       "Unknown field: extra"},
  };
  for (const Case& c : cases) {
    RestResponse r = Do("POST", path, c.body);
    EXPECT_EQ(r.status, 400) << c.body;
    EXPECT_EQ(FirstError(r), c.error) << c.body;
  }
  // A value sbatch itself refuses: its message, still a 400.
  RestResponse bad_time = Do(
      "POST", path,
      json{{"script", "#!/bin/sh\n"}, {"job", {{"environment", env}, {"time_limit", -5}}}}.dump());
  EXPECT_EQ(bad_time.status, 400) << bad_time.body;
  EXPECT_TRUE(t.api.submits.empty());
}

TEST_F(RestApiTest, UpdateAndCancelRunScontrolAndScancel) {
  *t.api.jobs.add_jobs() = PendingJob(7);
  RestResponse up =
      Do("POST", "/slurm/v0.0.38/job/7", json{{"time_limit", 30}, {"name", "renamed"}}.dump());
  ASSERT_EQ(up.status, 200) << up.body;
  ASSERT_EQ(t.api.job_updates.size(), 1u);
  EXPECT_EQ(t.api.job_updates[0].time_limit_min(), 30);
  EXPECT_EQ(t.api.job_updates[0].name(), "renamed");
  EXPECT_EQ(Do("POST", "/slurm/v0.0.38/job/7", json{{"partition", "x"}}.dump()).status, 400);
  EXPECT_EQ(Do("POST", "/slurm/v0.0.38/job/7", "{}").status, 400);

  ASSERT_EQ(Do("DELETE", "/slurm/v0.0.38/job/7").status, 200);
  ASSERT_EQ(Do("DELETE", "/slurm/v0.0.38/job/7", "", {{"signal", "USR1"}}).status, 200);
  ASSERT_EQ(t.api.cancels.size(), 2u);
  EXPECT_EQ(t.api.cancels[0].signal(), 0);
  EXPECT_EQ(t.api.cancels[1].signal(), 10);
  EXPECT_EQ(Do("DELETE", "/slurm/v0.0.38/job/7", "", {{"sig", "USR1"}}).status, 400);
}

TEST_F(RestApiTest, PartitionsReservationsPingAndDiag) {
  PartitionInfo* p = t.api.partitions.add_partitions();
  p->set_name("gpu");
  p->set_is_default(true);
  p->set_up(true);
  p->set_max_time_min(-1);
  p->add_nodes("node1");
  p->add_nodes("node2");
  for (const char* n : {"node1", "node2"}) {
    NodeInfo* node = t.api.nodes.add_nodes();
    node->set_name(n);
    node->set_cpus(16);
  }
  RestResponse parts = Do("GET", "/slurm/v0.0.38/partitions");
  ASSERT_EQ(parts.status, 200) << parts.body;
  json pj = Body(parts)["partitions"][0];
  EXPECT_EQ(pj["name"], "gpu");
  EXPECT_EQ(pj["total_cpus"], 32);
  EXPECT_EQ(pj["total_nodes"], 2);
  EXPECT_EQ(pj["nodes"], "node[1-2]");
  EXPECT_EQ(pj["max_time_limit"], -1);
  EXPECT_EQ(pj["flags"], json::array({"default"}));
  EXPECT_EQ(Do("GET", "/slurm/v0.0.38/partition/gpu").status, 200);
  EXPECT_EQ(Do("GET", "/slurm/v0.0.38/partition/cpu").status, 404);

  ReservationInfo* r = t.api.resv_reply.add_reservations();
  r->set_name("maint");
  r->add_nodes("node1");
  r->add_users("root");
  RestResponse resv = Do("GET", "/slurm/v0.0.38/reservations");
  ASSERT_EQ(resv.status, 200) << resv.body;
  EXPECT_EQ(Body(resv)["reservations"][0]["name"], "maint");
  EXPECT_EQ(Body(resv)["reservations"][0]["node_list"], "node1");

  RestResponse ping = Do("GET", "/slurm/v0.0.38/ping");
  ASSERT_EQ(ping.status, 200);
  EXPECT_EQ(Body(ping)["pings"][0]["ping"], "UP");
  t.api.fail = Unavailable("Unable to contact slurm controller (connect failure)");
  EXPECT_EQ(Body(Do("GET", "/slurm/v0.0.38/ping"))["pings"][0]["ping"], "DOWN");
  RestResponse down = Do("GET", "/slurm/v0.0.38/jobs");
  EXPECT_EQ(down.status, 503);
  EXPECT_EQ(FirstError(down), "Unable to contact slurm controller (connect failure)");
}

TEST_F(RestApiTest, SlurmdbTresWckeysClustersConfigAndDiag) {
  t.api.assoc_reply.add_clusters()->set_name("c1");
  t.api.assoc_reply.add_accounts()->set_name("ml");
  t.api.config.add_keys("GresTypes");
  t.api.config.add_values("gpu");
  RpcMethodStats* submit = t.api.stats.add_rpcs();
  submit->set_method("SubmitJob");
  submit->set_count(4);
  submit->set_total_us(1000);
  t.api.stats.set_data_since(1700000000);

  RestResponse tres = Do("GET", "/slurmdb/v0.0.38/tres");
  ASSERT_EQ(tres.status, 200) << tres.body;
  ASSERT_EQ(Body(tres)["TRES"].size(), 9u);  // cpu ... pages, then gres/gpu
  EXPECT_EQ(Body(tres)["TRES"][8]["type"], "gres");
  EXPECT_EQ(Body(tres)["TRES"][8]["name"], "gpu");
  RestResponse wckeys = Do("GET", "/slurmdb/v0.0.38/wckeys");
  ASSERT_EQ(wckeys.status, 200) << wckeys.body;
  EXPECT_EQ(Body(wckeys)["wckeys"], json::array());
  EXPECT_EQ(Do("GET", "/slurmdb/v0.0.38/wckey/1").status, 404);

  RestResponse clusters = Do("GET", "/slurmdb/v0.0.38/clusters");
  ASSERT_EQ(clusters.status, 200) << clusters.body;
  EXPECT_EQ(Body(clusters)["clusters"][0]["name"], "c1");
  RestResponse one = Do("GET", "/slurmdb/v0.0.38/cluster/c1");
  ASSERT_EQ(one.status, 200) << one.body;
  EXPECT_EQ(Body(one)["clusters"].size(), 1u);
  RestResponse other = Do("GET", "/slurmdb/v0.0.38/cluster/c2");
  EXPECT_EQ(other.status, 404);
  EXPECT_EQ(FirstError(other), "cluster not found: c2");

  RestResponse config = Do("GET", "/slurmdb/v0.0.38/config");
  ASSERT_EQ(config.status, 200) << config.body;
  json c = Body(config);
  for (const char* key : {"accounts", "associations", "users", "QOS", "TRES", "wckeys"})
    EXPECT_TRUE(c.contains(key)) << key;
  EXPECT_EQ(c["accounts"][0]["name"], "ml");
  EXPECT_TRUE(c["errors"].empty());

  RestResponse diag = Do("GET", "/slurmdb/v0.0.38/diag");
  ASSERT_EQ(diag.status, 200) << diag.body;
  json d = Body(diag)["statistics"];
  EXPECT_EQ(d["time_start"], 1700000000);
  ASSERT_EQ(d["RPCs"].size(), 1u);
  EXPECT_EQ(d["RPCs"][0]["rpc"], "SubmitJob");
  EXPECT_EQ(d["RPCs"][0]["count"], 4);
  EXPECT_EQ(d["RPCs"][0]["time"]["average"], 250);
  EXPECT_EQ(d["RPCs"][0]["time"]["total"], 1000);

  t.api.fail = Unavailable("Unable to contact slurm controller (connect failure)");
  EXPECT_EQ(Do("GET", "/slurmdb/v0.0.38/diag").status, 503);
  EXPECT_EQ(Do("GET", "/slurmdb/v0.0.38/config").status, 503);
}

TEST_F(RestApiTest, UnknownPathsMethodsAndParameters) {
  EXPECT_EQ(Do("GET", "/slurm/v0.0.37/jobs").status, 404);
  EXPECT_EQ(Do("GET", "/slurm/v0.0.38/widgets").status, 404);
  EXPECT_EQ(Do("GET", "/slurm/v0.0.38/jobs/1/2").status, 404);
  EXPECT_EQ(Do("PUT", "/slurm/v0.0.38/jobs").status, 405);
  EXPECT_EQ(Do("GET", "/slurm/v0.0.38/job/submit").status, 405);
  EXPECT_EQ(Do("POST", "/slurmdb/v0.0.38/accounts").status, 405);
  RestResponse q = Do("GET", "/slurm/v0.0.38/nodes", "", {{"color", "red"}});
  EXPECT_EQ(q.status, 400);
  EXPECT_EQ(FirstError(q), "Unknown query parameter: color");
  RestResponse doc = Do("GET", "/openapi.json");
  ASSERT_EQ(doc.status, 200);
  EXPECT_EQ(json::parse(doc.body)["openapi"], "3.0.3");
}

// Every path of the checked-in document is routed (none answers "Unable to find").
TEST_F(RestApiTest, EveryDocumentedPathIsServed) {
  std::ifstream f(SLUICE_OPENAPI_PATH);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_EQ(text.str(), OpenApiDocument());  // the binary serves the checked-in file
  json doc = json::parse(text.str());
  ASSERT_GE(doc["paths"].size(), 20u);
  for (const auto& [path, methods] : doc["paths"].items()) {
    for (const auto& [method, op] : methods.items()) {
      std::string concrete = path;
      for (const char* param : {"{job_id}", "{node_name}", "{partition_name}", "{reservation_name}",
                                "{account_name}", "{qos_name}", "{user_name}", "{cluster_name}"}) {
        if (size_t at = concrete.find(param); at != std::string::npos)
          concrete.replace(at, std::string(param).size(),
                           param == std::string("{job_id}") ? "7" : "x");
      }
      std::string m = method;
      for (char& c : m) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      RestResponse r = Do(m, concrete, "{}");
      EXPECT_NE(r.status, 405) << m << " " << concrete;
      if (r.status == 404) {
        EXPECT_EQ(FirstError(r).find("Unable to find requested URL"), std::string::npos)
            << m << " " << concrete << ": " << r.body;
      }
    }
  }
}

}  // namespace
}  // namespace sluice
