// The node agent's handlers of the controller's messages, end to end: a real Agent
// (noded/agent.h) on a spool in a temporary directory, behind its gRPC AgentService with
// a real NodeVerifier, fed a sequence of what the controller sends it: LaunchJob,
// SignalJob, UpdateJobLimit and LaunchTasks requests (signed with the cluster key unless
// the input says to keep the auth block it carries: then the verifier judges it), and the
// controller's answers to the agent's own calls (RegisterNodeReply, HeartbeatReply, a
// relayed call's reply), delivered on the agent's next Tick. sluice-stepd is a path that
// does not exist, so a launch that passes every check fails to spawn instead of running
// the input; its directory must still be cleaned up. Nothing may crash, and no input
// may cost more than -rss_limit_mb.
//
// Input: records (fuzz_records.h) whose flags byte says: bit 0 keep the auth block, bit 1
// the controller is down.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "common/clock.h"
#include "fuzz_records.h"
#include "node.pb.h"
#include "noded/agent.h"
#include "noded/agent_service.h"
#include "noded/controller_link.h"
#include "noded/job_tracker.h"
#include "noded/stepd_launcher.h"
#include "rpc/node_auth.h"

namespace {

using namespace sluice;

constexpr char kKey[] = "fuzz-cluster-key-0123456789abcdef";

// The controller as the agent sees it: answers with what the input last gave.
class ScriptedController : public ControllerLink {
 public:
  RegisterNodeReply register_reply;
  HeartbeatReply heartbeat_reply;
  RelayReply relay_reply;
  bool down = false;
  Expected<RegisterNodeReply> Register(RegisterNodeRequest) override {
    if (down) return Unavailable("down");
    return register_reply;
  }
  Expected<HeartbeatReply> Heartbeat(HeartbeatRequest) override {
    if (down) return Unavailable("down");
    return heartbeat_reply;
  }
  Status JobEnded(JobEndedRequest) override { return down ? Unavailable("down") : Status::Ok(); }
  RelayReply Relay(RelayRequest) override { return relay_reply; }
};

// A temporary directory for the spools, removed at exit (never destroyed before that).
const std::string& Spool() {
  static const std::string* dir = [] {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "sluice-fuzz-agent-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) __builtin_trap();
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(Spool(), ec);
    });
    return new std::string(tmpl);
  }();
  return *dir;
}

class Node {
 public:
  Node()
      : tracker_(Spool() + "/spool", &clock_),
        launcher_("/nonexistent/sluice-stepd"),
        agent_(Options(), &clock_, &ctl_, &tracker_, &launcher_),
        signer_(kKey, kControllerSender, &clock_),
        verifier_(kKey, &clock_, 4096),
        service_(&agent_, &verifier_) {
    if (!tracker_.Init().ok()) __builtin_trap();
  }
  ~Node() {
    std::error_code ec;
    std::filesystem::remove_all(Spool() + "/spool", ec);
  }

  void Handle(uint8_t kind, uint8_t flags, const uint8_t* data, size_t size) {
    const bool keep_auth = flags & 1;
    ctl_.down = flags & 2;
    switch (kind % 9) {
      case 0:
        Call<LaunchJobRequest, LaunchJobReply>("LaunchJob", keep_auth, data, size,
                                               &AgentService::LaunchJob);
        break;
      case 1:
        Call<SignalJobRequest, SignalJobReply>("SignalJob", keep_auth, data, size,
                                               &AgentService::SignalJob);
        break;
      case 2:
        Call<UpdateJobLimitRequest, UpdateJobLimitReply>("UpdateJobLimit", keep_auth, data, size,
                                                         &AgentService::UpdateJobLimit);
        break;
      case 3:
        Call<LaunchTasksRequest, LaunchTasksReply>("LaunchTasks", keep_auth, data, size,
                                                   &AgentService::LaunchTasks);
        break;
      case 4:  // the controller's answer to the next registration
        if (ctl_.register_reply.ParseFromArray(data, static_cast<int>(size))) {
          ctl_.heartbeat_reply.set_reregister(true);
          Tick();
        }
        break;
      case 5:
        if (ctl_.heartbeat_reply.ParseFromArray(data, static_cast<int>(size))) Tick();
        break;
      case 6:  // a local client's call, relayed; the controller's reply as the input says
        if (RelayRequest req; req.ParseFromArray(data, static_cast<int>(size))) {
          (void)agent_.Relay(req);
        }
        break;
      case 7:
        if (ctl_.relay_reply.ParseFromArray(data, static_cast<int>(size))) {
        }
        break;
      case 8:
        clock_.AdvanceMs(1 + static_cast<int64_t>(size) * 997);
        Tick();
        break;
    }
  }

 private:
  static AgentOptions Options() {
    AgentOptions o;
    o.node_name = "gpu01";
    o.cpus = 16;
    o.real_memory_mb = 64000;
    for (int g = 0; g < 8; ++g) o.gpus.emplace_back().set_index(g);
    o.heartbeat_interval_ms = 1000;
    o.cluster_name = "fuzz";
    o.agent_socket = Spool() + "/agent.sock";
    o.relay_socket = Spool() + "/relay.sock";
    return o;
  }
  void Tick() {
    clock_.AdvanceMs(1000);
    agent_.Tick();
  }
  template <typename Req, typename Reply>
  void Call(const char* method, bool keep_auth, const uint8_t* data, size_t size,
            grpc::Status (AgentService::*handler)(grpc::ServerContext*, const Req*, Reply*)) {
    Req req;
    if (!req.ParseFromArray(data, static_cast<int>(size))) return;
    if (!keep_auth) signer_.Sign(method, &req);
    Reply reply;
    (void)(service_.*handler)(nullptr, &req, &reply);
  }

  ManualClock clock_{1'700'000'000};
  ScriptedController ctl_;
  JobTracker tracker_;
  StepdLauncher launcher_;
  Agent agent_;
  NodeSigner signer_;
  NodeVerifier verifier_;
  AgentService service_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Node node;  // each input starts from an empty spool and a new agent
  ForEachRecord(data, size, 32, [&](uint8_t kind, uint8_t flags, const uint8_t* bytes, size_t n) {
    node.Handle(kind, flags, bytes, n);
  });
  return 0;
}
