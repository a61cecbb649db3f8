#include "cli/process_env.h"

#include <pwd.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "cli/sbatch.h"
#include "cli/scancel.h"
#include "cli/scontrol.h"
#include "cli/sinfo.h"
#include "cli/squeue.h"
#include "cli/srun.h"
#include "client/agent_relay.h"
#include "client/connect.h"

extern char** environ;

namespace sluice {

std::string PasswdUserName(uint32_t uid) {
  struct passwd pw, *res = nullptr;
  char buf[4096];
  if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res) return pw.pw_name;
  return std::to_string(uid);
}

Expected<uint32_t> PasswdUserId(const std::string& name) {
  uint32_t uid = 0;
  auto [p, ec] = std::from_chars(name.data(), name.data() + name.size(), uid);
  if (ec == std::errc() && p == name.data() + name.size()) return uid;
  struct passwd pw, *res = nullptr;
  char buf[4096];
  if (getpwnam_r(name.c_str(), &pw, buf, sizeof(buf), &res) == 0 && res) return pw.pw_uid;
  return NotFound("Invalid user: " + name);
}

int RunInProcess(int argc, char** argv, CommandFn fn) {
  std::ios::sync_with_stdio(true);
  RealClock clock;
  CliEnv env;
  env.out = &std::cout;
  env.err = &std::cerr;
  env.in = &std::cin;
  env.stdin_fd = STDIN_FILENO;
  for (char** e = environ; e && *e; ++e) {
    std::string kv(*e);
    size_t eq = kv.find('=');
    if (eq != std::string::npos) env.environ[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  char buf[4096];
  if (getcwd(buf, sizeof(buf))) env.cwd = buf;
  if (gethostname(buf, sizeof(buf)) == 0) env.hostname = buf;
  env.uid = getuid();
  env.clock = &clock;
  Connection conn;
  bool connected = false;
  env.connect = [&]() -> Expected<ClientApiInterface*> {
    if (!connected) {
      Expected<Connection> c = ConnectToController({});
      if (!c.ok()) return c.status();
      conn = std::move(*c);
      connected = true;
    }
    return static_cast<ClientApiInterface*>(conn.client.get());
  };
  std::unique_ptr<AgentRelayClient> relay;
  env.connect_relay = [&](const std::string& socket) -> Expected<ClientApiInterface*> {
    ASSIGN_OR_RETURN(relay, AgentRelayClient::Connect(socket));
    return static_cast<ClientApiInterface*>(relay.get());
  };
  env.sleep_ms = [](int64_t ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); };
  env.user_name = PasswdUserName;
  env.user_id = PasswdUserId;
  std::vector<std::string> args(argv + 1, argv + argc);
  int rc = fn(args, env);
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  // Output is written and every RPC answered: exit without tearing down gRPC's threads and
  // the channel, which takes ~5 ms (bench/RESULTS.md, "Step launch").
  std::_Exit(rc);
}

int SbatchMain(int argc, char** argv) { return RunInProcess(argc, argv, RunSbatch); }
int SqueueMain(int argc, char** argv) { return RunInProcess(argc, argv, RunSqueue); }
int ScancelMain(int argc, char** argv) { return RunInProcess(argc, argv, RunScancel); }
int SinfoMain(int argc, char** argv) { return RunInProcess(argc, argv, RunSinfo); }
int ScontrolMain(int argc, char** argv) { return RunInProcess(argc, argv, RunScontrol); }
int SrunMain(int argc, char** argv) { return RunInProcess(argc, argv, RunSrun); }
int SallocMain(int argc, char** argv) { return RunInProcess(argc, argv, RunSalloc); }

}  // namespace sluice
