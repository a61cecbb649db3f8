#include "cli/srun.h"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "acct/acct_record.h"
#include "cli/allocation.h"
#include "cli/help_text.h"
#include "cli/keepalive.h"
#include "cli/multi_prog.h"
#include "cli/own_config.h"
#include "cli/srun_options.h"
#include "cli/step_io_server.h"
#include "cli/step_output.h"
#include "client/cluster_client.h"
#include "common/config.h"

extern char** environ;

namespace sluice {
namespace {

constexpr int kOptionError = 255;
// How long a step launch waits for an unreachable controller (it restarts) before giving up.
constexpr int64_t kUnreachableRetryMs = 60'000;

// SLUICE_LAUNCH_TRACE=1: "srun: trace: <phase> +<ms>" lines on stderr (milliseconds since
// RunSrun began), for profiling step launch (bench/launch_bench.cc).
class LaunchTrace {
 public:
  explicit LaunchTrace(const CliEnv& env)
      : on_(!env.Getenv("SLUICE_LAUNCH_TRACE").empty()), t0_(std::chrono::steady_clock::now()) {}
  void Mark(const char* phase, CliEnv& env) const {
    if (!on_) return;
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
    char buf[96];
    std::snprintf(buf, sizeof buf, "srun: trace: %s +%.1f ms\n", phase, ms);
    *env.err << buf;
  }

