#include "ctld/components/launch_builder.h"

#include "common/slurm_format.h"

namespace sluice::ctld {

std::string ExpandOutputPath(const std::string& pattern, const JobInfo& job,
                             const std::string& node, const std::string& work_dir) {
  PatternVars vars;
  vars.job_id = job.job_id();
  vars.job_name = job.spec().name();
  vars.user = job.user();
  vars.node = node;
  vars.task_id = 0;
  vars.node_index = 0;
  bool array = job.array_job_id() != 0;
  if (array) {
    vars.array_job_id = job.array_job_id();
    vars.array_task_id = job.array_task_id();
  }
  if (pattern == "none") return "/dev/null";  // -o none / -e none: no file at all
  const char* def = array ? "slurm-%A_%a.out" : "slurm-%j.out";
  std::string out = ExpandOutputPattern(pattern.empty() ? def : pattern, vars);
  if (!out.empty() && out[0] == '/') return out;
  std::string dir = work_dir.empty() ? "/" : work_dir;
  return dir.back() == '/' ? dir + out : dir + "/" + out;
}

LaunchJobRequest BuildLaunch(const Config& config, const JobInfo& job, const JobScript& script,
                             int node_index) {
  LaunchJobRequest req;
  BatchLaunch* l = req.mutable_launch();
  l->set_job_id(job.job_id());
  *l->mutable_job() = job;
  l->mutable_job()->mutable_spec()->set_script(script.script());
  *l->mutable_job()->mutable_spec()->mutable_rlimits() = script.rlimits();  // --propagate
  *l->mutable_local() = job.alloc(node_index);
  // The user's environment as submitted; the node's stepd adds the SLURM_* variables.
  *l->mutable_env() = script.env();
  l->set_stdout_path(job.stdout_path());
  l->set_stderr_path(job.stderr_path());
  l->set_time_limit_s(job.time_limit_min() > 0 ? job.time_limit_min() * 60 : 0);
  l->set_kill_wait_s(config.kill_wait_s);
  // --open-mode=append, and every restart of a requeued job (as Slurm: never truncate
  // the output of earlier runs).
  l->set_append_output(job.restarts() > 0 || job.spec().open_mode() == "append");
  return req;
}

}  // namespace sluice::ctld
