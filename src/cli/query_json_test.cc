// squeue --json / sinfo --json against Slurm 22.05's own output for the same cluster
// situation (ref_cluster_test_util.h; ../shared/reference/cli/*_json.txt): the same keys,
// and the same values for what clients read.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/query_json.h"
#include "cli/ref_cluster_test_util.h"
#include "cli/scontrol.h"
#include "cli/sinfo.h"
#include "cli/squeue.h"

namespace sluice {
namespace {

using nlohmann::json;

// The JSON document of a capture ("$ cmd", "--- stdout ---", the document, "--- stderr ---").
json Capture(const std::string& name) {
  std::ifstream in(std::string(SLUICE_REFERENCE_DIR) + "/cli/" + name);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  size_t begin = s.find('{'), end = s.find("--- stderr");
  if (begin == std::string::npos) return json();
  return json::parse(s.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
}

std::set<std::string> Keys(const json& o) {
  std::set<std::string> k;
  for (const auto& [key, value] : o.items()) k.insert(key);
  return k;
}

const json* ById(const json& list, int64_t id, const char* key = "job_id") {
  for (const json& o : list) {
    if (o[key] == id) return &o;
  }
  return nullptr;
}

class QueryJson : public ::testing::Test {
 protected:
  void SetUp() override { SetRefCluster(&t.api); }
  TestCli t;
};

TEST_F(QueryJson, SqueueJsonHasSlurmsKeysAndValues) {
  json ref = Capture("squeue_json.txt");
  ASSERT_TRUE(ref.contains("jobs")) << "reference capture missing";
  // What the capture shows beyond the shared fixture: job 4 was requeued once, job 16
  // waits for job 11.
  for (JobInfo& j : *t.api.jobs.mutable_jobs()) {
    if (j.job_id() == 4) j.set_restarts(1);
    if (j.job_id() != 16) continue;
    DependencyTerm* d = j.add_dependency();
    d->set_type("afterok");
    d->set_job_id(11);
    d->set_task_id(-1);
  }
  ASSERT_EQ(RunSqueue({"--json"}, t.env), 0) << t.err.str();
  json got = json::parse(t.out.str());
  EXPECT_EQ(got["meta"], ref["meta"]);
  EXPECT_EQ(got["errors"], json::array());
  ASSERT_EQ(got["jobs"].size(), 10u);  // every job, whatever its state
  int compared = 0;
  for (const json& mine : got["jobs"]) {
    const json* theirs = ById(ref["jobs"], mine["job_id"]);
    ASSERT_NE(theirs, nullptr) << mine["job_id"];
    EXPECT_EQ(Keys(mine), Keys(*theirs)) << "job " << mine["job_id"];
    for (const char* key : {"job_id",
                            "name",
                            "job_state",
                            "state_reason",
                            "partition",
                            "account",
                            "user_name",
                            "qos",
                            "node_count",
                            "nodes",
                            "batch_host",
                            "cpus",
                            "tasks",
                            "time_limit",
                            "array_job_id",
                            "array_task_id",
                            "array_task_string",
                            "tres_per_node",
                            "gres_detail",
                            "memory_per_cpu",
                            "memory_per_node",
                            "standard_input",
                            "requeue",
                            "restart_cnt",
                            "flags",
                            "show_flags",
                            "dependency",
                            "batch_flag",
                            "current_working_directory"}) {
      EXPECT_EQ(mine[key], (*theirs)[key]) << "job " << mine["job_id"] << " key " << key;
    }
    if (theirs->contains("job_resources")) {
      const json &a = mine["job_resources"], &b = (*theirs)["job_resources"];
      EXPECT_EQ(a["nodes"], b["nodes"]);
      EXPECT_EQ(a["allocated_hosts"], b["allocated_hosts"]);
      ASSERT_EQ(a["allocated_nodes"].size(), b["allocated_nodes"].size());
      for (size_t i = 0; i < a["allocated_nodes"].size(); ++i) {
        EXPECT_EQ(a["allocated_nodes"][i]["nodename"], b["allocated_nodes"][i]["nodename"]);
        EXPECT_EQ(Keys(a["allocated_nodes"][i]), Keys(b["allocated_nodes"][i]));
      }
    }
    ++compared;
  }
  EXPECT_EQ(compared, 10);
}

TEST_F(QueryJson, SqueueJsonKeepsTheFilters) {
  ASSERT_EQ(RunSqueue({"--json", "-t", "PD", "-n", "bigjob,held"}, t.env), 0) << t.err.str();
  json got = json::parse(t.out.str());
  ASSERT_EQ(got["jobs"].size(), 2u);
  EXPECT_EQ(got["jobs"][0]["job_id"], 14);
  EXPECT_EQ(got["jobs"][1]["job_id"], 15);
  t.out.str("");
  EXPECT_EQ(RunSqueue({"--json", "-j", "99"}, t.env), 1);
  EXPECT_EQ(t.err.str(), "slurm_load_jobs error: Invalid job id specified\n");
}

TEST_F(QueryJson, SinfoJsonHasSlurmsKeysAndValues) {
  json ref = Capture("sinfo_json.txt");
  ASSERT_TRUE(ref.contains("nodes")) << "reference capture missing";
  ASSERT_EQ(RunSinfo({"--json"}, t.env), 0) << t.err.str();
  json got = json::parse(t.out.str());
  EXPECT_EQ(got["meta"], ref["meta"]);
  ASSERT_EQ(got["nodes"].size(), ref["nodes"].size());
  for (size_t i = 0; i < got["nodes"].size(); ++i) {
    const json &mine = got["nodes"][i], &theirs = ref["nodes"][i];
    EXPECT_EQ(Keys(mine), Keys(theirs)) << mine["name"];
    for (const char* key :
         {"name",      "hostname",      "state",          "state_flags",  "cpus",
          "sockets",   "cores",         "threads",        "real_memory",  "gres",
          "gres_used", "alloc_cpus",    "alloc_memory",   "idle_cpus",    "tres",
          "tres_used", "tres_weighted", "partitions",     "architecture", "operating_system",
          "cpu_load",  "free_memory",   "slurmd_version", "reason"}) {
      EXPECT_EQ(mine[key], theirs[key]) << mine["name"] << " key " << key;
    }
  }
}

TEST_F(QueryJson, SinfoJsonShowsDrainAndNotRespondingAsFlags) {
  NodeInfo* n = t.api.nodes.mutable_nodes(2);
  n->set_drain(true);
  n->set_reason("bad gpu");
  n->set_reason_time(1'700'000'000);
  n->set_responding(false);
  ASSERT_EQ(RunSinfo({"--json", "-n", "node03"}, t.env), 0) << t.err.str();
  json got = json::parse(t.out.str());
  ASSERT_EQ(got["nodes"].size(), 1u);
  EXPECT_EQ(got["nodes"][0]["state"], "idle");
  EXPECT_EQ(got["nodes"][0]["state_flags"], json({"DRAIN", "NOT_RESPONDING"}));
  EXPECT_EQ(got["nodes"][0]["reason"], "bad gpu");
  EXPECT_EQ(got["nodes"][0]["reason_changed_at"], 1'700'000'000);
  EXPECT_EQ(got["nodes"][0]["reason_set_by_user"], "root");
}

TEST_F(QueryJson, ScontrolShowJobAndNodeJsonAreTheSameShapes) {
  ASSERT_EQ(RunScontrol({"show", "job", "13", "--json"}, t.env), 0) << t.err.str();
  json job = json::parse(t.out.str());
  ASSERT_EQ(job["jobs"].size(), 1u);
  EXPECT_EQ(job["jobs"][0]["job_id"], 13);
  EXPECT_EQ(job["jobs"][0]["gres_detail"], json({"gpu:4(IDX:0-3)", "gpu:4(IDX:0-3)"}));
  t.out.str("");
  ASSERT_EQ(RunScontrol({"--json", "show", "node", "node02"}, t.env), 0) << t.err.str();
  json node = json::parse(t.out.str());
  ASSERT_EQ(node["nodes"].size(), 1u);
  EXPECT_EQ(node["nodes"][0]["name"], "node02");
  EXPECT_EQ(node["nodes"][0]["state"], "mixed");
  t.out.str("");
  EXPECT_EQ(RunScontrol({"show", "job", "99", "--json"}, t.env), 1);
  EXPECT_EQ(t.err.str(), "slurm_load_jobs error: Invalid job id specified\n");
  t.err.str("");
  EXPECT_EQ(RunScontrol({"show", "partition", "--json"}, t.env), 1);
  EXPECT_NE(t.err.str().find("--json is supported for show job and show node only"),
            std::string::npos);
}

// The listing printed item by item is byte for byte what dump(2) prints of the whole tree.
TEST(DumpListing, PrintsWhatTheWholeTreePrints) {
  const json root{{"meta", {{"plugin", {{"name", "x"}}}}}, {"errors", json::array()}};
  std::vector<json> items{
      {{"id", 1}, {"name", "a\nb \"quoted\""}, {"tags", {"x", "y"}}, {"empty", json::object()}},
      {{"id", 2}, {"nested", {{"list", {1, 2, {{"deep", nullptr}}}}}}, {"none", json::array()}},
      json(3.5),
      json("plain")};
  auto same = [](const json& j) { return j; };
  for (size_t n = 0; n <= items.size(); ++n) {
    std::vector<json> some(items.begin(), items.begin() + n);
    json whole = root;
    whole["jobs"] = some;
    EXPECT_EQ(DumpListing(root, "jobs", some, same), whole.dump(2) + "\n") << n << " items";
  }
  json whole = root;
  whole["zzz"] = items;  // the last key: nothing follows the list
  EXPECT_EQ(DumpListing(root, "zzz", items, same), whole.dump(2) + "\n");
}

}  // namespace
}  // namespace sluice
