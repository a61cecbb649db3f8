// Tests for the SWF and GPU CSV readers and the trace cleaning rules.
#include "sim/trace_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace sluice::sim {
namespace {

using ::testing::HasSubstr;

// 18-field SWF job line.
std::string SwfLine(int id, int submit, int run, int alloc, int req_procs, int req_time) {
  return std::to_string(id) + " " + std::to_string(submit) + " 5 " + std::to_string(run) + " " +
         std::to_string(alloc) + " 1.5 -1 " + std::to_string(req_procs) + " " +
         std::to_string(req_time) + " -1 1 3 1 -1 -1 1 -1 -1\n";
}

TEST(SwfReader, ReadsHeaderAndJobs) {
  std::string text = "; Version: 2.2\n;  MaxNodes: 120\n; MaxProcs: 240\n;\n" +
                     SwfLine(11, 1000, 50, 32, 32, 100) + SwfLine(12, 1010, 70, 8, -1, 200);
  auto trace = ParseSwf(text, "t.swf");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  EXPECT_EQ(trace->kind, TraceKind::kCpu);
  EXPECT_EQ(trace->max_nodes, 120);
  EXPECT_EQ(trace->max_procs, 240);
  ASSERT_EQ(trace->jobs.size(), 2u);
  EXPECT_EQ(trace->jobs[0].id, "11");
  EXPECT_EQ(trace->jobs[0].submit_s, 0);  // relative to the first submit
  EXPECT_EQ(trace->jobs[0].run_s, 50);
  EXPECT_EQ(trace->jobs[0].requested_s, 100);
  EXPECT_EQ(trace->jobs[0].procs, 32);
  EXPECT_EQ(trace->jobs[1].submit_s, 10);
  EXPECT_EQ(trace->jobs[1].procs, 8);  // requested -1 -> allocated
  EXPECT_EQ(trace->dropped, 0);
}

TEST(SwfReader, AppliesCleaningRules) {
  std::string text = SwfLine(1, 0, 0, 4, 4, 10) +     // run 0: dropped
                     SwfLine(2, 0, -1, 4, 4, 10) +    // run unknown: dropped
                     SwfLine(3, 0, 10, -1, -1, 10) +  // no processors: dropped
                     SwfLine(4, 5, 30, 4, 4, -1) +    // no estimate -> run time
                     SwfLine(5, 6, 90, 4, 4, 60) +    // overran: capped at 60
                     SwfLine(6, -1, 10, 4, 4, 60);    // unknown submit: dropped
  auto trace = ParseSwf(text, "t.swf");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  EXPECT_EQ(trace->dropped, 4);
  ASSERT_EQ(trace->jobs.size(), 2u);
  EXPECT_EQ(trace->jobs[0].id, "4");
  EXPECT_EQ(trace->jobs[0].requested_s, 30);
  EXPECT_EQ(trace->jobs[0].run_s, 30);
  EXPECT_EQ(trace->jobs[1].run_s, 60);
  EXPECT_EQ(trace->jobs[1].requested_s, 60);
  EXPECT_EQ(trace->jobs[1].submit_s, 1);
}

TEST(SwfReader, SortsBySubmitAndLimits) {
  std::string text = SwfLine(1, 50, 10, 1, 1, 10) + SwfLine(2, 20, 10, 1, 1, 10) +
                     SwfLine(3, 20, 10, 1, 1, 10) + SwfLine(4, 90, 10, 1, 1, 10);
  auto trace = ParseSwf(text, "t.swf", 3);
  ASSERT_TRUE(trace.ok());
  ASSERT_EQ(trace->jobs.size(), 3u);
  EXPECT_EQ(trace->jobs[0].id, "2");
  EXPECT_EQ(trace->jobs[1].id, "3");
  EXPECT_EQ(trace->jobs[2].id, "1");
  EXPECT_EQ(trace->jobs[2].submit_s, 30);
}

TEST(SwfReader, WrongFieldCountNamesTheLine) {
  std::string text = "; MaxProcs: 4\n" + SwfLine(1, 0, 10, 1, 1, 10) + "2 10 5 10 1\n";
  auto trace = ParseSwf(text, "bad.swf");
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.status().message(), "bad.swf:3: expected 18 fields, got 5");
}

TEST(SwfReader, NonNumberFieldNamesFieldAndLine) {
  std::string text = "\n1 0 5 abc 4 1 -1 4 10 -1 1 3 1 -1 -1 1 -1 -1\n";
  auto trace = ParseSwf(text, "bad.swf");
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.status().message(), "bad.swf:2: field 4 (run time) is not a number: 'abc'");
}

TEST(GpuCsvReader, ReadsNormalizedForm) {
  std::string text =
      "job_id,submit_s,gpus,nodes,runtime_s,user,status\n"
      "a,100,8,,500,,\n"
      "b,150,16,2,60,,Running\n"
      "c,160,1,1,,,Pending\n"  // no run time: dropped
      "d,170,0,1,50,,\n";      // no GPUs: dropped
  auto trace = ParseGpuCsv(text, "x.norm.csv");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  EXPECT_EQ(trace->kind, TraceKind::kGpu);
  EXPECT_EQ(trace->dropped, 2);
  ASSERT_EQ(trace->jobs.size(), 2u);
  EXPECT_EQ(trace->jobs[0].id, "a");
  EXPECT_EQ(trace->jobs[0].submit_s, 0);
  EXPECT_EQ(trace->jobs[0].gpus, 8);
  EXPECT_EQ(trace->jobs[0].nodes, 0);
  EXPECT_EQ(trace->jobs[0].requested_s, 500);
  EXPECT_EQ(trace->jobs[1].nodes, 2);
  EXPECT_EQ(trace->jobs[1].submit_s, 50);
}

