// Reads the real traces in ../shared/traces (when present on this machine) and checks the
// readers against the counts in that folder's README, and the raw GPU CSVs against their
// normalized forms.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "sim/trace_reader.h"

namespace sluice::sim {
namespace {

std::string TracePath(const std::string& name) {
  return std::string(SLUICE_TRACE_DIR) + "/" + name;
}

#define REQUIRE_TRACE(name)                                                           \
  if (!std::filesystem::exists(TracePath(name))) {                                    \
    GTEST_SKIP() << TracePath(name) << " not present (traces live outside the repo)"; \
  }

TEST(RealTraces, SwfRecordCountsMatchTheArchive) {
  const std::map<std::string, int64_t> records = {{"HPC2N-2002-2.2-cln.swf.gz", 202871},
                                                  {"KTH-SP2-1996-2.1-cln.swf.gz", 28476},
                                                  {"LANL-CM5-1994-4.1-cln.swf.gz", 122060},
                                                  {"SDSC-SP2-1998-4.2-cln.swf.gz", 59715}};
  for (const auto& [name, count] : records) {
    REQUIRE_TRACE(name);
    auto trace = ReadTrace(TracePath(name), TraceFormat::kAuto);
    ASSERT_TRUE(trace.ok()) << trace.status().message();
    EXPECT_EQ(static_cast<int64_t>(trace->jobs.size()) + trace->dropped, count) << name;
    EXPECT_GT(trace->max_procs + trace->max_nodes, 0) << name;
    for (const TraceJob& job : trace->jobs) {
      ASSERT_GT(job.run_s, 0);
      ASSERT_LE(job.run_s, job.requested_s);
      ASSERT_GT(job.procs, 0);
    }
  }
  // README: SDSC has 5,671 jobs with run time -1 (the cleaning rules drop them).
  REQUIRE_TRACE("SDSC-SP2-1998-4.2-cln.swf.gz");
  auto sdsc = ReadTrace(TracePath("SDSC-SP2-1998-4.2-cln.swf.gz"), TraceFormat::kAuto);
  EXPECT_GE(sdsc->dropped, 5671);
  EXPECT_EQ(sdsc->max_procs, 128);
}

// Same jobs, keyed by id, from the raw and the normalized CSV.
void ExpectSameJobs(const std::string& raw_name, const std::string& norm_name, int64_t rows) {
  auto raw = ReadTrace(TracePath(raw_name), TraceFormat::kAuto);
  auto norm = ReadTrace(TracePath(norm_name), TraceFormat::kAuto);
  ASSERT_TRUE(raw.ok()) << raw.status().message();
  ASSERT_TRUE(norm.ok()) << norm.status().message();
  EXPECT_EQ(static_cast<int64_t>(raw->jobs.size()) + raw->dropped, rows);
  EXPECT_EQ(raw->jobs.size(), norm->jobs.size());
  std::map<std::string, const TraceJob*> by_id;
  for (const TraceJob& job : norm->jobs) by_id[job.id] = &job;
  for (const TraceJob& job : raw->jobs) {
    auto it = by_id.find(job.id);
    ASSERT_NE(it, by_id.end()) << raw_name << " job " << job.id;
    EXPECT_EQ(job.submit_s, it->second->submit_s) << job.id;
    EXPECT_EQ(job.run_s, it->second->run_s) << job.id;
    EXPECT_EQ(job.gpus, it->second->gpus) << job.id;
  }
}

TEST(RealTraces, PhillyRawMatchesNormalized) {
  REQUIRE_TRACE("philly_pollux_jobs.csv");
  ExpectSameJobs("philly_pollux_jobs.csv", "philly_pollux_jobs.norm.csv", 82247);
}

TEST(RealTraces, AlibabaRawMatchesNormalized) {
  REQUIRE_TRACE("alibaba_openb_pod_list_default.csv");
  ExpectSameJobs("alibaba_openb_pod_list_default.csv", "alibaba_openb_pod_list_default.norm.csv",
                 8152);
}

}  // namespace
}  // namespace sluice::sim
