#include "cli/sbcast.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ostream>

#include "cli/help_text.h"
#include "cli/opt_parser.h"
#include "cli/srun.h"

namespace sluice {
namespace {

enum Opt { kForce = 1, kPreserve, kJobId, kVersion, kHelp, kUsage, kIgnored };

const std::vector<OptionDef>& Defs() {
  static const std::vector<OptionDef> defs = {
      {"force", 'f', ArgKind::kNone, kForce},
      {"preserve", 'p', ArgKind::kNone, kPreserve},
      {"jobid", 'j', ArgKind::kRequired, kJobId},
      {"version", 'V', ArgKind::kNone, kVersion},
      {"help", 'h', ArgKind::kNone, kHelp},
      {"usage", 0, ArgKind::kNone, kUsage},
      {"compress", 'C', ArgKind::kOptional, kIgnored},
      {"fanout", 'F', ArgKind::kRequired, kIgnored},
      {"size", 's', ArgKind::kRequired, kIgnored},
      {"timeout", 't', ArgKind::kRequired, kIgnored},
      {"verbose", 'v', ArgKind::kNone, kIgnored},
  };
  return defs;
}

// Runs on each node as the task: $0 = DEST, $1 = force, $2 = mode ("" = default),
// $3 = mtime ("" = now). Writes a temporary file beside DEST, then renames it.
constexpr char kWriter[] =
    "d=$0\n"
    "if [ \"$1\" != 1 ] && [ -e \"$d\" ]; then\n"
    "  echo \"sbcast: error: $SLURMD_NODENAME: $d: File exists\" >&2; exit 1\n"
    "fi\n"
    "t=\"$d.sbcast.$$\"\n"
    "cat > \"$t\" || { rm -f \"$t\"; exit 1; }\n"
    "if [ -n \"$2\" ]; then chmod \"$2\" \"$t\" || exit 1; fi\n"
    "if [ -n \"$3\" ]; then touch -d \"@$3\" \"$t\" || exit 1; fi\n"
    "mv -f \"$t\" \"$d\"\n";

int Fail(CliEnv& env, const std::string& msg) {
  *env.err << "sbcast: error: " << msg << "\n";
  return 1;
}

}  // namespace

int RunSbcast(const std::vector<std::string>& args, CliEnv& env) {
  Expected<ParsedArgs> parsed = ParseCommandLine("sbcast", args, Defs());
  if (!parsed.ok()) {
    *env.err << parsed.status().message() << "\nTry \"sbcast --help\" for more information\n";
    return 1;
  }
  bool force = false, preserve = false;
  std::string job = env.Getenv("SLURM_JOB_ID");
  for (const ParsedOption& o : parsed->options) {
    switch (o.id) {
      case kForce:
        force = true;
        break;
      case kPreserve:
        preserve = true;
        break;
      case kJobId:
        job = o.value.substr(0, o.value.find('.'));
        break;
      case kVersion:
        *env.out << "slurm " << kSlurmVersion << "\n";
        return 0;
      case kHelp:
        *env.out << HelpText("sbcast", HelpKind::kHelp);
        return 0;
      case kUsage:
        *env.out << HelpText("sbcast", HelpKind::kUsage);
        return 0;
      default:
        break;
    }
  }
  const std::vector<std::string>& files = parsed->positionals;
  if (files.size() != 2)
    return Fail(env, "Need two file names, have " + std::to_string(files.size()) + " names");
  if (job.empty() || job.find_first_not_of("0123456789") != std::string::npos)
    return Fail(env, job.empty() ? "Need a job id" : "Invalid job id " + job);
  const std::string source = files[0][0] == '/' ? files[0] : env.cwd + "/" + files[0];
  int fd = ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    std::string why = fd < 0 ? std::strerror(errno) : "Not a regular file";
    if (fd >= 0) ::close(fd);
    return Fail(env, "Can't open `" + files[0] + "`: " + why);
  }
  // The job's nodes: one task on each.
  Expected<ClientApiInterface*> api = env.connect();
  if (!api.ok()) {
    ::close(fd);
    return Fail(env, api.status().message());
  }
  GetJobsRequest q;
  q.add_job_ids(std::stoll(job));
  Expected<GetJobsReply> jobs = (*api)->GetJobs(q);
  const JobInfo* info = nullptr;
  if (jobs.ok())
    for (const JobInfo& j : jobs->jobs())
      if (std::to_string(j.job_id()) == job) info = &j;
  if (!info || info->state() != JOB_RUNNING) {
    ::close(fd);
    return Fail(env, info ? "Job " + job + " is not running" : "Invalid job id specified");
  }
  char mode[8] = "";
  if (preserve) std::snprintf(mode, sizeof mode, "%o", st.st_mode & 07777);
  std::vector<std::string> srun = {"--jobid=" + job,
                                   "--overlap",
                                   "-N" + std::to_string(info->alloc_size()),
                                   "--ntasks-per-node=1",
                                   "--input=all",
                                   "--job-name=sbcast",
                                   "/bin/sh",
                                   "-c",
                                   kWriter,
                                   files[1],
                                   force ? "1" : "0",
                                   mode,
                                   preserve ? std::to_string(st.st_mtime) : ""};
  CliEnv step_env = env;
  step_env.stdin_fd = fd;
  int rc = RunSrun(srun, step_env);
  ::close(fd);
  return rc;
}

}  // namespace sluice
