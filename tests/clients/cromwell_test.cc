// Cromwell (cromwell.example.backends/slurm.conf): each command is written to a bash file
// and run as `/bin/bash FILE`: submit = `sbatch -J NAME -D CWD -o OUT -e ERR -t MINUTES -p P
// -n CPUS --mem-per-cpu=MB --wrap "/usr/bin/env bash SCRIPT"` with the id taken by
// `Submitted batch job (\d+).*`, check-alive = `squeue -j ID` judged by its exit code only
// (0 = alive, else not: an unknown id must fail), kill = `scancel ID`; completion is the
// `rc` file the task script writes.
#include <filesystem>

#include "client_replay.h"

namespace sluice::testing {
namespace {

namespace fs = std::filesystem;

class Cromwell : public ClientReplay {
 protected:
  // The backend writes `#!/bin/bash\n<command>\n` to execution/script.<what> and runs it.
  RunResult RunConfigCommand(const std::string& exec_dir, const std::string& what,
                             const std::string& command) {
    const std::string file = exec_dir + "/script." + what;
    std::ofstream(file) << "#!/bin/bash\n" << command << "\n";
    return Shell("/bin/bash " + file, exec_dir);
  }
  std::string Submit(const std::string& exec_dir, const std::string& name,
                     const std::string& body) {
    std::ofstream(exec_dir + "/script")
        << "#!/bin/bash\ncd " << exec_dir << "\n(\n"
        << body << "\n) > " << exec_dir << "/stdout 2> " << exec_dir << "/stderr\necho $? > "
        << exec_dir << "/rc.tmp\nmv " << exec_dir << "/rc.tmp " << exec_dir << "/rc\n";
    RunResult r = RunConfigCommand(
        exec_dir, "submit",
        "sbatch -J " + name + " -D " + exec_dir + " -o " + exec_dir + "/stdout -e " + exec_dir +
            "/stderr -t 600 -p " + Partition() +
            " -n 2 --mem-per-cpu=100 --wrap \"/usr/bin/env bash " + exec_dir + "/script\"");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string out = r.out;
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return Capture(out, "Submitted batch job (\\d+).*");
  }
  bool Alive(const std::string& exec_dir, const std::string& id) {
    return RunConfigCommand(exec_dir, "check", "squeue -j " + id).exit_code == 0;
  }
};

TEST_F(Cromwell, SubmitCheckAliveRcAndKill) {
  const std::string hello = work_dir() + "/cromwell-executions/wf/1a2b/call-hello/execution";
  fs::create_directories(hello);
  const std::string id =
      Submit(hello, "cromwell_1a2b3c4d_hello", "echo hello $SLURM_NTASKS\nexit 3");
  ASSERT_FALSE(id.empty());
  EXPECT_TRUE(Alive(hello, id));
  ASSERT_TRUE(WaitFor([&] { return fs::exists(hello + "/rc"); })) << ReadFile(hello + "/stderr");
  EXPECT_EQ(ReadFile(hello + "/rc"), "3\n");
  EXPECT_EQ(ReadFile(hello + "/stdout"), "hello 2\n");
  // An id the controller never had (or has purged) is not alive.
  EXPECT_FALSE(Alive(hello, "987654"));

  const std::string slow = work_dir() + "/cromwell-executions/wf/1a2b/call-slow/execution";
  fs::create_directories(slow);
  const std::string sid = Submit(slow, "cromwell_1a2b3c4d_slow", "sleep 300");
  ASSERT_FALSE(sid.empty());
  WaitState(std::stoll(sid), {"RUNNING"});
  EXPECT_TRUE(Alive(slow, sid));
  RunResult kill = RunConfigCommand(slow, "kill", "scancel " + sid);
  EXPECT_EQ(kill.exit_code, 0) << kill.err;
  EXPECT_EQ(WaitDone(std::stoll(sid)), "CANCELLED");
  EXPECT_FALSE(fs::exists(slow + "/rc"));  // Cromwell writes rc=143 itself on abort
}

}  // namespace
}  // namespace sluice::testing