TEST(GpuCsvReader, ReadsPhillyFormSortedWithRowIds) {
  std::string text =
      "timestamp,duration,num_gpus,gpu_time,cluster\n"
      "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
      "2017-10-09 06:13:03,2951.4,4,11805.6,6214e9\n"
      "2017-10-10 06:13:03,10.0,2,20.0,6214e9\n";
  auto trace = ParseGpuCsv(text, "philly.csv");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  ASSERT_EQ(trace->jobs.size(), 3u);
  EXPECT_EQ(trace->jobs[0].id, "1");
  EXPECT_EQ(trace->jobs[0].run_s, 2951);
  EXPECT_EQ(trace->jobs[0].gpus, 4);
  EXPECT_EQ(trace->jobs[1].id, "0");
  EXPECT_EQ(trace->jobs[1].submit_s, 48 * 60 + 52);
  EXPECT_EQ(trace->jobs[2].submit_s, 86400);
}

TEST(GpuCsvReader, ReadsAlibabaForm) {
  std::string text =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
      "deletion_time,scheduled_time\n"
      "p0,12000,16384,1,460,,LS,Running,10,1010,20\n"
      "p1,6000,12288,2,1000,,LS,Pending,30,40,\n"    // never scheduled: dropped
      "p2,6000,12288,0,0,,BE,Succeeded,40,90,40\n";  // no GPU: dropped
  auto trace = ParseGpuCsv(text, "pods.csv");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  ASSERT_EQ(trace->jobs.size(), 1u);
  EXPECT_EQ(trace->dropped, 2);
  EXPECT_EQ(trace->jobs[0].id, "p0");
  EXPECT_EQ(trace->jobs[0].gpus, 1);
  EXPECT_EQ(trace->jobs[0].nodes, 1);
  EXPECT_EQ(trace->jobs[0].run_s, 990);
}

TEST(GpuCsvReader, ErrorsNameTheLine) {
  auto header = ParseGpuCsv("foo,bar\n1,2\n", "x.csv");
  ASSERT_FALSE(header.ok());
  EXPECT_THAT(header.status().message(), HasSubstr("x.csv:1: unrecognised GPU CSV header"));

  auto columns = ParseGpuCsv("job_id,submit_s,gpus,nodes,runtime_s\na,1,1,,5\nb,2,1\n", "x.csv");
  ASSERT_FALSE(columns.ok());
  EXPECT_EQ(columns.status().message(), "x.csv:3: expected 5 columns, got 3");

  auto number = ParseGpuCsv("job_id,submit_s,gpus,nodes,runtime_s\na,1,two,,5\n", "x.csv");
  ASSERT_FALSE(number.ok());
  EXPECT_EQ(number.status().message(), "x.csv:2: column 'gpus' is not a number: 'two'");

  auto stamp = ParseGpuCsv("timestamp,duration,num_gpus\n2017-13-01 00:00:00,5,1\n", "p.csv");
  ASSERT_FALSE(stamp.ok());
  EXPECT_THAT(stamp.status().message(), HasSubstr("p.csv:2: bad timestamp '2017-13-01 00:00:00'"));

  EXPECT_FALSE(ParseGpuCsv("", "e.csv").ok());
}

class TraceFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("sluice_sim_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

TEST_F(TraceFileTest, ReadsGzipAndPlainSwf) {
  const std::string text = "; MaxProcs: 16\n" + SwfLine(1, 0, 10, 2, 2, 20);
  gzFile gz = gzopen(Path("a.swf.gz").c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
  std::ofstream(Path("b.swf")) << text;

  for (const char* name : {"a.swf.gz", "b.swf"}) {
    auto trace = ReadTrace(Path(name), TraceFormat::kAuto);
    ASSERT_TRUE(trace.ok()) << trace.status().message();
    EXPECT_EQ(trace->name, name);
    EXPECT_EQ(trace->max_procs, 16);
    ASSERT_EQ(trace->jobs.size(), 1u);
    EXPECT_EQ(trace->jobs[0].procs, 2);
  }
}

TEST_F(TraceFileTest, FormatAndFileErrors) {
  auto missing = ReadTrace(Path("nope.swf"), TraceFormat::kAuto);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("nope.swf: cannot open"));

  std::ofstream(Path("trace.txt")) << "job_id,submit_s,gpus,nodes,runtime_s\na,0,1,,5\n";
  auto unknown = ReadTrace(Path("trace.txt"), TraceFormat::kAuto);
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("pass --format"));
  auto forced = ReadTrace(Path("trace.txt"), TraceFormat::kGpuCsv);
  ASSERT_TRUE(forced.ok()) << forced.status().message();
  EXPECT_EQ(forced->jobs.size(), 1u);

  // A gzip file cut short is an error, not a silently short trace.
  std::string text;
  for (int i = 1; i <= 2000; ++i) text += SwfLine(i, i, 10, 2, 2, 20);
  gzFile gz = gzopen(Path("cut.swf.gz").c_str(), "wb");
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
  std::filesystem::resize_file(Path("cut.swf.gz"),
                               std::filesystem::file_size(Path("cut.swf.gz")) / 2);
  EXPECT_FALSE(ReadTrace(Path("cut.swf.gz"), TraceFormat::kAuto).ok());

  EXPECT_TRUE(ParseTraceFormat("swf").ok());
  EXPECT_FALSE(ParseTraceFormat("xml").ok());
}

}  // namespace
}  // namespace sluice::sim