 private:
  bool on_;
  std::chrono::steady_clock::time_point t0_;
};

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The job's and step's default name: the program's, or --multi-prog's file's.
std::string CommandName(const SrunOptions& o) {
  return BaseName(o.multi_prog_file.empty() ? o.command[0] : o.multi_prog_file);
}

std::string RandomKey() {
  std::random_device rd;
  std::string key;
  const char* hex = "0123456789abcdef";
  for (int i = 0; i < 32; ++i) key.push_back(hex[rd() % 16]);
  return key;
}

// %x is the job's name: the enclosing job's, else this srun's own allocation's (-J, or
// the command's name); %A/%a the enclosing array task's.
PatternVars OutputVars(const SrunOptions& o, const CliEnv& env, int64_t job_id, int step_id) {
  PatternVars v;
  v.job_id = job_id;
  v.step_id = step_id;
  v.user = env.Getenv("USER");
  v.job_name = env.Getenv("SLURM_JOB_NAME");
  if (v.job_name.empty())
    v.job_name = o.alloc.spec.name().empty() ? CommandName(o) : o.alloc.spec.name();
  if (const std::string a = env.Getenv("SLURM_ARRAY_JOB_ID");
      !a.empty()) {  // %A, %a in an array task
    v.array_job_id = std::atoll(a.c_str());
    v.array_task_id = std::atoll(env.Getenv("SLURM_ARRAY_TASK_ID").c_str());
  }
  return v;
}

std::string CurrentUmask() {
  mode_t m = ::umask(022);
  ::umask(m);
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", m & 0777);
  return buf;
}

int64_t JobIdFromEnv(const CliEnv& env) {
  for (const char* key : {"SLURM_JOB_ID", "SLURM_JOBID"}) {
    std::string v = env.Getenv(key);
    if (!v.empty()) return std::atoll(v.c_str());
  }
  return 0;
}

int OptionFailure(const std::string& prog, const SrunOptions& o, const Status& st, CliEnv& env) {
  if (o.getopt_error) {
    *env.err << st.message() << "\nTry \"" << prog << " --help\" for more information\n";
    return kOptionError;
  }
  *env.err << prog << ": error: " << st.message() << "\n";
  return 1;
}

Expected<StepRequest> BuildStepRequest(const SrunOptions& o, int64_t job_id, CliEnv& env) {
  const JobSpec& spec = o.alloc.spec;
  StepRequest req;
  req.set_job_id(job_id);
  if (o.nodes_set) req.set_nodes(spec.min_nodes());
  if (o.ntasks_set) req.set_ntasks(spec.ntasks());
  if (o.npn_set) req.set_ntasks_per_node(spec.ntasks_per_node());
  req.set_cpus_per_task(spec.cpus_per_task());
  req.set_gpus_per_task(static_cast<int32_t>(spec.gpus_per_task()));
  req.set_distribution(o.distribution);
  req.set_nodelist(spec.nodelist());
  for (const std::string& a : o.command) req.add_argv(a);
  ASSIGN_OR_RETURN(std::vector<std::string> vars, ResolveExport(o.alloc.export_spec, env.environ));
  for (auto& v : vars) {
    if (v.rfind("SLURM_UMASK=", 0) != 0 && v.rfind("SLURM_CPUS_PER_GPU=", 0) != 0) {
      req.add_env(std::move(v));
    }
  }
  req.add_env("SLURM_UMASK=" + CurrentUmask());
  if (spec.cpus_per_gpu() > 0) {
    req.set_cpus_per_gpu(spec.cpus_per_gpu());
    req.add_env("SLURM_CPUS_PER_GPU=" + std::to_string(spec.cpus_per_gpu()));
  }
  std::string dir = o.alloc.chdir.empty() ? env.cwd : o.alloc.chdir;
  if (!dir.empty() && dir[0] != '/') dir = env.cwd + "/" + dir;
  req.set_work_dir(dir);
  req.set_name(CommandName(o));
  // The task scripts run on the nodes: relative paths are the submit directory's.
  auto abs = [&](const std::string& p) { return p.empty() || p[0] == '/' ? p : env.cwd + "/" + p; };
  req.set_task_prolog(abs(o.task_prolog));
  req.set_task_epilog(abs(o.task_epilog));
  *req.mutable_rlimits() = PropagatedLimits(o.alloc);
  req.set_io_abort_notice(true);
  req.set_label(o.label);
  req.set_exact(o.exact);
  req.set_overlap(o.overlap);
  for (const GresRequest& g : spec.gres_per_node()) {
    if (g.name() == "gpu") req.set_gpus_per_node(static_cast<int32_t>(g.count()));
  }
  if (o.alloc.mem_kinds_this_source & 3) {  // --mem / --mem-per-cpu (0 = all still free)
    req.set_mem_set(true);
    req.set_mem_per_node_mb(spec.mem_per_node_mb());
    req.set_mem_per_cpu_mb(spec.mem_per_cpu_mb());
  }
  req.set_cpu_bind(o.cpu_bind);
  req.set_gpu_bind(o.gpu_bind);
  ASSIGN_OR_RETURN(StdinPlan plan, PlanStdin(o.input));
  for (int r : plan.ranks) req.add_stdin_ranks(r);
  req.set_input_pattern(plan.file_pattern);
  return req;
}

// LaunchStep, retried while the allocation's other steps hold what it needs (Slurm's
// "step creation temporarily disabled" wait), and for up to kUnreachableRetryMs while
// the controller (or the node agent relaying for srun) cannot be reached: such a request
// was never sent, so sending it again cannot make a second step. A signal while waiting
// gives up.
Expected<StepReply> CreateStep(const StepRequest& req, ClientApiInterface* api, CliEnv& env,
                               int signal_fd) {
  bool said_waiting = false;
  int64_t delay = 20;
  int64_t unreachable_ms = 0;
  for (;;) {
    Expected<StepReply> rep = api->LaunchStep(req);
    bool busy = !rep.ok() && rep.status().code() == Code::kResourceExhausted;
    bool unreachable = !rep.ok() && rep.status().code() == Code::kUnavailable &&
                       rep.status().message() == kConnectFailure &&
                       unreachable_ms < kUnreachableRetryMs;
    if (!busy && !unreachable) {
      if (rep.ok() && said_waiting) {
        *env.err << "srun: Step created for job " << req.job_id() << "\n";
        env.err->flush();
      }
      return rep;
    }
    if (unreachable) {
      if (unreachable_ms == 0) {
        *env.err << "srun: error: " << kConnectFailure << ", retrying\n";
        env.err->flush();
      }
      unreachable_ms += delay;
    } else if (!said_waiting) {
      *env.err << "srun: Job " << req.job_id() << " step creation temporarily disabled, retrying ("
               << rep.status().message() << ")\n";
      env.err->flush();
      said_waiting = true;
    }
    if (signal_fd >= 0) {
      pollfd p{signal_fd, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(delay)) > 0) {
        *env.err << "srun: Cancelled pending job step with signal 2\n";
        return FailedPrecondition("Job step creation cancelled");
      }
    } else {
      env.sleep_ms(delay);
    }
    delay = std::min<int64_t>(delay * 2, 500);
  }
}

// The API a step's calls go through: the node agent's relay when srun runs inside the
// job itself (its batch script or one of its tasks, which have SLUICE_RELAY_SOCKET) and
// the request fits a relay frame, else a gRPC connection to the controller.
struct StepApi {
  ClientApiInterface* api = nullptr;
  bool relayed = false;
};

Expected<StepApi> ChooseStepApi(int64_t job_id, size_t request_bytes, CliEnv& env) {
  std::string socket = env.Getenv(kRelaySocketVar);
  if (!socket.empty() && env.connect_relay && job_id == JobIdFromEnv(env) &&
      request_bytes + 1024 < kMaxFramePayload) {
    if (Expected<ClientApiInterface*> relay = env.connect_relay(socket); relay.ok()) {
      return StepApi{*relay, true};
    }
  }
  ASSIGN_OR_RETURN(ClientApiInterface * api, env.connect());
  return StepApi{api, false};
}

// Runs one step of job `job_id`; `api` is the controller connection of a standalone
// srun, or nullptr to choose one (ChooseStepApi).
int RunStep(const SrunOptions& o, int64_t job_id, ClientApiInterface* api, CliEnv& env,
            int signal_fd, const LaunchTrace& trace) {
  Expected<StepRequest> req = BuildStepRequest(o, job_id, env);
  if (!req.ok()) return OptionFailure("srun", o, req.status(), env);
  StepApi via{api, false};
  if (api == nullptr) {
    Expected<StepApi> chosen = ChooseStepApi(job_id, req->ByteSizeLong(), env);
    if (!chosen.ok()) {
      *env.err << "srun: error: " << chosen.status().message() << "\n";
      return 1;
    }
    via = *chosen;
  }
  api = via.api;
  ClientKeepalive keepalive(api, job_id);
  auto io = StepIoServer::Listen();
  if (!io.ok()) {
    *env.err << "srun: error: " << io.status().message() << "\n";
    return 1;
  }
  // Relayed: the agent fills in its node's address.
  if (!via.relayed) req->set_io_host(LocalAddressToward(LoadOwnConfig(env).ctld_host));
  req->set_io_port((*io)->port());
  req->set_io_key(RandomKey());
  trace.Mark("step requested", env);
  Expected<StepReply> rep = CreateStep(*req, api, env, signal_fd);
  trace.Mark("step launched on all nodes", env);
  if (rep.ok()) keepalive.AddStep(rep->step_id());
  if (!rep.ok() && rep.status().message() == "Job step creation cancelled") return 1;
  if (!rep.ok()) {
    *env.err << "srun: error: Unable to create step for job " << job_id << ": "
             << rep.status().message() << "\n";
    return 1;
  }
  std::string step = "StepId=" + std::to_string(job_id) + "." + std::to_string(rep->step_id());
  if (rep->launch_errors_size() > 0) {
    for (const std::string& e : rep->launch_errors()) {
      *env.err << "srun: error: Task launch for " << step << " failed on node " << e << "\n";
    }
    keepalive.EndStep(rep->step_id());
    return 1;
  }
  StepIoConfig cfg;
  cfg.step_name = step;
  cfg.nodes.assign(rep->nodes().begin(), rep->nodes().end());
  cfg.task_nodes.assign(rep->task_nodes().begin(), rep->task_nodes().end());
  cfg.key = req->io_key();
  cfg.label = o.label;
  cfg.unbuffered = o.unbuffered;
  cfg.kill_on_bad_exit = o.kill_on_bad_exit > 0;
  cfg.wait_s = o.wait_s;
  cfg.quit_on_interrupt = o.quit_on_interrupt;
  if (o.alloc.verbose > 0) *env.err << LaunchReport(step, cfg.nodes, cfg.task_nodes);
  cfg.signal_fd = signal_fd;
  cfg.trace = [&](const char* event) { trace.Mark(event, env); };
  const std::string& mode = o.alloc.spec.open_mode();
  const bool append =
      mode.empty() ? env.Getenv("SLURM_OPEN_MODE").rfind('a', 0) == 0 : mode == "append";
  StepOutputFiles files(o.output, o.error, OutputVars(o, env, job_id, rep->step_id()), cfg.nodes,
                        cfg.task_nodes, append);
  if (Status st = files.Check(); !st.ok()) {
    *env.err << "srun: error: " << st.message() << "\n";
    keepalive.EndStep(rep->step_id());
    return 1;
  }
  if (files.active())
    cfg.sink = [&files](uint32_t rank, bool is_err) { return files.For(rank, is_err); };
  if (req->input_pattern().empty()) {
    cfg.stdin_fd = env.stdin_fd;
    for (int r : req->stdin_ranks()) {
      if (r < 0) {
        for (int k = 0; k < rep->ntasks(); ++k) cfg.stdin_ranks.push_back(k);
      } else if (r < rep->ntasks()) {
        cfg.stdin_ranks.push_back(r);
      }
    }
  }
  std::vector<TaskOutcome> outcomes = (*io)->Run(cfg, env.out, env.err);
  trace.Mark("all tasks done", env);
  AcctStepEnd how;  // accounting: highest exit code / signal, max RSS, total CPU, GPUs
  how.set_step_id(rep->step_id());
  how.set_max_rss_kb(-1);
  how.set_total_cpu_us(-1);
  int64_t gpu_nodes = 0, util_ave = 0, util_max = 0, mem_ave = 0, mem_max = 0;
  for (const TaskOutcome& t : outcomes) {
    if (t.gpu_util_ave < 0) continue;  // summed over the step's nodes
    ++gpu_nodes;
    util_ave += t.gpu_util_ave;
    util_max += t.gpu_util_max;
    mem_ave += t.gpu_mem_ave_mb;
    mem_max += t.gpu_mem_max_mb;
  }
  if (gpu_nodes > 0) {
    how.set_tres_usage_in_ave(acct::GpuTresUsage(util_ave, mem_ave));
    how.set_tres_usage_in_max(acct::GpuTresUsage(util_max, mem_max));
  }
  for (const TaskOutcome& t : outcomes) {
    if (!t.ended) continue;
    if (WIFEXITED(t.wait_status))
      how.set_exit_code(std::max(how.exit_code(), WEXITSTATUS(t.wait_status)));
    if (WIFSIGNALED(t.wait_status)) how.set_term_signal(WTERMSIG(t.wait_status));
    if (t.max_rss_kb >= 0) how.set_max_rss_kb(std::max(how.max_rss_kb(), t.max_rss_kb));
    if (t.cpu_ms >= 0)
      how.set_total_cpu_us(std::max<int64_t>(0, how.total_cpu_us()) + t.cpu_ms * 1000);
  }
  keepalive.EndStep(rep->step_id(), how);
  trace.Mark("step end reported", env);
  int rc = ReportTaskOutcomes(outcomes, cfg.nodes, cfg.task_nodes, env.err);
  env.err->flush();
  return rc;
}

// Common front of srun and salloc: options, --help/--version (-1: done).
int ParseFront(const std::string& prog, const std::vector<std::string>& args, SrunOptions* o,
               CliEnv& env) {
  std::vector<std::string> all =
      prog == "srun" ? SrunEnvArgs(env.environ) : std::vector<std::string>{};
  all.insert(all.end(), args.begin(), args.end());
  Status st = ParseSrunArgs(prog, all, o);
  if (!st.ok()) return OptionFailure(prog, *o, st, env);
  if (o->alloc.help || o->alloc.usage) {
    *env.out << HelpText(prog, o->alloc.usage ? HelpKind::kUsage : HelpKind::kHelp);
    return -1;
  }
  if (o->alloc.version) {
    *env.out << "slurm " << kSlurmVersion << "\n";
    return -1;
  }
  if (o->alloc.verbose > 0) *env.err << DefinedOptionsReport(prog, *o);
  return 0;
}

int Connect(const std::string& prog, ClientApiInterface** api, CliEnv& env) {
  Expected<ClientApiInterface*> conn = env.connect();
  if (!conn.ok()) {
    *env.err << prog << ": error: " << conn.status().message() << "\n";
    return 1;
  }
  *api = *conn;
  return 0;
}

}  // namespace

