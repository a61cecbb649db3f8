#include "cli/sbatch.h"

#include <sys/stat.h>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/batch_script.h"
#include "cli/help_text.h"
#include "cli/job_states.h"
#include "cli/sbatch_options.h"
#include "cli/time_spec.h"
#include "common/request_bounds.h"

namespace sluice {
namespace {

constexpr int kOptionError = 255;

int OptionFailure(CliEnv& env, const Status& st) {
  PrintErrorLines(env, "sbatch", st.message());
  return st.code() == Code::kFailedPrecondition ? 1 : kOptionError;
}

// The script as read, refused past kMaxScriptBytes without reading on (/dev/zero ends).
Expected<std::string> ReadBounded(std::istream& in) {
  std::string text;
  char chunk[65536];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxScriptBytes) {
      return FailedPrecondition(std::string("Batch job submission failed: ") + kMsgTooLong);
    }
  }
  return text;
}

struct ScriptSource {
  std::string text;
  std::string path;  // empty for stdin / --wrap
};

Expected<ScriptSource> LoadScript(const SbatchOptions& cmd, const std::vector<std::string>& pos,
                                  CliEnv& env) {
  if (cmd.has_wrap) {
    if (!pos.empty())
      return FailedPrecondition("Script arguments not permitted with --wrap option");
    return ScriptSource{WrapScript(cmd.wrap), ""};
  }
  if (pos.empty() || pos[0] == "-") {  // "-": the script on stdin, then its arguments
    ASSIGN_OR_RETURN(std::string text, ReadBounded(*env.in));
    return ScriptSource{std::move(text), ""};
  }
  std::ifstream f(pos[0], std::ios::binary);
  if (!f) return FailedPrecondition("Unable to open file " + pos[0]);
  ASSIGN_OR_RETURN(std::string text, ReadBounded(f));
  return ScriptSource{std::move(text), pos[0]};
}

// The environment and arguments sent with the job, bounded as the controller bounds them.
Status CheckSpecSizes(const JobSpec& spec) {
  auto total = [](const auto& list) {
    size_t n = 0;
    for (const auto& s : list) n += s.size();
    return n;
  };
  if (static_cast<size_t>(spec.env_size()) > kMaxEnvEntries || total(spec.env()) > kMaxEnvBytes ||
      static_cast<size_t>(spec.argv_size()) > kMaxArgvEntries ||
      total(spec.argv()) > kMaxArgvBytes) {
    return FailedPrecondition(std::string("Batch job submission failed: ") + kMsgTooLong);
  }
  return Status::Ok();
}

// Applies the #SBATCH directives of `script`, one SbatchOptions per component of a
// heterogeneous job ("#SBATCH hetjob" or "packjob" lines separate them; one component
// without such lines); on error prints and returns the exit code.
int ApplyDirectives(const std::string& script, std::vector<SbatchOptions>* components,
                    CliEnv& env) {
  Expected<std::vector<Directive>> dirs = ExtractDirectives(script);
  if (!dirs.ok()) return OptionFailure(env, dirs.status());
  components->resize(1);
  for (const Directive& d : *dirs) {
    if (d.tokens.size() == 1 && (d.tokens[0] == "hetjob" || d.tokens[0] == "packjob")) {
      components->emplace_back();
      continue;
    }
    SbatchOptions* o = &components->back();
    std::string bad;
    Expected<ParsedArgs> p = ParseCommandLine("sbatch", d.tokens, SbatchOptionDefs(), {}, &bad);
    if (!p.ok() || !p->positionals.empty()) {
      std::string token = p.ok() ? p->positionals[0] : bad;
      *env.err << "sbatch: error: Invalid directive found in batch script: " << token << "\n";
      return kOptionError;
    }
    Status st = ApplySbatchOptions(p->options, o);
    if (!st.ok()) return OptionFailure(env, st);
  }
  return 0;
}

std::string AbsolutePath(const std::string& path, const std::string& cwd) {
  if (path.empty() || path[0] == '/') return path;
  return cwd + "/" + path;
}

Expected<JobSpec> BuildSpec(SbatchOptions& o, const ScriptSource& src,
                            const std::vector<std::string>& pos, CliEnv& env) {
  JobSpec spec = o.spec;
  spec.set_script(src.text);
  for (size_t i = 1; i < pos.size(); ++i) spec.add_argv(pos[i]);
  ASSIGN_OR_RETURN(std::vector<std::string> vars, ResolveExport(o.export_spec, env.environ));
  for (auto& v : vars) spec.add_env(std::move(v));
  spec.set_work_dir(o.chdir.empty() ? env.cwd : AbsolutePath(o.chdir, env.cwd));
  if (!o.begin.empty()) {
    ASSIGN_OR_RETURN(int64_t begin, ParseBeginTime(o.begin, env.clock->Now()));
    spec.set_begin_time(begin);
  }
  spec.set_submit_host(env.hostname);
  spec.set_command(src.path);
  *spec.mutable_rlimits() = PropagatedLimits(o);
  // The job creates its files with the submitter's umask (SLURM_UMASK, as Slurm's
  // sbatch sets it; stepd applies it), whatever --export says.
  bool has_umask = false;
  for (const auto& v : spec.env()) has_umask = has_umask || v.rfind("SLURM_UMASK=", 0) == 0;
  if (!has_umask) {
    mode_t mask = ::umask(022);
    ::umask(mask);
    char octal[8];
    std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mask & 0777));
    spec.add_env(std::string("SLURM_UMASK=") + octal);
  }
  if (spec.name().empty()) spec.set_name(DefaultJobName(src.path, o.has_wrap));
  RETURN_IF_ERROR(CheckSpecSizes(spec));
  return spec;
}

