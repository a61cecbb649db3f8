// `sluice`: the Sluice tool. `sluice up` starts a local cluster on loopback;
// `sluice down` stops it; `sluice sim` replays a workload trace through the scheduler;
// `sluice why JOBID...` says why jobs are pending (cli/sluice_why.h).
// `sluice enter-node NETNS HOSTNAME HOSTS -- CMD...` is how `up --isolated` starts a node's
// agent inside that node's namespaces (local/isolated_net.h).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/process_env.h"
#include "common/config.h"
#include "cli/sluice_nodes.h"
#include "cli/sluice_why.h"
#include "local/config_command.h"
#include "local/doctor_command.h"
#include "local/isolated_net.h"
#include "local/local_cluster.h"
#include "local/state_command.h"
#include "sim/sim_command.h"

namespace {

int Up(sluice::LocalClusterOptions opts) {
  if (opts.nodes > 1000 && opts.agents == 0) {
    std::fprintf(stderr, "sluice: error: more than 1000 nodes need --agents (emulated nodes)\n");
    return 1;
  }
  sluice::LocalCluster cluster(opts);
  auto st = cluster.Up();
  if (!st.ok()) {
    std::fprintf(stderr, "sluice: error: %s\n", st.message().c_str());
    cluster.Down();
    return 1;
  }
  std::fprintf(stderr, "sluice: %d nodes up, %d GPUs each%s; state in %s\n", opts.nodes,
               opts.gpus_per_node, cluster.isolated() ? ", each in namespaces of its own" : "",
               cluster.state_dir().c_str());
  if (opts.controllers > 1)
    std::fprintf(stderr,
                 "sluice: %d controllers on a private PostgreSQL, one leading and the others "
                 "standing by (scontrol ping)\n",
                 opts.controllers);
  if (const std::string url = cluster.MetricsUrl(); !url.empty())
    std::fprintf(stderr, "sluice: metrics at %s\n", url.c_str());
  if (const std::string url = cluster.DashboardUrl(); !url.empty())
    std::fprintf(stderr, "sluice: dashboard at %s (log in with a token: scontrol token)\n",
                 url.c_str());
  if (const std::string url = cluster.RestUrl(); !url.empty())
    std::fprintf(stderr,
                 "sluice: REST API at %s/slurm/v0.0.38/ (a token: scontrol token; "
                 "document: %s/openapi.json)\n",
                 url.c_str(), url.c_str());
  std::printf("export SLUICE_CONF=%s\n", cluster.conf_path().c_str());
  return 0;
}

int EnterNode(int argc, char** argv) {
  if (argc < 7 || std::strcmp(argv[5], "--") != 0) {
    std::fprintf(stderr,
                 "usage: sluice enter-node NETNS HOSTNAME HOSTS_FILE -- COMMAND [ARGS...]\n");
    return 2;
  }
  std::vector<std::string> cmd(argv + 6, argv + argc);
  sluice::Status st = sluice::EnterNodeAndExec(argv[2], argv[3], argv[4], cmd);
  std::fprintf(stderr, "sluice: error: %s\n", st.message().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "sim") == 0) return sluice::sim::SimMain(argc - 1, argv + 1);
  if (argc > 1 && std::strcmp(argv[1], "enter-node") == 0) return EnterNode(argc, argv);
  if (argc > 1 && std::strcmp(argv[1], "why") == 0)
    return sluice::RunInProcess(argc - 1, argv + 1, sluice::RunSluiceWhy);
  if (argc > 1 && std::strcmp(argv[1], "nodes") == 0)
    return sluice::RunInProcess(argc - 1, argv + 1, sluice::RunSluiceNodes);
  CLI::App app{"sluice: the Sluice tool (local cluster, simulator)"};
  app.footer(
      "sluice sim --help: replay a workload trace through the scheduler\n"
      "sluice state dump|restore: back up or restore the controllers' state\n"
      "sluice config check FILE: validate a configuration offline\n"
      "sluice nodes drain|resume|requeue|cancel NODES: act on a node set\n"
      "sluice doctor: check a running cluster\n"
      "sluice why JOBID...: why a job is not running, in words and numbers");
  app.require_subcommand(1);
  sluice::LocalClusterOptions opts;
  auto* up =
      app.add_subcommand("up", "start a local cluster (controller + node agents on loopback)");
  up->add_option("--nodes", opts.nodes, "number of nodes")->check(CLI::Range(1, 16384));
  up->add_option("--agents", opts.agents,
                 "emulate the nodes with this many sluiced processes, each serving a share of "
                 "them (for thousands of nodes on one machine; default: one per node)")
      ->check(CLI::Range(1, 1024));
  up->add_option("--gpus-per-node", opts.gpus_per_node, "fake GPUs per node")
      ->check(CLI::Range(0, 64));
  up->add_option("--cpus-per-node", opts.cpus_per_node, "CPUs per node")
      ->check(CLI::Range(1, 4096));
  up->add_option("--mem-per-node", opts.mem_per_node_mb, "memory per node in MB")
      ->check(CLI::Range(1, 1 << 30));
  up->add_option("--state-dir", opts.state_dir, "state directory");
  up->add_option("--slurmd-timeout", opts.slurmd_timeout_s, "seconds before a silent node is DOWN");
  up->add_option("--ha", opts.controllers,
                 "N controllers on a private PostgreSQL: one leads, the others stand by")
      ->check(CLI::Range(1, 3));
  up->add_flag("--munge", opts.munge, "AuthType=auth/munge with a private munged (fresh key)");
  up->add_option("--config-line", opts.extra_config_lines,
                 "a slurm.conf line added to the cluster's config (repeatable), e.g. "
                 "PriorityType=priority/multifactor");
  std::vector<std::string> gres_conf, cgroup_conf;
  up->add_option("--gres-conf", gres_conf,
                 "a gres.conf line for the cluster (repeatable), e.g. AutoDetect=nvml");
  up->add_option("--cgroup-conf", cgroup_conf,
                 "a cgroup.conf line for the cluster (repeatable), e.g. ConstrainDevices=yes");
  up->add_flag("--isolated", opts.isolated,
               "each node in its own network, UTS and mount namespaces (root): own hostname and "
               "address, node names resolve");
  std::string down_dir = "sluice-local";
  auto* down = app.add_subcommand("down", "stop the local cluster started by `sluice up`");
  down->add_option("--state-dir", down_dir, "state directory");
  auto* state = app.add_subcommand(
      "state", "back up the controllers' state store while they run, or restore it");
  state->require_subcommand(1);
  std::string state_conf = sluice::DefaultConfigPath(), dump_out, dump_in;
  state->add_option("-f,--config", state_conf, "the cluster's sluice.conf");
  auto* dump = state->add_subcommand("dump", "write every record of the state store to FILE");
  dump->add_option("-o,--output", dump_out, "the dump file")->required();
  auto* restore = state->add_subcommand(
      "restore", "write a dump into the empty state store the config names (controllers stopped)");
  restore->add_option("FILE", dump_in, "the dump file")->required();
  auto* config = app.add_subcommand("config", "check a cluster configuration");
  config->require_subcommand(1);
  std::string check_path;
  auto* check = config->add_subcommand(
      "check", "validate FILE offline as sluicectld would at start (errors name file:line)");
  check->add_option("FILE", check_path, "the sluice.conf to check")->required();
  std::string doctor_conf = sluice::DefaultConfigPath();
  auto* doctor = app.add_subcommand("doctor", "check a running cluster: one verdict per check");
  doctor->add_option("-f,--config", doctor_conf, "the cluster's sluice.conf");
  CLI11_PARSE(app, argc, argv);
  if (*doctor) return sluice::DoctorCommand(doctor_conf);
  if (*check) return sluice::ConfigCheckCommand(check_path);
  if (*dump) return sluice::StateDumpCommand(state_conf, dump_out);
  if (*restore) return sluice::StateRestoreCommand(state_conf, dump_in);
  for (const auto& [name, lines] :
       {std::pair{"gres.conf", &gres_conf}, {"cgroup.conf", &cgroup_conf}}) {
    for (const std::string& line : *lines) opts.extra_files[name] += line + "\n";
  }
  if (*up) return Up(opts);
  auto st = sluice::LocalCluster::DownStateDir(down_dir);
  if (!st.ok()) {
    std::fprintf(stderr, "sluice: error: %s\n", st.message().c_str());
    return 1;
  }
  return 0;
}