int PrepareAllocCommand(const std::string& prog, const std::vector<std::string>& args,
                        SrunOptions* o, ClientApiInterface** api, CliEnv& env) {
  if (int rc = ParseFront(prog, args, o, env); rc != 0) return rc;
  return Connect(prog, api, env);
}

// --multi-prog FILE: the tasks run the /bin/sh program MultiProgScript makes of FILE
// (named after FILE). 0, or the exit code after printing why not.
int ExpandMultiProg(SrunOptions* o, CliEnv& env) {
  const std::string& file = o->command[0];
  std::ifstream f(file.empty() || file[0] == '/' ? file : env.cwd + "/" + file);
  if (!f) {
    *env.err << "srun: error: Unable to open configuration file " << file << "\n";
    return 1;
  }
  std::stringstream text;
  text << f.rdbuf();
  Expected<std::string> script =
      MultiProgScript(text.str(), file, o->ntasks_set ? o->alloc.spec.ntasks() : 0);
  if (!script.ok()) {
    *env.err << "srun: error: " << script.status().message() << "\n";
    return 1;
  }
  o->multi_prog_file = file;
  o->command = {"/bin/sh", "-c", *script, BaseName(file)};
  return 0;
}

int RunSrun(const std::vector<std::string>& args, CliEnv& env) {
  // Block the forwarded signals before the RPC client starts its threads, so that no
  // thread takes a USR1 (scancel --full, --signal) with its default action.
  SignalWatch signals;
  LaunchTrace trace(env);
  SrunOptions o;
  ClientApiInterface* api = nullptr;
  if (int rc = ParseFront("srun", args, &o, env); rc != 0) return rc < 0 ? 0 : rc;
  if (o.command.empty()) {
    *env.err << "srun: fatal: No command given to execute.\n";
    return 1;
  }
  if (o.multi_prog) {
    if (int rc = ExpandMultiProg(&o, env); rc != 0) return rc;
  }
  int64_t job_id = o.jobid > 0 ? o.jobid : JobIdFromEnv(env);
  if (o.het_group >= 0) {  // a component of the heterogeneous job srun runs in
    const std::string id = env.Getenv("SLURM_JOB_ID_HET_GROUP_" + std::to_string(o.het_group));
    if (job_id <= 0 || (id.empty() && o.het_group > 0)) {
      *env.err << "srun: error: --het-group=" << o.het_group
               << ": not in a heterogeneous job with that component\n";
      return 1;
    }
    if (!id.empty()) job_id = std::atoll(id.c_str());
  }
  if (job_id > 0) return RunStep(o, job_id, nullptr, env, signals.fd(), trace);
  if (int rc = Connect("srun", &api, env); rc != 0) return rc;
  Expected<JobSpec> spec = AllocationSpec(o, CommandName(o), env);
  if (!spec.ok()) return OptionFailure("srun", o, spec.status(), env);
  trace.Mark("allocation requested", env);
  Expected<JobInfo> job = Allocate("srun", std::move(*spec), api, env, signals.fd(), o.immediate_s);
  if (!job.ok()) return 1;
  if (o.alloc.verbose > 0) *env.err << AllocationReport("srun", *job);
  trace.Mark("allocation granted", env);
  int rc = RunStep(o, job->job_id(), api, env, signals.fd(), trace);
  Release("srun", job->job_id(), rc, api, env);
  trace.Mark("allocation released", env);
  return rc;
}

}  // namespace sluice