int WaitForJob(int64_t job_id, ClientApiInterface* api, CliEnv& env) {
  int64_t delay_ms = 250;
  for (;;) {
    GetJobsRequest req;
    req.add_job_ids(job_id);
    Expected<GetJobsReply> rep = api->GetJobs(req);
    if (!rep.ok()) {
      *env.err << "sbatch: error: slurm_load_jobs error: " << rep.status().message() << "\n";
      return 1;
    }
    for (const JobInfo& j : rep->jobs()) {
      if (j.job_id() != job_id || !IsTerminalState(j.state())) continue;
      if (j.exit_code() != 0) return j.exit_code();
      if (j.term_signal() != 0) return 128 + j.term_signal();
      return j.state() == JOB_COMPLETED ? 0 : 1;
    }
    env.sleep_ms(delay_ms);
    delay_ms = std::min<int64_t>(delay_ms * 2, 5000);
  }
}

int Submit(SbatchOptions& o, JobSpec spec, std::vector<JobSpec> het, CliEnv& env) {
  Expected<ClientApiInterface*> api = env.connect();
  SubmitRequest req;
  *req.mutable_spec() = std::move(spec);
  for (JobSpec& c : het) *req.add_het_components() = std::move(c);
  req.set_test_only(o.test_only);
  Expected<SubmitReply> rep =
      api.ok() ? (*api)->SubmitJob(req) : Expected<SubmitReply>(api.status());
  if (!rep.ok()) {
    PrintErrorLines(env, "sbatch", rep.status().message(), "Batch job submission failed: ");
    return 1;
  }
  if (o.test_only) {
    *env.err << "sbatch: " << rep->test_only_message() << "\n";
    return 0;
  }
  if (o.parsable) {
    *env.out << rep->job_id() << "\n";
  } else if (!o.quiet) {
    *env.out << "Submitted batch job " << rep->job_id() << "\n";
  }
  env.out->flush();
  return o.wait ? WaitForJob(rep->job_id(), *api, env) : 0;
}

}  // namespace

// The command line's components: `sbatch [opts0] : [opts1] ... script [args]`. Every one
// but the last ends at a ":" word; the last holds the script and its arguments.
Expected<std::vector<ParsedArgs>> ParseComponents(const std::vector<std::string>& args) {
  ParseSettings settings;
  settings.stop_at_first_positional = true;
  std::vector<ParsedArgs> lines;
  std::vector<std::string> rest = args;
  while (true) {
    ASSIGN_OR_RETURN(ParsedArgs p, ParseCommandLine("sbatch", rest, SbatchOptionDefs(), settings));
    const bool more = !p.positionals.empty() && p.positionals[0] == ":";
    if (more) {
      rest.assign(p.positionals.begin() + 1, p.positionals.end());
      p.positionals.clear();
    }
    lines.push_back(std::move(p));
    if (!more) return lines;
  }
}

int RunSbatch(const std::vector<std::string>& args, CliEnv& env) {
  Expected<std::vector<ParsedArgs>> lines = ParseComponents(args);
  if (!lines.ok()) {
    *env.err << lines.status().message() << "\nTry \"sbatch --help\" for more information\n";
    return kOptionError;
  }
  const ParsedArgs& line0 = lines->front();  // job-wide options: the first component's
  const std::vector<std::string>& positionals = lines->back().positionals;
  SbatchOptions cmd;  // the command line alone: finds the script and --help & co
  Status st = ApplySbatchOptions(line0.options, &cmd);
  if (!st.ok()) return OptionFailure(env, st);
  if (cmd.help || cmd.usage) {
    *env.out << HelpText("sbatch", cmd.usage ? HelpKind::kUsage : HelpKind::kHelp);
    return 0;
  }
  if (cmd.version) {
    *env.out << "slurm " << kSlurmVersion << "\n";
    return 0;
  }
  Expected<ScriptSource> src = LoadScript(cmd, positionals, env);
  if (!src.ok()) return OptionFailure(env, src.status());
  if (Status check = CheckBatchScript(src->text); !check.ok()) {
    PrintErrorLines(env, "sbatch", check.message());
    return 1;
  }
  std::vector<SbatchOptions> components(1);
  if (!cmd.has_wrap) {
    if (int rc = ApplyDirectives(src->text, &components, env); rc != 0) return rc;
  }
  // The environment is the first component's; each command-line component goes over the
  // script's component of the same place, or adds one.
  st = ApplySbatchOptions(SbatchEnvOptions(env.environ), &components[0]);
  for (size_t i = 0; st.ok() && i < lines->size(); ++i) {
    if (i == components.size()) components.emplace_back();
    st = ApplySbatchOptions((*lines)[i].options, &components[i]);
  }
  if (!st.ok()) return OptionFailure(env, st);
  SbatchOptions& o = components[0];
  std::vector<JobSpec> specs;
  for (SbatchOptions& c : components) {
    Expected<JobSpec> spec = BuildSpec(c, *src, positionals, env);
    if (!spec.ok()) return OptionFailure(env, spec.status());
    specs.push_back(std::move(*spec));
  }
  JobSpec first = std::move(specs[0]);
  specs.erase(specs.begin());
  return Submit(o, std::move(first), std::move(specs), env);
}

}  // namespace sluice
