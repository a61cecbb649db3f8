#include "cluster_fixture.h"

#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/clock.h"

namespace fs = std::filesystem;

namespace sluice::testing {

LocalClusterOptions ClusterTest::Options() {
  LocalClusterOptions o;
  o.nodes = 4;
  o.gpus_per_node = 8;
  o.cpus_per_node = 16;
  o.mem_per_node_mb = 64000;
  o.kill_wait_s = 2;
  o.slurmd_timeout_s = 10;
  return o;
}

void ClusterTest::SetUp() {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/sluice-it-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr) << tmpl;
  root_dir_ = tmpl;
  fs::permissions(root_dir_, fs::perms(0755));
  work_dir_ = root_dir_ + "/work";
  fs::create_directories(work_dir_);
  fs::permissions(work_dir_, fs::perms(0777));
  auto opts = Options();
  opts.state_dir = root_dir_ + "/cluster";
  opts.bin_dir = SelfDir();
  cluster_ = std::make_unique<LocalCluster>(opts);
  auto st = cluster_->Up(30'000);
  ASSERT_TRUE(st.ok()) << st.message();
}

void ClusterTest::UseFaultBuilds(LocalClusterOptions* o) {
  o->agent_bin = "sluiced-faults";
  o->ctld_bin = "sluicectld-faults";
  fs::create_directories(fault_dir());
  setenv("SLUICE_FAULT_DIR", fault_dir().c_str(), 1);
}

void ClusterTest::TearDown() {
  unsetenv("SLUICE_FAULT_DIR");
  // The private PostgreSQL of a cluster with several controllers keeps its data outside
  // the state dir (/tmp/sluice-pg-*, named by pgsql.path); Down() stops it.
  const std::string pg = cluster_ ? PrivatePgDir(cluster_->state_dir()) : "";
  if (cluster_) cluster_->Down();
  if (!pg.empty()) {
    std::error_code ec;
    fs::remove_all(pg, ec);
  }
  // Leave the directory behind when a test failed, for the logs.
  if (!HasFailure()) {
    std::error_code ec;
    fs::remove_all(root_dir_, ec);
  } else {
    std::cerr << "cluster state and logs kept in " << root_dir_ << "\n";
  }
}

RunResult ClusterTest::Run(std::vector<std::string> argv, RunOptions opts) {
  argv[0] = cluster_->BinPath(argv[0]);
  for (const auto& e : cluster_->Env()) opts.extra_env.push_back(e);
  if (opts.cwd.empty()) opts.cwd = work_dir_;
  return RunCommand(argv, opts);
}

int64_t ClusterTest::Submit(std::vector<std::string> args) {
  args.insert(args.begin(), {"sbatch", "--parsable"});
  auto r = Run(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  try {
    return std::stoll(r.out);
  } catch (...) {
    ADD_FAILURE() << "sbatch printed '" << r.out << "' / '" << r.err << "'";
    return -1;
  }
}

std::string ClusterTest::State(int64_t job_id) {
  auto r = Run({"squeue", "-h", "-t", "all", "-j", std::to_string(job_id), "-o", "%T"});
  std::string s = r.out;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string ClusterTest::WaitState(int64_t job_id, const std::vector<std::string>& states,
                                   int timeout_ms) {
  int64_t deadline = RealClock::MonotonicMs() + timeout_ms;
  std::string s;
  while (RealClock::MonotonicMs() < deadline) {
    s = State(job_id);
    for (const auto& want : states)
      if (s == want) return s;
    usleep(50'000);
  }
  return s;
}

std::string ClusterTest::WaitDone(int64_t job_id, int timeout_ms) {
  return WaitState(job_id,
                   {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"},
                   timeout_ms);
}

std::string ClusterTest::ReadFile(const std::string& path) {
  std::ifstream f(path.front() == '/' ? path : work_dir_ + "/" + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> ClusterTest::ReadLines(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(ReadFile(path));
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

void ClusterTest::WriteFile(const std::string& name, const std::string& text) {
  std::ofstream f(work_dir_ + "/" + name);
  f << text;
  f.close();
  ASSERT_TRUE(f.good()) << "cannot write " << name;
}

std::vector<std::string> ClusterTest::SortedLines(const std::string& s, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string ClusterTest::BinDir() const {
  std::string srun = cluster_->BinPath("srun");
  return srun.substr(0, srun.rfind('/'));
}

int64_t ClusterTest::LastJobId() {
  auto r = Run({"squeue", "-h", "-t", "all", "-o", "%i"});
  int64_t best = 0;
  std::istringstream in(r.out);
  for (std::string l; std::getline(in, l);) {
    if (!l.empty()) best = std::max<int64_t>(best, std::stoll(l));
  }
  return best;
}

void WriteShellScript(const std::string& path, const std::string& body) {
  std::ofstream(path) << "#!/bin/sh\n" << body;
  fs::permissions(path, fs::perms(0755));
}

std::optional<TestUser> EnsureTestUser(const std::string& name) {
  if (getpwnam(name.c_str()) == nullptr) {
    RunCommand({"useradd", "--no-create-home", "--shell", "/bin/bash", name});
  }
  const passwd* pw = getpwnam(name.c_str());
  if (pw == nullptr) return std::nullopt;
  return TestUser{pw->pw_uid, pw->pw_gid};
}

}  // namespace sluice::testing
